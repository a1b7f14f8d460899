package acpclient

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/terminals"
)

// upd decodes one session/update payload the way the SDK does on the wire.
func upd(t *testing.T, js string) SessionUpdated {
	t.Helper()
	var n acp.SessionNotification
	if err := json.Unmarshal([]byte(`{"sessionId":"s1","update":`+js+`}`), &n); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return SessionUpdated{Update: n.Update}
}

func TestStateMessagesByChunk(t *testing.T) {
	var s State
	s.Apply(TurnStarted{Prompt: "hello"})
	s.Apply(upd(t, `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"think "}}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"more"}}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Hel"}}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"lo"}}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","messageId":"m2","content":{"type":"text","text":"Second"}}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","content":{"type":"resource_link","name":"f","uri":"file:///f"}}`))

	want := []struct{ role, id, text string }{
		{RoleUser, "", "hello"},
		{RoleThought, "", "think more"},
		{RoleAgent, "m1", "Hello"},
		{RoleAgent, "m2", "Second"},
	}
	if len(s.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(s.Messages), len(want), s.Messages)
	}
	for i, w := range want {
		m := s.Messages[i]
		if m.Role != w.role || m.ID != w.id || m.Text != w.text {
			t.Errorf("message %d = {%s %q %q}, want {%s %q %q}", i, m.Role, m.ID, m.Text, w.role, w.id, w.text)
		}
	}
	if b := s.Messages[3].Blocks; len(b) != 1 || b[0].ResourceLink == nil || b[0].ResourceLink.Uri != "file:///f" {
		t.Errorf("resource link block not kept: %+v", b)
	}
	if !s.Busy {
		t.Error("Busy = false during a turn")
	}
}

func TestStateToolCallAfterMessageStartsNewMessage(t *testing.T) {
	var s State
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"before"}}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls"}`))
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"after"}}`))
	if len(s.Messages) != 2 || s.Messages[0].Text != "before" || s.Messages[1].Text != "after" {
		t.Fatalf("messages = %+v", s.Messages)
	}
	want := []Item{{ItemMessage, 0}, {ItemToolCall, 0}, {ItemMessage, 1}}
	if len(s.Timeline) != len(want) {
		t.Fatalf("timeline = %+v", s.Timeline)
	}
	for i := range want {
		if s.Timeline[i] != want[i] {
			t.Errorf("timeline[%d] = %+v, want %+v", i, s.Timeline[i], want[i])
		}
	}
}

func TestStateToolCallReplaceAndPatch(t *testing.T) {
	var s State
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Terminal","status":"pending",
		"content":[{"type":"content","content":{"type":"text","text":"a"}},{"type":"terminal","terminalId":"term-1"}],
		"locations":[{"path":"/x","line":3}],"rawInput":{"command":"ls"}}`))
	// Second tool_call for the same id (claude-agent-acp 0.17.1): upsert, real title.
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls -la","kind":"execute"}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"t2","title":"other"}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}`))

	tc, ok := s.ToolCall("t1")
	if !ok {
		t.Fatal("t1 missing")
	}
	if tc.Title != "ls -la" || tc.Kind != acp.ToolKindExecute || tc.Status != acp.ToolCallStatusInProgress {
		t.Errorf("t1 = title %q kind %q status %q", tc.Title, tc.Kind, tc.Status)
	}
	if len(tc.Content) != 2 || len(tc.Locations) != 1 || tc.Locations[0].Path != "/x" {
		t.Errorf("patch without content/locations changed them: %+v %+v", tc.Content, tc.Locations)
	}
	if len(tc.Terminals) != 1 || tc.Terminals[0] != "term-1" {
		t.Errorf("terminals = %v", tc.Terminals)
	}
	// content replaces the whole collection; an empty locations array clears.
	s.Apply(upd(t, `{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed",
		"content":[{"type":"diff","path":"/x","oldText":null,"newText":"n"}],"locations":[],"rawOutput":{"exit":0}}`))
	if len(tc.Content) != 1 || tc.Content[0].Diff == nil || tc.Content[0].Diff.NewText != "n" {
		t.Errorf("content not replaced: %+v", tc.Content)
	}
	if tc.Locations == nil || len(tc.Locations) != 0 {
		t.Errorf("locations not cleared: %#v", tc.Locations)
	}
	if tc.Status != acp.ToolCallStatusCompleted || tc.RawOutput == nil {
		t.Errorf("status %q rawOutput %v", tc.Status, tc.RawOutput)
	}
	if tc.RawInput.(map[string]any)["command"] != "ls" {
		t.Errorf("rawInput lost: %v", tc.RawInput)
	}
	if len(s.ToolCalls) != 2 || s.ToolCalls[0].ID != "t1" || s.ToolCalls[1].ID != "t2" {
		t.Errorf("tool call order: %v, %v", s.ToolCalls[0].ID, s.ToolCalls[1].ID)
	}
}

func TestStateUpdateBeforeToolCallCreatesIt(t *testing.T) {
	var s State
	s.Apply(upd(t, `{"sessionUpdate":"tool_call_update","toolCallId":"late","status":"completed","title":"x"}`))
	tc, ok := s.ToolCall("late")
	if !ok || tc.Title != "x" || tc.Status != acp.ToolCallStatusCompleted {
		t.Fatalf("late = %+v, %v", tc, ok)
	}
}

func TestStatePlanModeCommandsConfigUsageInfo(t *testing.T) {
	var s State
	s.Apply(SessionStarted{Info: Info{SessionID: "s1", Modes: &acp.SessionModeState{
		CurrentModeId: "default", AvailableModes: []acp.SessionMode{{Id: "default", Name: "Default"}, {Id: "plan", Name: "Plan"}}}}})
	if s.Mode != "default" || s.Info.SessionID != "s1" {
		t.Fatalf("mode %q session %q", s.Mode, s.Info.SessionID)
	}
	s.Apply(upd(t, `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"},{"content":"b","priority":"low","status":"pending"}]}`))
	s.Apply(upd(t, `{"sessionUpdate":"plan","entries":[{"content":"c","priority":"medium","status":"completed"}]}`))
	if len(s.Plan) != 1 || s.Plan[0].Content != "c" || s.Plan[0].Status != acp.PlanEntryStatusCompleted {
		t.Errorf("plan not replaced whole: %+v", s.Plan)
	}
	s.Apply(upd(t, `{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`))
	if s.Mode != "plan" || s.Info.Modes.CurrentModeId != "plan" {
		t.Errorf("mode = %q / %q", s.Mode, s.Info.Modes.CurrentModeId)
	}
	s.Apply(upd(t, `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"init","description":"Init"},{"name":"review","description":"Review","input":{"hint":"what"}}]}`))
	if len(s.Commands) != 2 || s.Commands[1].Name != "review" || len(s.Info.Commands) != 2 {
		t.Errorf("commands = %+v", s.Commands)
	}
	s.Apply(upd(t, `{"sessionUpdate":"config_option_update","configOptions":[{"id":"model","name":"Model","type":"select","currentValue":"a","options":[{"value":"a","name":"A"},{"value":"b","name":"B"}]}]}`))
	if len(s.ConfigOptions) != 1 || s.ConfigOptions[0].Select == nil || s.ConfigOptions[0].Select.CurrentValue != "a" {
		t.Errorf("config options = %+v", s.ConfigOptions)
	}
	s.Apply(upd(t, `{"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.5,"currency":"USD"}}`))
	if s.Usage == nil || s.Usage.Used != 1200 || s.Usage.Size != 200000 || s.Usage.Cost.Currency != "USD" {
		t.Errorf("usage = %+v", s.Usage)
	}
	s.Apply(upd(t, `{"sessionUpdate":"session_info_update","title":"Fix bug","updatedAt":"2026-01-01T00:00:00Z"}`))
	s.Apply(upd(t, `{"sessionUpdate":"session_info_update"}`))
	if s.Title != "Fix bug" || s.UpdatedAt != "2026-01-01T00:00:00Z" {
		t.Errorf("title %q updatedAt %q", s.Title, s.UpdatedAt)
	}
}

func TestStateIgnoresUnknownKinds(t *testing.T) {
	var s State
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}`))
	// Unknown kind with content: the SDK decodes it as a user_message_chunk.
	s.Apply(upd(t, `{"sessionUpdate":"notice","content":{"type":"text","text":"SHOULD NOT APPEAR"}}`))
	// Unknown kind without content: decoded as an empty session_info_update.
	s.Apply(upd(t, `{"sessionUpdate":"compaction_started","title":"nope"}`))
	// Unknown content type inside a known kind: Text variant with empty text.
	s.Apply(upd(t, `{"sessionUpdate":"agent_message_chunk","content":{"type":"hologram","data":"zz"}}`))
	if len(s.Messages) != 1 || s.Messages[0].Text != "x" || s.Messages[0].Role != RoleAgent {
		t.Fatalf("messages = %+v", s.Messages)
	}
	if s.Title != "" {
		t.Errorf("unknown kind changed title to %q", s.Title)
	}
	if k, known := UpdateKind(upd(t, `{"sessionUpdate":"notice","content":{"type":"text","text":"n"}}`).Update); k != "notice" || known {
		t.Errorf("UpdateKind = %q, %v", k, known)
	}
	if k, known := UpdateKind(upd(t, `{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"n"}}`).Update); k != "user_message_chunk" || !known {
		t.Errorf("UpdateKind = %q, %v", k, known)
	}
	s.Apply(nil) // a nil Event is ignored too
}

func TestStateTurnEndClosesOpenToolCalls(t *testing.T) {
	var s State
	s.Apply(TurnStarted{Prompt: "go"})
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"a","title":"a","status":"in_progress"}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"b","title":"b"}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"c","title":"c","status":"completed"}`))
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"d","title":"d","status":"failed"}`))
	s.Apply(TurnEnded{StopReason: "end_turn"})
	want := map[string]acp.ToolCallStatus{"a": StatusIncomplete, "b": StatusIncomplete, "c": "completed", "d": "failed"}
	for id, st := range want {
		if tc, _ := s.ToolCall(id); tc.Status != st {
			t.Errorf("%s status = %q, want %q", id, tc.Status, st)
		}
	}
	if s.Busy || s.Turns != 1 || s.LastStop != "end_turn" {
		t.Errorf("busy %v turns %d stop %q", s.Busy, s.Turns, s.LastStop)
	}

	s.Apply(TurnStarted{Prompt: "again"})
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"e","title":"e","status":"pending"}`))
	s.Apply(CancelRequested{})
	if tc, _ := s.ToolCall("e"); tc.Status != StatusCancelled {
		t.Errorf("e after cancel = %q", tc.Status)
	}
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"f","title":"f"}`))
	s.Apply(TurnEnded{StopReason: "cancelled"})
	if tc, _ := s.ToolCall("f"); tc.Status != StatusCancelled {
		t.Errorf("f after cancelled turn = %q", tc.Status)
	}
	boom := errors.New("agent died")
	s.Apply(TurnEnded{Err: boom})
	if s.LastErr != boom || s.Turns != 3 {
		t.Errorf("LastErr %v turns %d", s.LastErr, s.Turns)
	}
}

func TestStatePermissionsAndTerminals(t *testing.T) {
	var s State
	title := "rm -rf build"
	s.Apply(PermissionAsked{ID: "p1", Kind: "agent", ToolCall: acp.ToolCallUpdate{ToolCallId: "t9", Title: &title,
		RawInput: map[string]any{"command": "rm -rf build"}},
		Options: []acp.PermissionOption{{OptionId: "allow", Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow"}}})
	tc, ok := s.ToolCall("t9")
	if !ok || tc.Title != title || tc.PermissionID != "p1" || len(s.Pending) != 1 {
		t.Fatalf("permission before tool call: %+v pending %d", tc, len(s.Pending))
	}
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"t9","title":"Bash","kind":"execute","status":"pending",
		"_meta":{"terminal_info":{"terminal_id":"toolu_1"}}}`))
	if tc.Title != "Bash" || len(tc.Terminals) != 1 || tc.Terminals[0] != "agent:toolu_1" {
		t.Errorf("after tool_call: title %q terminals %v", tc.Title, tc.Terminals)
	}
	s.Apply(PermissionResolved{ID: "p1", Outcome: "allow", By: "user"})
	if len(s.Pending) != 0 || tc.PermissionID != "" {
		t.Errorf("pending %d permissionID %q", len(s.Pending), tc.PermissionID)
	}
	s.Apply(TerminalStarted{ID: "agent:toolu_1", ToolCallID: "t9", Label: "rm -rf build", AgentOwned: true})
	code := 0
	s.Apply(TerminalExited{ID: "agent:toolu_1", Status: terminals.ExitStatus{Code: &code}})
	ts := s.Terminals["agent:toolu_1"]
	if ts == nil || !ts.AgentOwned || ts.Exit == nil || *ts.Exit.Code != 0 || len(tc.Terminals) != 1 {
		t.Errorf("terminal state %+v, tool terminals %v", ts, tc.Terminals)
	}
	s.Apply(FileWritten{Diff: FileDiff{Path: "/p/a.txt", NewText: "x"}})
	if len(s.Writes) != 1 || s.Timeline[len(s.Timeline)-1] != (Item{ItemWrite, 0}) {
		t.Errorf("writes %+v timeline %+v", s.Writes, s.Timeline)
	}
	s.Apply(Notice{Level: "warn", Text: "careful"})
	s.Apply(AgentExited{Signal: "SIGKILL"})
	if s.Exited == nil || s.Exited.String() != "SIGKILL" || len(s.Notices) != 1 {
		t.Errorf("exited %+v notices %v", s.Exited, s.Notices)
	}
}

func TestToolLabel(t *testing.T) {
	for _, c := range []struct {
		raw   any
		title string
		want  string
	}{
		{map[string]any{"command": " ls -la "}, "t", "ls -la"},
		{map[string]any{"command": []any{"/bin/bash", "-lc", "touch x && ls"}}, "t", "touch x && ls"},
		{map[string]any{"command": []any{"git", "status"}}, "t", "git status"},
		{map[string]any{"command": []any{"git", 3}}, "Title", "Title"},
		{nil, "Terminal", "Terminal"},
	} {
		if got := toolLabel(&ToolCall{RawInput: c.raw, Title: c.title}); got != c.want {
			t.Errorf("toolLabel(%v) = %q, want %q", c.raw, got, c.want)
		}
	}
}

// FuzzStateApply feeds arbitrary session/update payloads, decoded as the SDK decodes them,
// into a State: nothing may panic, whatever the agent sends.
func FuzzStateApply(f *testing.F) {
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"a","title":"t","content":[{"type":"terminal","terminalId":"x"}],"_meta":{"terminal_info":{"terminal_id":1}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"a","content":[{"type":"diff","path":"/p","newText":"n"}],"locations":[]}`,
		`{"sessionUpdate":"plan","entries":[{"content":"c","priority":"weird","status":"odd"}]}`,
		`{"sessionUpdate":"usage_update","used":-1,"size":0}`,
		`{"sessionUpdate":"config_option_update","configOptions":[]}`,
		`{"sessionUpdate":"notice","content":{"type":"image"}}`,
		`{"sessionUpdate":"session_info_update","title":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, js string) {
		var n acp.SessionNotification
		if json.Unmarshal([]byte(`{"sessionId":"s","update":`+js+`}`), &n) != nil {
			return
		}
		var s State
		s.Apply(TurnStarted{Prompt: "p"})
		s.Apply(SessionUpdated{Update: n.Update})
		s.Apply(SessionUpdated{Update: n.Update})
		s.Apply(CancelRequested{})
		s.Apply(TurnEnded{StopReason: "end_turn"})
	})
}

// Terminal content of a tool call names the agent's own terminal (agent:ID) when the call
// announced that id in _meta, also when the content came first; other content names a
// client-owned terminal.
func TestStateAgentTerminalIDs(t *testing.T) {
	var s State
	s.Apply(TerminalStarted{ID: "term-1", ToolCallID: "c2", Label: "echo real"})
	s.Apply(upd(t, `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Bash",
		"content":[{"type":"terminal","terminalId":"x1"},{"type":"terminal","terminalId":"term-1"}]}`))
	tc, _ := s.ToolCall("c1")
	if got := strings.Join(tc.Terminals, ","); got != "x1,term-1" {
		t.Fatalf("before the announcement: %s", got)
	}
	s.Apply(upd(t, `{"sessionUpdate":"tool_call_update","toolCallId":"c1",
		"_meta":{"terminal_info":{"terminal_id":"x1"},"terminal_output":{"terminal_id":"term-1","data":"fake"}}}`))
	// x1 named nothing known: it was the agent's; term-1 is a real client terminal and stays,
	// and the agent's own term-1 is attached by its TerminalStarted, not by the _meta.
	if got := strings.Join(tc.Terminals, ","); got != "agent:x1,term-1" {
		t.Errorf("after the announcement: %s", got)
	}
	s.Apply(upd(t, `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed",
		"content":[{"type":"terminal","terminalId":"x1"},{"type":"terminal","terminalId":"term-1"}]}`))
	if got := strings.Join(tc.Terminals, ","); got != "agent:x1,term-1,agent:term-1" {
		t.Errorf("after content naming announced ids: %s", got)
	}
	c2, _ := s.ToolCall("c2")
	if got := strings.Join(c2.Terminals, ","); got != "term-1" {
		t.Errorf("client terminal's tool call: %s", got)
	}
}
