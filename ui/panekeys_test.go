package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/terminals"
)

// TestPaneJumpKeys: alt+N selects pane N, alt+0 the pane selected before (back and forth), a
// number with no pane says so, and the pane titles show their numbers once there are two.
func TestPaneJumpKeys(t *testing.T) {
	h := newHarness(t, nil)
	startPane(h, "t1")
	if scr := h.screenText(); !strings.Contains(scr, "─ $ cat t1") {
		t.Fatalf("a lone pane has no number:\n%s", scr)
	}
	startPane(h, "t2")
	startPane(h, "t3")
	if h.m.selected != 2 {
		t.Fatalf("selected %d after three panes", h.m.selected)
	}
	h.key("alt+1")
	if h.m.selected != 0 {
		t.Fatalf("alt+1 selected %d", h.m.selected)
	}
	h.key("alt+0")
	if h.m.selected != 2 {
		t.Fatalf("alt+0 went to %d, want the pane selected before (2)", h.m.selected)
	}
	h.key("alt+0")
	if h.m.selected != 0 {
		t.Fatalf("second alt+0 went to %d, want 0", h.m.selected)
	}
	h.key("alt+5")
	if h.m.selected != 0 {
		t.Fatalf("alt+5 moved the selection to %d", h.m.selected)
	}
	if scr := h.screenText(); !strings.Contains(scr, "no pane 5 (there are 3)") {
		t.Fatalf("no banner for a missing pane:\n%s", scr)
	}
	// ctrl+t records the pane it leaves too.
	h.key("ctrl+t")
	h.key("alt+0")
	if h.m.selected != 0 {
		t.Fatalf("alt+0 after ctrl+t went to %d", h.m.selected)
	}
	h.key("ctrl+f") // zoomed: the one pane shown keeps its number
	if scr := h.screenText(); !strings.Contains(scr, "─ 1 $ cat t1") {
		t.Fatalf("zoomed pane title:\n%s", scr)
	}
}

// TestPaneJumpWhileTyping: alt+N while typing into a pane moves the keyboard to pane N when it
// runs (focus reports go to both programs), and leaves typing mode when it has finished; the
// key never reaches the program.
func TestPaneJumpWhileTyping(t *testing.T) {
	h := newHarness(t, nil)
	t1 := startPane(h, "t1")
	t2 := startPane(h, "t2")
	t1.scr.Write([]byte("\x1b[?1004h"))
	t2.scr.Write([]byte("\x1b[?1004h"))
	h.key("ctrl+g") // type into t2
	h.key("x")
	h.key("alt+1")
	if !h.m.focused || h.m.selected != 0 {
		t.Fatalf("after alt+1: focused %v selected %d", h.m.focused, h.m.selected)
	}
	h.key("y")
	if got := strings.Join(t2.input, ","); got != `write "\x1b[I",key x,write "\x1b[O"` {
		t.Fatalf("t2 input %q", got)
	}
	if got := strings.Join(t1.input, ","); got != `write "\x1b[I",key y` {
		t.Fatalf("t1 input %q", got)
	}
	t2.exit = &terminals.ExitStatus{Code: new(int)}
	h.m.paneByID["t2"].exit = t2.exit
	h.key("alt+2")
	if h.m.focused || h.m.selected != 1 {
		t.Fatalf("jump to a finished pane: focused %v selected %d", h.m.focused, h.m.selected)
	}
}

// TestPrefixKey: ctrl+b in a focused pane waits for a pane command (the title lists them): z
// zooms, n/p select the next/previous pane keeping the keyboard, d leaves, ctrl+b twice sends
// ctrl+b to the program; an unknown command is said, and reaches no program.
func TestPrefixKey(t *testing.T) {
	h := newHarness(t, nil)
	t1 := startPane(h, "t1")
	t2 := startPane(h, "t2")
	h.key("ctrl+g")
	h.key("ctrl+b")
	if scr := h.screenText(); !strings.Contains(scr, "─ ctrl+b: "+prefixHelp+" · ctrl+b again sends it ─") || !strings.Contains(scr, "─ 2 [ctrl+b …] $ cat t2") {
		t.Fatalf("prefix pending title:\n%s", scr)
	}
	h.key("z")
	if !h.m.zoomed || !h.m.focused {
		t.Fatalf("ctrl+b z: zoomed %v focused %v", h.m.zoomed, h.m.focused)
	}
	h.keys("ctrl+b", "z")
	if h.m.zoomed {
		t.Fatal("ctrl+b z again did not unzoom")
	}
	h.keys("ctrl+b", "ctrl+b")
	if got := strings.Join(t2.input, ","); got != "key ctrl+b" {
		t.Fatalf("ctrl+b twice sent %q", got)
	}
	h.keys("ctrl+b", "p")
	if h.m.selected != 0 || !h.m.focused {
		t.Fatalf("ctrl+b p: selected %d focused %v", h.m.selected, h.m.focused)
	}
	h.keys("ctrl+b", "n")
	if h.m.selected != 1 || !h.m.focused {
		t.Fatalf("ctrl+b n: selected %d focused %v", h.m.selected, h.m.focused)
	}
	h.keys("ctrl+b", "l")
	if h.m.selected != 0 {
		t.Fatalf("ctrl+b l: selected %d", h.m.selected)
	}
	h.keys("ctrl+b", "q")
	if scr := h.screenText(); !strings.Contains(scr, "ctrl+b q is no pane command") {
		t.Fatalf("unknown command not said:\n%s", scr)
	}
	h.keys("ctrl+b", "d")
	if h.m.focused {
		t.Fatal("ctrl+b d did not leave the pane")
	}
	if got := strings.Join(t1.input, ","); got != "" {
		t.Fatalf("t1 got %q", got)
	}
	// Outside a pane ctrl+b is the editor's (cursor left), not a prefix.
	h.typeText("ab")
	h.key("ctrl+b")
	h.typeText("X")
	if got := h.m.ed.value(); got != "aXb" {
		t.Fatalf("editor %q", got)
	}
}

// TestPrefixKeyRebound: the prefix is configurable ([ui.keys] prefix).
func TestPrefixKeyRebound(t *testing.T) {
	h := newHarness(t, map[string][]string{"prefix": {"ctrl+a"}})
	t1 := startPane(h, "t1")
	h.key("ctrl+g")
	h.key("ctrl+b")
	h.keys("ctrl+a", "ctrl+a")
	if got := strings.Join(t1.input, ","); got != "key ctrl+b,key ctrl+a" {
		t.Fatalf("input %q", got)
	}
	h.keys("ctrl+a", "z")
	if !h.m.zoomed {
		t.Fatal("ctrl+a z did not zoom")
	}
}
