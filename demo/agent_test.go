package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The SDK logs "connection closed" through slog.Default before SetLogger can take effect.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	goleak.VerifyTestMain(m)
}

// testClient is a minimal ACP client for driving the demo agent in-process. Terminals run
// with os/exec (no PTY) and take their stdin from stdin; files live in a map.
type testClient struct {
	t     *testing.T
	stdin string
	perm  func(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)

	mu       sync.Mutex
	text     strings.Builder
	chunks   int
	thoughts strings.Builder
	updates  []acp.SessionUpdate
	files    map[string]string
	terms    map[string]*testTerm
	nterm    int
	writeErr error
}

type testTerm struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
	code int
}

func (c *testClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
		c.text.WriteString(u.Content.Text.Text)
		c.chunks++
	}
	if u := n.Update.AgentThoughtChunk; u != nil && u.Content.Text != nil {
		c.thoughts.WriteString(u.Content.Text.Text)
	}
	return nil
}

func (c *testClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return c.perm(ctx, p)
}

func (c *testClient) ReadTextFile(ctx context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.files[p.Path]
	if !ok {
		return acp.ReadTextFileResponse{}, &acp.RequestError{Code: -32002, Message: "not found: " + p.Path}
	}
	return acp.ReadTextFileResponse{Content: s}, nil
}

func (c *testClient) WriteTextFile(ctx context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writeErr != nil {
		return acp.WriteTextFileResponse{}, c.writeErr
	}
	c.files[p.Path] = p.Content
	return acp.WriteTextFileResponse{}, nil
}

func (c *testClient) CreateTerminal(ctx context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	tt := &testTerm{cmd: exec.Command("/bin/sh", append([]string{"-c", p.Command}, p.Args...)...), done: make(chan struct{})}
	tt.cmd.Stdin = strings.NewReader(c.stdin)
	tt.cmd.Stdout = &tt.out
	tt.cmd.Stderr = &tt.out
	if err := tt.cmd.Start(); err != nil {
		return acp.CreateTerminalResponse{}, err
	}
	go func() {
		_ = tt.cmd.Wait()
		tt.code = tt.cmd.ProcessState.ExitCode()
		close(tt.done)
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nterm++
	id := fmt.Sprintf("t%d", c.nterm)
	c.terms[id] = tt
	return acp.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *testClient) term(id string) (*testTerm, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tt, ok := c.terms[id]
	if !ok {
		return nil, &acp.RequestError{Code: -32002, Message: "no terminal " + id}
	}
	return tt, nil
}

func (c *testClient) WaitForTerminalExit(ctx context.Context, p acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	tt, err := c.term(p.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-tt.done:
		return acp.WaitForTerminalExitResponse{ExitCode: acp.Ptr(tt.code)}, nil
	case <-ctx.Done():
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (c *testClient) TerminalOutput(ctx context.Context, p acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	tt, err := c.term(p.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, err
	}
	select {
	case <-tt.done:
		return acp.TerminalOutputResponse{Output: tt.out.String(), ExitStatus: &acp.TerminalExitStatus{ExitCode: acp.Ptr(tt.code)}}, nil
	default:
		return acp.TerminalOutputResponse{Output: ""}, nil
	}
}

func (c *testClient) KillTerminal(ctx context.Context, p acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	tt, err := c.term(p.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, err
	}
	_ = tt.cmd.Process.Kill()
	<-tt.done
	return acp.KillTerminalResponse{}, nil
}

func (c *testClient) ReleaseTerminal(ctx context.Context, p acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	tt, err := c.term(p.TerminalId)
	if err != nil {
		return acp.ReleaseTerminalResponse{}, err
	}
	_ = tt.cmd.Process.Kill()
	<-tt.done
	return acp.ReleaseTerminalResponse{}, nil
}

// harness connects a demo agent and a testClient over pipes.
type harness struct {
	c      *testClient
	conn   *acp.ClientSideConnection
	sid    acp.SessionId
	exit   chan int
	record *syncBuffer
	stop   func()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, c *testClient) *harness {
	t.Helper()
	return newHarnessWith(t, c, nil)
}

// newHarnessWith is newHarness with the agent's Options adjusted by adjust.
func newHarnessWith(t *testing.T, c *testClient, adjust func(*Options)) *harness {
	t.Helper()
	c.t = t
	c.files = map[string]string{}
	c.terms = map[string]*testTerm{}
	if c.perm == nil {
		c.perm = func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected("allow-once")}, nil
		}
	}
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	h := &harness{c: c, exit: make(chan int, 1), record: &syncBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	o := Options{Pace: time.Millisecond, LongSeconds: 1, Record: h.record, Exit: func(code int) { h.exit <- code }}
	if adjust != nil {
		adjust(&o)
	}
	go func() { done <- Run(ctx, toAgentR, toClientW, o) }()
	h.conn = acp.NewClientSideConnection(c, toAgentW, toClientR)
	h.stop = func() {
		toAgentW.Close()
		toClientW.Close()
		cancel()
		<-done
		toAgentR.Close()
		toClientR.Close()
		<-h.conn.Done()
	}
	t.Cleanup(h.stop)
	bg := context.Background()
	if _, err := h.conn.Initialize(bg, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	resp, err := h.conn.NewSession(bg, acp.NewSessionRequest{Cwd: "/proj", McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.sid = resp.SessionId
	if resp.Modes == nil || resp.Modes.CurrentModeId != "ask" || len(resp.Modes.AvailableModes) != 3 {
		t.Fatalf("modes = %+v, want 3 modes with current ask", resp.Modes)
	}
	return h
}

func (h *harness) prompt(t *testing.T, text string) (acp.StopReason, error) {
	t.Helper()
	resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: h.sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return resp.StopReason, err
}

func (h *harness) text() string {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	return h.c.text.String()
}

// records returns the recorded events named event.
func (h *harness) records(t *testing.T, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(h.record.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		if m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}

func TestPermissionReportsSelectedOption(t *testing.T) {
	for _, opt := range []string{"allow-once", "allow-always", "reject-once", "reject-always"} {
		t.Run(opt, func(t *testing.T) {
			var got acp.RequestPermissionRequest
			h := newHarness(t, &testClient{perm: func(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
				got = p
				return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(acp.PermissionOptionId(opt))}, nil
			}})
			stop, err := h.prompt(t, "perm")
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("prompt = %q, %v; want end_turn", stop, err)
			}
			if want := "permission outcome: selected " + opt + "\n\n"; h.text() != want {
				t.Fatalf("reply = %q, want %q", h.text(), want)
			}
			if len(got.Options) != 4 || got.Options[0].Kind != acp.PermissionOptionKindAllowOnce || got.Options[3].Kind != acp.PermissionOptionKindRejectAlways {
				t.Fatalf("options = %+v", got.Options)
			}
			if got.ToolCall.ToolCallId != "call-1" {
				t.Fatalf("toolCallId = %q, want call-1", got.ToolCall.ToolCallId)
			}
			recs := h.records(t, "permission")
			if len(recs) != 1 || recs[0]["outcome"] != "selected "+opt {
				t.Fatalf("permission records = %v", recs)
			}
		})
	}
}

func TestPermissionCancelledEndsTurnCancelled(t *testing.T) {
	var h *harness
	h = newHarness(t, &testClient{perm: func(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		// The user cancels the turn while the prompt is pending: the client sends session/cancel
		// and answers the pending request "cancelled" (ACP prompt-turn cancellation).
		if err := h.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: h.sid}); err != nil {
			return acp.RequestPermissionResponse{}, err
		}
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}})
	stop, err := h.prompt(t, "perm")
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled", stop, err)
	}
	if want := "permission outcome: cancelled\n\n"; h.text() != want {
		t.Fatalf("reply = %q, want %q", h.text(), want)
	}
}

func TestReadTerminalReportsOutput(t *testing.T) {
	h := newHarness(t, &testClient{stdin: "Ann\n"})
	stop, err := h.prompt(t, "/read")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if want := "terminal t1 exit 0: Your name? hello Ann\n\n"; h.text() != want {
		t.Fatalf("reply = %q, want %q", h.text(), want)
	}
	recs := h.records(t, "terminal")
	if len(recs) != 1 || recs[0]["output"] != "Your name? hello Ann\n" || recs[0]["exit"] != "exit 0" || recs[0]["command"] != ReadCommand {
		t.Fatalf("terminal records = %v", recs)
	}
	// The tool call embedded the terminal and ended completed.
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	var last *acp.SessionToolCallUpdate
	for _, u := range h.c.updates {
		if u.ToolCallUpdate != nil {
			last = u.ToolCallUpdate
		}
	}
	if last == nil || last.Status == nil || *last.Status != acp.ToolCallStatusCompleted || len(last.Content) != 1 || last.Content[0].Terminal == nil || last.Content[0].Terminal.TerminalId != "t1" {
		t.Fatalf("last tool call update = %+v", last)
	}
}

func TestLongTicks(t *testing.T) {
	h := newHarness(t, &testClient{})
	if stop, err := h.prompt(t, "long 2"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	recs := h.records(t, "terminal")
	if len(recs) != 1 || recs[0]["output"] != "tick 1\ntick 2\n" {
		t.Fatalf("terminal records = %v", recs)
	}
}

func TestWriteCreatesThenAppends(t *testing.T) {
	h := newHarness(t, &testClient{})
	for i := 1; i <= 2; i++ {
		if stop, err := h.prompt(t, "write"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("prompt %d = %q, %v", i, stop, err)
		}
	}
	want := writeHeader + "- edit 1\n- edit 2\n"
	if got := h.c.files["/proj/demo.md"]; got != want {
		t.Fatalf("demo.md = %q, want %q", got, want)
	}
	wantText := fmt.Sprintf("wrote /proj/demo.md (%d bytes, edit 1)\n\nwrote /proj/demo.md (%d bytes, edit 2)\n\n", len(writeHeader)+9, len(want))
	if h.text() != wantText {
		t.Fatalf("reply = %q, want %q", h.text(), wantText)
	}
}

func TestWriteRefusedIsReported(t *testing.T) {
	h := newHarness(t, &testClient{writeErr: &acp.RequestError{Code: -32603, Message: "denied by policy"}})
	if stop, err := h.prompt(t, "write"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if !strings.HasPrefix(h.text(), "write refused: ") || !strings.Contains(h.text(), "denied by policy") {
		t.Fatalf("reply = %q", h.text())
	}
}

func TestCrashExitsWithStatus3(t *testing.T) {
	h := newHarness(t, &testClient{})
	_, err := h.prompt(t, "crash")
	if err == nil {
		t.Fatal("prompt succeeded, want an error")
	}
	select {
	case code := <-h.exit:
		if code != 3 {
			t.Fatalf("exit code = %d, want 3", code)
		}
	default:
		t.Fatal("Exit was not called")
	}
}

func TestFailReturnsError(t *testing.T) {
	h := newHarness(t, &testClient{})
	_, err := h.prompt(t, "fail")
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32603 {
		t.Fatalf("err = %v, want a -32603 RequestError", err)
	}
}

func TestStreamArrivesInChunks(t *testing.T) {
	h := newHarness(t, &testClient{})
	if stop, err := h.prompt(t, "stream"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if h.text() != streamText {
		t.Fatalf("reply = %q, want %q", h.text(), streamText)
	}
	if h.c.chunks < 5 {
		t.Fatalf("chunks = %d, want several", h.c.chunks)
	}
}

func TestEchoAndUnknown(t *testing.T) {
	h := newHarness(t, &testClient{})
	if _, err := h.prompt(t, "echo  Hello, World "); err != nil {
		t.Fatal(err)
	}
	if h.text() != "Hello, World" {
		t.Fatalf("echo reply = %q", h.text())
	}
	h.c.mu.Lock()
	h.c.text.Reset()
	h.c.mu.Unlock()
	if _, err := h.prompt(t, "dance please"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.text(), `(You said "dance please".)`) || !strings.Contains(h.text(), "tour, stream, perm") {
		t.Fatalf("unknown reply = %q", h.text())
	}
}

func TestTourShowsEveryFeature(t *testing.T) {
	h := newHarness(t, &testClient{stdin: "Bo\n"})
	if stop, err := h.prompt(t, "tour"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	h.c.mu.Lock()
	var plans, tools, commands, modes int
	for _, u := range h.c.updates {
		switch {
		case u.Plan != nil:
			plans++
		case u.ToolCall != nil:
			tools++
		case u.AvailableCommandsUpdate != nil:
			commands = len(u.AvailableCommandsUpdate.AvailableCommands)
		case u.CurrentModeUpdate != nil:
			modes++
		}
	}
	thoughts := h.c.thoughts.String()
	h.c.mu.Unlock()
	if plans != 6 || tools != 5 || commands != len(Scenarios) || modes != 1 || thoughts == "" {
		t.Fatalf("plans=%d tools=%d commands=%d modes=%d thought=%q; want 6, 5, %d, 1, non-empty", plans, tools, commands, modes, thoughts, len(Scenarios))
	}
	for _, want := range []string{"I work in `/proj`", "terminal t1 exit 0: \x1b[31mred", "terminal t3 exit 0: Your name? hello Bo", "permission outcome: selected allow-once", "wrote /proj/demo.md", "terminal t2 exit 0: tick 1", "That was the tour."} {
		if !strings.Contains(h.text(), want) {
			t.Errorf("tour text lacks %q:\n%s", want, h.text())
		}
	}
}

func TestSetModeAndBadMode(t *testing.T) {
	h := newHarness(t, &testClient{})
	if _, err := h.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: h.sid, ModeId: "code"}); err != nil {
		t.Fatal(err)
	}
	// The switch is confirmed with current_mode_update before the response (SDK response barrier).
	h.c.mu.Lock()
	last := h.c.updates[len(h.c.updates)-1]
	h.c.mu.Unlock()
	if last.CurrentModeUpdate == nil || last.CurrentModeUpdate.CurrentModeId != "code" {
		t.Fatalf("last update = %+v, want current_mode_update code", last)
	}
	_, err := h.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: h.sid, ModeId: "yolo"})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("bad mode err = %v, want -32602", err)
	}
}

func TestChunksKeepEveryByte(t *testing.T) {
	for _, s := range []string{"", "one", "a b c d e f g", "x\ny z\n\n", "  lead"} {
		got := chunks(s, 3)
		if strings.Join(got, "") != s {
			t.Errorf("chunks(%q) = %q, joined differs", s, got)
		}
	}
	if got := chunks("a b c d e f g", 3); len(got) != 3 || got[0] != "a b c " {
		t.Errorf("chunks = %q", got)
	}
}

func TestSplitPrompt(t *testing.T) {
	for _, c := range []struct{ in, word, rest string }{
		{"perm", "perm", ""}, {"  /Long 5 ", "long", "5"}, {"", "", ""}, {"echo a  b", "echo", "a  b"},
	} {
		if w, r := splitPrompt(c.in); w != c.word || r != c.rest {
			t.Errorf("splitPrompt(%q) = %q, %q; want %q, %q", c.in, w, r, c.word, c.rest)
		}
	}
}

func TestHeadlessTourSkipsTheInteractiveStep(t *testing.T) {
	h := newHarnessWith(t, &testClient{}, func(o *Options) { o.Headless = true })
	if stop, err := h.prompt(t, "tour"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if strings.Contains(h.text(), "Your name?") || !strings.Contains(h.text(), "The interactive command is skipped") ||
		!strings.Contains(h.text(), "That was the tour.") {
		t.Fatalf("tour text:\n%s", h.text())
	}
	if recs := h.records(t, "terminal"); len(recs) != 2 {
		t.Fatalf("terminals = %v, want the colours and the ticker only", recs)
	}
}

func TestWaitLimitKillsAnUnansweredCommand(t *testing.T) {
	// No stdin for `read`: it would wait forever; the agent gives up after WaitLimit.
	h := newHarnessWith(t, &testClient{stdin: ""}, func(o *Options) { o.WaitLimit = 2 * time.Second })
	if _, err := h.prompt(t, "long 30"); err != nil {
		t.Fatal(err)
	}
	recs := h.records(t, "terminal")
	if len(recs) != 1 || recs[0]["exit"] == "exit 0" || !strings.HasPrefix(recs[0]["output"].(string), "tick 1\n") {
		t.Fatalf("terminal records = %v, want the ticker killed after its first tick", recs)
	}
}
