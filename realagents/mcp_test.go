package realagents

import (
	"regexp"
	"testing"
)

// TestHeadlessClaudeCurrentMCPTerminal: today's claude-agent-acp gets acpterm's MCP server
// "acpterm" in session/new (the stdio bridge), offers its tools to the model, and runs the
// model's mcp__acpterm__terminal_start (python3 -q: the agent's permission request for the
// tool call, allowed by --approve, covers acpterm's own decision of the same command) and
// mcp__acpterm__terminal_input (print(6*7), Enter); the tool result the model gets back (the
// structured content) shows 42 on the screen.
func TestHeadlessClaudeCurrentMCPTerminal(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeCurrent)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "start a python repl")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		`^`+regexp.QuoteMeta(`[permission] other "mcp__acpterm__terminal_start" → allow-once (--approve allow`),
		`^\[terminal term-1\] started \(agent-driven\): python3 -q$`,
		`^\[stop\] end_turn$`,
	)
	if !toolResultsContain(r.mock, `"sessionId":"term-1","status":"running","cols":80,"rows":12`) {
		t.Errorf("the model never got terminal_start's result; requests %+v", r.mock.Requests())
	}
	if !toolResultsContain(r.mock, `"screen":[">>> print(6*7)","42",">>>"`) {
		t.Errorf("the model never saw 42 on the screen; requests %+v", r.mock.Requests())
	}
}
