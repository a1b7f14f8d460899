package e2e

import (
	"slices"
	"testing"
)

// TestTUIQueuedPromptsView: prompts typed during a turn are listed by alt+q, where one is
// removed and one edited in place; the turn ends while the view is open and nothing is sent
// until it closes; then the queue goes out in its new order, as edited.
func TestTUIQueuedPromptsView(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "long 6")
	tm.waitFor("│tick 1")
	for _, p := range []string{"echo one", "echo two", "echo three"} {
		tm.typeText(p)
		tm.keys("Enter")
	}
	tm.waitFor("3 queued (alt+q edits)")
	tm.keys("M-q")
	tm.waitFor("Queued prompts · enter edits · d removes · K/J move · esc closes")
	tm.waitFor("› 1. echo one")
	tm.keys("Down", "d")
	tm.waitFor("› 2. echo three")
	tm.waitGone("echo two")
	tm.keys("Up", "Enter")
	tm.waitFor("Queued prompt 1 of 2 · enter saves")
	tm.keys("C-u")
	tm.typeText("echo edited")
	tm.keys("Enter")
	tm.waitFor("› 1. echo edited")
	tm.waitGone(" working") // the turn ended while the view was open…
	if got := prompts(t, e); !slices.Equal(got, []string{"long 6"}) {
		t.Fatalf("prompts sent while the queue view was open: %q", got)
	}
	tm.keys("Escape") // …and closing it sends the queue, as edited
	tm.waitUntil("both queued prompts sent", func(string) bool { return len(prompts(t, e)) == 3 })
	if got, want := prompts(t, e), []string{"long 6", "echo edited", "echo three"}; !slices.Equal(got, want) {
		t.Fatalf("prompts = %q, want %q", got, want)
	}
	tm.waitGone(" working")
	quit(t, e, tm, 0)
}

// prompts lists the prompt texts the demo agent received, in order.
func prompts(t *testing.T, e *testEnv) []string {
	t.Helper()
	var out []string
	for _, r := range recorded(t, e, "prompt") {
		s, _ := r["text"].(string)
		out = append(out, s)
	}
	return out
}
