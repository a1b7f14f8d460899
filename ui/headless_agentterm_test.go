package ui

import (
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// Headless prints an end line for an agent-owned terminal that acpclient marked ended without
// an exit status (its tool call finished, or the turn ended), and an agent's terminal named like
// acpterm's own (agent:term-1) stays apart from term-1.
func TestHeadlessAgentTerminalEndLine(t *testing.T) {
	zero := 0
	c := newScriptClient(hlStarted(), map[string][]acpclient.Event{
		"run": {
			acpclient.SessionUpdated{Update: acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call",
				ToolCallId: "toolu_9", Title: "sleep 60", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress,
				Meta: map[string]any{"terminal_info": map[string]any{"terminal_id": "term-1"}}}}},
			acpclient.TerminalStarted{ID: "agent:term-1", ToolCallID: "toolu_9", Label: "sleep 60", AgentOwned: true},
			acpclient.TerminalStarted{ID: "term-1", Label: "echo REAL", Cwd: "/proj"},
			acpclient.TerminalExited{ID: "term-1", Status: terminals.ExitStatus{Code: &zero}},
			acpclient.TerminalExited{ID: "agent:term-1"},
			acpclient.TurnEnded{StopReason: "cancelled"},
		},
	})
	out, _, err := runScript(t, c, HeadlessOptions{Prompts: []string{"run"}, Approve: "deny"})
	if err != nil {
		t.Fatalf("RunHeadless: %v", err)
	}
	want := `[session] demo-1 acpterm-demo 1.0.0 in /proj
[mode] ask
[prompt] run
[tool] execute "sleep 60" (in_progress)
[terminal agent:term-1] started (agent-owned): sleep 60
[terminal term-1] started: echo REAL
[terminal term-1] exit 0
[terminal agent:term-1] ended (exit status unknown)
[tool] execute "sleep 60" (cancelled)
[stop] cancelled
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}
