// Command scriptagent is a scripted ACP agent for acpclient's tests, driven over real pipes.
// Normal behaviour goes through acp-go-sdk's agent side; misbehaviour (unknown update kinds,
// string request ids, non-JSON stdout lines, crashes) is written as raw JSON lines on the same,
// locked stdout.
//
// Process-level behaviour is chosen by $SCRIPTAGENT_SCENARIO:
//
//	""                  normal
//	crash-before-init   write two stderr lines and exit 3 before reading anything
//	never-init          read stdin but never answer
//	stderr-flood        write $SCRIPTAGENT_LINES (default 100000) stderr lines, then normal
//	ignore-term         normal, but ignore SIGTERM and stdin EOF (only SIGKILL ends it)
//	child               normal, plus a `sleep 600` child in the same process group
//	auth                session/new needs authenticate (method "login") first
//	version2            answer initialize with protocolVersion 2
//	load                advertise loadSession; session/load replays two messages
//	dirs                advertise sessionCapabilities.additionalDirectories
//	sessions            loadSession, list, resume, fork, delete, close over $SCRIPTAGENT_STATE
//	resume-only         list, resume and close only (no load, no history replay)
//	options             config options "effort" (select, thought_level) and "brief" (boolean) too
//
// The first word of each prompt picks the turn's script (see turn()).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/acp-go-sdk"
)

// out serialises whole lines on stdout between the SDK and raw writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q := withModels(p); q != nil {
		if _, err := l.w.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return l.w.Write(p)
}

// newSessionIDs holds the raw ids of session/new requests: their responses get a `models`
// field (the models API, which acp-go-sdk's agent side no longer has).
var newSessionIDs sync.Map

// withModels returns line with `models` added to its result when it answers a session/new
// request, else nil.
func withModels(line []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m["result"] == nil || m["id"] == nil {
		return nil
	}
	if _, ok := newSessionIDs.LoadAndDelete(string(m["id"])); !ok {
		return nil
	}
	var result map[string]any
	if json.Unmarshal(m["result"], &result) != nil {
		return nil
	}
	result["models"] = map[string]any{"currentModelId": "m1", "availableModels": []map[string]any{
		{"modelId": "m1", "name": "One"}, {"modelId": "m2", "name": "Two"}}}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": result})
	return append(b, '\n')
}

var out = &lockedWriter{w: os.Stdout}

func raw(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	_, _ = out.Write(append(b, '\n'))
}

func rawLine(s string) { _, _ = out.Write([]byte(s + "\n")) }

// rawCalls: responses to raw requests (string ids "raw-N") are taken off stdin before the SDK.
var (
	rawMu    sync.Mutex
	rawWait  = map[string]chan json.RawMessage{}
	rawSeq   int
	scenario = os.Getenv("SCRIPTAGENT_SCENARIO")
)

// rawCall sends a request with a string id and waits for its whole response message.
func rawCall(method string, params any) json.RawMessage {
	rawMu.Lock()
	rawSeq++
	id := fmt.Sprintf("raw-%d-%s", rawSeq, "4f1c2d")
	ch := make(chan json.RawMessage, 1)
	rawWait[id] = ch
	rawMu.Unlock()
	raw(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return <-ch
}

func filterStdin(w *io.PipeWriter) {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var env struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			ok := json.Unmarshal(line, &env) == nil
			if ok && env.Method == "session/new" {
				newSessionIDs.Store(string(env.ID), true)
			}
			if ok && env.Method == "session/set_model" {
				// Answered here: the models API is not in acp-go-sdk's agent side.
				var p struct {
					Params struct {
						ModelID string `json:"modelId"`
					} `json:"params"`
				}
				_ = json.Unmarshal(line, &p)
				fmt.Fprintf(os.Stderr, "set_model %s\n", p.Params.ModelID)
				raw(map[string]any{"jsonrpc": "2.0", "id": env.ID, "result": map[string]any{}})
				continue
			}
			if ok && env.Method == "" && len(env.ID) > 0 && env.ID[0] == '"' {
				var id string
				_ = json.Unmarshal(env.ID, &id)
				rawMu.Lock()
				ch := rawWait[id]
				delete(rawWait, id)
				rawMu.Unlock()
				if ch != nil {
					ch <- append(json.RawMessage(nil), line...)
					continue
				}
			}
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			if scenario == "ignore-term" {
				for { // ignores stdin EOF: only a signal ends it
					time.Sleep(time.Hour)
				}
			}
			w.Close()
			return
		}
	}
}

type agent struct {
	conn          *acp.AgentSideConnection
	mu            sync.Mutex
	authenticated bool
	mode          string
	model         string
	effort        string        // scenario "options"
	brief         bool          // scenario "options"
	cancels       chan struct{} // one token per session/cancel received
}

// sid is the session id: "sess-1", or the one session/load was given.
var sid acp.SessionId = "sess-1"

func main() {
	switch scenario {
	case "crash-before-init":
		fmt.Fprintln(os.Stderr, "scriptagent: fatal: cannot start")
		fmt.Fprintln(os.Stderr, "scriptagent: giving up")
		os.Exit(3)
	case "usage-on-stdout":
		// An agent started with the wrong arguments: its usage goes to stdout, then it exits.
		fmt.Println("Usage: scriptagent [--acp] [--model NAME]")
		fmt.Println("  --acp   speak the Agent Client Protocol on stdio")
		os.Exit(1)
	case "never-init":
		_, _ = io.Copy(io.Discard, os.Stdin)
		for {
			time.Sleep(time.Hour)
		}
	case "stderr-flood":
		n := 100000
		if s := os.Getenv("SCRIPTAGENT_LINES"); s != "" {
			n, _ = strconv.Atoi(s)
		}
		w := bufio.NewWriter(os.Stderr)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, "stderr line %d\n", i)
		}
		w.Flush()
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "child":
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
		} else {
			fmt.Fprintf(os.Stderr, "child pid %d\n", cmd.Process.Pid)
		}
	}
	pr, pw := io.Pipe()
	go filterStdin(pw)
	a := &agent{mode: "default", model: "fast", cancels: make(chan struct{}, 16)}
	a.conn = acp.NewAgentSideConnection(a, out, pr)
	<-a.conn.Done()
	if scenario == "ignore-term" {
		for {
			time.Sleep(time.Hour)
		}
	}
}

func (a *agent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	fmt.Fprintf(os.Stderr, "initialize: terminal=%v fs=%v/%v meta.terminal_output=%v client=%s\n",
		p.ClientCapabilities.Terminal, p.ClientCapabilities.Fs.ReadTextFile, p.ClientCapabilities.Fs.WriteTextFile,
		p.ClientCapabilities.Meta["terminal_output"], p.ClientInfo.Name)
	r := acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "scriptagent", Version: "1.2.3"},
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			LoadSession:        scenario == "load" || scenario == "load-late",
			SessionCapabilities: acp.SessionCapabilities{
				AdditionalDirectories: map[bool]*acp.SessionAdditionalDirectoriesCapabilities{true: {}}[scenario == "dirs"],
			},
		},
	}
	if sessionsMode {
		r.AgentCapabilities.LoadSession = scenario == "sessions"
		r.AgentCapabilities.SessionCapabilities = sessionCaps()
	}
	if scenario == "version2" {
		r.ProtocolVersion = 2
	}
	r.AgentCapabilities.McpCapabilities.Http = os.Getenv("SCRIPTAGENT_MCP_HTTP") == "1"
	if scenario == "auth" {
		r.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{Id: "login", Name: "Log in"}}}
	}
	return r, nil
}

func (a *agent) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	if p.MethodId != "login" {
		return acp.AuthenticateResponse{}, acp.NewInvalidParams(map[string]any{"methodId": p.MethodId})
	}
	a.mu.Lock()
	a.authenticated = true
	a.mu.Unlock()
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) sessionState() (*acp.SessionModeState, []acp.SessionConfigOption) {
	a.mu.Lock()
	defer a.mu.Unlock()
	modes := &acp.SessionModeState{CurrentModeId: acp.SessionModeId(a.mode), AvailableModes: []acp.SessionMode{
		{Id: "default", Name: "Default"}, {Id: "plan", Name: "Plan"}}}
	opts := []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{
		Id: "model", Name: "Model", Type: "select", CurrentValue: acp.SessionConfigValueId(a.model),
		Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
			{Value: "fast", Name: "Fast"}, {Value: "smart", Name: "Smart"}}}}}}
	if scenario == "options" {
		opts = append(opts, optionsScenario(a.effort, a.brief)...)
	}
	return modes, opts
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	authed := a.authenticated
	a.mu.Unlock()
	if scenario == "auth" && !authed {
		return acp.NewSessionResponse{}, acp.NewAuthRequired(nil)
	}
	if scenario == "session-refused" {
		// As claude-agent-acp without a usable login: the reason goes to stderr, the error
		// says little.
		fmt.Fprintln(os.Stderr, "scriptagent: no credentials found")
		fmt.Fprintln(os.Stderr, "scriptagent: run `scriptagent login` first")
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"details": "Query closed before response received"})
	}
	if sessionsMode {
		sid = newStoredSession(p.Cwd)
	}
	fmt.Fprintf(os.Stderr, "session/new cwd=%s mcpServers=%d additionalDirectories=%q\n", p.Cwd, len(p.McpServers), p.AdditionalDirectories)
	offerMCP(p.McpServers)
	// Sent before the response: the client must keep it.
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.SessionUpdate{
		AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update",
			AvailableCommands: []acp.AvailableCommand{{Name: "init", Description: "Create AGENTS.md"}}}}})
	modes, opts := a.sessionState()
	return acp.NewSessionResponse{SessionId: sid, Modes: modes, ConfigOptions: opts}, nil
}

func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if sessionsMode {
		return a.loadStored(ctx, p)
	}
	id := p.SessionId
	sid = id
	replay := func(ctx context.Context) {
		_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: id, Update: acp.UpdateUserMessageText("old question")})
		_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: id, Update: acp.UpdateAgentMessageText("old answer")})
	}
	if scenario == "load-late" {
		// As gemini-cli 0.61 does: answer first, replay the history just after (outside the
		// request's context, which ends with the answer).
		go func() {
			time.Sleep(30 * time.Millisecond)
			replay(context.Background())
		}()
	} else {
		replay(ctx)
	}
	modes, opts := a.sessionState()
	return acp.LoadSessionResponse{Modes: modes, ConfigOptions: opts}, nil
}

func (a *agent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, nil
}

func (a *agent) Cancel(context.Context, acp.CancelNotification) error {
	select {
	case a.cancels <- struct{}{}:
	default:
	}
	return nil
}
func (a *agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	fmt.Fprintf(os.Stderr, "session/close %s\n", p.SessionId)
	return acp.CloseSessionResponse{}, nil
}
func (a *agent) ListSessions(_ context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	if sessionsMode {
		return listStored(p), nil
	}
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound("session/list")
}
func (a *agent) ResumeSession(_ context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if sessionsMode {
		return a.resumeStored(p)
	}
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *agent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	a.mu.Lock()
	a.mode = string(p.ModeId)
	a.mu.Unlock()
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if scenario == "options" && a.setOption(p) {
		_, opts := a.sessionState()
		return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
	}
	if p.ValueId == nil || p.ValueId.ConfigId != "model" {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown option"})
	}
	a.mu.Lock()
	a.model = string(p.ValueId.Value)
	a.mu.Unlock()
	_, opts := a.sessionState()
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// say sends an agent message chunk.
func (a *agent) say(text string) {
	remember("agent", text)
	_ = a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)})
}

func (a *agent) update(u acp.SessionUpdate) {
	_ = a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: u})
}

func promptText(p acp.PromptRequest) (string, []acp.ContentBlock) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	return text, p.Prompt
}

func errText(err error) string {
	if re, ok := err.(*acp.RequestError); ok {
		return fmt.Sprintf("code=%d message=%s", re.Code, re.Message)
	}
	return err.Error()
}

func exitText(code *int, sig *string) string {
	s := "exit="
	if code != nil {
		s += strconv.Itoa(*code)
	} else {
		s += "nil"
	}
	if sig != nil {
		s += " signal=" + *sig
	}
	return s
}

// legacyWritePermission asks, as claude-agent-acp 0.17.1's Write does (no tool kind), to write
// content to path, and reports whether an allow option was chosen (else it says the outcome).
func (a *agent) legacyWritePermission(sid acp.SessionId, path, content string) bool {
	r, err := a.conn.RequestPermission(context.Background(), acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
		ToolCall: acp.ToolCallUpdate{ToolCallId: "toolu_write", Title: acp.Ptr("Write " + path),
			RawInput: map[string]any{"file_path": path, "content": content}}})
	if err != nil || r.Outcome.Selected == nil || r.Outcome.Selected.OptionId == "reject" {
		a.say("permission " + outcomeText(r, err))
		return false
	}
	return true
}

var permOptions = []acp.PermissionOption{
	{OptionId: "allow_always", Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
	{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
	{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
}

// cancelledTurn: a "cancelled" outcome means the client cancelled the turn; its session/cancel
// may be handled just after the response, so wait (bounded) for the prompt context.
func cancelledTurn(ctx context.Context, r acp.RequestPermissionResponse, err error) bool {
	if err != nil || r.Outcome.Cancelled == nil {
		return ctx.Err() != nil
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
	return true
}

func outcomeText(r acp.RequestPermissionResponse, err error) string {
	switch {
	case err != nil:
		return "error " + errText(err)
	case r.Outcome.Selected != nil:
		return "selected " + string(r.Outcome.Selected.OptionId)
	case r.Outcome.Cancelled != nil:
		return "cancelled"
	}
	return "none"
}

// Prompt plays one turn; the prompt's first word picks the script.
func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	text, blocks := promptText(p)
	remember("user", text)
	f := strings.Fields(text)
	if len(f) == 0 {
		f = []string{"echo"}
	}
	arg := strings.TrimSpace(strings.TrimPrefix(text, f[0]))
	n := func(i, def int) int {
		if len(f) > i {
			if v, err := strconv.Atoi(f[i]); err == nil {
				return v
			}
		}
		return def
	}
	bg := context.Background()
	switch f[0] {
	case "echo":
		a.say(arg)
	case "netget": // netget URL: an HTTP GET by the agent process itself (through HTTP_PROXY when set)
		cl := &http.Client{Timeout: 30 * time.Second}
		resp, err := cl.Get(arg)
		if err != nil {
			a.say("netget error " + err.Error())
			break
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		a.say(fmt.Sprintf("netget %d %s", resp.StatusCode, strings.TrimSpace(string(body))))
	case "mcphttp": // see mcp.go
		a.say(mcpHTTP())
	case "mcpstdio": // see mcp.go
		a.say(mcpStdio())
	case "netdial": // netdial HOST:PORT: a TCP connection by the agent process itself, ignoring any proxy
		c, err := net.DialTimeout("tcp", arg, 10*time.Second)
		if err != nil {
			a.say("netdial error " + err.Error())
			break
		}
		c.Close()
		a.say("netdial connected " + arg)
	case "blocks": // report the prompt's content blocks
		var kinds []string
		for _, b := range blocks {
			switch {
			case b.Text != nil:
				kinds = append(kinds, "text")
			case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
				r := b.Resource.Resource.TextResourceContents
				kinds = append(kinds, "resource:"+r.Uri+":"+r.Text)
			case b.ResourceLink != nil:
				kinds = append(kinds, "link:"+b.ResourceLink.Uri)
			}
		}
		a.say(strings.Join(kinds, "|"))
	case "flood": // flood N: N one-line chunks, as fast as possible
		for i := 1; i <= n(1, 2000); i++ {
			a.say(strconv.Itoa(i) + "\n")
		}
	case "big": // big N: one chunk of N bytes
		a.say(strings.Repeat("x", n(1, 5<<20)))
	case "agenterr": // session_info_update _meta reports: codex-acp's retry error, a notice
		a.update(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{SessionUpdate: "session_info_update",
			Meta: map[string]any{"codex": map[string]any{"threadStatus": "active", "error": map[string]any{"message": "Reconnecting... 2/5", "willRetry": true}}}}})
		a.update(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{SessionUpdate: "session_info_update",
			Meta: map[string]any{"notice": map[string]any{"severity": "warning", "title": "Auto mode unavailable", "description": "Using Accept edits instead."}}}})
		a.say("recovered")
	case "thought":
		a.update(acp.UpdateAgentThoughtText("thinking"))
		a.update(acp.UpdatePlan(acp.PlanEntry{Content: "step one", Priority: "high", Status: "in_progress"}))
		a.update(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: 10, Size: 100}})
		a.say("done")
	case "write": // write PATH N: fs/write_text_file of N bytes
		size := n(2, 10)
		_, err := a.conn.WriteTextFile(bg, acp.WriteTextFileRequest{SessionId: sid, Path: f[1], Content: strings.Repeat("w", size)})
		if err != nil {
			a.say("write error " + errText(err))
		} else {
			a.say(fmt.Sprintf("wrote %d", size))
		}
	case "legacywrite": // legacywrite PATH TEXT: claude-agent-acp 0.17.1's Write (permission without kind, then fs/write)
		content := strings.Join(f[2:], " ")
		if !a.legacyWritePermission(sid, f[1], content) {
			break
		}
		if _, err := a.conn.WriteTextFile(bg, acp.WriteTextFileRequest{SessionId: sid, Path: f[1], Content: content}); err != nil {
			a.say("write error " + errText(err))
		} else {
			a.say("wrote " + content)
		}
	case "legacywrite2": // legacywrite2 PATH TEXT: one permission, then two fs/write of PATH
		content := strings.Join(f[2:], " ")
		if !a.legacyWritePermission(sid, f[1], content) {
			break
		}
		var said []string
		for i, text := range []string{content, content + " and more"} {
			if _, err := a.conn.WriteTextFile(bg, acp.WriteTextFileRequest{SessionId: sid, Path: f[1], Content: text}); err != nil {
				said = append(said, fmt.Sprintf("write %d error %s", i+1, errText(err)))
			} else {
				said = append(said, fmt.Sprintf("wrote %d", i+1))
			}
		}
		a.say(strings.Join(said, "; "))
	case "read": // read PATH
		r, err := a.conn.ReadTextFile(bg, acp.ReadTextFileRequest{SessionId: sid, Path: f[1]})
		if err != nil {
			a.say("read error " + errText(err))
		} else {
			a.say("read " + r.Content)
		}
	case "self": // self LINE: run `sh -c LINE` in the agent's own process (as today's agents run their Bash tool), reply "self exit N"
		c := exec.CommandContext(ctx, "/bin/sh", "-c", arg)
		c.Stdin, c.Stdout, c.Stderr = nil, os.Stderr, os.Stderr
		if err := c.Run(); c.ProcessState == nil {
			a.say("self error " + err.Error())
		} else {
			a.say(fmt.Sprintf("self exit %d", c.ProcessState.ExitCode()))
		}
	case "term": // term LINE: claude-agent-acp 0.17.1's sequence
		a.legacyTerm(ctx, arg, "normal")
	case "termtimeout": // release without kill while wait_for_exit is pending
		a.legacyTerm(ctx, arg, "timeout")
	case "termtwice": // two concurrent waits, two releases
		a.legacyTerm(ctx, arg, "twice")
	case "termnoperm": // terminal/create without a permission request first
		a.legacyTerm(ctx, arg, "noperm")
	case "termcwd": // terminal/create with a relative cwd
		_, err := a.conn.CreateTerminal(bg, acp.CreateTerminalRequest{SessionId: sid, Command: "true", Cwd: acp.Ptr("rel/dir")})
		a.say("create error " + errText(err))
	case "termbad": // terminal/output on an unknown id
		_, err := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: "nope"})
		a.say("output error " + errText(err))
	case "perm": // perm [KIND]: ask permission for an execute tool call of `rm -rf build`
		a.update(acp.StartToolCall("call-perm", "rm -rf build", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartRawInput(map[string]any{"command": "rm -rf build"})))
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call-perm", Title: acp.Ptr("rm -rf build"), Kind: acp.Ptr(acp.ToolKindExecute),
				RawInput: map[string]any{"command": "rm -rf build"}}})
		a.say("permission " + outcomeText(r, err))
		if cancelledTurn(ctx, r, err) {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	case "permtitle": // permtitle LINE: gemini-cli's execute permission: the command only in the title, no rawInput
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call-title", Title: acp.Ptr(arg), Kind: acp.Ptr(acp.ToolKindExecute),
				Status: acp.Ptr(acp.ToolCallStatusPending)}})
		a.say("permission " + outcomeText(r, err))
	case "geminiperm": // geminiperm TITLE: gemini-cli's execute request, the command only in the title (no rawInput.command), the description as text content
		title := arg
		if title == "" {
			title = "rm -rf build [in sub] (Remove the build directory)"
		}
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call-gemini", Title: acp.Ptr(title), Kind: acp.Ptr(acp.ToolKindExecute),
				Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("Remove the build directory"))}}})
		a.say("permission " + outcomeText(r, err))
		if cancelledTurn(ctx, r, err) {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	case "goeson": // ignores session/cancel: once cancelled it still asks and runs, then ends normally
		a.say("working")
		select {
		case <-a.cancels:
		case <-time.After(30 * time.Second):
		}
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call-late", Title: acp.Ptr("fetch https://example.com/late"), Kind: acp.Ptr(acp.ToolKindFetch)}})
		_, cerr := a.conn.CreateTerminal(bg, acp.CreateTerminalRequest{SessionId: sid, Command: "touch", Args: []string{"stubborn.txt"}})
		a.say("permission " + outcomeText(r, err) + "; create " + errText(cerr))
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	case "permfile": // permfile KIND PATH: permission for a KIND (edit, delete, move) tool call of the absolute PATH
		kind, path, _ := strings.Cut(arg, " ")
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId("call-" + kind), Title: acp.Ptr(kind + " " + path), Kind: acp.Ptr(acp.ToolKind(kind)),
				Locations: []acp.ToolCallLocation{{Path: path}}}})
		a.say("permission " + outcomeText(r, err))
	case "permask": // permission for a tool the policy cannot judge (kind fetch)
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "call-fetch", Title: acp.Ptr("fetch https://example.com"), Kind: acp.Ptr(acp.ToolKindFetch)}})
		a.say("permission " + outcomeText(r, err))
		if cancelledTurn(ctx, r, err) {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	case "codexperm": // codex-acp: string request id, permission before the tool call, argv command
		resp := rawCall("session/request_permission", map[string]any{"sessionId": sid,
			"toolCall": map[string]any{"toolCallId": "call-codex", "kind": "execute", "title": arg,
				"rawInput": map[string]any{"command": []string{"/bin/bash", "-lc", arg}}},
			"options": []map[string]any{{"optionId": "approved", "name": "Yes", "kind": "allow_once"},
				{"optionId": "approved-execpolicy-amendment", "name": "Always", "kind": "allow_always"},
				{"optionId": "abort", "name": "No", "kind": "reject_once"}}})
		a.update(acp.StartToolCall("call-codex", arg, acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		a.say("raw response " + string(resp))
	case "unknown": // unknown update kinds and content types, non-JSON stdout
		rawLine("this is not json")
		raw(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid,
			"update": map[string]any{"sessionUpdate": "notice", "content": map[string]any{"type": "text", "text": "SECRET-UNKNOWN"}}}})
		raw(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid,
			"update": map[string]any{"sessionUpdate": "compaction_started", "title": "nope"}}})
		raw(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid,
			"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "hologram", "data": "x"}}}})
		raw(map[string]any{"jsonrpc": "2.0", "method": "_vendor/notice", "params": map[string]any{}})
		raw(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "other-session",
			"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "OTHER"}}}})
		a.say("after-unknown")
	case "meta": // agent-owned terminal (claude-agent-acp 0.23.1 with _meta.terminal_output)
		a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "toolu_1", Title: "Terminal",
			Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending, RawInput: map[string]any{"command": "printf hi"},
			Content: []acp.ToolCallContent{{Terminal: &acp.ToolCallContentTerminal{Type: "terminal", TerminalId: "toolu_1"}}},
			Meta:    map[string]any{"terminal_info": map[string]any{"terminal_id": "toolu_1"}}}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_1",
			Meta: map[string]any{"terminal_output": map[string]any{"terminal_id": "toolu_1", "data": "hello\n\x1b[31mred\x1b[0m world\n"}}}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_1",
			Status: acp.Ptr(acp.ToolCallStatusCompleted),
			Meta:   map[string]any{"terminal_exit": map[string]any{"terminal_id": "toolu_1", "exit_code": 2, "signal": nil}}}})
		a.say("meta done")
	case "metaretitle": // claude-agent-acp 0.23.1: terminal announced on a "Terminal" tool call, command in a later update
		a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "toolu_2", Title: "Terminal",
			Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending, RawInput: map[string]any{},
			Meta: map[string]any{"terminal_info": map[string]any{"terminal_id": "toolu_2"}}}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_2",
			Title: acp.Ptr("List files")}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_2",
			Title: acp.Ptr("`ls -la`"), RawInput: map[string]any{"command": "ls -la", "description": "List files"}}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_2",
			Status: acp.Ptr(acp.ToolCallStatusInProgress)}})
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_2",
			Title: acp.Ptr("`ls -la`"), Status: acp.Ptr(acp.ToolCallStatusCompleted),
			Meta: map[string]any{"terminal_output": map[string]any{"terminal_id": "toolu_2", "data": "total 0\n"},
				"terminal_exit": map[string]any{"terminal_id": "toolu_2", "exit_code": 0, "signal": nil}}}})
		a.say("retitle done")
	case "metaraw": // codex-acp: the first terminal_output chunk is lost; the completed update has rawOutput
		start := func(id, cmd string) {
			a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: acp.ToolCallId(id), Title: cmd,
				Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress, RawInput: map[string]any{"command": []string{"/bin/bash", "-lc", cmd}},
				Content: []acp.ToolCallContent{{Terminal: &acp.ToolCallContentTerminal{Type: "terminal", TerminalId: id}}},
				Meta:    map[string]any{"terminal_info": map[string]any{"terminal_id": id}}}})
		}
		done := func(id string, status acp.ToolCallStatus, rawOut map[string]any, meta map[string]any) {
			a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: acp.ToolCallId(id),
				Status: acp.Ptr(status), RawOutput: rawOut, Meta: meta}})
		}
		// No output data, no terminal_exit: everything comes from rawOutput.aggregated_output.
		start("call_agg", "printf 'one\\ntwo\\n'; exit 3")
		done("call_agg", acp.ToolCallStatusFailed, map[string]any{"aggregated_output": "one\ntwo\n", "stdout": "one\n", "stderr": "two\n",
			"exit_code": 3, "formatted_output": "one\ntwo\n"}, nil)
		// No aggregated_output: stdout then stderr; terminal_exit came, so its status stays.
		start("call_std", "echo out; echo err >&2")
		done("call_std", acp.ToolCallStatusCompleted, map[string]any{"stdout": "out\n", "stderr": "err\n", "exit_code": 0},
			map[string]any{"terminal_exit": map[string]any{"terminal_id": "call_std", "exit_code": 1, "signal": nil}})
		// Data arrived: rawOutput is not repeated.
		start("call_live", "echo live")
		a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "call_live",
			Meta: map[string]any{"terminal_output": map[string]any{"terminal_id": "call_live", "data": "live\n"}}}})
		done("call_live", acp.ToolCallStatusCompleted, map[string]any{"aggregated_output": "live\n", "exit_code": 0}, nil)
		a.say("raw done")
	case "forgeinfo": // forgeinfo LINE: announce an agent-owned terminal "term-1" with fake output, then terminal/create LINE
		a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "toolu_forge", Title: "Terminal",
			Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress, RawInput: map[string]any{"command": "rm -rf ~"},
			Content: []acp.ToolCallContent{{Terminal: &acp.ToolCallContentTerminal{Type: "terminal", TerminalId: "term-1"}}},
			Meta: map[string]any{"terminal_info": map[string]any{"terminal_id": "term-1"},
				"terminal_output": map[string]any{"terminal_id": "term-1", "data": "rm: removed all your files\n"}}}})
		a.say(a.createWaitRelease(acp.CreateTerminalRequest{SessionId: sid, Command: arg}, nil))
	case "forgeexit": // forgeexit LINE: terminal/create LINE, then claim its exit (42) and output in _meta
		a.say(a.createWaitRelease(acp.CreateTerminalRequest{SessionId: sid, Command: arg}, func(tid string) {
			a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "toolu_forge2", Title: "Forged",
				Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress}})
			a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: "toolu_forge2",
				Meta: map[string]any{"terminal_output": map[string]any{"terminal_id": tid, "data": "FAKE\n"},
					"terminal_exit": map[string]any{"terminal_id": tid, "exit_code": 42, "signal": nil}}}})
		}))
	case "permcreate": // permcreate VARIANT LINE: permission for LINE (allow once), then terminal/create per VARIANT
		// VARIANT: twice (LINE twice), env (LINE with FOO=1), cwd=DIR (LINE in DIR).
		line := strings.TrimSpace(strings.TrimPrefix(arg, f[1]))
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: "toolu_pc", Title: acp.Ptr(line), Kind: acp.Ptr(acp.ToolKindExecute),
				RawInput: map[string]any{"command": line}}})
		if err != nil || r.Outcome.Selected == nil || r.Outcome.Selected.OptionId == "reject" {
			a.say("permission " + outcomeText(r, err))
			break
		}
		req := acp.CreateTerminalRequest{SessionId: sid, Command: line}
		switch v := f[1]; {
		case v == "twice":
			first := a.createWaitRelease(req, nil)
			a.say("first " + first + "; second " + a.createWaitRelease(req, nil))
		case v == "env":
			req.Env = []acp.EnvVariable{{Name: "FOO", Value: "1"}}
			a.say(a.createWaitRelease(req, nil))
		case strings.HasPrefix(v, "cwd="):
			req.Cwd = acp.Ptr(strings.TrimPrefix(v, "cwd="))
			a.say(a.createWaitRelease(req, nil))
		}
	case "metaopen": // agent-owned terminals that never get terminal_exit (claude-agent-acp 0.23.1 on reject/cancel)
		start := func(id string) {
			a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: acp.ToolCallId(id), Title: "run " + id,
				Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress, RawInput: map[string]any{"command": "run " + id},
				Meta: map[string]any{"terminal_info": map[string]any{"terminal_id": id},
					"terminal_output": map[string]any{"terminal_id": id, "data": id + " partial\n"}}}})
		}
		status := func(id string, st acp.ToolCallStatus, meta map[string]any) {
			a.update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: acp.ToolCallId(id),
				Status: acp.Ptr(st), Meta: meta}})
		}
		start("call_done")
		status("call_done", acp.ToolCallStatusCompleted, nil)
		start("call_fail")
		status("call_fail", acp.ToolCallStatusFailed, nil)
		start("call_late") // completed, then its real exit status arrives
		status("call_late", acp.ToolCallStatusCompleted, nil)
		status("call_late", acp.ToolCallStatusCompleted, map[string]any{"terminal_exit": map[string]any{"terminal_id": "call_late", "exit_code": 7}})
		status("call_late", acp.ToolCallStatusCompleted, map[string]any{"terminal_exit": map[string]any{"terminal_id": "call_late", "exit_code": 9}})
		start("call_open") // left running when the turn ends
		a.say("open done")
	case "metaslow": // an agent-owned terminal running until session/cancel
		a.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "call_slow", Title: "sleep 60",
			Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress, RawInput: map[string]any{"command": "sleep 60"},
			Meta: map[string]any{"terminal_info": map[string]any{"terminal_id": "call_slow"}}}})
		<-ctx.Done()
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case "open": // a tool call left open (codex-acp's long commands)
		a.update(acp.StartToolCall("call-open", "sleep 5", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		a.say("left open")
	case "slow": // wait for session/cancel
		a.update(acp.StartToolCall("call-slow", "long", acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		a.say("waiting")
		<-ctx.Done()
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case "stubborn": // ignores session/cancel for a while
		a.say("not listening")
		time.Sleep(20 * time.Second)
	case "crash": // crash mid-turn
		a.say("about to crash")
		time.Sleep(50 * time.Millisecond)
		fmt.Fprintln(os.Stderr, "scriptagent: segmentation fault (simulated)")
		os.Exit(7)
	case "termcrash": // start a long command in a client terminal, then crash
		ct, err := a.conn.CreateTerminal(bg, acp.CreateTerminalRequest{SessionId: sid, Command: "sleep", Args: []string{"300"}})
		if err != nil {
			a.say("create error " + errText(err))
			break
		}
		a.say("started " + ct.TerminalId)
		time.Sleep(200 * time.Millisecond)
		os.Exit(5)
	case "orphan": // orphan SECONDS: leave a `sleep SECONDS` whose parent shell has exited
		out, err := exec.Command("sh", "-c", "sleep "+f[1]+" >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			a.say("orphan error " + err.Error())
			break
		}
		a.say("orphan " + strings.TrimSpace(string(out)))
	case "closeout": // close stdout (broken pipe for the client) and hang
		a.say("closing stdout")
		time.Sleep(50 * time.Millisecond)
		out.mu.Lock()
		os.Stdout.Close()
		for {
			time.Sleep(time.Hour)
		}
	case "killself":
		a.say("about to die")
		time.Sleep(50 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case "elicit", "elicitask", "elicitbad", "elicittwice": // form elicitations (elicit.go)
		a.elicitForm(f[0])
	case "elicurl": // elicurl URL: a URL elicitation, then elicitation/complete after an accept
		a.elicitURL(arg)
	case "fail":
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": "scripted failure"})
	case "refuse":
		return acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case "nostop": // a response without the required stopReason
		return acp.PromptResponse{}, nil
	default:
		a.say("unknown script " + f[0])
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// createWaitRelease runs terminal/create req, calls between (if any) with the id once the
// command exited, then reads its output and releases it; it describes what happened:
// "TID exit=N output=\"…\"" or "create error code=… message=…".
func (a *agent) createWaitRelease(req acp.CreateTerminalRequest, between func(tid string)) string {
	bg := context.Background()
	ct, err := a.conn.CreateTerminal(bg, req)
	if err != nil {
		return "create error " + errText(err)
	}
	tid := ct.TerminalId
	w, err := a.conn.WaitForTerminalExit(bg, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: tid})
	if err != nil {
		return "wait error " + errText(err)
	}
	if between != nil {
		between(tid)
	}
	o, err := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
	if err != nil {
		return "output error " + errText(err)
	}
	_, _ = a.conn.ReleaseTerminal(bg, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid})
	return fmt.Sprintf("%s %s output=%q", tid, exitText(w.ExitCode, w.Signal), o.Output)
}

// legacyTerm plays claude-agent-acp 0.17.1's Bash tool: tool_call twice, permission,
// terminal/create with the whole line and no args/cwd, then wait/output/release.
func (a *agent) legacyTerm(ctx context.Context, line, mode string) {
	bg := context.Background()
	id := acp.ToolCallId("toolu_legacy")
	a.update(acp.StartToolCall(id, "Terminal", acp.WithStartRawInput(map[string]any{})))
	a.update(acp.StartToolCall(id, line, acp.WithStartRawInput(map[string]any{"command": line, "description": "run"})))
	if mode != "noperm" {
		r, err := a.conn.RequestPermission(bg, acp.RequestPermissionRequest{SessionId: sid, Options: permOptions,
			ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(line),
				RawInput: map[string]any{"command": line, "description": "run", "timeout": 120000}}})
		if err != nil || r.Outcome.Selected == nil || r.Outcome.Selected.OptionId == "reject" {
			a.say("permission " + outcomeText(r, err))
			return
		}
	}
	ct, err := a.conn.CreateTerminal(bg, acp.CreateTerminalRequest{SessionId: sid, Command: line,
		Env: []acp.EnvVariable{{Name: "CLAUDECODE", Value: "1"}}, OutputByteLimit: acp.Ptr(32000)})
	if err != nil {
		a.say("create error " + errText(err))
		return
	}
	tid := ct.TerminalId
	a.update(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
		acp.WithUpdateContent([]acp.ToolCallContent{{Terminal: &acp.ToolCallContentTerminal{Type: "terminal", TerminalId: tid}}})))
	switch mode {
	case "timeout":
		waitRes := make(chan string, 1)
		go func() {
			w, err := a.conn.WaitForTerminalExit(bg, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: tid})
			if err != nil {
				waitRes <- "wait error " + errText(err)
				return
			}
			waitRes <- "wait " + exitText(w.ExitCode, w.Signal)
		}()
		time.Sleep(300 * time.Millisecond)
		o, err := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
		outText := "output error " + fmt.Sprint(err)
		if err == nil {
			outText = fmt.Sprintf("output %q exited=%v", o.Output, o.ExitStatus != nil)
		}
		_, rerr := a.conn.ReleaseTerminal(bg, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid})
		_, oerr := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
		a.say(fmt.Sprintf("%s; release err=%v; %s; after release: %s", outText, rerr, <-waitRes, errText(oerr)))
	case "twice":
		var wg sync.WaitGroup
		res := make([]string, 2)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w, err := a.conn.WaitForTerminalExit(bg, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: tid})
				if err != nil {
					res[i] = "error " + errText(err)
					return
				}
				res[i] = exitText(w.ExitCode, w.Signal)
			}()
		}
		wg.Wait()
		_, k := a.conn.KillTerminal(bg, acp.KillTerminalRequest{SessionId: sid, TerminalId: tid})
		o, _ := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
		_, r1 := a.conn.ReleaseTerminal(bg, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid})
		_, r2 := a.conn.ReleaseTerminal(bg, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid})
		a.say(fmt.Sprintf("waits [%s] [%s]; kill err=%v; output %q; release1 err=%v; release2 err=%v", res[0], res[1], k, o.Output, r1, r2))
	default:
		w, err := a.conn.WaitForTerminalExit(bg, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: tid})
		if err != nil {
			a.say("wait error " + errText(err))
			return
		}
		o, err := a.conn.TerminalOutput(bg, acp.TerminalOutputRequest{SessionId: sid, TerminalId: tid})
		if err != nil {
			a.say("output error " + errText(err))
			return
		}
		_, _ = a.conn.ReleaseTerminal(bg, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: tid})
		a.update(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		a.say(fmt.Sprintf("%s truncated=%v output=%q", exitText(w.ExitCode, w.Signal), o.Truncated, o.Output))
	}
	_ = ctx
}
