package ui

import (
	"os"
	"path/filepath"
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
	if e.value() != "hello worLd\nx y" || e.row != 1 || e.col != 3 {
		t.Fatalf("value = %q row %d col %d", e.value(), e.row, e.col)
	}
	typeKeys(e, tea.KeyPressMsg{Code: tea.KeyHome}, tea.KeyPressMsg{Code: tea.KeyBackspace})
	if e.value() != "hello worLdx y" || e.row != 0 || e.col != 11 {
		t.Fatalf("joined value = %q row %d col %d", e.value(), e.row, e.col)
	}
	typeKeys(e, tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	if e.value() != "hello x y" {
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
	// Outside the roots nothing is listed.
	e.reset()
	e.insert("@../")
	c.clear()
	e.complete(&c, nil, root, []string{root})
	if e.value() != "@../" || len(c.items) != 0 {
		t.Fatalf("outside roots = %q %v", e.value(), c.items)
	}
}
