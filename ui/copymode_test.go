package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// copyPane starts a pane and fills it with n lines "line 001" … (most of them scrolled off).
func copyPane(h *harness, n int) *fakeTerm {
	ft := startPane(h, "t1")
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %03d\r\n", i)
	}
	b.WriteString("$ ")
	ft.scr.Write([]byte(b.String()))
	h.screenText()
	return ft
}

// copyTitle is the copy-mode pane's title row.
func copyTitle(t *testing.T, h *harness) string {
	t.Helper()
	r := rowWith(h.screenText(), "copy mode · line")
	if r == "" {
		t.Fatalf("no copy-mode title:\n%s", h.screenText())
	}
	return r
}

// TestCopyModeMovesAndScrolls: alt+v opens copy mode with the cursor on the program's cursor;
// g goes to the first line of the history (shown at the top), G to the last, pgup a page up;
// q leaves, back to the live view.
func TestCopyModeMovesAndScrolls(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 100)
	h.key("alt+v")
	if h.m.nav.copy == nil {
		t.Fatal("alt+v did not start copy mode")
	}
	c := h.m.nav.copy
	if !strings.Contains(copyTitle(t, h), fmt.Sprintf("copy mode · line %d/%d", len(c.lines), len(c.lines))) {
		t.Fatalf("title %q, %d lines", copyTitle(t, h), len(c.lines))
	}
	h.key("g")
	scr := h.screenText()
	if !strings.Contains(scr, "│line 001") || strings.Contains(scr, "│line 100") {
		t.Fatalf("g did not show the top of the history:\n%s", scr)
	}
	if !strings.Contains(copyTitle(t, h), "line 1/") {
		t.Fatalf("title after g: %q", copyTitle(t, h))
	}
	h.keys("j", "j")
	if c.cur.Y != 2 {
		t.Fatalf("cursor line %d after j j", c.cur.Y)
	}
	h.key("G")
	if !strings.Contains(h.screenText(), "│$") {
		t.Fatalf("G did not show the last line:\n%s", h.screenText())
	}
	y := c.cur.Y
	h.key("pgup")
	if c.cur.Y != y-c.rows {
		t.Fatalf("pgup moved the cursor from %d to %d (page %d)", y, c.cur.Y, c.rows)
	}
	h.key("q")
	if h.m.nav.copy != nil || h.m.findOverlay("copy") != nil {
		t.Fatal("q did not leave copy mode")
	}
	if strings.Contains(h.screenText(), "copy mode") {
		t.Fatal("copy mode still drawn")
	}
}

// TestCopyModeSearch: / searches up from the cursor, n goes on to older matches, N back to
// newer ones, wrapping around; matches are counted in the title; an upper-case letter makes
// the search case-sensitive; no match is said.
func TestCopyModeSearch(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 100)
	h.key("alt+v")
	c := h.m.nav.copy
	h.key("/")
	h.typeText("line 05")
	if !strings.Contains(h.screenText(), "search up: line 05█") {
		t.Fatalf("query not shown:\n%s", h.screenText())
	}
	h.key("enter")
	// line 050 … line 059: ten matches; the nearest above the cursor is line 059.
	if got := c.text[c.cur.Y]; got != "line 059" {
		t.Fatalf("first match on %q", got)
	}
	if !strings.Contains(copyTitle(t, h), "match 10/10") {
		t.Fatalf("title %q", copyTitle(t, h))
	}
	h.key("n")
	if got := c.text[c.cur.Y]; got != "line 058" || !strings.Contains(copyTitle(t, h), "match 9/10") {
		t.Fatalf("n went to %q, title %q", got, copyTitle(t, h))
	}
	h.key("N")
	h.key("N") // past the newest: wraps to the oldest
	if got := c.text[c.cur.Y]; got != "line 050" {
		t.Fatalf("N N went to %q", got)
	}
	if !strings.Contains(h.screenText(), "search wrapped to the top") {
		t.Fatalf("no wrap note:\n%s", h.screenText())
	}
	// The current match is drawn reversed, the other matches underlined, the rest plain.
	attrs := func(text string) string {
		scr := h.screenText()
		for y, r := range strings.Split(scr, "\n") {
			if x := strings.Index(r, "│"+text); x >= 0 {
				x = ansi.StringWidth(r[:x]) + 1
				var out []string
				for i := 0; i < 8; i++ {
					c := h.m.canvas.CellAt(x+i, y)
					out = append(out, fmt.Sprintf("%s:%d/%d", c.Content, c.Style.Attrs&uv.AttrReverse, c.Style.Underline))
				}
				return strings.Join(out, " ")
			}
		}
		return "not found"
	}
	if got := attrs("line 050"); got != "l:32/0 i:32/0 n:32/0 e:32/0  :32/0 0:32/0 5:32/0 0:0/0" {
		t.Fatalf("current match cells %s", got)
	}
	if got := attrs("line 051"); got != "l:0/1 i:0/1 n:0/1 e:0/1  :0/1 0:0/1 5:0/1 1:0/0" {
		t.Fatalf("other match cells %s", got)
	}
	if got := attrs("line 060"); got != "l:0/0 i:0/0 n:0/0 e:0/0  :0/0 0:0/0 6:0/0 0:0/0" {
		t.Fatalf("plain cells %s", got)
	}
	h.key("/")
	h.typeText("LINE")
	h.key("enter")
	if !strings.Contains(h.screenText(), `no match for "LINE"`) {
		t.Fatalf("no no-match note:\n%s", h.screenText())
	}
}

// TestCopyModeSelectAndCopy: v starts a selection at the cursor, movement extends it, y copies
// it with tea.SetClipboard (OSC 52 through Bubble Tea) and leaves copy mode; V selects whole
// lines; nothing selected says so.
func TestCopyModeSelectAndCopy(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 100)
	h.key("alt+v")
	c := h.m.nav.copy
	h.key("/")
	h.typeText("line 042")
	h.key("enter")
	h.key("y")
	if !strings.Contains(h.screenText(), "nothing selected") || h.m.nav.copy == nil {
		t.Fatal("y without a selection")
	}
	h.keys("l", "l", "l", "l", "l", "v", "j", "h", "h")
	if got := c.selectedText(); got != "042\nline" {
		t.Fatalf("selection %q", got)
	}
	_, cmd := h.m.Update(keyMsg("y"))
	if h.m.nav.copy != nil {
		t.Fatal("copy mode still open after y")
	}
	if got := clipboardOf(t, cmd); got != "042\nline" {
		t.Fatalf("clipboard %q", got)
	}
	if !strings.Contains(h.screenText(), "copied 2 lines (8 bytes) to the clipboard") {
		t.Fatalf("no banner:\n%s", h.screenText())
	}
	h.key("alt+v")
	h.keys("/", "l", "i", "n", "e", " ", "0", "9", "9", "enter", "V", "j")
	_, cmd = h.m.Update(keyMsg("enter"))
	if got := clipboardOf(t, cmd); got != "line 099\nline 100" {
		t.Fatalf("line selection %q", got)
	}
}

// clipboardOf runs cmd and returns the text of the tea.SetClipboard message it yields.
func clipboardOf(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	want := fmt.Sprintf("%T", tea.SetClipboard("")())
	var found []string
	var walk func(tea.Cmd)
	walk = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, x := range msg {
				walk(x)
			}
		default:
			if fmt.Sprintf("%T", msg) == want {
				found = append(found, fmt.Sprint(msg))
			}
		}
	}
	walk(cmd)
	if len(found) != 1 {
		t.Fatalf("%d clipboard messages", len(found))
	}
	return found[0]
}

// TestCopyModeFromTypingResumes: prefix [ while typing into a pane starts copy mode (keys no
// longer reach the program), and q goes back to typing into it.
func TestCopyModeFromTypingResumes(t *testing.T) {
	h := newHarness(t, nil)
	ft := copyPane(h, 30)
	h.key("ctrl+g")
	h.keys("ctrl+b", "[")
	if h.m.nav.copy == nil || h.m.focused {
		t.Fatalf("copy mode %v focused %v", h.m.nav.copy != nil, h.m.focused)
	}
	h.keys("k", "x", "q")
	if !h.m.focused {
		t.Fatal("q did not resume typing")
	}
	h.key("z")
	if got := strings.Join(ft.input, ","); got != "key z" {
		t.Fatalf("program input %q", got)
	}
}

// TestCopyModeMouse: in copy mode the wheel scrolls the view, a click puts the cursor on the
// cell, a drag selects; a click outside the pane ends copy mode.
func TestCopyModeMouse(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 100)
	h.key("alt+v")
	c := h.m.nav.copy
	in := interior(h.m.lay.panes[0].outer)
	top := c.top
	h.send(tea.MouseWheelMsg{X: in.Min.X + 1, Y: in.Min.Y + 1, Button: tea.MouseWheelUp})
	if c.top != top-3 {
		t.Fatalf("wheel up: top %d, was %d", c.top, top)
	}
	h.send(tea.MouseClickMsg{X: in.Min.X + 5, Y: in.Min.Y, Button: tea.MouseLeft})
	if c.cur.X != 5 || c.cur.Y != c.top || c.sel {
		t.Fatalf("click: cursor %v top %d sel %v", c.cur, c.top, c.sel)
	}
	h.send(tea.MouseMotionMsg{X: in.Min.X + 6, Y: in.Min.Y + 1, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: in.Min.X + 6, Y: in.Min.Y + 1, Button: tea.MouseLeft})
	if !c.sel {
		t.Fatal("drag did not select")
	}
	want := c.text[c.top][5:] + "\n" + c.text[c.top+1][:7]
	if got := c.selectedText(); got != want {
		t.Fatalf("dragged selection %q, want %q", got, want)
	}
	h.send(tea.MouseClickMsg{X: 1, Y: 1, Button: tea.MouseLeft}) // the conversation
	if h.m.nav.copy != nil {
		t.Fatal("a click outside the pane left copy mode open")
	}
}

// TestCopyModeApprovalWaits: a permission request that arrives in copy mode waits for the answer
// key, as when typing: copy mode keeps its keys (a is not "allow"), and tab leaves copy mode for
// the request.
func TestCopyModeApprovalWaits(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 50)
	h.key("alt+v")
	h.ev(ask("p1"))
	h.keys("k", "a")
	if h.m.nav.copy == nil || len(h.agent.take()) != 0 {
		t.Fatal("the request took copy mode's keys")
	}
	h.key("tab")
	if h.m.nav.copy != nil || !h.m.appr.focus {
		t.Fatalf("tab: copy mode open %v, approval has keys %v", h.m.nav.copy != nil, h.m.appr.focus)
	}
	h.key("a")
	wantCalls(t, h.agent.take(), `answer p1 option="allow-once" choice=""`)
}

// TestCopyModeCtrlCLeaves: ctrl+c leaves copy mode (as in tmux) and does not quit or cancel.
func TestCopyModeCtrlCLeaves(t *testing.T) {
	h := newHarness(t, nil)
	copyPane(h, 10)
	h.key("alt+v")
	h.key("ctrl+c")
	if h.m.nav.copy != nil || h.quit {
		t.Fatalf("ctrl+c: copy mode open %v, quit %v", h.m.nav.copy != nil, h.quit)
	}
	if scr := h.screenText(); !strings.Contains(scr, "─ $ cat t1 · /work · running") || strings.Contains(scr, "copy mode") {
		t.Fatalf("pane not back to its live view:\n%s", h.screenText())
	}
}
