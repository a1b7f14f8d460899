package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// scriptClient plays back a fixed list of events per prompt and records what the renderer did.
// Events are delivered through a buffered channel, as acpclient's queue delivers them.
type scriptClient struct {
	events chan acpclient.Event
	script map[string][]acpclient.Event

	mu      sync.Mutex
	prompts []string
	answers []string // "ID=optionID" or "ID=choice"
	cancels int
	// answerEvents maps an answer ("ID=value") to the events the client emits after it.
	answerEvents map[string][]acpclient.Event
	cancelEvents []acpclient.Event
	closed       bool // events is closed: Prompt emits nothing
}

func newScriptClient(onStart []acpclient.Event, script map[string][]acpclient.Event) *scriptClient {
	c := &scriptClient{events: make(chan acpclient.Event, 1000), script: script, answerEvents: map[string][]acpclient.Event{}}
	for _, e := range onStart {
		c.events <- e
	}
	return c
}

func (c *scriptClient) Events() <-chan acpclient.Event { return c.events }

func (c *scriptClient) Prompt(text string) {
	c.mu.Lock()
	c.prompts = append(c.prompts, text)
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return
	}
	c.events <- acpclient.TurnStarted{Prompt: text}
	for _, e := range c.script[text] {
		c.events <- e
	}
}

func (c *scriptClient) Answer(id string, a acpclient.Answer) {
	v := a.OptionID
	if v == "" {
		v = string(a.Choice)
	}
	if v == "" {
		v = "cancelled" // no option and no choice: acpclient answers "cancelled"
	}
	c.mu.Lock()
	c.answers = append(c.answers, id+"="+v)
	evs := c.answerEvents[id+"="+v]
	c.mu.Unlock()
	for _, e := range evs {
		if pr, ok := e.(acpclient.PermissionResolved); ok && pr.By == "" {
			// Like acpclient: the answer's By is reported, "" meaning "user".
			pr.By = a.By
			if pr.By == "" {
				pr.By = "user"
			}
			e = pr
		}
		c.events <- e
	}
}

func (c *scriptClient) Cancel() {
	c.mu.Lock()
	c.cancels++
	evs := c.cancelEvents
	c.mu.Unlock()
	for _, e := range evs {
		c.events <- e
	}
}

func hlText(s string) acpclient.SessionUpdated {
	return acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(s)}
}

func hlStarted() []acpclient.Event {
	return []acpclient.Event{acpclient.SessionStarted{Info: acpclient.Info{
		AgentName: "acpterm-demo", AgentVersion: "1.0.0", SessionID: "demo-1", Cwd: "/proj",
		Modes: &acp.SessionModeState{CurrentModeId: "ask"},
	}}}
}

func runScript(t *testing.T, c *scriptClient, o HeadlessOptions) (string, int, error) {
	t.Helper()
	var out strings.Builder
	o.Client, o.Out = c, &out
	if o.GracePeriod == 0 {
		o.GracePeriod = 10 * time.Second
	}
	code, err := RunHeadless(context.Background(), o)
	return out.String(), code, err
}

func TestHeadlessStreamsTextToolsAndStop(t *testing.T) {
	perm := acpclient.PermissionAsked{ID: "p1", Kind: "agent",
		ToolCall: acp.ToolCallUpdate{ToolCallId: "call-1", Title: acp.Ptr("Delete the build cache")},
		Options: []acp.PermissionOption{
			{OptionId: "allow-once", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "allow-always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "reject-once", Kind: acp.PermissionOptionKindRejectOnce},
		}}
	c := newScriptClient(hlStarted(), map[string][]acpclient.Event{
		"perm": {
			acpclient.SessionUpdated{Update: acp.UpdateAgentThoughtText("thinking\nhard")},
			hlText("Hello, "), hlText("**world**\nsecond"), hlText(" line\n"),
			acpclient.SessionUpdated{Update: acp.StartToolCall("call-1", "Delete the build cache", acp.WithStartKind(acp.ToolKindDelete))},
			perm,
		},
	})
	c.answerEvents["p1=reject-once"] = []acpclient.Event{
		acpclient.PermissionResolved{ID: "p1", Outcome: "reject-once"}, // By from the answer
		acpclient.SessionUpdated{Update: acp.UpdateToolCall("call-1", acp.WithUpdateStatus(acp.ToolCallStatusFailed))},
		hlText("permission outcome: selected reject-once\n"),
		acpclient.TurnEnded{StopReason: "end_turn"},
	}
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"perm"}, Approve: "deny"})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[session] demo-1 acpterm-demo 1.0.0 in /proj
[mode] ask
[prompt] perm
[thought] thinking
[thought] hard
Hello, **world**
second line
[tool] delete "Delete the build cache" (pending)
[permission] delete "Delete the build cache" → reject-once (--approve deny)
[tool] delete "Delete the build cache" (failed)
permission outcome: selected reject-once
[stop] end_turn
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	if len(c.answers) != 1 || c.answers[0] != "p1=reject-once" {
		t.Fatalf("answers = %v", c.answers)
	}
}

func TestHeadlessApproveAllowPicksAllowOnceNeverAlways(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"a": {acpclient.PermissionAsked{ID: "p1", Kind: "agent", Options: []acp.PermissionOption{
			{OptionId: "x-always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "x-once", Kind: acp.PermissionOptionKindAllowOnce},
		}}},
		"b": {acpclient.PermissionAsked{ID: "p2", Kind: "agent", Options: []acp.PermissionOption{
			{OptionId: "only-always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "never", Kind: acp.PermissionOptionKindRejectAlways},
		}}},
		"d": {acpclient.PermissionAsked{ID: "p4", Kind: "agent"}}, // no options at all
		"e": {acpclient.PermissionAsked{ID: "p5", Kind: "agent", Options: []acp.PermissionOption{
			{OptionId: "always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: "no", Kind: acp.PermissionOptionKindRejectOnce},
		}}},
		"c": {acpclient.PermissionAsked{ID: "p3", Kind: "command", ToolCall: acp.ToolCallUpdate{Title: acp.Ptr("rm -rf build")},
			Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched"}}},
	})
	for _, id := range []string{"p1=x-once", "p2=cancelled", "p3=allow_once", "p4=cancelled", "p5=no"} {
		c.answerEvents[id] = []acpclient.Event{acpclient.TurnEnded{StopReason: "end_turn"}}
	}
	c.answerEvents["p3=allow_once"] = []acpclient.Event{
		acpclient.PermissionResolved{ID: "p3", Outcome: "allow"}, // By from the answer
		acpclient.TurnEnded{StopReason: "end_turn"},
	}
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"a", "b", "c", "d", "e"}, Approve: "allow"})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v\n%s", code, err, out)
	}
	if got := strings.Join(c.answers, " "); got != "p1=x-once p2=cancelled p3=allow_once p4=cancelled p5=no" {
		t.Fatalf("answers = %s", got)
	}
	if !strings.Contains(out, `[permission] command "rm -rf build" → allow (--approve allow: unmatched)`+"\n") {
		t.Fatalf("output lacks the policy permission line:\n%s", out)
	}
	if got := strings.Join(c.prompts, ","); got != "a,b,c,d,e" {
		t.Fatalf("prompts = %s", got)
	}
}

// --approve deny picks reject_once, and "cancelled" when the agent offers only "always" options
// or none: never reject_always, which the agent may remember after the run.
func TestHeadlessApproveDenyNeverAlways(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"a": {acpclient.PermissionAsked{ID: "p1", Kind: "agent", Options: []acp.PermissionOption{
			{OptionId: "never", Kind: acp.PermissionOptionKindRejectAlways},
			{OptionId: "no", Kind: acp.PermissionOptionKindRejectOnce},
		}}},
		"b": {acpclient.PermissionAsked{ID: "p2", Kind: "agent", Options: []acp.PermissionOption{
			{OptionId: "yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "never", Kind: acp.PermissionOptionKindRejectAlways},
		}}},
		"c": {acpclient.PermissionAsked{ID: "p3", Kind: "agent"}},
	})
	for _, id := range []string{"p1=no", "p2=cancelled", "p3=cancelled"} {
		c.answerEvents[id] = []acpclient.Event{acpclient.TurnEnded{StopReason: "end_turn"}}
	}
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"a", "b", "c"}, Approve: "deny"})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v\n%s", code, err, out)
	}
	if got := strings.Join(c.answers, " "); got != "p1=no p2=cancelled p3=cancelled" {
		t.Fatalf("answers = %s", got)
	}
}

func TestHeadlessTurnFailureExits1AndStopsSending(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"fail": {acpclient.TurnEnded{Err: errors.New("agent error -32603: boom")}},
		"next": {acpclient.TurnEnded{StopReason: "end_turn"}},
	})
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"fail", "next"}})
	if code != 1 || err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	if want := "[prompt] fail\n[error] turn failed: agent error -32603: boom\n"; out != want {
		t.Fatalf("output = %q, want %q", out, want)
	}
	if len(c.prompts) != 1 {
		t.Fatalf("prompts sent = %v, want only the first", c.prompts)
	}
}

func TestHeadlessAgentCrash(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"crash": {hlText("Crashing now"),
			acpclient.AgentExited{Code: acp.Ptr(3), StderrTail: []string{"panic: \x1b[31moops"}},
			acpclient.TurnEnded{Err: errors.New("peer disconnected")}},
	})
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"crash", "never"}})
	if code != 1 || err == nil || err.Error() != "the agent exited (exit 3)" {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := "[prompt] crash\nCrashing now\n[agent] exited: exit 3\n  | panic: oops\n"
	if out != want {
		t.Fatalf("output = %q, want %q", out, want)
	}
}

func TestHeadlessTerminalTailAndWrite(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"t": {
			acpclient.TerminalStarted{ID: "t1", Label: "printf 'a\\nb\\nc\\n'", Cwd: "/proj"},
			acpclient.TerminalExited{ID: "t1", Status: terminals.ExitStatus{Code: acp.Ptr(0)}},
			acpclient.TerminalExited{ID: "t2", Status: terminals.ExitStatus{Signal: "SIGKILL"}},
			acpclient.FileWritten{Diff: acpclient.FileDiff{Path: "/proj/demo.md", NewText: "12345", Existed: false}},
			acpclient.Notice{Level: "warn", Text: "denied: rm"},
			acpclient.TurnEnded{StopReason: "cancelled"},
		},
	})
	texts := map[string]string{"t1": "a\nb\nc\n\n", "t2": ""}
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"t"}, TailLines: 2,
		TerminalText: func(id string) (string, bool) { s, ok := texts[id]; return s, ok }})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[prompt] t
[terminal t1] started: printf 'a\nb\nc\n'
[terminal t1] exit 0
  | b
  | c
[terminal t2] SIGKILL
[write] /proj/demo.md (created, 5 bytes)
  | --- /dev/null
  | +++ /proj/demo.md
  | @@ -0,0 +1 @@
  | +12345
[notice] warn: denied: rm
[stop] cancelled
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestHeadlessCancelOnContext(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{"long": {hlText("tick\n")}})
	c.cancelEvents = []acpclient.Event{acpclient.CancelRequested{}, acpclient.TurnEnded{StopReason: "cancelled"}}
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(errors.New("interrupted by SIGTERM")) }
	var out strings.Builder
	done := make(chan struct{})
	var code int
	var err error
	go func() {
		defer close(done)
		code, err = RunHeadless(ctx, HeadlessOptions{Client: c, Out: &out, Prompts: []string{"long"}, GracePeriod: 10 * time.Second})
	}()
	// Wait until the prompt was sent, then interrupt.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.mu.Lock()
		n := len(c.prompts)
		c.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("prompt never sent")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if code != 1 || !errors.Is(err, context.Canceled) || c.cancels != 1 {
		t.Fatalf("RunHeadless = %d, %v; cancels %d", code, err, c.cancels)
	}
	if !strings.HasSuffix(out.String(), "tick\n[cancel] interrupted by SIGTERM\n[stop] cancelled\n") {
		t.Fatalf("output = %q", out.String())
	}
}

func TestHeadlessEventsClosedEarly(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{})
	c.closed = true
	close(c.events)
	_, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"x"}})
	if code != 1 || !errors.Is(err, ErrHeadlessIncomplete) {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
}

func TestHeadlessSanitisesAgentText(t *testing.T) {
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"x": {hlText("\x1b]0;pwned\x07red \x1b[31mtext\x1b[0m\x07\n"), acpclient.TurnEnded{StopReason: "end_turn"}},
	})
	out, _, _ := runScript(t, c, HeadlessOptions{Prompts: []string{"x"}})
	if want := "[prompt] x\nred text\n[stop] end_turn\n"; out != want {
		t.Fatalf("output = %q, want %q", out, want)
	}
}

func TestHeadlessPolicyAnswerNamesItsToolCallAndRule(t *testing.T) {
	edit := acp.ToolKindEdit
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"x": {
			acpclient.PermissionResolved{ID: "perm-1", Outcome: "allow", By: "policy"},
			acpclient.SessionUpdated{Update: acp.StartToolCall("c1", "ls -la", acp.WithStartKind(acp.ToolKindExecute))},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("c1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted))},
			acpclient.SessionUpdated{Update: acp.StartToolCall("c2", "touch f", acp.WithStartKind(acp.ToolKindExecute))},
			acpclient.PermissionResolved{ID: "perm-2", Outcome: "allow_once", By: "policy", ToolCall: acp.ToolCallUpdate{ToolCallId: "c2"},
				Rule: "commands.allow[0]: touch", Reason: "touch is allowed", OptionKind: "allow_once"},
			acpclient.PermissionResolved{ID: "perm-3", Outcome: "reject_once", By: "policy", ToolCall: acp.ToolCallUpdate{ToolCallId: "c9", Title: acp.Ptr("Write /etc/x\x1b[2J"), Kind: &edit},
				Rule: "fs.write: outside the project", OptionKind: "reject_once"},
			acpclient.PermissionResolved{ID: "perm-4", Outcome: "reject_once", By: "policy", ToolCall: acp.ToolCallUpdate{ToolCallId: "c1"}},
			acpclient.TurnEnded{StopReason: "end_turn"},
		},
	})
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"x"}})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[prompt] x
[permission] perm-1 → allow (policy)
[tool] execute "ls -la" (pending)
[tool] execute "ls -la" (completed)
[tool] execute "touch f" (pending)
[permission] execute "touch f" → allow_once (policy: commands.allow[0]: touch)
[permission] edit "Write /etc/x" → reject_once (policy: fs.write: outside the project)
[permission] execute "ls -la" → reject_once (policy)
[tool] execute "touch f" (incomplete)
[stop] end_turn
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestHeadlessApproveLabelAndFastExitOrder(t *testing.T) {
	write := acp.ToolKindEdit
	perm := acpclient.PermissionAsked{ID: "p1", Kind: "write", ToolCall: acp.ToolCallUpdate{ToolCallId: "call-w", Title: acp.Ptr("Write notes.md"), Kind: &write},
		Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "fs.write"}}
	c := newScriptClient(nil, map[string][]acpclient.Event{
		"go": {
			acpclient.SessionUpdated{Update: acp.StartToolCall("call-1", "Run true", acp.WithStartKind(acp.ToolKindExecute))},
			acpclient.TerminalStarted{ID: "term-1", ToolCallID: "call-1", Label: "true"},
			// The command is done before the agent reports the call in progress.
			acpclient.TerminalExited{ID: "term-1", Status: terminals.ExitStatus{Code: acp.Ptr(0)}},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("call-1", acp.WithUpdateStatus(acp.ToolCallStatusInProgress))},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("call-1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted))},
			// A second fast command whose call goes straight to completed.
			acpclient.SessionUpdated{Update: acp.StartToolCall("call-2", "Run false", acp.WithStartKind(acp.ToolKindExecute))},
			acpclient.TerminalStarted{ID: "term-2", ToolCallID: "call-2", Label: "false"},
			acpclient.TerminalExited{ID: "term-2", Status: terminals.ExitStatus{Code: acp.Ptr(1)}},
			acpclient.SessionUpdated{Update: acp.UpdateToolCall("call-2", acp.WithUpdateStatus(acp.ToolCallStatusFailed))},
			acpclient.SessionUpdated{Update: acp.StartToolCall("call-w", "Write notes.md", acp.WithStartKind(acp.ToolKindEdit))},
			perm,
		},
	})
	c.answerEvents["p1=deny"] = []acpclient.Event{
		acpclient.PermissionResolved{ID: "p1", Outcome: "deny"}, // By from the answer
		acpclient.TurnEnded{StopReason: "end_turn"},
	}
	texts := map[string]string{"term-1": "", "term-2": "nope\n"}
	out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"go"}, Approve: "deny",
		TerminalText: func(id string) (string, bool) { s, ok := texts[id]; return s, ok }})
	if err != nil || code != 0 {
		t.Fatalf("RunHeadless = %d, %v", code, err)
	}
	want := `[prompt] go
[tool] execute "Run true" (pending)
[terminal term-1] started: true
[tool] execute "Run true" (in_progress)
[terminal term-1] exit 0
[tool] execute "Run true" (completed)
[tool] execute "Run false" (pending)
[terminal term-2] started: false
[terminal term-2] exit 1
  | nope
[tool] execute "Run false" (failed)
[tool] edit "Write notes.md" (pending)
[permission] edit "Write notes.md" → deny (--approve deny: fs.write)
[tool] edit "Write notes.md" (incomplete)
[stop] end_turn
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}
