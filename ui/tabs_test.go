package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// tabRow is the tab bar row of the frame (the row holding pane 1's or a "more" marker).
func tabRow(t *testing.T, h *harness) string {
	t.Helper()
	for _, r := range rowsOf(h.screenText()) {
		if strings.Contains(r, " · running ") && strings.Contains(r, "│") && !strings.Contains(r, "╭") {
			return r
		}
	}
	t.Fatalf("no tab bar:\n%s", h.screenText())
	return ""
}

// At 80 columns eight panes do not fit in the tab bar: it shows the selected one with its
// neighbours and "+N more" for each side with hidden tabs, and names panes by their tool call's
// title when there is one.
func TestTabBarOverflow(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	for i := 1; i <= 8; i++ {
		id := fmt.Sprintf("t%d", i)
		h.ev(acpclient.SessionUpdated{Update: acp.StartToolCall(acp.ToolCallId("call-"+id), fmt.Sprintf("Step %d", i), acp.WithStartKind(acp.ToolKindExecute))})
		startPane(h, id)
	}
	for _, c := range []struct {
		selected int
		want     []string
		not      []string
	}{
		{7, []string{" +5 more ", " 6 Step 6 · running ", " 7 Step 7 · running ", " 8 Step 8 · running"}, []string{" 5 Step 5"}},
		{0, []string{" 1 Step 1 · running ", " 2 Step 2 · running ", " 3 Step 3 · running ", " +5 more"}, []string{" 4 Step 4", "cat t1"}},
		{4, []string{" +4 more ", " 5 Step 5 · running ", " 6 Step 6 · running ", " +2 more"}, []string{" 4 Step 4", " 7 Step 7"}},
	} {
		t.Run(fmt.Sprintf("selected %d", c.selected+1), func(t *testing.T) {
			h.m.selected = c.selected
			h.m.applyLayout()
			row := tabRow(t, h)
			for _, w := range c.want {
				if !strings.Contains(row, w) {
					t.Errorf("tab bar %q lacks %q", row, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(row, w) {
					t.Errorf("tab bar %q shows %q", row, w)
				}
			}
			if len([]rune(row)) > 80 {
				t.Errorf("tab bar is %d cells wide", len([]rune(row)))
			}
			// A click on the selected tab hits it.
			sel := fmt.Sprintf(" %d Step", c.selected+1)
			x := strings.Index(row, sel)
			x = len([]rune(row[:x])) + 1
			if got := h.m.tabAt(x - h.m.lay.tabs.Min.X); got != c.selected {
				t.Errorf("tabAt(%d) = %d, want %d", x, got, c.selected)
			}
		})
	}
}

// A pane whose tool call has no title is named by its command line.
func TestTabNameFallsBackToCommand(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	for i := 1; i <= 3; i++ {
		startPane(h, fmt.Sprintf("t%d", i))
	}
	if row := tabRow(t, h); !strings.Contains(row, " 1 cat t1 · running ") {
		t.Fatalf("tab bar = %q", row)
	}
}
