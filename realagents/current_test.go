package realagents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Today's agents (claude-agent-acp 0.101, codex-acp 2.6, gemini-cli 0.61, opencode 1.18), each
// run with its own default configuration: acpterm's choice of the asking mode is what makes
// their commands and edits reach the policy and --approve.

// currentAgent describes one of today's agents for the table tests.
type currentAgent struct {
	agent   string
	created string // the file the touch scenario creates
	mode    string // the asking mode acpterm chooses
	chosen  string // the notice when acpterm switched the mode ("" when the agent starts in it)
	write   string // the transcript line of the write scenario's file change
	content string // hello.txt after the write scenario
	// forOutput, when set, changes the agent's own config for the output test: gemini-cli sends
	// no command output over ACP (content: []) when it runs commands in its own PTY.
	forOutput func(t *testing.T, r *run)
	// forModes, when set, changes the agent's config for the mode switch test: gemini-cli
	// refuses its non-asking modes in a folder the user has not trusted.
	forModes func(t *testing.T, r *run)
}

// geminiTrust marks the session cwd as a trusted folder for gemini-cli.
func geminiTrust(t *testing.T, r *run) {
	dir := filepath.Join(r.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trustedFolders.json"), []byte(fmt.Sprintf("{%q: \"TRUST_FOLDER\"}\n", r.cwd)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// geminiNoPTY writes gemini-cli's user setting that runs commands without its PTY, so that
// their output is the tool call's text content.
func geminiNoPTY(t *testing.T, r *run) {
	dir := filepath.Join(r.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"tools": {"shell": {"enableInteractiveShell": false}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

var currentAgents = []currentAgent{
	{claudeCurrent, "created-by-agent.txt", "default", "mode Auto → Manual", `^\[diff\] .*hello\.txt$`, "hello from the mock model\nline 2 (edited)\n", nil, nil},
	{codexCurrent, "created-by-codex.txt", "read-only", "mode Auto review → Read-only", `^\[diff\] .*hello\.txt$`, "hello from the mock model\n", nil, nil},
	{gemini, "created-by-gemini.txt", "default", "", `^\[write\] .*hello\.txt \(created, 26 bytes\)$`, "hello from the mock model\n", geminiNoPTY, geminiTrust},
	{opencode, "created-by-opencode.txt", "build", "", `^\[write\] .*hello\.txt \(created, 26 bytes\)$`, "hello from the mock model\n", nil, nil},
}

func currentOf(t *testing.T, name string) currentAgent {
	for _, a := range currentAgents {
		if a.agent == name {
			return a
		}
	}
	t.Fatalf("no agent %s", name)
	return currentAgent{}
}

func testCurrentHeadless(t *testing.T, a currentAgent) {
	for _, sandboxed := range []bool{false, true} {
		name := "allow"
		if sandboxed {
			// The agent process itself in the sandbox ([sandbox] mode = "required", agent =
			// true): it still reaches its model, writes its state, runs the approved command
			// and makes the write.
			name = "allow sandboxed agent"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRun(t, a.agent)
			if a.forOutput != nil {
				a.forOutput(t, r)
			}
			h := r.headless(t, r.writeConfig(policyOpts{SandboxAgent: sandboxed}), "allow", "hi", "touch a file", "write a file")
			if h.Code != 0 {
				t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
			}
			lines := []string{
				`^\[mode\] ` + regexp.QuoteMeta(a.mode) + ` \(asks before acting\)$`,
				`^Hello! This is a plain reply from the mock model\.$`,
				`^\[permission\] execute ".*touch ` + regexp.QuoteMeta(a.created) + `.*" → \S+ \(--approve allow`,
				`^  \| hello-from-agent$`,
				a.write,
				`^  \| \+hello from the mock model$`,
				`^\[stop\] end_turn$`,
			}
			if a.chosen != "" {
				lines = append(lines, `^\[notice\] info: `+regexp.QuoteMeta(a.chosen)+` \(chosen by acpterm`)
			}
			expectLines(t, h, lines...)
			noLines(t, h, `^\[unasked\]`, `^\[warning\]`)
			if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err != nil {
				t.Errorf("the allowed command did not run: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(r.cwd, "hello.txt")); err != nil || string(b) != a.content {
				t.Errorf("hello.txt = %q, %v", b, err)
			}
		})
	}
	t.Run("deny", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, a.agent)
		h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "touch a file", "write a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, `^\[permission\] execute ".*touch `+regexp.QuoteMeta(a.created)+`.*" → \S+ \(--approve deny`)
		noLines(t, h, `^\[unasked\]`, `^  \| hello-from-agent$`)
		if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err == nil {
			t.Errorf("the denied command ran")
		}
		if _, err := os.Stat(filepath.Join(r.cwd, "hello.txt")); err == nil {
			t.Errorf("the denied write happened")
		}
	})
}

func TestCurrentHeadlessClaude(t *testing.T)   { testCurrentHeadless(t, currentOf(t, claudeCurrent)) }
func TestCurrentHeadlessCodex(t *testing.T)    { testCurrentHeadless(t, currentOf(t, codexCurrent)) }
func TestCurrentHeadlessGemini(t *testing.T)   { testCurrentHeadless(t, currentOf(t, gemini)) }
func TestCurrentHeadlessOpencode(t *testing.T) { testCurrentHeadless(t, currentOf(t, opencode)) }

// statusRe extracts the mode and model from acpterm's status bar.
var (
	statusModeRe  = regexp.MustCompile(`· mode (.+?)(?: \((asks|does not ask)\))? ·`)
	statusModelRe = regexp.MustCompile(`· model (.+?) ·`)
)

// statusOf returns the mode, whether it asks ("asks", "does not ask" or ""), and the model the
// status bar (the screen's last line) shows.
func statusOf(scr string) (mode, asks, model string) {
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	last := lines[len(lines)-1]
	if m := statusModeRe.FindStringSubmatch(last); m != nil {
		mode, asks = m[1], m[2]
	}
	if m := statusModelRe.FindStringSubmatch(last); m != nil {
		model = m[1]
	}
	return mode, asks, model
}

// testCurrentTUI: in the TUI, the status bar shows the asking mode acpterm chose; an approved
// command runs and its output shows; alt+m and alt+p switch mode and model (a mode that does not
// ask keeps a warning on screen); ctrl+q leaves nothing running (newRun's cleanup checks).
func testCurrentTUI(t *testing.T, a currentAgent, modeName string) {
	t.Parallel()
	r := newRun(t, a.agent)
	if a.forOutput != nil {
		a.forOutput(t, r)
	}
	if a.forModes != nil {
		a.forModes(t, r)
	}
	s := r.startTUI(t, r.writeConfig(policyOpts{}))
	s.waitScreen(`· mode `+regexp.QuoteMeta(modeName)+` \(asks\) ·`, startTimeout)
	s.typeText("touch a file")
	s.keys("Enter")
	screens, answered := s.drive(`(?m)^\s*Created`, "a", turnTimeout)
	if answered != 1 {
		t.Errorf("answered %d permission prompts, want 1", answered)
	}
	if !anyScreen(screens, `hello-from-agent`) {
		t.Errorf("the command's output never showed")
	}
	if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if anyScreen(screens, `ran without asking`) {
		t.Errorf("the approved command was flagged as unasked")
	}
	// While the command awaits approval, nothing shows it as running: each of these agents
	// announces the command's terminal or tool call before it asks, and acpterm says "awaiting
	// approval" there.
	awaiting := false
	for _, scr := range screens {
		if !modalRe.MatchString(scr) {
			continue
		}
		for _, l := range strings.Split(scr, "\n") {
			if !strings.Contains(l, "touch "+a.created) {
				continue
			}
			if regexp.MustCompile(`· running\b`).MatchString(l) {
				t.Errorf("a command awaiting approval is shown running:\n%s", scr)
			}
			awaiting = awaiting || strings.Contains(l, "awaiting approval")
		}
	}
	if !awaiting {
		t.Errorf("no screen with the permission dialog said the command is awaiting approval")
	}
	mode0, _, model0 := statusOf(s.screen())
	s.keys("M-m")
	var mode1, asks1 string
	if !waitFor(30*time.Second, func() bool { mode1, asks1, _ = statusOf(s.screen()); return mode1 != "" && mode1 != mode0 }) {
		t.Fatalf("alt+m did not change the mode from %q:\n%s", mode0, s.screen())
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

func TestCurrentTUIClaude(t *testing.T)   { testCurrentTUI(t, currentOf(t, claudeCurrent), "Manual") }
func TestCurrentTUICodex(t *testing.T)    { testCurrentTUI(t, currentOf(t, codexCurrent), "Read-only") }
func TestCurrentTUIGemini(t *testing.T)   { testCurrentTUI(t, currentOf(t, gemini), "Default") }
func TestCurrentTUIOpencode(t *testing.T) { testCurrentTUI(t, currentOf(t, opencode), "build") }

// claude-agent-acp 0.101: a failing command shows its exit status and output once; a rejected
// one ends once, without a status; both terminals are named by their command, not "Terminal".
func TestCurrentHeadlessClaudeFailAndReject(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeCurrent)
	h := r.headless(t, r.writeConfig(policyOpts{Allow: []string{"exit"}}), "deny", "make it fail", "touch a file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		`^\[terminal \S+\] started \(agent-owned\): echo about-to-fail && exit 3$`,
		`^\[terminal \S+\] exit 3$`,
		`^  \| about-to-fail$`,
		`^\[terminal \S+\] started \(agent-owned\): touch created-by-agent\.txt && echo hello-from-agent && ls$`,
		`^\[permission\] execute "touch created-by-agent\.txt && echo hello-from-agent && ls" → reject \(--approve deny`,
	)
	noLines(t, h, `started \(agent-owned\): Terminal$`)
	n := 0
	for _, l := range h.Lines {
		if regexp.MustCompile(`^\[terminal \S+\] (ended|exit)`).MatchString(l) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d terminal end lines, want 2 (one per command)\n%s", n, h)
	}
}

// auditKinds counts the run's audit records by kind.
func (r *run) auditKinds(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		kinds[rec.Kind]++
	}
	return kinds
}

// An agent kept in (or put into) a mode that does not ask acts on its own; --approve deny never
// sees it, and acpterm says so: "[unasked]" in the transcript and an audit record of kind
// unasked. opencode with [agent] mode = "agent" gets no OPENCODE_PERMISSION, and its own
// defaults run the command; claude-agent-acp 0.101 in acceptEdits writes the file.
func TestCurrentHeadlessUnasked(t *testing.T) {
	t.Run("opencode", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, opencode)
		h := r.headless(t, r.writeConfig(policyOpts{Mode: "agent"}), "deny", "touch a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, `^\[mode\] build$`, `^\[unasked\] execute ".*touch created-by-opencode\.txt.*" ran without asking \(no permission request reached acpterm\)$`)
		noLines(t, h, `^\[permission\]`)
		if _, err := os.Stat(filepath.Join(r.cwd, "created-by-opencode.txt")); err != nil {
			t.Errorf("opencode did not run the command on its own: %v", err)
		}
		if n := r.auditKinds(t)["unasked"]; n != 1 {
			t.Errorf("%d unasked audit records, want 1", n)
		}
	})
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, claudeCurrent)
		h := r.headless(t, r.writeConfig(policyOpts{Mode: "acceptEdits"}), "deny", "write a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, `^\[mode\] acceptEdits \(does not ask before acting\)$`,
			`^\[notice\] info: mode Auto → Accept edits \(\[agent\] mode = "acceptEdits"\)$`,
			`^\[warning\] in mode "Accept edits" the agent runs commands and edits files without asking acpterm`,
			`^\[unasked\] edit "Write hello\.txt" ran without asking \(no permission request reached acpterm\)$`,
			`^\[unasked\] edit "Edit hello\.txt" ran without asking \(no permission request reached acpterm\)$`)
		noLines(t, h, `^\[permission\]`)
		if b, err := os.ReadFile(filepath.Join(r.cwd, "hello.txt")); err != nil || string(b) != "hello from the mock model\nline 2 (edited)\n" {
			t.Errorf("claude did not write and edit the file on its own: %q, %v", b, err)
		}
		if n := r.auditKinds(t)["unasked"]; n != 2 {
			t.Errorf("%d unasked audit records, want 2", n)
		}
	})
}

// codex-acp 2.6 reports codex's stream retries in session_info_update's _meta; acpterm shows
// them as notices. The mock drops the first stream of the turn, codex (allowed 2 stream
// retries here) reconnects and the answer arrives.
func TestCurrentHeadlessCodexRetryNotice(t *testing.T) {
	t.Parallel()
	r := newRun(t, codexCurrent)
	cfgPath := filepath.Join(r.dir, "codex-home", "config.toml")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(b), "stream_max_retries = 0", "stream_max_retries = 2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "a flaky answer")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^\[notice\] warning: agent: Reconnecting\.\.\. 1/2$`, `^Answer after a dropped stream\.$`, `^\[stop\] end_turn$`)
	if n := h.index(`^\[notice\] warning: agent: Reconnecting`); n > h.index(`^Answer after a dropped stream\.$`) {
		t.Errorf("the retry notice (line %d) comes after the answer", n)
	}
	n := 0
	for _, q := range r.mock.Requests() {
		if q.Scenario == "flaky" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("the model got the turn %d times, want 2 (the dropped stream and the retry)", n)
	}
}
