package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// humanPause is a pause in typing as a person makes one mid-sentence. It is part of the input
// being tested (a pause once turned the next typed letter into an answer), not a wait for an
// event.
const humanPause = 800 * time.Millisecond

// TestTUITypedProseNeverAnswers: a request that arrives while the user is typing waits for tab;
// the prose typed meanwhile, pauses and enter included, goes to the prompt, whole, and answers
// nothing. Tab then moves to the request.
func TestTUITypedProseNeverAnswers(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "echo ready")
	tm.waitFor("ready")
	tm.typeText("perm")
	tm.keys("Enter")
	tm.waitFor("Permission 1 of 1")
	tm.waitFor(modalWaiting)
	for _, word := range []string{"Sure,", " go", " ahead", " Saved", " as", " rule"} {
		time.Sleep(humanPause)
		tm.typeText(word)
	}
	screen := tm.waitMatch(regexp.MustCompile(`(?m)^› (Sure, go ahead Saved as rule)\s*$`))
	if got := recorded(t, e, "permission"); len(got) != 0 {
		t.Fatalf("typed prose answered the request: %v", got)
	}
	if s := tm.capture(); !strings.Contains(s, modalWaiting) || !strings.Contains(s, "approval waiting · tab answers") {
		t.Fatalf("the request does not say it waits for tab (%v):\n%s", screen, s)
	}
	time.Sleep(humanPause)
	tm.keys("Enter") // sends the prompt: queued behind the running turn, never an answer
	tm.waitFor("1 queued")
	tm.keys("Tab")
	tm.waitFor(modalReady)
	if got := recorded(t, e, "permission"); len(got) != 0 {
		t.Fatalf("enter answered the request: %v", got)
	}
	tm.keys("a")
	tm.waitFor("permission outcome: selected allow-once")
	// The queued prose then reaches the agent as typed.
	tm.waitFor(`go ahead Saved as rule".)`)
	quit(t, e, tm, 0)
}

// TestTUILastingChoiceNeedsConfirm: "A" only selects "Always allow" (the hint says enter
// confirms); nothing reaches the agent until enter.
func TestTUILastingChoiceNeedsConfirm(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "perm")
	tm.waitFor(modalReady)
	tm.keys("A")
	tm.waitFor("enter confirms “Always allow”")
	tm.waitFor("› A/2   Always allow")
	if got := recorded(t, e, "permission"); len(got) != 0 {
		t.Fatalf("A alone answered: %v", got)
	}
	tm.keys("Enter")
	tm.waitFor("permission outcome: selected allow-always")
	quit(t, e, tm, 0)
}

// TestTUINoKeyDroppedAfterRequest: a request that appears while the user is idle takes the very
// next key (none is dropped for being early); a letter that is no choice lands in the prompt.
func TestTUINoKeyDroppedAfterRequest(t *testing.T) {
	t.Run("choice", func(t *testing.T) {
		e := newEnv(t)
		tm := startDemo(t, e, "perm")
		tm.waitFor("Permission 1 of 1")
		tm.keys("a")
		tm.waitFor("permission outcome: selected allow-once")
		quit(t, e, tm, 0)
	})
	t.Run("letter", func(t *testing.T) {
		e := newEnv(t)
		tm := startDemo(t, e, "perm")
		tm.waitFor("Permission 1 of 1")
		tm.typeText("xyz")
		tm.waitMatch(regexp.MustCompile(`(?m)^› xyz\s*$`))
		tm.waitFor(modalWaiting)
		if got := recorded(t, e, "permission"); len(got) != 0 {
			t.Fatalf("typing answered: %v", got)
		}
		tm.keys("Tab")
		tm.waitFor(modalReady)
		tm.keys("r")
		tm.waitFor("permission outcome: selected reject-once")
		quit(t, e, tm, 0)
	})
}
