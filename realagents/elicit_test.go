package realagents

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// Questions from today's agents (ACP elicitation): claude-agent-acp 0.101's AskUserQuestion and
// codex-acp 2.6's request_user_input reach acpterm's question dialog only because acpterm
// declares the elicitation capability; the answer typed there is what the model gets back.

// toolResultWith reports whether a request to the mock model carried a tool result holding want.
func (r *run) toolResultWith(want string) bool {
	for _, q := range r.mock.Requests() {
		for _, tr := range q.ToolResults {
			if strings.Contains(tr, want) {
				return true
			}
		}
	}
	return false
}

// answerQuestion waits for the question dialog with Red/Blue, gives it the keys, picks Blue
// and submits it.
func (s *tuiSession) answerQuestion() {
	s.t.Helper()
	scr := s.waitScreen(`Question from the agent`, turnTimeout)
	if !strings.Contains(scr, "( ) Red") {
		s.waitScreen(`\( \) Red`, 10*time.Second)
	}
	if strings.Contains(s.screen(), "tab answers") {
		s.keys("Tab")
		s.waitScreen(`esc cancel`, 10*time.Second)
	}
	s.keys("Right", "Right")
	s.waitScreen(`\(•\) Blue`, 10*time.Second)
	s.keys("Enter")
}

func TestCurrentTUIClaudeAsk(t *testing.T) {
	r := newRun(t, claudeCurrent)
	s := r.startTUI(t, r.writeConfig(policyOpts{}), "ask me a question")
	s.answerQuestion()
	s.waitScreen(`Thanks for the answer\.`, turnTimeout)
	s.waitScreen(`question accept: question_0`, 10*time.Second)
	if !r.toolResultWith(`"Which color should the file be?"="Blue"`) {
		t.Fatalf("the model did not get the answer; requests: %+v", r.mock.Requests())
	}
	if st := s.quit(); st != "0" {
		t.Fatalf("exit status %s", st)
	}
}

func TestCurrentTUICodexAsk(t *testing.T) {
	r := newRun(t, codexCurrent)
	s := r.startTUI(t, r.writeConfig(policyOpts{}))
	s.waitScreen(`session \S+`, startTimeout)
	// codex offers request_user_input only in its Plan collaboration mode: set it in the
	// options dialog first.
	s.keys("M-c")
	scr := s.waitScreen(`Collaboration mode`, 10*time.Second)
	// The option's row among the dialog's rows (each "  NAME  VALUE"; the first is selected).
	var names []string
	for _, l := range strings.Split(scr, "\n") {
		if m := regexp.MustCompile(`│ (?:› |  )(\S.*?)\s{2,}(?:‹ .* ›|on|off)\s*│`).FindStringSubmatch(l); m != nil {
			names = append(names, m[1])
		}
	}
	at := -1
	for i, n := range names {
		if n == "Collaboration mode" {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no collaboration mode row among %q:\n%s", names, scr)
	}
	for range at {
		s.keys("Down")
	}
	s.waitScreen(`› Collaboration mode\s+‹ Default ›`, 10*time.Second)
	s.keys("Right")
	s.waitScreen(`› Collaboration mode\s+‹ Plan ›`, 30*time.Second)
	s.keys("Escape")
	s.WaitGone("Session options") // keys typed right after esc would read as alt+KEY
	s.typeText("ask me a question")
	s.keys("Enter")
	s.answerQuestion()
	s.waitScreen(`Thanks for the answer\.`, turnTimeout)
	if !r.toolResultWith(`Blue`) {
		t.Fatalf("the model did not get the answer; requests: %+v", r.mock.Requests())
	}
	if st := s.quit(); st != "0" {
		t.Fatalf("exit status %s", st)
	}
}

// The session picker (acpterm --resume without an id) lists claude's sessions (session/list)
// and loads the chosen one with its history.
func TestCurrentTUIClaudeResumePicker(t *testing.T) {
	r := newRun(t, claudeCurrent)
	cfg := r.writeConfig(policyOpts{})
	if first := r.headless(t, cfg, "deny", "hi"); first.Code != 0 {
		t.Fatalf("first run:\n%s", first)
	}
	r.extraArgs = []string{"--resume"}
	s := r.startTUI(t, cfg)
	s.waitScreen(`Sessions · from the agent`, startTimeout)
	s.waitScreen(`› \S`, turnTimeout) // a session row
	s.keys("Enter")
	s.waitScreen(`session \S+ loaded; its history follows`, turnTimeout)
	s.waitScreen(`Hello! This is a plain reply from the mock model\.`, 10*time.Second)
	if st := s.quit(); st != "0" {
		t.Fatalf("exit status %s", st)
	}
}

// claude-agent-acp 0.101's effort (a select config option besides mode and model) is reachable
// from the options dialog: alt+c lists it below the mode; → on its row
// picks the next value, which acpterm sends as session/set_config_option.
func TestCurrentTUIClaudeEffort(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeCurrent)
	s := r.startTUI(t, r.writeConfig(policyOpts{}))
	s.waitScreen(`· mode Manual \(asks\) ·`, startTimeout)
	s.keys("M-c")
	s.waitScreen(`› Mode\s+‹ Manual ›`, 10*time.Second)
	s.waitScreen(`  Effort\s+‹ Default ›`, 10*time.Second)
	s.keys("Down", "Down")
	s.waitScreen(`› Effort\s+‹ Default ›`, 10*time.Second)
	s.keys("Right") // the next of claude's efforts: Default, Low, Medium, High …
	s.waitScreen(`› Effort\s+‹ Low ›`, 30*time.Second)
	s.keys("Escape")
	s.WaitGone("Session options")
	var sent []string
	for _, rec := range r.trace(t) {
		if rec.Dir == "->" && rec.Msg.Method == "session/set_config_option" {
			sent = append(sent, string(rec.Msg.Params))
		}
	}
	if len(sent) != 1 || !strings.Contains(sent[0], `"configId":"effort"`) || !strings.Contains(sent[0], `"value":"low"`) {
		t.Errorf("session/set_config_option requests %q, want one setting effort to low", sent)
	}
	if st := s.quit(); st != "0" {
		t.Fatalf("exit status %s", st)
	}
}

// Headless, a question is answered from --answer (the field by its title, the choice by its
// title): claude-agent-acp 0.101's AskUserQuestion gets Blue, and the model gets it back.
// Without --answer the question is declined and the model is told so.
func TestCurrentHeadlessClaudeAnswer(t *testing.T) {
	t.Parallel()
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, claudeCurrent)
		r.extraArgs = []string{"--answer", "Color=Blue"}
		h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "ask me a question")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, `^\[elicitation\] form "Which color should the file be\?": question_0, question_0_custom$`,
			`^\[elicitation\] → accept: question_0 \(--answer\)$`, `^Thanks for the answer\.$`)
		if !r.toolResultWith(`"Which color should the file be?"="Blue"`) {
			t.Fatalf("the model did not get the answer; requests: %+v", r.mock.Requests())
		}
	})
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, claudeCurrent)
		h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "ask me a question")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, `^\[elicitation\] → decline \(headless: no --answer\)$`)
		if r.toolResultWith(`="Blue"`) || r.toolResultWith(`="Red"`) {
			t.Fatalf("the model got an answer nobody gave; requests: %+v", r.mock.Requests())
		}
	})
}
