package e2e

import (
	"strings"
	"testing"
)

// The demo agent's "repl" prompt drives python3 through acpterm's MCP terminal tools, as a
// model would: it starts the stdio bridge acpterm offered in session/new (acpterm's own binary,
// __mcp-bridge), calls terminal_start (decided by the policy: headless --approve answers the
// question), types print(6*7) and Enter, and reads 42 off the screen.
func TestMCPTerminalReplHeadless(t *testing.T) {
	e := newEnv(t)
	r := e.headless([]string{"--approve", "allow"}, "repl")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`[permission] execute "python3 -q" → allow (--approve allow: unmatched)`,
		"[terminal term-1] started (agent-driven): python3 -q\n",
		"I typed `print(6*7)` and Enter; the screen now shows:\n\n    >>> print(6*7)\n    42\n    >>>\n",
		"Closed the terminal.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	e.waitNoLeftovers(t)
}

// A denied terminal_start starts nothing: the tool error names the rule.
func TestMCPTerminalDeniedHeadless(t *testing.T) {
	e := newEnv(t)
	r := e.headless([]string{"--approve", "deny"}, "repl")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "terminal_start failed: POLICY_DENIED: ") || strings.Contains(r.stdout, "[terminal ") {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "rule: unmatched") {
		t.Fatalf("the denial does not name the rule:\n%s", r.stdout)
	}
}
