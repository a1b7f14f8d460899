package mcpterm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpterm/acpterm/terminals"
)

// ServerName is the name acpterm's MCP server has in an ACP session's mcpServers (agents show
// its tools as mcp__acpterm__terminal_start and so on).
const ServerName = "acpterm"

// Launch is a checked terminal_start request, for the Launcher to decide and start.
type Launch struct {
	// Argv is what runs: [shell, "-l", "-c", Command] (login) or [shell, "-c", Command].
	Argv []string
	// Command is the command line as the agent gave it.
	Command string
	// Cwd is the absolute working directory.
	Cwd string
	// Env are the agent's overrides: a nil value deletes the variable.
	Env map[string]*string
	// Size is the terminal size in cells.
	Size terminals.Size
}

// Launcher decides a Launch (policy, and the user when the policy asks) and starts it as a
// terminal through the session's terminals.Manager, showing it as a pane. It may block until
// the user answered. A refusal is a *DeniedError; other errors are start failures
// (terminals.ErrTooManyTerminals when the session's max_terminals is reached).
type Launcher func(ctx context.Context, l Launch) (*terminals.Terminal, error)

// DeniedError is the Launcher's error when the policy or the user refused the command.
type DeniedError struct {
	Message string // says who refused and why, naming the rule
	Rule    string // the deciding rule ("" when none)
}

func (e *DeniedError) Error() string { return e.Message }

// Options configure a Service.
type Options struct {
	// Launch decides and starts terminals (required).
	Launch Launcher
	// Cwd is the default working directory (the ACP session's), absolute; relative cwd
	// arguments are taken from it.
	Cwd string
	// Shell is the default shell; "" → $SHELL, then /bin/sh.
	Shell string
	// Audit, when set, is told of every input sent to a terminal by the agent: the terminal id,
	// the action kind (text, paste, key, mouse, focus, raw), its size in bytes and its first
	// bytes (at most 16, never a whole paste).
	Audit func(terminalID, kind string, n int, prefix string)
	// Log receives diagnostics (nil → discarded).
	Log *slog.Logger
	// Version is the server version reported to MCP clients.
	Version string
}

// Service is acpterm's MCP terminal service: the terminal_* tools over the session's
// terminals. Each MCP connection (NewServer) gets its own set of at most eight terminals,
// closed when the connection ends; Close ends them all. Safe for concurrent use.
type Service struct {
	o Options

	mu     sync.Mutex
	regs   map[*registry]struct{}
	closed bool
}

// New returns a Service.
func New(o Options) *Service {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Shell == "" {
		o.Shell = os.Getenv("SHELL")
		if o.Shell == "" {
			o.Shell = "/bin/sh"
		}
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return &Service{o: o, regs: map[*registry]struct{}{}}
}

// NewServer returns an MCP server with the six terminal tools bound to a fresh set of
// terminals, and a function that closes those terminals (call it when the connection ended).
// After Close it returns nil and a no-op.
func (s *Service) NewServer() (*mcp.Server, func()) {
	reg := newRegistry(s)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, func() {}
	}
	s.regs[reg] = struct{}{}
	s.mu.Unlock()
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "acpterm terminals", Version: s.o.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: s.o.Log, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	addTools(srv, reg)
	var once sync.Once
	return srv, func() {
		once.Do(func() {
			reg.closeAll()
			s.mu.Lock()
			delete(s.regs, reg)
			s.mu.Unlock()
		})
	}
}

// Serve runs one MCP connection over rw (newline-delimited JSON-RPC) until it ends or ctx
// does, then closes the connection's terminals. Errors: the connection's.
func (s *Service) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	srv, done := s.NewServer()
	defer done()
	if srv == nil {
		return errors.New("mcpterm: service closed")
	}
	err := srv.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: 32 << 20})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Close ends every terminal of every connection (process groups killed with the usual grace)
// and makes NewServer return nil. Idempotent.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	regs := slices.Collect(maps.Keys(s.regs))
	s.regs = map[*registry]struct{}{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range regs {
		wg.Go(r.closeAll)
	}
	wg.Wait()
}

const instructions = "Interactive terminals run by acpterm, in front of its user: each one is a pane the user sees and may type into. " +
	"Start one with explicit cols and rows (terminal_start; acpterm's policy decides the command and may ask the user first), " +
	"read its styled screen (terminal_snapshot), send ordered input actions (terminal_input), resize, list and close it. " +
	"Coordinates are 1-based cells. Observations wait for 250 ms of visible quiet within 1,000 ms unless settleMs / settleTimeoutMs say otherwise; " +
	"settlement is not completion. On errors check actionsCompleted, inputSent and latestSnapshot before retrying. Close terminals when done."

// ---- tools ----------------------------------------------------------------------------------

func obj(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

func intRange(lo, hi int, desc string) map[string]any {
	return map[string]any{"type": "integer", "minimum": lo, "maximum": hi, "description": desc}
}

func withTiming(props map[string]any) map[string]any {
	props["settleMs"] = intRange(0, MaxMillis, "Quiet interval in ms (default 250); 0 captures once parsing and synchronized redraws are done.")
	props["settleTimeoutMs"] = intRange(1, MaxMillis, "Strict deadline in ms (at least settleMs, 250 when omitted): not settled by then is a SCREEN_NOT_SETTLED error. Omitted: at most 1,000 ms, then settled:false.")
	return props
}

var sessionIDProp = map[string]any{"type": "string", "minLength": 1, "description": "The terminal's sessionId from terminal_start."}

var modifiersProp = map[string]any{"type": "array", "maxItems": 3, "uniqueItems": true,
	"items": map[string]any{"type": "string", "enum": []string{"Ctrl", "Alt", "Shift"}}}

func addTools(srv *mcp.Server, reg *registry) {
	t := true
	f := false
	srv.AddTool(&mcp.Tool{
		Name: "terminal_start",
		Description: "Run a command in a new terminal, shown to the user as a pane, and return its styled screen and sessionId. " +
			"Runs [shell, \"-l\", \"-c\", command] (login:false drops -l); shell defaults to $SHELL or /bin/sh, cwd to the session's directory. " +
			"acpterm's policy decides the command like any other; it may ask the user first (the call waits) or refuse (POLICY_DENIED). " +
			"env overrides variables (null deletes one); TERM is xterm-256color. Example: {\"command\":\"python3 -q\",\"cols\":100,\"rows\":30}.",
		InputSchema: obj(withTiming(map[string]any{
			"command": map[string]any{"type": "string", "minLength": 1},
			"cols":    intRange(MinCols, MaxCols, "Columns, 2–500."),
			"rows":    intRange(MinRows, MaxRows, "Rows, 1–200."),
			"shell":   map[string]any{"type": "string", "minLength": 1},
			"login":   map[string]any{"type": "boolean", "default": true},
			"cwd":     map[string]any{"type": "string", "minLength": 1},
			"env": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []string{"string", "null"}},
				"propertyNames": map[string]any{"not": map[string]any{"const": "TERM"}}},
		}), "command", "cols", "rows"),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &t},
	}, handler(reg.start))
	srv.AddTool(&mcp.Tool{
		Name: "terminal_snapshot",
		Description: "Observe a terminal's screen, styles, cursor and process status without sending input; " +
			"scrollbackLines (0–2000) adds that many normal-buffer history lines. An exited process keeps its final screen until terminal_close.",
		InputSchema: obj(withTiming(map[string]any{
			"sessionId":       sessionIDProp,
			"scrollbackLines": intRange(0, MaxScrollback, "History lines to include (default 0)."),
		}), "sessionId"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, handler(reg.snapshot))
	action := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"type":            map[string]any{"type": "string", "enum": []string{"text", "paste", "key", "mouse", "wait", "focus", "raw"}},
			"text":            map[string]any{"type": "string"},
			"key":             map[string]any{"type": "string", "description": "Enter, Tab, Backspace, Escape, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1–F12, or one printable ASCII character."},
			"modifiers":       modifiersProp,
			"event":           map[string]any{"type": "string", "enum": []string{"click", "scroll"}},
			"row":             intRange(1, MaxRows, "1-based row."),
			"column":          intRange(1, MaxCols, "1-based column."),
			"button":          map[string]any{"type": "string", "enum": []string{"left", "middle", "right"}},
			"direction":       map[string]any{"type": "string", "enum": []string{"up", "down"}},
			"count":           intRange(1, MaxWheelCount, "Wheel steps (default 1)."),
			"durationMs":      intRange(0, MaxMillis, "A fixed delay."),
			"settleMs":        intRange(0, MaxMillis, "Observation wait: quiet interval."),
			"settleTimeoutMs": intRange(1, MaxMillis, "Observation wait: strict deadline."),
			"focused":         map[string]any{"type": "boolean"},
			"bytes":           map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": 0, "maximum": 255}},
		},
		"required":             []string{"type"},
		"additionalProperties": false,
	}
	srv.AddTool(&mcp.Tool{
		Name: "terminal_input",
		Description: "Send an ordered batch of 1–256 actions, then return the styled screen with actionsCompleted and inputSent. " +
			"text: exact Unicode; paste: newlines become CR, bracketed when the program enabled it; key: a named key or printable ASCII with modifiers " +
			"(navigation/function keys any; Enter/Escape Alt; Tab Shift; Backspace/Space Ctrl, Alt; characters Alt, Ctrl with letters, space, @ [ \\ ] ^ _ ?); " +
			"mouse: click (button) or scroll (direction, count) at 1-based row/column, needs the program's mouse reporting; " +
			"wait: durationMs delays, otherwise waits for the screen to settle; focus: reports focus when the program asked; raw: bytes 0–255. " +
			"Actions do not wait for the program between them; add wait actions. The user sees all of it and may type too.",
		InputSchema: obj(withTiming(map[string]any{
			"sessionId": sessionIDProp,
			"actions":   map[string]any{"type": "array", "minItems": 1, "maxItems": MaxActions, "items": action},
		}), "sessionId", "actions"),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &t},
	}, handler(reg.input))
	srv.AddTool(&mcp.Tool{
		Name:        "terminal_resize",
		Description: "Resize a terminal (the program gets SIGWINCH) and return the screen at the new size.",
		InputSchema: obj(withTiming(map[string]any{
			"sessionId": sessionIDProp,
			"cols":      intRange(MinCols, MaxCols, "Columns, 2–500."),
			"rows":      intRange(MinRows, MaxRows, "Rows, 1–200."),
		}), "sessionId", "cols", "rows"),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, IdempotentHint: true, OpenWorldHint: &t},
	}, handler(reg.resize))
	srv.AddTool(&mcp.Tool{
		Name:        "terminal_list",
		Description: "List this connection's terminals with command, directory, size and process status (exited ones count toward the limit of eight until closed).",
		InputSchema: obj(map[string]any{}),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, handler(reg.listTool))
	srv.AddTool(&mcp.Tool{
		Name:        "terminal_close",
		Description: "Close a terminal: cancel its pending work and end its process group (SIGTERM, then SIGKILL after the grace). Returns {sessionId, closed}; an unknown or already closed id gives closed:false.",
		InputSchema: obj(map[string]any{"sessionId": sessionIDProp}, "sessionId"),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, IdempotentHint: true, OpenWorldHint: &t},
	}, handler(reg.closeTool))
}

// result is what a tool operation returns: a snapshot with optional metadata, or a plain value.
type result struct {
	snap  *snapshotOut
	extra map[string]any // input: actionsCompleted, inputSent
	plain any            // list, close
}

func handler(op func(ctx context.Context, raw json.RawMessage) (result, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		res, err := op(ctx, raw)
		if err != nil {
			return errorResult(err), nil
		}
		return okResult(res), nil
	}
}

// encode builds the tool result: structured content and readable text. It reports the
// complete encoded size (counted while encoding; the SDK encodes the value itself, which is
// cheaper than re-checking pre-encoded bytes).
func encode(structured any, text string, isErr bool) (*mcp.CallToolResult, int) {
	var n counter
	enc := json.NewEncoder(&n)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(structured); err != nil {
		structured = map[string]any{"code": CodeIOError, "message": "result encoding failed: " + err.Error()}
		isErr = true
	}
	textLen := n
	if err := enc.Encode(text); err != nil {
		return nil, 0
	}
	r := &mcp.CallToolResult{StructuredContent: structured, Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isErr}
	// {"content":[{"type":"text","text":…}],"structuredContent":…,"isError":true}
	return r, int(textLen) + int(n-textLen) + 80
}

// counter is an io.Writer that only counts bytes.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

func okResult(res result) *mcp.CallToolResult {
	if res.snap == nil {
		js, _ := json.MarshalIndent(res.plain, "", "  ")
		r, n := encode(res.plain, string(js), false)
		if n > MaxResultBytes {
			return tooLarge(n, nil, res.plain)
		}
		return r
	}
	var structured any = res.snap
	var meta []string
	if res.extra != nil {
		m := map[string]any{"snapshot": res.snap}
		for k, v := range res.extra {
			m[k] = v
		}
		structured = m
		meta = metaLines(res.extra)
	}
	r, n := encode(structured, readable(meta, res.snap), false)
	if n > MaxResultBytes {
		return tooLarge(n, nil, summary(res.snap, res.extra))
	}
	return r
}

func metaLines(m map[string]any) []string {
	var out []string
	for _, k := range []string{"actionsCompleted", "inputSent", "failedActionIndex"} {
		if v, ok := m[k]; ok {
			out = append(out, k+" "+jsonText(v))
		}
	}
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// summary keeps a result's identity and progress without the screen (RESULT_TOO_LARGE).
func summary(o *snapshotOut, extra map[string]any) map[string]any {
	m := map[string]any{}
	if o != nil {
		m["sessionId"], m["cols"], m["rows"], m["status"] = o.SessionID, o.Cols, o.Rows, o.Status
		if o.ExitCode != nil {
			m["exitCode"] = *o.ExitCode
		}
		if o.Signal != nil {
			m["signal"] = *o.Signal
		}
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// tooLarge is the RESULT_TOO_LARGE error for a result of n bytes; orig is the error the
// result carried, if any; keep holds the fields that survive.
func tooLarge(n int, orig *toolError, keep any) *mcp.CallToolResult {
	m := map[string]any{}
	if km, ok := keep.(map[string]any); ok {
		for k, v := range km {
			m[k] = v
		}
	}
	m["code"] = CodeResultTooLarge
	m["message"] = "the complete result would be " + itoa(n) + " bytes, more than the 8 MiB limit; the screen and history are left out and no input or resize was undone. Resize the terminal or ask for fewer scrollbackLines."
	m["resultBytes"] = n
	m["limitBytes"] = MaxResultBytes
	if orig != nil {
		msg := orig.msg
		oe := map[string]any{"code": orig.code}
		if len(msg) > 1024 {
			msg = msg[:1024]
			oe["messageTruncated"] = true
		}
		oe["message"] = msg
		m["originalError"] = oe
	}
	js, _ := json.MarshalIndent(m, "", "  ")
	r, _ := encode(m, string(js), true)
	return r
}

func errorResult(err error) *mcp.CallToolResult {
	var te *toolError
	if !errors.As(err, &te) {
		var inv *errInvalid
		if errors.As(err, &inv) {
			te = &toolError{code: CodeInvalidInput, msg: inv.msg}
		} else {
			te = &toolError{code: CodeIOError, msg: err.Error()}
		}
	}
	m := map[string]any{"code": te.code, "message": te.msg}
	if te.sessionID != "" {
		m["sessionId"] = te.sessionID
	}
	if te.rule != "" {
		m["rule"] = te.rule
	}
	if te.progress != nil {
		m["actionsCompleted"], m["inputSent"] = te.progress.ActionsCompleted, te.progress.InputSent
		if te.progress.FailedActionIndex != nil {
			m["failedActionIndex"] = *te.progress.FailedActionIndex
		}
	}
	text := te.code + ": " + te.msg
	if te.latest != nil {
		m["latestSnapshot"] = te.latest
		var meta []string
		for _, k := range []string{"actionsCompleted", "inputSent", "failedActionIndex"} {
			if v, ok := m[k]; ok {
				meta = append(meta, k+" "+jsonText(v))
			}
		}
		text += "\nlatest screen: " + readable(meta, te.latest)
	} else if te.progress != nil {
		text += "\n" + strings.Join(metaLines(map[string]any{"actionsCompleted": te.progress.ActionsCompleted, "inputSent": te.progress.InputSent}), "; ")
	}
	r, n := encode(m, text, true)
	if n > MaxResultBytes {
		keep := summary(te.latest, nil)
		for _, k := range []string{"sessionId", "actionsCompleted", "inputSent", "failedActionIndex"} {
			if v, ok := m[k]; ok {
				keep[k] = v
			}
		}
		return tooLarge(n, te, keep)
	}
	return r
}

func itoa(n int) string { return jsonText(n) }

// ---- operations -----------------------------------------------------------------------------

func (r *registry) start(ctx context.Context, raw json.RawMessage) (result, error) {
	a, tm, err := parseStart(raw)
	if err != nil {
		return result{}, err
	}
	cwd := r.svc.o.Cwd
	if a.Cwd != nil {
		cwd = *a.Cwd
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(r.svc.o.Cwd, cwd)
		}
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			return result{}, invalidf("cwd: %q is not an existing directory", cwd)
		}
	}
	shell := r.svc.o.Shell
	if a.Shell != nil {
		shell = *a.Shell
	}
	argv := []string{shell, "-l", "-c", *a.Command}
	if a.Login != nil && !*a.Login {
		argv = []string{shell, "-c", *a.Command}
	}
	if err := r.reserve(); err != nil {
		return result{}, err
	}
	t, err := r.svc.o.Launch(ctx, Launch{Argv: argv, Command: *a.Command, Cwd: filepath.Clean(cwd), Env: a.Env,
		Size: terminals.Size{Cols: *a.Cols, Rows: *a.Rows}})
	if err != nil {
		r.unreserve()
		var de *DeniedError
		switch {
		case errors.As(err, &de):
			return result{}, &toolError{code: CodePolicyDenied, msg: de.Message, rule: de.Rule}
		case errors.Is(err, terminals.ErrTooManyTerminals):
			return result{}, failf(CodeSessionLimit, "the session's max_terminals limit is reached (acpterm's policy); close a terminal first")
		case ctx.Err() != nil:
			return result{}, failf(CodeCancelled, "the request was cancelled before the terminal started")
		}
		return result{}, failf(CodeSpawnFailed, err.Error())
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &session{id: t.ID(), t: t, command: *a.Command, cwd: t.Dir(), audit: r.svc.o.Audit,
		queue: make(chan struct{}, 1), ctx: sctx, cancel: cancel}
	if !r.add(s) {
		s.close()
		return result{}, failf(CodeSessionClosed, "the MCP connection closed while the terminal started")
	}
	snap, err := s.snapshot(ctx, tm, -1)
	if err != nil {
		return result{}, err
	}
	return result{snap: snap}, nil
}

func (r *registry) snapshot(ctx context.Context, raw json.RawMessage) (result, error) {
	a, tm, err := parseSnapshot(raw)
	if err != nil {
		return result{}, err
	}
	s, err := r.get(*a.SessionID)
	if err != nil {
		return result{}, err
	}
	hist := -1
	if a.ScrollbackLines != nil {
		hist = *a.ScrollbackLines
	}
	snap, err := s.snapshot(ctx, tm, hist)
	if err != nil {
		return result{}, err
	}
	return result{snap: snap}, nil
}

func (r *registry) input(ctx context.Context, raw json.RawMessage) (result, error) {
	zero := &progress{}
	a, acts, tm, err := parseInput(raw)
	if err != nil {
		var inv *errInvalid
		if errors.As(err, &inv) {
			return result{}, &toolError{code: CodeInvalidInput, msg: inv.msg, progress: zero}
		}
		return result{}, err
	}
	s, err := r.get(*a.SessionID)
	if err != nil {
		err.(*toolError).progress = zero
		return result{}, err
	}
	if err := s.lock(ctx); err != nil {
		te := err.(*toolError)
		te.sessionID, te.progress = s.id, zero
		return result{}, te
	}
	pr, err := s.run(ctx, acts)
	s.unlock()
	if err != nil {
		te := err.(*toolError)
		te.sessionID, te.progress = s.id, &pr
		if te.latest == nil {
			te.latest = s.render(-1, false)
		}
		return result{}, te
	}
	extra := map[string]any{"actionsCompleted": pr.ActionsCompleted, "inputSent": pr.InputSent}
	snap, err := s.snapshot(ctx, tm, -1)
	if err != nil {
		te := err.(*toolError)
		te.progress = &pr
		return result{}, te
	}
	return result{snap: snap, extra: extra}, nil
}

func (r *registry) resize(ctx context.Context, raw json.RawMessage) (result, error) {
	a, tm, err := parseResize(raw)
	if err != nil {
		return result{}, err
	}
	s, err := r.get(*a.SessionID)
	if err != nil {
		return result{}, err
	}
	if err := s.lock(ctx); err != nil {
		err.(*toolError).sessionID = s.id
		return result{}, err
	}
	err = s.running()
	if err == nil {
		if rerr := s.t.Resize(terminals.Size{Cols: *a.Cols, Rows: *a.Rows}); rerr != nil {
			err = &toolError{code: CodeIOError, msg: rerr.Error(), sessionID: s.id}
		}
	}
	s.unlock()
	if err != nil {
		return result{}, err
	}
	snap, err := s.snapshot(ctx, tm, -1)
	if err != nil {
		return result{}, err
	}
	return result{snap: snap}, nil
}

// sessionInfo is one terminal_list entry.
type sessionInfo struct {
	SessionID string `json:"sessionId"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
	Status    string `json:"status"`
	ExitCode  *int   `json:"exitCode,omitempty"`
	Signal    *int   `json:"signal,omitempty"`
}

func (r *registry) listTool(_ context.Context, raw json.RawMessage) (result, error) {
	if err := parseNone(raw); err != nil {
		return result{}, err
	}
	out := []sessionInfo{}
	for _, s := range r.list() {
		sz := s.t.Screen().Size()
		var so snapshotOut
		so.status(s.exit())
		out = append(out, sessionInfo{SessionID: s.id, Command: s.command, Cwd: s.cwd, Cols: sz.Cols, Rows: sz.Rows,
			Status: so.Status, ExitCode: so.ExitCode, Signal: so.Signal})
	}
	return result{plain: map[string]any{"sessions": out}}, nil
}

func (r *registry) closeTool(_ context.Context, raw json.RawMessage) (result, error) {
	id, err := parseID(raw)
	if err != nil {
		return result{}, err
	}
	s := r.remove(id)
	if s != nil {
		s.close()
	}
	return result{plain: map[string]any{"sessionId": id, "closed": s != nil}}, nil
}
