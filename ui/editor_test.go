package ui

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"
)

func typeKeys(e *editor, keys ...tea.KeyPressMsg) {
	for _, k := range keys {
		e.handleKey(k)
	}
}

func txt(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Text: s, Code: []rune(s)[0]} }

func TestEditorEditingAndWrap(t *testing.T) {
	e := newEditor()
	e.insert("hello world")
	typeKeys(e, tea.KeyPressMsg{Code: tea.KeyLeft}, tea.KeyPressMsg{Code: tea.KeyBackspace}, txt("L"))
	if e.value() != "hello worLd" {
		t.Fatalf("value = %q", e.value())
	}
	typeKeys(e, tea.KeyPressMsg{Code: tea.KeyEnd})
	e.newline()
	e.insert("x\ty")
	if e.value() != "hello worLd\nx\ty" || e.row != 1 || e.col != 3 {
		t.Fatalf("value = %q row %d col %d", e.value(), e.row, e.col)
	}
	typeKeys(e, tea.KeyPressMsg{Code: tea.KeyHome}, tea.KeyPressMsg{Code: tea.KeyBackspace})
	if e.value() != "hello worLdx\ty" || e.row != 0 || e.col != 11 {
		t.Fatalf("joined value = %q row %d col %d", e.value(), e.row, e.col)
	}
	typeKeys(e, tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	if e.value() != "hello x\ty" {
		t.Fatalf("after ctrl+w = %q", e.value())
	}
	rows, cr, cc := e.visual(4)
	if len(rows) != 3 || rows[0] != "hell" || rows[1] != "o x " || rows[2] != "y" || cr != 1 || cc != 2 {
		t.Fatalf("visual = %q cursor %d,%d", rows, cr, cc)
	}
	e.setValue("abcd")
	rows, cr, cc = e.visual(4)
	if len(rows) != 2 || rows[1] != "" || cr != 1 || cc != 0 {
		t.Fatalf("cursor after full row: %q %d,%d", rows, cr, cc)
	}
}

// A pasted tab stays a tab (Makefiles, Go code) and is shown up to the next tab stop.
func TestEditorKeepsTabs(t *testing.T) {
	e := newEditor()
	e.insert("all:\n\tgo build\r\nx\ty")
	if e.value() != "all:\n\tgo build\nx\ty" {
		t.Fatalf("value = %q", e.value())
	}
	rows, cr, cc := e.visual(20)
	if want := []string{"all:", "    go build", "x   y"}; !slices.Equal(rows, want) || cr != 2 || cc != 5 {
		t.Fatalf("visual = %q cursor %d,%d; want %q cursor 2,5", rows, cr, cc, want)
	}
	e.setValue("ab\tc")
	if rows, _, _ := e.visual(3); !slices.Equal(rows, []string{"ab", "   ", "c"}) {
		t.Fatalf("tab at the wrap: %q", rows)
	}
}

// alt+b/alt+f and ctrl+←/→ move by words, across lines at their ends.
func TestEditorWordMoves(t *testing.T) {
	e := newEditor()
	e.insert("one\nfoo bar  baz")
	var cols []int
	for _, k := range []tea.KeyPressMsg{
		{Code: 'b', Mod: tea.ModAlt}, {Code: 'b', Mod: tea.ModAlt}, {Code: tea.KeyLeft, Mod: tea.ModCtrl},
		{Code: 'f', Mod: tea.ModAlt}, {Code: tea.KeyRight, Mod: tea.ModCtrl}, {Code: tea.KeyRight, Mod: tea.ModCtrl},
		{Code: tea.KeyRight, Mod: tea.ModCtrl},
	} {
		typeKeys(e, k)
		cols = append(cols, e.col)
	}
	if want := []int{9, 4, 0, 3, 7, 12, 12}; !slices.Equal(cols, want) {
		t.Fatalf("columns %v, want %v", cols, want)
	}
	typeKeys(e, tea.KeyPressMsg{Code: tea.KeyHome}, tea.KeyPressMsg{Code: 'b', Mod: tea.ModAlt})
	if e.row != 0 || e.col != 3 {
		t.Fatalf("alt+b at a line start: row %d col %d, want the end of the line above", e.row, e.col)
	}
}

func TestEditorHistory(t *testing.T) {
	e := newEditor()
	e.push("first")
	e.push("second")
	e.insert("draft")
	e.historyPrev()
	if e.value() != "second" {
		t.Fatalf("prev = %q", e.value())
	}
	e.historyPrev()
	e.historyPrev()
	if e.value() != "first" {
		t.Fatalf("prev prev = %q", e.value())
	}
	e.historyNext()
	e.historyNext()
	if e.value() != "draft" {
		t.Fatalf("back to draft = %q", e.value())
	}
}

func TestCompletion(t *testing.T) {
	cmds := []acp.AvailableCommand{{Name: "review"}, {Name: "reset"}, {Name: "plan"}}
	e := newEditor()
	var c completion
	e.insert("/pl")
	e.complete(&c, cmds, "", nil)
	if e.value() != "/plan " {
		t.Fatalf("single command completion = %q", e.value())
	}
	e.reset()
	e.insert("/re")
	e.complete(&c, cmds, "", nil)
	if e.value() != "/re" || !c.active() || len(c.items) != 2 {
		t.Fatalf("ambiguous = %q %+v", e.value(), c)
	}
	e.complete(&c, cmds, "", nil)
	if e.value() != "/reset" {
		t.Fatalf("cycle 1 = %q", e.value())
	}
	e.complete(&c, cmds, "", nil)
	if e.value() != "/review" {
		t.Fatalf("cycle 2 = %q", e.value())
	}

	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "main.go"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "src", "main_test.go"), nil, 0o644)
	os.WriteFile(filepath.Join(root, ".env"), nil, 0o644)
	e.reset()
	c.clear()
	e.insert("look at @s")
	e.complete(&c, nil, root, []string{root})
	if e.value() != "look at @src/" {
		t.Fatalf("dir completion = %q", e.value())
	}
	e.complete(&c, nil, root, []string{root})
	if e.value() != "look at @src/" || len(c.items) != 3 {
		t.Fatalf("listing = %q %v", e.value(), c.items)
	}
	e.insert("ma")
	c.clear()
	e.complete(&c, nil, root, []string{root})
	if e.value() != "look at @src/main" || len(c.items) != 2 {
		t.Fatalf("common prefix = %q %v", e.value(), c.items)
	}
	// Names with spaces are written with "\ ", so the mention stays one word and completes on.
	os.MkdirAll(filepath.Join(root, "dir with space"), 0o755)
	os.WriteFile(filepath.Join(root, "dir with space", "notes file.md"), nil, 0o644)
	e.reset()
	e.insert("see @dir")
	c.clear()
	e.complete(&c, nil, root, []string{root})
	if e.value() != `see @dir\ with\ space/` {
		t.Fatalf("dir with spaces = %q", e.value())
	}
	e.insert("no")
	c.clear()
	e.complete(&c, nil, root, []string{root})
	if e.value() != `see @dir\ with\ space/notes\ file.md ` {
		t.Fatalf("file in a dir with spaces = %q", e.value())
	}
	// Outside the roots nothing is listed.
	e.reset()
	e.insert("@../")
	c.clear()
	e.complete(&c, nil, root, []string{root})
	if e.value() != "@../" || len(c.items) != 0 {
		t.Fatalf("outside roots = %q %v", e.value(), c.items)
	}
}
