package ui

import (
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

func hlMsg(id, s string) acpclient.SessionUpdated {
	u := acp.UpdateAgentMessageText(s)
	u.AgentMessageChunk.MessageId = acp.Ptr(id)
	return acpclient.SessionUpdated{Update: u}
}

// What today's agents send: messages split by messageId, command output as tool-call content
// text (opencode, codex read calls) or only in rawOutput, a diff in an edit's content, an
// unasked tool call, and a mode that does not ask.
func TestHeadlessTodaysAgents(t *testing.T) {
	cat := acp.SessionConfigOptionCategoryMode
	modeOpt := func(cur string) []acp.SessionConfigOption {
		return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{Id: "mode", Name: "Mode", Type: "select", Category: &cat,
			CurrentValue: acp.SessionConfigValueId(cur), Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
				{Value: "read-only", Name: "Read-only"}, {Value: "agent", Name: "Auto review"}}}}}}
	}
	started := []acpclient.Event{acpclient.SessionStarted{Info: acpclient.Info{
		AgentName: "codex-acp", AgentVersion: "2.6.0", SessionID: "s1", Cwd: "/proj", Family: acpclient.FamilyCodex,
		ConfigOptions: modeOpt("read-only"),
	}}}
	old := "a\n"
	c := newScriptClient(started, map[string][]acpclient.Event{
		"go": {
			hlMsg("m1", "Creating a file."),
			hlMsg("m2", "Created."),
			acpclient.SessionUpdated{Update: acp.StartToolCall("c1", "List files", acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusInProgress))},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("c1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("hello-from-agent\nexisting.txt\n"))}))},
			acpclient.SessionUpdated{Update: acp.StartToolCall("c2", "echo out", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress))},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("c2", acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
				acp.WithUpdateRawOutput(map[string]any{"stdout": "out\n", "stderr": "err\n", "exit_code": 0}))},
			acpclient.ToolCallUnasked{ToolCallID: "c2", Kind: acp.ToolKindExecute, Title: "echo out"},
			acpclient.SessionUpdated{Update: acp.StartToolCall("c3", "Edit a.txt", acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusInProgress))},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("c3", acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolDiffContent("/proj/a.txt", "b\n", old)}))},
			acpclient.SessionUpdated{Update: acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: modeOpt("agent")}}},
			acpclient.TurnEnded{StopReason: "end_turn"},
		},
	})
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"go"}})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[session] s1 codex-acp 2.6.0 in /proj
[mode] read-only (asks before acting)
[prompt] go
Creating a file.
Created.
[tool] read "List files" (in_progress)
[tool] read "List files" (completed)
  | hello-from-agent
  | existing.txt
[tool] execute "echo out" (in_progress)
[tool] execute "echo out" (completed)
  | out
  | err
[unasked] execute "echo out" ran without asking (no permission request reached acpterm)
[tool] edit "Edit a.txt" (in_progress)
[tool] edit "Edit a.txt" (completed)
[diff] /proj/a.txt
  | --- /proj/a.txt
  | +++ /proj/a.txt
  | @@ -1 +1 @@
  | -a
  | +b
[mode] agent (does not ask before acting)
[warning] in mode "Auto review" the agent runs commands and edits files without asking acpterm: neither the policy nor --approve sees them
[stop] end_turn
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

// An agent-owned terminal announced as "Terminal" is printed once its command is known.
func TestHeadlessAgentTerminalWaitsForCommand(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"go": {
			acpclient.TerminalStarted{ID: "agent:t1", Label: "Terminal", AgentOwned: true},
			acpclient.TerminalRetitled{ID: "agent:t1", Label: "Terminal"},
			acpclient.TerminalRetitled{ID: "agent:t1", Label: "ls -la"},
			acpclient.TerminalStarted{ID: "agent:t2", Label: "Terminal", AgentOwned: true},
			acpclient.TurnEnded{StopReason: "end_turn"},
		},
	})
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"go"}})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[prompt] go
[terminal agent:t1] started (agent-owned): ls -la
[terminal agent:t2] started (agent-owned): Terminal
[stop] end_turn
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}
