package acpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/sandbox"
	"github.com/acpterm/acpterm/terminals"
)

// Version is the clientInfo.version acpterm sends in initialize.
var Version = "0.1.0"

// Defaults for Options durations.
const (
	DefaultInitTimeout   = 60 * time.Second
	DefaultCancelTimeout = 30 * time.Second
	DefaultStdinGrace    = 500 * time.Millisecond
	DefaultKillGrace     = 2 * time.Second
	DefaultCallTimeout   = 30 * time.Second
)

// Options configure Start.
type Options struct {
	// Command is the agent's argv (required).
	Command []string
	// Cwd is the session's working directory; it is made absolute and must be an existing
	// directory. It is also the agent process's working directory.
	Cwd string
	// Config is the loaded configuration (nil → config.Default(Cwd)).
	Config *config.Config
	// Engine decides and performs terminal and file requests. Nil disables the fs capability
	// (and terminals, which need a policy).
	Engine *permissions.Engine
	// Terminals runs client-owned terminals; nil disables the terminal capability.
	Terminals *terminals.Manager
	// Log receives acpterm's diagnostics (nil → discarded). It never writes to the screen.
	Log *slog.Logger
	// SDKLog receives the ACP SDK's own diagnostics as text (nil → Log's handler). Set
	// slog.SetDefault / log.SetOutput to the log file in main as well: the SDK logs through slog.Default, which would otherwise write to stderr.
	SDKLog io.Writer
	// InitTimeout bounds initialize and session setup each (0 → DefaultInitTimeout).
	InitTimeout time.Duration
	// CancelTimeout is how long a cancelled turn may take to end before acpterm gives up on it
	// (0 → DefaultCancelTimeout); the fallback for an agent that never
	// ends a cancelled turn.
	CancelTimeout time.Duration
	// StdinGrace is how long Close waits after closing the agent's stdin before SIGTERM
	// (0 → 500 ms); KillGrace is the SIGTERM→SIGKILL grace (0 → config KillGrace or 2 s).
	StdinGrace, KillGrace time.Duration
	// Env is the agent's environment ("K=V"; nil → acpterm's own).
	Env []string
	// McpServers are passed to session/new, session/load and session/resume (nil → []).
	McpServers []acp.McpServer
	// ExtraMcpServers, when set, is called before session/new, session/load or session/resume
	// with the agent's process id and whether it accepts HTTP MCP servers (initialize:
	// mcpCapabilities.http); the servers it returns follow McpServers (acpterm's own terminal
	// service).
	ExtraMcpServers func(agentPid int, http bool) []acp.McpServer
	// LoadSession resumes an earlier session by id: session/load when the agent advertises
	// loadSession (history is replayed as updates), else session/resume when advertised; an
	// error otherwise.
	LoadSession string
	// Continue opens the most recent earlier session of Cwd instead (SessionList: the agent's
	// session/list, else Store), as LoadSession would; Start fails when there is none.
	Continue bool
	// DeferSession: when neither LoadSession nor Continue is set, Start returns after
	// initialize without a session; OpenSession opens one (prompts wait for it).
	DeferSession bool
	// Store is acpterm's record of sessions per agent command and cwd (nil: none kept); it
	// lists earlier sessions when the agent has no session/list.
	Store *SessionStore
	// ScreenSize is the size of agent-owned terminal screens (zero → 80x24).
	ScreenSize terminals.Size
	// Mode chooses the session mode at start ([agent] mode): "" or ModeAsking switches to the
	// mode in which the agent asks before acting (the built-in table, ApprovingMode), ModeAgent
	// keeps the agent's choice, anything else is the id of a mode the agent offers.
	Mode string
	// Sandbox, when not nil, starts the agent process through the sandbox helper under this
	// spec, and the fs/* service never reads what the spec masks nor writes where the agent
	// itself could not (so acpterm is no way around the agent's confinement).
	Sandbox *sandbox.Spec
	// AgentNetwork serves a sandboxed agent's proxy listener (Sandbox.Network is
	// sandbox.NetworkProxy): called with the client and the listener made in the agent's
	// network namespace right after the agent started (before initialize), it returns the
	// function that stops serving it, called once the agent is gone. Nil: the listener is
	// closed, and the agent has no network at all.
	AgentNetwork func(c *Client, ln net.Listener) (stop func())
	// AgentWatch are protected paths a sandboxed agent must not create (see
	// sandbox.WatchCandidates; used with Sandbox only): those absent when the agent starts and
	// present once it and everything it started are gone are moved into Quarantine (deleted
	// when it is ""), each said in the diagnostics log and the audit log.
	AgentWatch []string
	// Quarantine is the directory AgentWatch's finds are moved into.
	Quarantine string
	// AgentRestore, when set (with Sandbox and AgentWatch), is called once the sandboxed agent
	// and everything it started are gone, after AgentWatch's sweep: it undoes what the agent
	// changed in files it had to be able to write (sandbox.ClaudeConfigGuard) and returns what it
	// did, each reported like a sweep's find.
	AgentRestore func() []sandbox.Swept
	// AgentJournal is the directory AgentWatch is journaled in before the agent starts
	// (sandbox.Watch.Journal), so that what the agent planted is swept at acpterm's next start
	// even when acpterm is killed first. A journal that cannot be written fails Start. "": not
	// journaled.
	AgentJournal string
	// Trace, when set, receives every JSON-RPC line sent to or read from the agent as JSONL
	// ({"t", "dir": "->"|"<-", "msg"}); writes are serialised. nil: no trace.
	Trace io.Writer
}

// Errors returned or carried by TurnEnded.
var (
	// ErrClosed: the client was closed before the prompt could run.
	ErrClosed = errors.New("acpclient: client closed")
	// ErrNotSupported: the agent did not advertise the capability.
	ErrNotSupported = errors.New("acpclient: not supported by the agent")
)

// AgentExitError is a turn's (or Start's) error when the agent process died.
type AgentExitError struct {
	Code       *int
	Signal     string
	StderrTail []string
}

func (e *AgentExitError) Error() string {
	how := "exited"
	if e.Code != nil {
		how = fmt.Sprintf("exited with status %d", *e.Code)
	} else if e.Signal != "" {
		how = "was killed by " + e.Signal
	}
	msg := "agent " + how
	if n := len(e.StderrTail); n > 0 {
		tail := e.StderrTail[max(0, n-5):]
		msg += "; last stderr: " + strings.Join(tail, " | ")
	}
	return msg
}

// Client is a running agent and its ACP session. Its methods are safe for concurrent use and
// never block on the agent for long (SDK calls run on the client's own goroutines).
type Client struct {
	o Options
	// lastUpdate is when the wire reader last handled a session/update (Unix ns): replaySettle
	// waits for the updates of a session/load to stop.
	lastUpdate atomic.Int64
	// swept holds, per terminal, the sync.Once that reports its sandbox watch's findings.
	swept sync.Map
	cfg   *config.Config
	log   *slog.Logger
	q     *eventQueue
	proc  *agentProc
	conn  *acp.ClientSideConnection
	out   *lockedWriter
	sdkR  *io.PipeReader
	sdkW  *io.PipeWriter

	reaper    *orphanReaper
	reapFinal chan struct{} // closed by supervise: kill and reap what is left
	reapDone  chan struct{}
	readDone  chan struct{} // wire reader finished
	readBytes atomic.Int64  // bytes read from the agent's stdout (progress, for supervise)
	junkMu    sync.Mutex
	junk      []string // the first maxJunk stdout lines that were not JSON (setupError quotes them)
	trace     *tracer  // nil: no protocol trace

	wireMu      sync.Mutex
	setupIDs    map[string]string         // raw JSON id of an outgoing session setup request → method
	setupModels *ModelState               // models of the latest session setup response
	rawWait     map[string]chan rawResult // raw JSON id of acpterm's own request → its waiter
	rawSeq      int
	gone        chan struct{} // AgentExited pushed, terminals released
	lifeCtx     context.Context
	lifeStop    context.CancelFunc
	wg          sync.WaitGroup

	mu          sync.Mutex
	cond        *sync.Cond // prompt queue
	info        Info
	sessionID   string
	started     bool // SessionStarted was emitted; before that updates are buffered (an agent may send them before the session/new response)
	early       []acp.SessionNotification
	prompts     []string
	inTurn      bool
	cancelled   bool
	cancelTimer *time.Timer
	stopPrompt  context.CancelFunc
	approved    map[string]*approval // "cmd:"/"write:" key → what approved it, this turn
	written     map[string]bool      // paths fs/write_text_file asked acpterm to write, this turn
	pend        map[string]*pendingReq
	pendSeq     int
	tools       map[string]*ToolCall // what updates said of each tool call (for policy decisions and labels)
	terms       map[string]*clientTerm
	agentTerms  map[string]*agentTerm
	el          elicitations
	sessMu      sync.Mutex // serialises opening sessions (OpenSession, ForkSession)
	loadID      string     // the session openSession opens ("" new), under sessMu
	forkFrom    string     // openSession forks this session instead ("" no fork), under sessMu
	initResp    acp.InitializeResponse
	closing     bool
	dead        bool
	exitErr     *AgentExitError

	closeOnce sync.Once
}

// Start spawns the agent (own process group, stderr to a ring and the log), runs initialize
// (protocol version 1 is required), authenticate when the agent demands it, and session/new
// (or load/resume, Options.LoadSession). It returns when the session exists; the first events
// are SessionStarted and any updates sent during setup. Errors: bad options, spawn failure, the
// agent exiting (the error carries its exit status and last stderr lines), initialize or
// session setup timing out (InitTimeout) or failing. Nothing is left running on error.
func Start(ctx context.Context, o Options) (*Client, error) {
	if len(o.Command) == 0 {
		return nil, errors.New("acpclient: no agent command")
	}
	if o.Cwd == "" {
		return nil, errors.New("acpclient: no session cwd")
	}
	cwd, err := filepath.Abs(o.Cwd)
	if err != nil {
		return nil, fmt.Errorf("acpclient: cwd %q: %w", o.Cwd, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("acpclient: cwd %q is not an existing directory", cwd)
	}
	o.Cwd = cwd
	if o.InitTimeout <= 0 {
		o.InitTimeout = DefaultInitTimeout
	}
	if o.CancelTimeout <= 0 {
		o.CancelTimeout = DefaultCancelTimeout
	}
	if o.StdinGrace <= 0 {
		o.StdinGrace = DefaultStdinGrace
	}
	cfg := o.Config
	if cfg == nil {
		cfg = config.Default(cwd)
	}
	if o.KillGrace <= 0 {
		o.KillGrace = cfg.Policy.KillGrace
		if o.KillGrace <= 0 {
			o.KillGrace = DefaultKillGrace
		}
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		o: o, cfg: cfg, log: log, q: newEventQueue(),
		readDone: make(chan struct{}), gone: make(chan struct{}),
		approved: map[string]*approval{}, pend: map[string]*pendingReq{}, tools: map[string]*ToolCall{},
		terms: map[string]*clientTerm{}, agentTerms: map[string]*agentTerm{},
		setupIDs: map[string]string{}, rawWait: map[string]chan rawResult{},
	}
	if o.Trace != nil {
		c.trace = &tracer{w: o.Trace, onErr: func(err error) { log.Error("protocol trace: write failed; trace stopped", "err", err) }}
	}
	c.cond = sync.NewCond(&c.mu)
	c.lifeCtx, c.lifeStop = context.WithCancel(context.Background())

	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	nonce := newMarker()
	env = append(append([]string(nil), env...), agentMarkerVar+"="+nonce)
	if FamilyOf("", o.Command) == FamilyOpencode && o.Mode != ModeAgent {
		if !hasEnv(env, "OPENCODE_PERMISSION") {
			env = append(env, "OPENCODE_PERMISSION="+OpencodePermission)
			c.info.ModeAsked = true
		} else {
			log.Info("opencode: OPENCODE_PERMISSION is already set; acpterm leaves it as it is")
		}
	}
	var agentNet func(net.Listener) func()
	if o.AgentNetwork != nil {
		agentNet = func(ln net.Listener) func() { return o.AgentNetwork(c, ln) }
	}
	var watch *sandbox.Watch
	stopLive := func() {}
	if o.Sandbox != nil && len(o.AgentWatch) > 0 {
		watch = sandbox.NewWatch(o.AgentWatch, o.Sandbox.Roots)
		if o.AgentJournal != "" {
			if err := watch.Journal(o.AgentJournal, "agent "+strings.Join(o.Command, " ")); err != nil {
				c.lifeStop()
				c.q.abandon()
				return nil, err
			}
		}
		// While the agent runs, a protected path it creates is moved the moment it appears
		// and said at once; the sweep once it is gone is the backstop.
		var lerr error
		if stopLive, lerr = watch.Live(o.Quarantine, func(s sandbox.Swept) { c.reportSweptItem(s, " (by the sandboxed agent)", "agent") }); lerr != nil {
			stopLive = func() {}
			log.Warn("sandbox watch: protected paths the agent creates are looked for only once it is gone", "err", lerr)
			c.q.push(Notice{Level: "warn", Text: "sandbox: warning: protected paths the sandboxed agent creates are looked for only once it is gone: " + lerr.Error()})
		}
	}
	if o.Terminals != nil {
		// The terminals' own watches report what they move while a command runs.
		o.Terminals.OnSwept(func(t *terminals.Terminal, s sandbox.Swept) { c.reportSweptItem(s, "", t.ID()) })
	}
	c.proc, err = startAgent(o.Command, cwd, env, o.Sandbox, o.KillGrace, log, agentNet)
	if err != nil {
		stopLive()
		if watch != nil {
			watch.Discard()
		}
		c.lifeStop()
		c.q.abandon()
		return nil, err
	}
	if watch != nil {
		c.wg.Add(1) // Close waits for the sweep
		go c.sweepAgent(watch, stopLive)
	}
	c.reaper = newOrphanReaper(nonce, c.proc.pid)
	c.reapFinal, c.reapDone = make(chan struct{}), make(chan struct{})
	go c.reapLoop()
	log.Info("agent started", "command", o.Command, "pid", c.proc.pid, "cwd", cwd)
	c.out = &lockedWriter{w: c.proc.stdin, sent: c.onSent}
	c.sdkR, c.sdkW = io.Pipe()
	c.conn = acp.NewClientSideConnection(c, c.out, c.sdkR)
	// SetLogger before the SDK can log anything: the wire reader that feeds the SDK starts
	// only after this line (so it never writes to stderr, and no data race on the SDK's logger field).
	c.conn.SetLogger(c.sdkLogger())
	go c.readWire()
	go c.supervise()
	c.wg.Add(1)
	go c.promptLoop()

	if err := c.handshake(ctx); err != nil {
		c.shutdown()
		c.q.abandon()
		return nil, err
	}
	return c, nil
}

// hasEnv reports whether env ("K=V" entries) sets key.
func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

func (c *Client) sdkLogger() *slog.Logger {
	var h slog.Handler
	if c.o.SDKLog != nil {
		h = slog.NewTextHandler(c.o.SDKLog, nil)
	} else {
		h = c.log.Handler()
	}
	return slog.New(truncatingHandler{h: h, max: 1000}).With("component", "acp-sdk")
}

// handshake runs initialize, authenticate (if needed) and session/new|load|resume.
func (c *Client) handshake(ctx context.Context) error {
	ictx, cancel := context.WithTimeout(ctx, c.o.InitTimeout)
	defer cancel()
	caps := acp.ClientCapabilities{Meta: map[string]any{"terminal_output": true}, Elicitation: elicitCaps()}
	if c.o.Engine != nil {
		caps.Fs = acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
		caps.Terminal = c.o.Terminals != nil
	}
	init, err := c.conn.Initialize(ictx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: caps,
		ClientInfo:         &acp.Implementation{Name: "acpterm", Title: acp.Ptr("acpterm"), Version: Version},
	})
	if err != nil {
		return c.setupError("initialize", ictx, err)
	}
	if init.ProtocolVersion != acp.ProtocolVersionNumber {
		return fmt.Errorf("acpclient: agent speaks ACP protocol version %d; acpterm speaks only version %d",
			init.ProtocolVersion, acp.ProtocolVersionNumber)
	}
	c.mu.Lock()
	c.info.ProtocolVersion = int(init.ProtocolVersion)
	c.info.Capabilities = init.AgentCapabilities
	c.info.AuthMethods = init.AuthMethods
	if ai := init.AgentInfo; ai != nil {
		c.info.AgentName, c.info.AgentVersion = ai.Name, ai.Version
		if ai.Title != nil {
			c.info.AgentTitle = *ai.Title
		}
	}
	c.info.Cwd = c.o.Cwd
	c.info.Family = FamilyOf(c.info.AgentName, c.o.Command)
	c.mu.Unlock()
	c.log.Info("agent initialized", "name", c.info.AgentName, "version", c.info.AgentVersion)

	c.initResp = init
	c.loadID = c.o.LoadSession
	if c.o.Continue && c.loadID == "" {
		id, err := c.latestSession(ctx)
		if err != nil {
			return err
		}
		c.loadID = id
	}
	if c.o.DeferSession && c.loadID == "" {
		return nil // OpenSession opens one
	}
	return c.openSession(ctx, init)
}

func (c *Client) authenticate(ctx context.Context, methods []acp.AuthMethod) error {
	var id string
	for _, m := range methods {
		if m.Agent != nil && m.Agent.Id != "" {
			id = m.Agent.Id
			break
		}
	}
	if id == "" {
		return errors.New("acpclient: the agent requires authentication, but offers no method acpterm can run (only terminal/env-var login); log in with the agent's own CLI first")
	}
	actx, cancel := context.WithTimeout(ctx, c.o.InitTimeout)
	defer cancel()
	if _, err := c.conn.Authenticate(actx, acp.AuthenticateRequest{MethodId: id}); err != nil {
		return c.setupError("authenticate", actx, err)
	}
	return nil
}

// openSession opens c.loadID (load or resume), forks c.forkFrom, or opens a new session,
// authenticating first when the agent demands it.
func (c *Client) openSession(ctx context.Context, init acp.InitializeResponse) error {
	err := c.openSessionOnce(ctx, init)
	var re *acp.RequestError
	if err != nil && errors.As(err, &re) && re.Code == -32000 && len(init.AuthMethods) > 0 {
		if aerr := c.authenticate(ctx, init.AuthMethods); aerr != nil {
			return aerr
		}
		err = c.openSessionOnce(ctx, init)
	}
	return err
}

func (c *Client) openSessionOnce(ctx context.Context, init acp.InitializeResponse) error {
	sctx, cancel := context.WithTimeout(ctx, c.o.InitTimeout)
	defer cancel()
	// Never null: a nil slice marshals as null, which agents reject.
	mcp := append([]acp.McpServer{}, c.o.McpServers...)
	if c.o.ExtraMcpServers != nil {
		mcp = append(mcp, c.o.ExtraMcpServers(c.proc.pid, init.AgentCapabilities.McpCapabilities.Http)...)
	}
	var (
		sid    string
		modes  *acp.SessionModeState
		models *ModelState
		opts   []acp.SessionConfigOption
		err    error
		what   = "session/new"
	)
	switch {
	case c.forkFrom != "":
		what = "session/fork"
		var r acp.UnstableForkSessionResponse
		r, err = c.conn.UnstableForkSession(sctx, acp.UnstableForkSessionRequest{SessionId: acp.SessionId(c.forkFrom), Cwd: c.o.Cwd})
		sid, modes = string(r.SessionId), r.Modes
		for _, o := range r.ConfigOptions {
			opts = append(opts, stableConfigOption(o))
		}
	case c.loadID != "" && init.AgentCapabilities.LoadSession:
		what = "session/load"
		sid = c.loadID
		// Updates replayed before the response belong to this id (they are buffered until
		// SessionStarted is out, like any update before setup ends).
		c.mu.Lock()
		c.sessionID = sid
		c.mu.Unlock()
		var r acp.LoadSessionResponse
		r, err = c.conn.LoadSession(sctx, acp.LoadSessionRequest{SessionId: acp.SessionId(sid), Cwd: c.o.Cwd, McpServers: mcp, AdditionalDirectories: c.additionalDirs(init)})
		modes, opts = r.Modes, r.ConfigOptions
		if err == nil {
			c.replaySettle(sctx)
		}
	case c.loadID != "" && init.AgentCapabilities.SessionCapabilities.Resume != nil:
		what = "session/resume"
		sid = c.loadID
		var r acp.ResumeSessionResponse
		r, err = c.conn.ResumeSession(sctx, acp.ResumeSessionRequest{SessionId: acp.SessionId(sid), Cwd: c.o.Cwd, McpServers: mcp, AdditionalDirectories: c.additionalDirs(init)})
		modes, opts = r.Modes, r.ConfigOptions
	case c.loadID != "":
		return fmt.Errorf("acpclient: cannot load session %q: the agent supports neither session/load nor session/resume: %w", c.loadID, ErrNotSupported)
	default:
		var r acp.NewSessionResponse
		r, err = c.conn.NewSession(sctx, acp.NewSessionRequest{Cwd: c.o.Cwd, McpServers: mcp, AdditionalDirectories: c.additionalDirs(init)})
		sid, modes, opts = string(r.SessionId), r.Modes, r.ConfigOptions
	}
	models = c.takeModels()
	if err != nil {
		var re *acp.RequestError
		if errors.As(err, &re) && re.Code == -32000 {
			return err // auth required: the caller authenticates
		}
		return c.setupError(what, sctx, err)
	}
	if sid == "" {
		return fmt.Errorf("acpclient: %s returned an empty sessionId", what)
	}
	c.mu.Lock()
	c.sessionID = sid
	c.info.SessionID = sid
	c.info.Modes, c.info.Models, c.info.ConfigOptions = modes, models, opts
	c.mu.Unlock()
	// The mode is chosen before SessionStarted, which then carries it: nobody sees the agent's
	// own mode flash by (updates the agent sends meanwhile are buffered like any before it).
	notes := c.chooseMode()
	c.mu.Lock()
	c.q.push(SessionStarted{Info: c.infoLocked(), Via: what, ForkedFrom: c.forkFrom})
	for _, n := range notes {
		c.q.push(n)
	}
	c.started = true
	c.cond.Broadcast() // prompts typed before the session existed may go
	early := c.early
	c.early = nil
	for _, n := range early {
		if string(n.SessionId) == sid {
			c.applyUpdateLocked(n.Update)
		} else {
			c.log.Warn("session/update for an unknown session dropped", "session", n.SessionId)
		}
	}
	c.mu.Unlock()
	c.log.Info("session started", "session", sid, "via", what)
	c.record("", false)
	return nil
}

// additionalDirs are the policy roots other than the session cwd, sent as the session's
// additionalDirectories when the agent advertises sessionCapabilities.additionalDirectories
// (ACP: the directories the agent may work in besides cwd); nil otherwise.
func (c *Client) additionalDirs(init acp.InitializeResponse) []string {
	if init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		return nil
	}
	var dirs []string
	for _, r := range c.cfg.Policy.Roots {
		if filepath.Clean(r) != filepath.Clean(c.o.Cwd) {
			dirs = append(dirs, r)
		}
	}
	return dirs
}

// setupError explains a failed setup call: agent death (with exit status and stderr), timeout,
// or the agent's error.
func (c *Client) setupError(what string, ctx context.Context, err error) error {
	// A dead agent shows up as "peer disconnected"; give the exit a moment to be reaped.
	select {
	case <-c.proc.exited:
	case <-time.After(time.Second):
	}
	select {
	case <-c.proc.exited:
		<-c.gone
		c.mu.Lock()
		ee := c.exitErr
		c.mu.Unlock()
		return fmt.Errorf("acpclient: %s failed: %w%s", what, ee, c.junkNote())
	default:
	}
	if ctx.Err() == context.DeadlineExceeded {
		return &StartError{Err: fmt.Errorf("acpclient: agent %q did not answer %s within %s%s", c.o.Command[0], what, c.o.InitTimeout, c.junkNote()),
			StderrTail: c.proc.ring.tail()}
	}
	// The agent is alive but refused: its stderr usually says why.
	return &StartError{Err: fmt.Errorf("acpclient: %w%s", agentError(what, err), c.junkNote()), StderrTail: c.proc.ring.tail()}
}

// supervise notices the agent's death (within about a second), then ends everything that
// depended on it: pending requests fail, terminals are killed, AgentExited is emitted.
func (c *Client) supervise() {
	select {
	case <-c.proc.exited:
		// Read what the agent wrote before it died; if the pipe stays open but silent (a
		// grandchild still holds the agent's stdout), stop reading after 250 ms of silence.
		for last := c.readBytes.Load(); ; {
			select {
			case <-c.readDone:
			case <-time.After(250 * time.Millisecond):
				if n := c.readBytes.Load(); n != last {
					last = n
					continue
				}
				c.proc.closeStdout()
				<-c.readDone
			}
			break
		}
	case <-c.readDone:
		// stdout closed but the agent lives on: it cannot talk to us any more.
		select {
		case <-c.proc.exited:
		case <-time.After(time.Second):
			c.log.Warn("agent closed its stdout but did not exit; killing it")
			c.proc.signalGroup(syscall.SIGTERM)
			select {
			case <-c.proc.exited:
			case <-time.After(c.o.KillGrace):
				c.proc.signalGroup(syscall.SIGKILL)
				<-c.proc.exited
			}
		}
	}
	// Whatever the agent left in its group or elsewhere in its tree goes too (npm shims, tool
	// children), and orphans re-parented to acpterm are reaped.
	c.proc.signalGroup(syscall.SIGKILL)
	close(c.reapFinal)
	<-c.reapDone
	select {
	case <-c.proc.stderrDone:
	case <-time.After(500 * time.Millisecond):
		c.proc.closeStderr()
		<-c.proc.stderrDone
	}
	c.proc.closeStderr()
	c.proc.closeStdout()
	c.sdkR.Close()

	ee := &AgentExitError{Code: c.proc.code, Signal: c.proc.signal, StderrTail: c.proc.ring.tail()}
	c.mu.Lock()
	c.dead = true
	c.exitErr = ee
	expected := c.closing
	c.cond.Broadcast()
	c.mu.Unlock()
	c.log.Info("agent exited", "status", c.proc.exitString(), "expected", expected)

	c.cancelPending("cancel")
	c.releaseTerminals()
	c.endAgentTerms()
	c.closeAgentScreens()
	c.q.push(AgentExited{Code: ee.Code, Signal: ee.Signal, StderrTail: ee.StderrTail, Expected: expected})
	close(c.gone)
}

// reapLoop reaps the agent's orphans while it runs (a sweep of acpterm's children on SIGCHLD
// and every 2 s: orphanReaper.run in reap.go) and, when it is gone, kills and reaps the rest of
// its tree.
func (c *Client) reapLoop() {
	defer close(c.reapDone)
	c.reaper.run(watchSIGCHLD(), c.reapFinal, sweepGap, sweepPeriod)
}

// Events returns the client's event stream: unbounded, ordered, closed after Close. Read it
// until it is closed.
func (c *Client) Events() <-chan Event { return c.q.out }

// Info returns the agent's identity and the session's current description.
func (c *Client) Info() Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.infoLocked()
}

func (c *Client) infoLocked() Info {
	i := c.info
	if i.Modes != nil {
		m := *i.Modes
		i.Modes = &m
	}
	if i.Models != nil {
		m := *i.Models
		m.AvailableModels = append([]ModelInfo(nil), m.AvailableModels...)
		i.Models = &m
	}
	return i
}

// Prompt queues text as the next prompt. Prompts run one at a time, in order; each sent prompt
// produces TurnStarted … TurnEnded, and one that can never be sent (agent gone, client closed)
// a TurnEnded with an error. `@path` words name files that are attached as embedded resources
// when the agent accepts embedded context (as resource links otherwise).
func (c *Client) Prompt(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.dead {
		err := error(ErrClosed)
		if c.exitErr != nil {
			err = c.exitErr
		}
		c.q.push(TurnEnded{Err: err})
		return
	}
	c.prompts = append(c.prompts, text)
	c.cond.Broadcast()
}

func (c *Client) promptLoop() {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		// A prompt waits for a session (Options.DeferSession, or one being opened).
		for (len(c.prompts) == 0 || !c.started) && !c.closing && !c.dead {
			c.cond.Wait()
		}
		if c.closing || c.dead {
			err := error(ErrClosed)
			if c.exitErr != nil {
				err = c.exitErr
			}
			for range c.prompts {
				c.q.push(TurnEnded{Err: err})
			}
			c.prompts = nil
			c.mu.Unlock()
			return
		}
		text := c.prompts[0]
		c.prompts = c.prompts[1:]
		ctx, stop := context.WithCancel(c.lifeCtx)
		c.inTurn, c.cancelled, c.stopPrompt = true, false, stop
		c.approved = map[string]*approval{}
		c.written = map[string]bool{}
		sid := c.sessionID
		c.q.push(TurnStarted{Prompt: text})
		c.mu.Unlock()
		c.record(promptTitle(text), false)

		resp, err := c.conn.Prompt(ctx, acp.PromptRequest{SessionId: acp.SessionId(sid), Prompt: c.promptBlocks(text)})
		stop()

		c.mu.Lock()
		cancelled, closing := c.cancelled, c.closing
		c.inTurn, c.stopPrompt = false, nil
		if c.cancelTimer != nil {
			c.cancelTimer.Stop()
			c.cancelTimer = nil
		}
		c.mu.Unlock()
		end := TurnEnded{StopReason: string(resp.StopReason)}
		if err != nil {
			end = TurnEnded{Err: c.turnError(err)}
			if closing {
				end.Err = ErrClosed
			}
			if cancelled {
				end.StopReason = string(acp.StopReasonCancelled)
			}
		} else if end.StopReason == "" {
			if cancelled {
				end.StopReason = string(acp.StopReasonCancelled)
			} else {
				// ACP: stopReason is required in the session/prompt response.
				end.Err = errors.New("the agent's session/prompt response has no stopReason (ACP requires one)")
			}
		}
		c.cancelPending("cancel") // nothing of a finished turn may stay pending
		c.mu.Lock()
		for _, ev := range c.flagUnaskedAtEndLocked() {
			c.q.push(ev)
		}
		c.mu.Unlock()
		c.endAgentTerms() // nor may the turn's agent-owned terminals stay "running"
		c.q.push(end)
	}
}

// turnError turns a failed session/prompt into the error for TurnEnded.
func (c *Client) turnError(err error) error {
	select {
	case <-c.conn.Done():
		// Disconnected: wait for the supervisor to reap the agent so the error can name it.
		select {
		case <-c.gone:
			c.mu.Lock()
			ee := c.exitErr
			c.mu.Unlock()
			return ee
		case <-time.After(3 * time.Second):
		}
	default:
	}
	return agentError("session/prompt", err)
}

// mentionWords splits text at whitespace that is not escaped by a backslash, so that an
// "@dir\ with\ spaces/file" mention (as the TUI's completion writes it) stays one word.
func mentionWords(text string) []string {
	var words []string
	start := -1
	for i, r := range text {
		space := unicode.IsSpace(r) && !(i > 0 && text[i-1] == '\\')
		switch {
		case space && start >= 0:
			words = append(words, text[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, text[start:])
	}
	return words
}

// promptBlocks builds the prompt content: the text, plus one block per `@path` word that names
// an existing file (embedded resource if the agent accepts embedded context and the policy
// allows reading it, else a resource link).
func (c *Client) promptBlocks(text string) []acp.ContentBlock {
	blocks := []acp.ContentBlock{acp.TextBlock(text)}
	c.mu.Lock()
	embed := c.info.Capabilities.PromptCapabilities.EmbeddedContext
	c.mu.Unlock()
	seen := map[string]bool{}
	for _, w := range mentionWords(text) {
		if len(w) < 2 || w[0] != '@' {
			continue
		}
		p := strings.TrimRight(strings.ReplaceAll(w[1:], `\ `, " "), ".,;:!?)\"'")
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.o.Cwd, p)
		}
		p = filepath.Clean(p)
		if seen[p] {
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		seen[p] = true
		uri := (&url.URL{Scheme: "file", Path: p}).String() // percent-encoded: "a#b.txt", "my notes.md"
		if embed && c.o.Engine != nil && c.o.Engine.DecideRead(p).Verdict == permissions.Allow {
			// Only text is embedded (as text/plain); a binary file (NUL bytes, or invalid UTF-8,
			// which ReadFile turned into U+FFFD) goes as a link.
			if body, err := c.o.Engine.ReadFile(p, nil, nil); err == nil && !strings.ContainsAny(body, "\x00\uFFFD") {
				blocks = append(blocks, acp.ContentBlock{Resource: &acp.ContentBlockResource{
					Type: "resource",
					Resource: acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
						Uri: uri, Text: body, MimeType: acp.Ptr("text/plain")}},
				}})
				continue
			}
		}
		blocks = append(blocks, acp.ContentBlock{ResourceLink: &acp.ContentBlockResourceLink{
			Type: "resource_link", Name: filepath.Base(p), Uri: uri}})
	}
	return blocks
}

// Cancel cancels the running turn: session/cancel is sent (ACP §6.1; the prompt's context is
// not cancelled: cancelling the SDK call would drop the agent's real answer), every pending permission request is answered "cancelled" exactly
// once, CancelRequested is emitted so open tool calls show as cancelled, and the turn ends when
// the agent answers with stopReason "cancelled" (or after CancelTimeout). No-op when idle.
func (c *Client) Cancel() {
	c.mu.Lock()
	if !c.inTurn || c.cancelled || c.dead || c.closing {
		c.mu.Unlock()
		return
	}
	c.cancelled = true
	sid := c.sessionID
	stop := c.stopPrompt
	c.cancelTimer = time.AfterFunc(c.o.CancelTimeout, func() {
		c.log.Warn("agent did not end the cancelled turn in time; abandoning it", "timeout", c.o.CancelTimeout)
		stop()
	})
	c.q.push(CancelRequested{})
	c.wg.Add(2) // under c.mu, with closing checked: shutdown's wg.Wait cannot have begun
	c.mu.Unlock()
	// session/cancel goes out before the pending questions are answered "cancelled", so the
	// agent knows why; if the write is stuck (the agent stopped reading its stdin) they are answered after 1 s anyway.
	sent := make(chan struct{})
	go func() {
		defer c.wg.Done()
		defer close(sent)
		ctx, cancel := context.WithTimeout(c.lifeCtx, DefaultCallTimeout)
		defer cancel()
		if err := c.conn.Cancel(ctx, acp.CancelNotification{SessionId: acp.SessionId(sid)}); err != nil {
			c.log.Warn("session/cancel failed", "err", err)
		}
	}()
	go func() {
		defer c.wg.Done()
		select {
		case <-sent:
		case <-time.After(time.Second):
		}
		c.cancelPending("cancel")
	}()
}

// SetMode switches the session mode: session/set_mode when the agent offers the modes API, else
// session/set_config_option on its "mode" config option (as opencode offers its modes). On
// success the matching current_mode_update or config_option_update is emitted. Errors: no
// modes (ErrNotSupported), an unknown id, the agent's error, or a 30 s timeout.
func (c *Client) SetMode(id string) error {
	c.mu.Lock()
	ms := ModesOf(c.info.Modes, "", c.info.ConfigOptions)
	sid := c.sessionID
	c.mu.Unlock()
	if len(ms.Options) == 0 {
		return fmt.Errorf("acpclient: set mode %q: the agent has no modes: %w", id, ErrNotSupported)
	}
	if !ms.Has(id) {
		return fmt.Errorf("acpclient: set mode %q: not one of the agent's modes", id)
	}
	if ms.ConfigID != "" {
		return c.SetConfigOption(ms.ConfigID, id)
	}
	ctx, cancel := context.WithTimeout(c.lifeCtx, DefaultCallTimeout)
	defer cancel()
	if _, err := c.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: acp.SessionId(sid), ModeId: acp.SessionModeId(id)}); err != nil {
		return fmt.Errorf("acpclient: session/set_mode %q: %w", id, err)
	}
	c.mu.Lock()
	u := acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeId: acp.SessionModeId(id)}}
	c.localUpdateLocked(u)
	c.mu.Unlock()
	return nil
}

// localUpdateLocked applies an update acpterm derived from its own successful call (set_mode,
// set_config_option). During session setup (before SessionStarted) it only changes the Info
// that SessionStarted will carry.
func (c *Client) localUpdateLocked(u acp.SessionUpdate) {
	if c.started {
		c.applyUpdateLocked(u)
		return
	}
	c.applyInfoLocked(u)
}

// applyInfoLocked keeps the session's Info current from an update of its commands, its mode or
// its config options (other kinds change nothing). The mode state is copied, never changed in
// place: an Info already sent in an event keeps the mode it had.
func (c *Client) applyInfoLocked(u acp.SessionUpdate) {
	switch {
	case u.AvailableCommandsUpdate != nil:
		c.info.Commands = u.AvailableCommandsUpdate.AvailableCommands
	case u.CurrentModeUpdate != nil:
		if c.info.Modes != nil {
			m := *c.info.Modes
			m.CurrentModeId = u.CurrentModeUpdate.CurrentModeId
			c.info.Modes = &m
		}
	case u.ConfigOptionUpdate != nil:
		c.info.ConfigOptions = u.ConfigOptionUpdate.ConfigOptions
	}
}

// chooseMode applies Options.Mode once the session exists, before SessionStarted: it switches
// to the asking mode (or the configured one) and returns the Notices saying what it did; a
// failure is a warning Notice, never fatal.
func (c *Client) chooseMode() []Event {
	c.mu.Lock()
	info := c.info
	c.mu.Unlock()
	family := info.Family
	var notes []Event
	ms := ModesOf(info.Modes, "", info.ConfigOptions)
	setting := c.o.Mode
	if setting == "" {
		setting = ModeAsking
	}
	if setting == ModeAgent || len(ms.Options) == 0 {
		if setting != ModeAgent && setting != ModeAsking {
			return append(notes, Notice{Level: "warning", Text: fmt.Sprintf("[agent] mode = %q: the agent offers no modes", setting)})
		}
		return notes
	}
	target := setting
	if setting == ModeAsking {
		id, ok := ApprovingMode(family, ms)
		if !ok {
			if ModeAsks(family, ms.Current, info.ModeAsked) == AsksNo {
				return append(notes, Notice{Level: "warning", Text: fmt.Sprintf("the agent's mode %q does not ask before acting, and acpterm knows no mode of this agent that does: switch with alt+m or set [agent] mode", ms.Name(ms.Current))})
			}
			return notes
		}
		target = id
	} else if !ms.Has(setting) {
		var ids []string
		for _, o := range ms.Options {
			ids = append(ids, o.ID)
		}
		return append(notes, Notice{Level: "warning", Text: fmt.Sprintf("[agent] mode = %q is not one of the agent's modes (%s); the agent's mode %q stays", setting, strings.Join(ids, ", "), ms.Current)})
	}
	if target == ms.Current {
		return notes
	}
	if err := c.SetMode(target); err != nil {
		return append(notes, Notice{Level: "warning", Text: fmt.Sprintf("could not switch the agent to mode %q: %v", target, err)})
	}
	c.log.Info("mode chosen", "from", ms.Current, "to", target, "setting", setting)
	why := "chosen by acpterm; [agent] mode = \"agent\" keeps the agent's own"
	if setting != ModeAsking {
		why = fmt.Sprintf("[agent] mode = %q", setting)
	}
	return append(notes, Notice{Level: "info", Text: fmt.Sprintf("mode %s → %s (%s)", ms.Name(ms.Current), ms.Name(target), why)})
}

// SetModel switches the model through session/set_model, the models API that gemini-cli and
// older claude-agent-acp offer (`models` in the session/new response); acp-go-sdk v0.13.5 dropped
// it, so acpterm sends it itself. Prefer a config option with category "model" when the agent
// has one. Errors: no models advertised (ErrNotSupported), an unknown id, the agent's error, a
// 30 s timeout.
func (c *Client) SetModel(id string) error {
	c.mu.Lock()
	models := c.info.Models
	sid := c.sessionID
	c.mu.Unlock()
	if models == nil {
		return fmt.Errorf("acpclient: set model %q: the agent offers no models: %w", id, ErrNotSupported)
	}
	known := false
	for _, m := range models.AvailableModels {
		known = known || m.ModelId == id
	}
	if !known {
		return fmt.Errorf("acpclient: set model %q: not one of the agent's models", id)
	}
	ctx, cancel := context.WithTimeout(c.lifeCtx, DefaultCallTimeout)
	defer cancel()
	if _, err := c.callRaw(ctx, "session/set_model", map[string]any{"sessionId": sid, "modelId": id}); err != nil {
		return fmt.Errorf("acpclient: session/set_model %q: %w", id, err)
	}
	c.mu.Lock()
	m := *c.info.Models
	m.CurrentModelId = id
	c.info.Models = &m
	c.q.push(ModelChanged{ModelID: id})
	c.mu.Unlock()
	return nil
}

// SetConfigOption sets a select config option (session/set_config_option) to value ("true" or
// "false" for boolean options) and emits the complete new list as a config_option_update.
// Errors: unknown option id, the agent's error, or a 30 s timeout.
func (c *Client) SetConfigOption(id, value string) error {
	c.mu.Lock()
	opts := c.info.ConfigOptions
	sid := c.sessionID
	c.mu.Unlock()
	req := acp.SetSessionConfigOptionRequest{}
	found := false
	for _, o := range opts {
		switch {
		case o.Select != nil && string(o.Select.Id) == id:
			found = true
			req.ValueId = &acp.SetSessionConfigOptionValueId{SessionId: acp.SessionId(sid), ConfigId: acp.SessionConfigId(id), Value: acp.SessionConfigValueId(value)}
		case o.Boolean != nil && string(o.Boolean.Id) == id:
			found = true
			if value != "true" && value != "false" {
				return fmt.Errorf("acpclient: config option %q is boolean: value %q must be true or false", id, value)
			}
			req.Boolean = &acp.SetSessionConfigOptionBoolean{SessionId: acp.SessionId(sid), ConfigId: acp.SessionConfigId(id), Type: "boolean", Value: value == "true"}
		}
	}
	if !found {
		return fmt.Errorf("acpclient: config option %q: the agent offers no such option", id)
	}
	ctx, cancel := context.WithTimeout(c.lifeCtx, DefaultCallTimeout)
	defer cancel()
	resp, err := c.conn.SetSessionConfigOption(ctx, req)
	if err != nil {
		return fmt.Errorf("acpclient: session/set_config_option %q=%q: %w", id, value, err)
	}
	c.mu.Lock()
	c.localUpdateLocked(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: resp.ConfigOptions}})
	c.mu.Unlock()
	return nil
}

// ListSessions lists the agent's sessions for the session cwd (session/list, all pages).
// ErrNotSupported when the agent does not advertise sessionCapabilities.list.
func (c *Client) ListSessions(ctx context.Context) ([]acp.SessionInfo, error) {
	c.mu.Lock()
	ok := c.info.Capabilities.SessionCapabilities.List != nil
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("acpclient: session/list: %w", ErrNotSupported)
	}
	var all []acp.SessionInfo
	var cursor *string
	for page := 0; page < 1000; page++ {
		r, err := c.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: acp.Ptr(c.o.Cwd), Cursor: cursor})
		if err != nil {
			return all, fmt.Errorf("acpclient: session/list: %w", err)
		}
		all = append(all, r.Sessions...)
		if r.NextCursor == nil || *r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
	}
	return all, nil
}

// AgentPid returns the agent process's id (the leader of its process group).
func (c *Client) AgentPid() int { return c.proc.pid }

// StderrTail returns the agent's last stderr lines (at most StderrTailLines), oldest first.
func (c *Client) StderrTail() []string { return c.proc.ring.tail() }

// Close shuts the client down (answer pending prompts, kill terminals, then stop the agent): queued prompts end with ErrClosed,
// pending permission requests are answered "cancelled", every terminal of the session is
// released (killed), the agent's stdin is closed, and after StdinGrace its process group gets
// SIGTERM, then SIGKILL after KillGrace. It returns when the agent is gone and every goroutine
// of the client has ended; the Events channel closes after the last event (AgentExited with
// Expected true). Idempotent; returns nil.
func (c *Client) Close() error {
	c.shutdown()
	c.q.close()
	return nil
}

func (c *Client) shutdown() {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.cond.Broadcast()
		c.mu.Unlock()
		c.cancelPending("cancel")
		c.releaseTerminals()
		c.mu.Lock()
		sid, started := c.sessionID, c.started
		c.mu.Unlock()
		if started {
			c.closeSession(sid) // ACP session/close, when advertised
		}
		_ = c.proc.stdin.Close()
		select {
		case <-c.proc.exited:
		case <-time.After(c.o.StdinGrace):
			c.proc.signalGroup(syscall.SIGTERM)
			select {
			case <-c.proc.exited:
			case <-time.After(c.o.KillGrace):
				c.proc.signalGroup(syscall.SIGKILL)
			}
		}
		<-c.gone
		c.lifeStop()
		c.wg.Wait()
	})
}

// Bounds of replaySettle: the quiet interval that ends a replay, and the longest wait.
const (
	replayQuiet = 150 * time.Millisecond
	replayBound = 2 * time.Second
)

// replaySettle returns once no session/update has arrived for replayQuiet (at most replayBound
// after it is called, or when ctx ends). ACP asks an agent to replay the whole history of a
// loaded session before it answers session/load, but gemini-cli 0.61 starts the replay without
// waiting for it and answers at once: without this wait the first new prompt would be sent, and
// shown, in the middle of the history it continues.
func (c *Client) replaySettle(ctx context.Context) {
	start := time.Now()
	deadline := start.Add(replayBound)
	for {
		last := time.Unix(0, c.lastUpdate.Load())
		if last.Before(start) {
			last = start
		}
		wait := time.Until(last.Add(replayQuiet))
		if wait <= 0 || time.Now().After(deadline) {
			return
		}
		t := time.NewTimer(min(wait, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
