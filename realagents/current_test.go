package realagents

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
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
	{claudeCurrent, "created-by-agent.txt", "default", "mode Auto → Manual", `^\[diff\] .*hello\.txt$`, "hello from the mock model\nline 2 (edited)\n", nil},
	{codexCurrent, "created-by-codex.txt", "read-only", "mode Auto review → Read-only", `^\[diff\] .*hello\.txt$`, "hello from the mock model\n", nil},
	{gemini, "created-by-gemini.txt", "default", "", `^\[write\] .*hello\.txt \(created, 26 bytes\)$`, "hello from the mock model\n", geminiNoPTY},
	{opencode, "created-by-opencode.txt", "build", "", `^\[write\] .*hello\.txt \(created, 26 bytes\)$`, "hello from the mock model\n", nil},
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
	t.Run("allow", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, a.agent)
		if a.forOutput != nil {
			a.forOutput(t, r)
		}
		h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "hi", "touch a file", "write a file")
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
