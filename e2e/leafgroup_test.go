package e2e

import (
	"strings"
	"testing"
)

// TestTUIRepeatedLeavesFolded: the demo's ticker (`echo tick 1; sleep 1; …` for six seconds)
// asks because one of its leaves is on the ask list; the dialog lists that leaf first and each
// repeated leaf once with its count, so the request fits on the screen.
func TestTUIRepeatedLeavesFolded(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy.commands]\nask = [\"echo tick 4\"]\n")
	tm := startDemo(t, e, "long 6")
	tm.waitFor(modalReady)
	scr := tm.waitFor("allow sleep 1 → ")
	if !strings.Contains(scr, "(×6)") {
		t.Fatalf("the six sleep leaves are not folded into one (×6) line:\n%s", scr)
	}
	if n := strings.Count(scr, "allow sleep 1 → "); n != 1 {
		t.Fatalf("sleep 1 listed %d times, want once:\n%s", n, scr)
	}
	a, b := strings.Index(scr, "ask   echo tick 4 → "), strings.Index(scr, "allow echo tick 1 → ")
	if a < 0 || b < 0 || a > b {
		t.Fatalf("the asking leaf is not listed before the allowed ones:\n%s", scr)
	}
	tm.keys("a")
	tm.waitFor("tick 6")
	quit(t, e, tm, 0)
}
