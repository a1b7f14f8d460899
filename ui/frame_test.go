package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

func TestFrameIsCachedAndLinesFit(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(strings.Repeat("word ", 200))})
	h.m.redraw()
	f1 := h.m.frame
	h.m.redraw() // nothing changed: the same frame, not rebuilt
	if h.m.frame != f1 || h.m.needFrame {
		t.Fatal("frame rebuilt without a change")
	}
	if v := h.m.View(); v.Content != f1 || !v.AltScreen {
		t.Fatal("View does not return the cached frame")
	}
	startPane(h, "t1")
	startPane(h, "t2")
	h.ev(ask("p1"))
	for _, w := range []int{20, 37, 80, 119, 120, 200} {
		t.Run(fmt.Sprintf("width %d", w), func(t *testing.T) {
			h.send(tea.WindowSizeMsg{Width: w, Height: 24})
			for i, l := range strings.Split(h.screenText(), "\n") {
				if lw := ansi.StringWidth(l); lw > max(w, minWindowWidth) {
					t.Fatalf("width %d: row %d is %d cells: %q", w, i, lw, l)
				}
			}
		})
	}
}

func TestTooSmallWindowSaysSo(t *testing.T) {
	h := newHarness(t, nil)
	startPane(h, "a")
	for _, c := range []struct {
		w, h int
		want string
	}{{19, 24, "window 19x24"}, {60, 5, "window 60x5"}, {12, 3, "window 12x3"}} {
		t.Run(c.want, func(t *testing.T) {
			h.send(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			scr := h.screenText()
			if !strings.Contains(scr, "needs 20x6") || !strings.Contains(scr, c.want) {
				t.Fatalf("%dx%d:\n%s", c.w, c.h, scr)
			}
			for i, l := range strings.Split(scr, "\n") {
				if lw := ansi.StringWidth(l); lw > c.w || i >= c.h {
					t.Fatalf("%dx%d: row %d (%d cells) outside the window: %q", c.w, c.h, i, lw, l)
				}
			}
		})
	}
	h.send(tea.WindowSizeMsg{Width: 20, Height: 6})
	if scr := h.screenText(); strings.Contains(scr, "needs 20x6") {
		t.Fatalf("20x6 is big enough:\n%s", scr)
	}
}

func TestWholeFrameGolden(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "demo", AgentVersion: "1.0", SessionID: "s-1"}})
	h.ev(acpclient.TurnStarted{Prompt: "list files"})
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("Running `ls`.")})
	ft := startPane(h, "t1")
	ft.scr.Write([]byte("a.go  b.go"))
	got := strings.Split(h.screenText(), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	want := []string{
		"› list files",
		"",
		"Running \u00a0ls\u00a0.", // glamour pads inline code with no-break spaces
		"",
		"• tool call call-t1  pending",
		"  ┌ terminal · running",
		"  │ a.go  b.go",
		"╭─ $ cat t1 · /work · running · 0s · alt+k kills ──────────╮",
		"│a.go  b.go                                                │",
		"│                                                          │",
		"│                                                          │",
		"│                                                          │",
		"╰──────────────────────────────────────────────────────────╯",
		"─ working · esc cancels ────────────────────────────────────",
		"›",
		" ⠋ working · policy built-in defaults (policy only)  ? help",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range got {
			if i >= len(want) || got[i] != want[i] {
				t.Errorf("row %d = %q", i, got[i])
			}
		}
		t.Fatalf("frame:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
