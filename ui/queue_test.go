package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
)

// queued sends prompts while a turn runs, so they queue.
func queued(t *testing.T, prompts ...string) *harness {
	h := newHarness(t, nil)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1"}})
	h.typeText("first")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "first"})
	for _, p := range prompts {
		h.typeText(p)
		h.key("enter")
	}
	h.agent.take()
	return h
}

func TestQueueViewListsEditsRemovesMoves(t *testing.T) {
	h := queued(t, "one", "two", "three")
	if s := h.screenText(); !strings.Contains(s, "3 queued (alt+q edits)") {
		t.Fatalf("status bar:\n%s", s)
	}
	h.key("alt+q")
	s := h.screenText()
	for _, want := range []string{"Queued prompts · enter edits · d removes · K/J move · esc closes", "› 1. one", "  2. two", "  3. three"} {
		if !strings.Contains(s, want) {
			t.Fatalf("queue view lacks %q:\n%s", want, s)
		}
	}
	h.keys("down", "d")
	if !slices.Equal(h.m.queue, []string{"one", "three"}) {
		t.Fatalf("after d on the second: %q", h.m.queue)
	}
	h.key("K") // the selection (now "three") moves up
	if !slices.Equal(h.m.queue, []string{"three", "one"}) {
		t.Fatalf("after K: %q", h.m.queue)
	}
	h.keys("down", "enter")
	if s := h.screenText(); !strings.Contains(s, "Queued prompt 2 of 2 · enter saves") || !strings.Contains(s, "one") {
		t.Fatalf("edit view:\n%s", s)
	}
	h.typeText(" more")
	h.key("alt+enter")
	h.typeText("line")
	h.key("enter")
	if !slices.Equal(h.m.queue, []string{"three", "one more\nline"}) {
		t.Fatalf("after the edit: %q", h.m.queue)
	}
	h.keys("enter", "esc") // edit again, then leave it as it was
	if !slices.Equal(h.m.queue, []string{"three", "one more\nline"}) {
		t.Fatalf("esc changed the prompt: %q", h.m.queue)
	}
	// The turn ends while the view is open: nothing is sent until it closes.
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	if got := h.agent.take(); len(got) != 0 {
		t.Fatalf("sent while the queue view was open: %q", got)
	}
	h.key("esc")
	if got := h.agent.take(); !slices.Equal(got, []string{"prompt three"}) {
		t.Fatalf("after closing: %q", got)
	}
	if h.m.findOverlay(queueOverlayID) != nil {
		t.Fatal("the view is still open")
	}
}

func TestQueueViewEmptiedPromptIsRemovedAndPasteEdits(t *testing.T) {
	h := queued(t, "abc")
	h.keys("alt+q", "e")
	h.send(tea.PasteMsg{Content: "X\x1b[31m"})
	if s := h.screenText(); !strings.Contains(s, "abcX") {
		t.Fatalf("paste did not reach the prompt being edited:\n%s", s)
	}
	h.keys("ctrl+u", "enter")
	if len(h.m.queue) != 0 {
		t.Fatalf("an emptied prompt stays queued: %q", h.m.queue)
	}
	if s := h.screenText(); !strings.Contains(s, "No prompt is queued.") {
		t.Fatalf("screen:\n%s", s)
	}
	if !h.m.ed.empty() {
		t.Fatalf("the paste reached the prompt editor: %q", h.m.ed.value())
	}
}
