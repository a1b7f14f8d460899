package realagents

import (
	"regexp"
	"testing"
	"time"
)

// Mode and model switches with the old kit's agents (claude-agent-acp 0.23.1 and 0.17.1,
// codex-acp 0.16): each starts in the asking mode named here; alt+m moves to the next mode, which
// the status bar shows with whether it asks (want) and, for one that does not, a warning; alt+p
// moves to the next model; ctrl+q leaves nothing running (newRun's cleanup checks). Today's
// agents are in testCurrentTUI.
func testTUIModeModel(t *testing.T, agent, mode, want string) {
	t.Parallel()
	r := newRun(t, agent)
	if agent == codex {
		// codex-acp 0.16 offers its modes only when codex's approval policy and sandbox are one
		// of its presets (on-request with read-only is "Read Only"); newRun's "untrusted" with
		// danger-full-access is none. No command runs here, so the read-only sandbox (bubblewrap)
		// is never needed.
		if err := r.writeCodexConfig("gpt-5.3-codex", "on-request", "read-only"); err != nil {
			t.Fatal(err)
		}
	}
	s := r.startTUI(t, r.writeConfig(policyOpts{}))
	s.waitScreen(`· mode `+regexp.QuoteMeta(mode)+` \(asks\) ·`, startTimeout)
	mode0, _, model0 := statusOf(s.screen())
	if model0 == "" {
		s.waitScreen(`· model \S`, 10*time.Second)
		_, _, model0 = statusOf(s.screen())
	}
	s.keys("M-m")
	var mode1, asks1 string
	if !waitFor(30*time.Second, func() bool { mode1, asks1, _ = statusOf(s.screen()); return mode1 != "" && mode1 != mode0 }) {
		t.Fatalf("alt+m did not change the mode from %q:\n%s", mode0, s.screen())
	}
	if asks1 != want {
		t.Errorf("mode %q: the status bar says %q, want %q", mode1, asks1, want)
	}
	if asks1 == "does not ask" {
		s.waitScreen(`⚠ mode `+regexp.QuoteMeta(mode1)+` does not ask`, 10*time.Second)
	}
	s.keys("M-p")
	var model1 string
	if !waitFor(30*time.Second, func() bool { _, _, model1 = statusOf(s.screen()); return model1 != "" && model1 != model0 }) {
		t.Fatalf("alt+p did not change the model from %q:\n%s", model0, s.screen())
	}
	t.Logf("mode %q → %q (%s), model %q → %q", mode0, mode1, asks1, model0, model1)
	if st := s.quit(); st != "0" {
		t.Errorf("acpterm exited %s, want 0", st)
	}
}

func TestTUIModeModelClaude(t *testing.T) { testTUIModeModel(t, claudeNew, "Default", "does not ask") }
func TestTUIModeModelClaudeLegacy(t *testing.T) {
	testTUIModeModel(t, claudeLegacy, "Default", "does not ask")
}
func TestTUIModeModelCodex(t *testing.T) { testTUIModeModel(t, codex, "Read Only", "does not ask") }
