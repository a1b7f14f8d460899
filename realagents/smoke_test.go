package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// These tests drive each real agent with the minimal smokeClient (no acpterm),
// so a broken mock shows up here and not as a mysterious acpterm failure.

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func toolResultsContain(m *mockLLM, sub string) bool {
	for _, r := range m.Requests() {
		if contains(r.ToolResults, sub) {
			return true
		}
	}
	return false
}

func TestSmokeClaudeLegacyCommand(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	if err := os.WriteFile(filepath.Join(r.cwd, "existing-file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSmoke(t, r, acp.PermissionOptionKindAllowOnce)
	if got := s.prompt(t, "run the command"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", got)
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 {
		t.Fatalf("%d permission requests, want 1: %s", len(c.perms), strings.Join(c.log, "\n"))
	}
	if len(c.creates) != 1 || c.creates[0].Command != "echo hello-from-agent && ls" || len(c.creates[0].Args) != 0 {
		t.Fatalf("terminal/create requests %+v, want one with command %q and no args", c.creates, "echo hello-from-agent && ls")
	}
	if !contains(c.log, "terminal/release") {
		t.Errorf("no terminal/release: %s", strings.Join(c.log, "\n"))
	}
	if !toolResultsContain(r.mock, "hello-from-agent") || !toolResultsContain(r.mock, "existing-file.txt") {
		t.Errorf("the model never got the command output back; requests: %+v", r.mock.Requests())
	}
}

func TestSmokeClaudeNewCommand(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeNew)
	s := startSmoke(t, r, acp.PermissionOptionKindAllowOnce)
	if got := s.prompt(t, "touch a file"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", got)
	}
	if _, err := os.Stat(filepath.Join(r.cwd, "created-by-agent.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 || c.perms[0].ToolCall.Kind == nil || *c.perms[0].ToolCall.Kind != acp.ToolKindExecute {
		t.Errorf("permission requests %+v, want one of kind execute", c.perms)
	}
	if len(c.creates) != 0 {
		t.Errorf("0.23.1 called terminal/create: %+v", c.creates)
	}
	if !contains(c.updates, `"terminal_output"`) || !contains(c.updates, "hello-from-agent") {
		t.Errorf("no _meta.terminal_output with hello-from-agent in the updates:\n%s", strings.Join(c.updates, "\n"))
	}
}

func TestSmokeCodexCommand(t *testing.T) {
	t.Parallel()
	r := newRun(t, codex)
	s := startSmoke(t, r, acp.PermissionOptionKindAllowOnce)
	if got := s.prompt(t, "touch a file"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", got)
	}
	if _, err := os.Stat(filepath.Join(r.cwd, "created-by-codex.txt")); err != nil {
		t.Errorf("the approved command did not run: %v\n%s", err, strings.Join(s.c.Log(), "\n"))
	}
	if !toolResultsContain(r.mock, "hello-from-agent") {
		t.Errorf("the model never got the command output; requests %+v", r.mock.Requests())
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) < 1 || c.perms[0].ToolCall.Kind == nil || *c.perms[0].ToolCall.Kind != acp.ToolKindExecute {
		t.Errorf("permission requests %+v, want one of kind execute first", c.perms)
	}
}

func TestSmokeCodexWrite(t *testing.T) {
	t.Parallel()
	r := newRun(t, codex)
	s := startSmoke(t, r, acp.PermissionOptionKindAllowOnce)
	if got := s.prompt(t, "write a file"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", got)
	}
	b, err := os.ReadFile(filepath.Join(r.cwd, "hello.txt"))
	if err != nil || string(b) != "hello from the mock model\n" {
		t.Errorf("hello.txt = %q, %v; want the patched content\n%s", b, err, strings.Join(s.c.Log(), "\n"))
	}
}

func testSmokeExample(t *testing.T, agent string) {
	t.Parallel()
	r := newRun(t, agent)
	s := startSmoke(t, r, acp.PermissionOptionKindAllowOnce)
	if got := s.prompt(t, "hello"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", got)
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 || c.perms[0].ToolCall.ToolCallId != "call_2" {
		t.Fatalf("permission requests %+v, want one for call_2", c.perms)
	}
	if !contains(c.updates, `"toolCallId":"call_2"`) || !contains(c.updates, `"status":"completed"`) {
		t.Errorf("call_2 never completed after allow:\n%s", strings.Join(c.updates, "\n"))
	}
}

func TestSmokeSDKExample(t *testing.T) { testSmokeExample(t, sdkExample) }
func TestSmokeGoExample(t *testing.T)  { testSmokeExample(t, goExample) }
