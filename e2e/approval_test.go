package e2e

import (
	"os"
	"path/filepath"
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

// TestTUIAgentAlwaysIsRemembered: the agent's "always allow" for deleting ./build becomes
// acpterm's grant: the same request later is answered by the policy without a dialog (the
// agent gets allow-once), alt+g lists the grant, and once revoked the request is asked again.
func TestTUIAgentAlwaysIsRemembered(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "perm")
	screen := tm.waitFor(modalReady)
	for _, want := range []string{"A/2   Always allow", "3     Always allow, and save as a rule (every session)", "r/4   Reject",
		`"always" is also remembered by acpterm as a grant for this session (alt+g lists it)`} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the dialog lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("A")
	tm.waitFor("enter confirms “Always allow”")
	tm.keys("Enter")
	tm.waitFor("permission outcome: selected allow-always")
	tm.typeText("perm")
	tm.keys("Enter")
	tm.waitUntil("the second outcome", func(s string) bool {
		return strings.Count(s, "permission outcome: selected") == 2
	})
	if got := recorded(t, e, "permission"); len(got) != 2 || got[1]["outcome"] != "selected allow-once" {
		t.Fatalf("the agent received %v, want allow-once from the grant the second time", got)
	}
	if s := tm.capture(); strings.Contains(s, "Permission 1 of 1") {
		t.Fatalf("the remembered request was asked:\n%s", s)
	}
	tm.keys("M-g")
	tm.waitFor("Grants · d revokes")
	tm.waitFor("session  grant: agent delete " + e.project + "/build")
	tm.keys("d")
	tm.waitFor("No grants in this session.")
	tm.keys("Escape")
	tm.waitGone("Grants · d revokes")
	tm.typeText("perm")
	tm.keys("Enter")
	tm.waitFor("Permission 1 of 1")
	tm.keys("Tab") // typed just before: the request waits for tab
	tm.waitFor(modalReady)
	tm.keys("r")
	tm.waitFor("permission outcome: selected reject-once")
	quit(t, e, tm, 0)
}

// TestTUIAgentAlwaysSavedAsRule: "always allow, and save as a rule" saves the grant in the
// grants file; a new acpterm run answers the same request from it without a dialog.
func TestTUIAgentAlwaysSavedAsRule(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "perm")
	tm.waitFor(modalReady)
	tm.keys("3")
	tm.waitFor("enter confirms “Always allow, and save as a rule (every session)”")
	tm.keys("Enter")
	tm.waitFor("permission outcome: selected allow-always")
	quit(t, e, tm, 0)
	b, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "grants.json"))
	if err != nil || !strings.Contains(string(b), `"tool": "delete"`) || !strings.Contains(string(b), `"path": "`+e.project+`/build"`) {
		t.Fatalf("grants file = %s, %v", b, err)
	}
	tm.acpterm("--demo", "--cwd", e.project, "--prompt", "perm")
	tm.waitFor("permission outcome: selected allow-once")
	if s := tm.capture(); strings.Contains(s, "Permission 1 of 1") {
		t.Fatalf("the saved grant did not answer the request:\n%s", s)
	}
	tm.keys("C-q")
	if code := tm.exitCode(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
