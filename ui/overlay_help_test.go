package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestHelpShowsAllKeys(t *testing.T) {
	h := newHarness(t, map[string][]string{"leave_pane": {"ctrl+e"}})
	h.key("?")
	scr := h.screenText()
	for _, w := range []string{"ctrl+q", "quit", "ctrl+e", "leave pane", "alt+enter", "new line", "ctrl+o", "$PAGER"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("help lacks %q:\n%s", w, scr)
		}
	}
	h.key("x")
	if h.m.findOverlay("help") != nil || h.m.ed.value() != "" {
		t.Fatalf("help still open or key leaked: %v %q", h.m.overlays, h.m.ed.value())
	}
	h.typeText("why?")
	if h.m.ed.value() != "why?" || h.m.findOverlay("help") != nil {
		t.Fatalf("? inside text: %q overlays=%v", h.m.ed.value(), h.m.overlays)
	}
}

func TestHelpScrollsWhenTallerThanTheWindow(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.key("?")
	scr := h.screenText()
	if !strings.Contains(scr, "pgup/pgdn scroll") || !strings.Contains(scr, "send prompt") || strings.Contains(scr, "reject always") {
		t.Fatalf("help at 80x24, top:\n%s", scr)
	}
	for i := 0; i < 5; i++ {
		h.key("pgdown")
	}
	scr = h.screenText()
	if !strings.Contains(scr, "reject always") || strings.Contains(scr, "send prompt") {
		t.Fatalf("help at 80x24, scrolled to the end:\n%s", scr)
	}
	h.key("up")
	if h.m.findOverlay("help") == nil {
		t.Fatal("a scroll key closed the help")
	}
	h.key("x")
	if h.m.findOverlay("help") != nil || strings.Contains(h.screenText(), "pgup/pgdn scroll") {
		t.Fatal("another key did not close the help")
	}
	// Tall enough: no marker, everything shown.
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.key("?")
	if scr := h.screenText(); strings.Contains(scr, "pgup/pgdn scroll") || !strings.Contains(scr, "reject always") || !strings.Contains(scr, "send prompt") {
		t.Fatalf("help at 160x48:\n%s", scr)
	}
	h.key("down") // not scrollable: any key closes, as its title says
	if h.m.findOverlay("help") != nil {
		t.Fatal("down kept a help that fits open")
	}
}

// At 40 columns the help box keeps its right border: lines too long are cut with "…".
func TestHelpFitsNarrowWindow(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 40, Height: 30})
	h.key("?")
	scr := h.screenText()
	var keysRow, killRow string
	for _, r := range strings.Split(scr, "\n") {
		if strings.Contains(r, "Keys ·") {
			keysRow = r
		}
		if strings.Contains(r, "alt+k") {
			killRow = r
		}
	}
	if !regexp.MustCompile(`│ Keys · other keys close +│`).MatchString(keysRow) || !strings.Contains(killRow, "kill selected pane's c… │") {
		t.Fatalf("help box cut at 40 columns:\n%s", scr)
	}
}
