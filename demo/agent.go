// Package demo is acpterm's built-in scripted ACP agent: no model, no key, no network. `acpterm
// --demo` re-executes itself as `acpterm __demo-agent` and talks to this agent over stdio, so a
// newcomer sees every client feature (streamed Markdown, thoughts, plans, tool calls with
// locations and diffs, terminals in panes, permission prompts, file edits, commands, modes) in
// about a minute.
//
// The agent's behaviour is chosen by the first word of each prompt (a leading "/" is ignored), so
// tests can drive one feature at a time; see Scenarios. Everything it learns from the client (the
// permission outcome it received, a terminal's output and exit status, the result of a write) is
// echoed in its reply text, and optionally appended as JSON lines to Options.Record, so tests can
// assert what really crossed the wire.
//
// Invariants: requests to the client are made with the connection's lifetime context, never with
// the prompt's context, because the SDK cancels the prompt context on session/cancel and a
// cancelled outbound call would drop the client's real answer. Cancellation is
// observed by checking the prompt context between steps; the turn then ends with stop reason
// "cancelled" (ACP prompt-turn §cancellation).
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Version is the demo agent's version reported in initialize (agentInfo.version).
const Version = "1.0.0"

// DefaultPace is the default delay between streamed chunks and steps.
const DefaultPace = 60 * time.Millisecond

// Scenarios lists the prompt keywords the demo agent understands, with a one-line description
// each, in the order they are advertised as available commands.
var Scenarios = []struct{ Name, Description string }{
	{"tour", "the whole tour: text, plan, thought, terminals, a permission request, a file edit"},
	{"stream", "stream a short Markdown reply in chunks"},
	{"perm", "ask for permission (allow once/always, reject once/always) and report the answer"},
	{"read", "run an interactive `read` in a pane and report what it printed"},
	{"color", "run a command that prints coloured output"},
	{"long", "run a command that ticks once a second (long [SECONDS], default 20)"},
	{"size", "print `stty size`, wait for Enter in the pane, print it again"},
	{"write", "read and rewrite demo.md in the session directory via fs/*"},
	{"plan", "send a plan and a thought"},
	{"repl", "drive python3 in a terminal through acpterm's MCP terminal tools (terminal_start, terminal_input)"},
	{"echo", "reply with the rest of the prompt, verbatim"},
	{"fail", "fail the prompt with a JSON-RPC error"},
	{"crash", "exit the agent process with status 3 in the middle of the turn"},
}

// Options configures the demo agent.
type Options struct {
	// Pace is the delay between streamed chunks and between steps; 0 → DefaultPace.
	Pace time.Duration
	// Exit ends the process with a status code ("crash" scenario); nil → os.Exit.
	Exit func(code int)
	// Record, when non-nil, receives one JSON object per line for every answer the agent got
	// from the client (permission outcomes, terminal results, fs results). Writes are serialized.
	Record io.Writer
	// Log receives the agent's diagnostics; nil → discard. (The SDK itself logs through
	// slog.Default.)
	Log *slog.Logger
	// LongSeconds is the default length of the "long" ticker in seconds; 0 → 20.
	LongSeconds int
	// Headless says nobody can type into panes (acpterm --headless): the interactive `read`
	// step is skipped.
	Headless bool
	// WaitLimit bounds how long the agent waits for one command to exit before killing it;
	// 0 → 10 minutes.
	WaitLimit time.Duration
}

// Run serves the demo agent on the given stdio streams (in: from the client, out: to the client)
// until the client disconnects or ctx ends. It returns nil on a normal disconnect and ctx.Err()
// when ctx ended first.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Pace <= 0 {
		o.Pace = DefaultPace
	}
	if o.Exit == nil {
		o.Exit = os.Exit
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.LongSeconds <= 0 {
		o.LongSeconds = 20
	}
	if o.WaitLimit <= 0 {
		o.WaitLimit = 10 * time.Minute
	}
	base, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &agent{opts: o, base: base, sessions: map[acp.SessionId]*session{}, ready: make(chan struct{})}
	// The connection starts serving at once, so handlers wait for a.conn (ready). SetLogger is
	// not called: it races with the SDK's goroutines; the SDK logs through
	// slog.Default, which the caller sets.
	conn := acp.NewAgentSideConnection(a, out, in)
	a.conn = conn
	close(a.ready)
	select {
	case <-conn.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type session struct {
	id   acp.SessionId
	cwd  string
	mode acp.SessionModeId
	next int // tool call counter
	mcp  []acp.McpServer
}

type agent struct {
	opts  Options
	base  context.Context // connection lifetime: used for every request to the client
	conn  *acp.AgentSideConnection
	ready chan struct{} // closed once conn is set

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	nextSess int
	recMu    sync.Mutex
}

var _ acp.Agent = (*agent)(nil)

// errCrashed is returned from Prompt when Options.Exit returned (tests) instead of exiting.
var errCrashed = errors.New("demo agent crashed on purpose")

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{},
		AgentInfo:         &acp.Implementation{Name: "acpterm-demo", Title: acp.Ptr("acpterm demo agent"), Version: Version},
		AuthMethods:       []acp.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// Logout implements acp.Agent (the demo has no login to end).
func (a *agent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, nil
}

var demoModes = []acp.SessionMode{
	{Id: "ask", Name: "Ask", Description: acp.Ptr("ask before running anything (the demo behaves the same in every mode)")},
	{Id: "code", Name: "Code", Description: acp.Ptr("write code")},
	{Id: "plan", Name: "Plan", Description: acp.Ptr("plan only")},
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return acp.NewSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session/new: cwd %q is not absolute", p.Cwd)})
	}
	a.mu.Lock()
	a.nextSess++
	s := &session{id: acp.SessionId(fmt.Sprintf("demo-%d", a.nextSess)), cwd: p.Cwd, mode: "ask", mcp: p.McpServers}
	a.sessions[s.id] = s
	a.mu.Unlock()
	// Commands are advertised before session/new returns, so a client sees them in a fixed
	// order (and must buffer updates for a session id it does not know yet).
	cmds := make([]acp.AvailableCommand, 0, len(Scenarios))
	for _, sc := range Scenarios {
		c := acp.AvailableCommand{Name: sc.Name, Description: sc.Description}
		if hint := map[string]string{"long": "seconds", "echo": "text"}[sc.Name]; hint != "" {
			c.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: hint}}
		}
		cmds = append(cmds, c)
	}
	a.update(s, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
	return acp.NewSessionResponse{
		SessionId: s.id,
		Modes:     &acp.SessionModeState{AvailableModes: demoModes, CurrentModeId: s.mode},
	}, nil
}

func (a *agent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	known := false
	for _, m := range demoModes {
		known = known || m.Id == p.ModeId
	}
	if !known {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q", p.ModeId)})
	}
	a.mu.Lock()
	s.mode = p.ModeId
	a.mu.Unlock()
	a.record("mode", map[string]any{"mode": string(p.ModeId)})
	// Confirm the switch the way agents do, with current_mode_update.
	a.update(s, acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: p.ModeId}})
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *agent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

// Cancel is a no-op: the SDK already cancels the running Prompt's context on session/cancel.
func (a *agent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	a.record("cancel", map[string]any{})
	return nil
}

func (a *agent) session(id acp.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", id)})
	}
	return s, nil
}

// Prompt runs the scenario named by the prompt's first word.
func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	word, rest := splitPrompt(text.String())
	a.record("prompt", map[string]any{"text": text.String()})
	t := &turn{a: a, s: s, ctx: ctx}
	err = t.run(word, rest)
	switch {
	case errors.Is(err, errCrashed):
		return acp.PromptResponse{}, err
	case ctx.Err() != nil:
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case err != nil:
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// splitPrompt returns the lower-cased first word (without a leading "/") and the trimmed rest.
func splitPrompt(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "/")
	word, rest, _ = strings.Cut(s, " ")
	if i := strings.IndexAny(word, "\n\t"); i >= 0 {
		rest = word[i+1:] + " " + rest
		word = word[:i]
	}
	return strings.ToLower(word), strings.TrimSpace(rest)
}

// peer returns the connection once Run has set it.
func (a *agent) peer() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

// update sends one session/update; errors (client gone) are logged, never fatal.
func (a *agent) update(s *session, u acp.SessionUpdate) {
	if err := a.peer().SessionUpdate(a.base, acp.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		a.opts.Log.Debug("demo: session/update failed", "err", err)
	}
}

// record appends one JSON line {"event":…, …fields} to Options.Record.
func (a *agent) record(event string, fields map[string]any) {
	if a.opts.Record == nil {
		return
	}
	m := map[string]any{"event": event}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	a.recMu.Lock()
	defer a.recMu.Unlock()
	_, _ = a.opts.Record.Write(append(b, '\n'))
}
