// Command acpterm runs an AI coding agent that speaks the Agent Client Protocol (ACP v1) as a
// subprocess and is its client: a Bubble Tea TUI (or, with --headless, plain text on stdout),
// real PTYs for the agent's commands, and a sandbox policy that decides every command, read and
// write. See README.md and docs/architecture.md.
//
// Invariants: the diagnostics log is opened and installed as the destination of `log`,
// slog.Default and the SDK logger before any other component starts; while the TUI runs nothing
// else writes to stdout or stderr. Exit statuses are those of the CLI contract (cli.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/demo"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/sandbox"
	"github.com/acpterm/acpterm/terminals"
	"github.com/acpterm/acpterm/ui"
)

// version is acpterm's version; release builds set it with -ldflags "-X main.version=v1.2.3".
var version = ""

// versionString returns version, else the module version from the build info, else "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// stdio is the process's standard streams (replaceable in tests).
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func main() {
	// The sandbox helper and the agent guard (sandbox.HelperArg, sandbox.GuardArg) never get
	// here: they run, and exit, from the init of package sandbox/internal/helper, before the
	// rest of acpterm is initialised.
	if len(os.Args) > 1 && os.Args[1] == demoAgentArg {
		os.Exit(runDemoAgent())
	}
	if len(os.Args) > 1 && os.Args[1] == mcpBridgeArg {
		os.Exit(runMCPBridge())
	}
	os.Exit(run(context.Background(), os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}, os.Getenv))
}

// run is acpterm's whole command line; it returns the exit status.
func run(ctx context.Context, args []string, std stdio, getenv func(string) string) int {
	if len(args) > 0 {
		switch args[0] {
		case "policy":
			return runPolicy(args[1:], std, getenv)
		case "audit":
			return runAudit(args[1:], std, getenv)
		case "sandbox":
			return runSandbox(args[1:], std, getenv)
		}
	}
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: %s\nRun 'acpterm --help' for usage.\n", trimUsage(err))
		return exitUsage
	}
	switch {
	case o.help:
		fmt.Fprint(std.out, usageText)
		return exitOK
	case o.version:
		fmt.Fprintf(std.out, "acpterm %s\n", versionString())
		return exitOK
	}
	code, err := runAgent(ctx, o, std, getenv)
	if err != nil {
		// The error may quote the agent (its stderr tail, its stdout): no escape sequence of
		// the agent's may reach the user's terminal.
		fmt.Fprintf(std.err, "acpterm: %s\n", ui.SafeText(trimUsage(err)))
		if errors.Is(err, errUsage) {
			fmt.Fprintln(std.err, "Run 'acpterm --help' for usage.")
		}
	}
	return code
}

// trimUsage drops the "usage error: " prefix from a usage error's text.
func trimUsage(err error) string {
	s := err.Error()
	if p := errUsage.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// session is everything runAgent opened, closed in reverse order by close.
type session struct {
	scratch string // the --demo scratch dir this run created ("" otherwise)
	logFile io.Closer
	audit   *permissions.AuditLog
	mgr     *terminals.Manager
	sandbox *sessionSandbox
	net     *sessionNetwork // the network proxy ([sandbox] network = "proxy"); nil: none
	client  *acpclient.Client
	trace   io.Closer // the --trace file, closed after the client (which writes to it)
	mcp     *mcpTerminals
}

func (s *session) close() {
	if s.client != nil {
		_ = s.client.Close()
	}
	if s.mcp != nil {
		s.mcp.close()
	}
	if s.mgr != nil {
		_ = s.mgr.Close()
	}
	s.net.close()
	s.sandbox.close()
	if s.trace != nil {
		_ = s.trace.Close()
	}
	if s.audit != nil {
		_ = s.audit.Close()
	}
	if s.scratch != "" {
		_ = os.Remove(s.scratch) // only when empty: the demo's edits stay for the user
	}
	if s.logFile != nil {
		slog.Info("acpterm: exit")
		_ = s.logFile.Close()
	}
}

// runAgent wires and runs one session: log, config, audit log, policy engine, terminals, agent,
// then the TUI or the headless renderer. Returned errors are printed by run; usage/config errors
// wrap errUsage and come with exitUsage.
func runAgent(ctx context.Context, o cliOptions, std stdio, getenv func(string) string) (int, error) {
	s := &session{}
	defer s.close()

	// 1. Logging first: nothing may write to the terminal the TUI will own (the SDK logs through slog.Default).
	logger, f, logPath, err := openLog(o.logFile, getenv)
	if err != nil {
		return exitUsage, err
	}
	s.logFile = f
	logger.Info("acpterm: start", "version", versionString(), "args", os.Args)

	// 1b. What a sandboxed command of an acpterm that was killed before it could check planted
	// (a config.toml, an .acpterm.toml, an rc file) is swept before any config is read.
	left := sweepLeftovers(getenv, std.err, logger)

	// 2. Session directory.
	cwd, err := sessionDir(o)
	if err != nil {
		return exitUsage, err
	}
	if o.demo && o.cwd == "" {
		s.scratch = cwd
	}

	// 3. Config.
	cfg, err := config.Load(config.LoadOptions{Path: o.configPath, Cwd: cwd, Getenv: getenv})
	if err != nil {
		return exitUsage, fmt.Errorf("%w: config: %v", errUsage, err)
	}

	// 4. Agent command.
	agent, err := agentCommand(o, cfg)
	if err != nil {
		return exitUsage, err
	}
	prompts := o.prompts
	if o.demo && len(prompts) == 0 {
		prompts = []string{"tour"}
	}
	if o.headless && len(prompts) == 0 {
		return exitUsage, usageError("--headless needs at least one --prompt")
	}

	if !o.headless {
		if os.Getenv("TERM") == "dumb" {
			return exitUsage, usageError("TERM=dumb has no cursor addressing, which the interactive mode needs; set TERM to your terminal's type, or use --headless with --prompt")
		}
		if !isTerminal(os.Stdin) || !isTerminal(os.Stdout) {
			return exitUsage, usageError("the interactive mode needs a terminal on stdin and stdout; use --headless with --prompt for scripts")
		}
	}

	// 5. Audit log and policy engine.
	auditPath := o.auditLog
	if auditPath == "" {
		auditPath = config.DefaultAuditLog(getenv)
	}
	if auditPath != "" {
		// Absolute, so that the policy protects it from the agent wherever the session runs.
		if auditPath, err = filepath.Abs(auditPath); err != nil {
			return exitUsage, fmt.Errorf("%w: audit log: %v", errUsage, err)
		}
		if err := os.MkdirAll(filepath.Dir(auditPath), 0o700); err != nil {
			return exitUsage, fmt.Errorf("%w: audit log: %v", errUsage, err)
		}
		if s.audit, err = permissions.OpenAuditLog(auditPath); err != nil {
			return exitUsage, fmt.Errorf("%w: audit log: %v", errUsage, err)
		}
	}
	// 5b. The sandbox (before the engine, which must know whether commands run confined): the
	// kernel confines every command (and, with [sandbox] agent, the agent).
	var sandboxWarnings []string
	if o.sandboxAgent {
		cfg.Sandbox.Agent = true
	}
	s.sandbox, err = sandboxFor(cfg, o.sandboxMode, getenv, []string{auditPath, logPath, config.DefaultGrantsFile(getenv), o.trace})
	if err != nil {
		if errors.Is(err, errUsage) {
			return exitUsage, err
		}
		return exitFailure, err
	}
	if msg := s.sandbox.refusal(); msg != "" {
		if cfg.Sandbox.Agent {
			return exitFailure, fmt.Errorf("%s (mode required; the agent is not started)", msg)
		}
		logger.Warn("sandbox: commands will be refused", "why", msg)
	}
	// A layer missing in auto mode is said: on stderr (headless) or as a banner.
	if missing := reportMissing(s.sandbox); len(missing) > 0 {
		w := "sandbox: not in force: " + strings.Join(missing, "; ")
		if s.sandbox.mode == sandbox.ModeRequired {
			w = s.sandbox.refusal() + " (every command will be refused)"
		}
		sandboxWarnings = append(sandboxWarnings, w)
		if o.headless {
			fmt.Fprintf(std.err, "acpterm: warning: %s\n", ui.SafeText(w))
		}
	}
	logger.Info("sandbox", "summary", s.sandbox.summary(), "confined", s.sandbox.confined(), "missing", strings.Join(reportMissing(s.sandbox), "; "))

	engine, err := permissions.NewEngine(cfg.Permissions(getenv), permissions.EngineOptions{
		Cwd: cwd, GrantsFile: config.DefaultGrantsFile(getenv), Audit: s.audit,
		Headless: o.headless, Getenv: getenv, LogFile: logPath,
		// Programs that execute workspace code (go test, pytest, make …) may be allowed by an
		// allow rule only when the sandbox confirmed Landlock and the mount namespace in force
		// for acpterm's terminals (Confined) or for the agent's own tools too (AgentConfined).
		Confined:      s.sandbox.confined(),
		AgentConfined: s.sandbox.confined() && cfg.Sandbox.Agent,
	})
	if errors.Is(err, permissions.ErrGrantsFile) {
		return exitFailure, fmt.Errorf("policy: %v (move the file aside to start without saved grants)", err)
	}
	if err != nil {
		return exitUsage, fmt.Errorf("%w: policy: %v", errUsage, err)
	}
	// Saved grants that would no longer be made are skipped: say so, in the log and on stderr
	// (before the TUI takes the screen) or as banners in the TUI.
	grantWarnings := engine.GrantWarnings()
	for _, w := range grantWarnings {
		logger.Warn("grants file: entry skipped", "why", w)
		if o.headless {
			fmt.Fprintf(std.err, "acpterm: warning: %s\n", ui.SafeText(w))
		}
	}

	grantWarnings = append(grantWarnings, sandboxWarnings...)
	grantWarnings = append(grantWarnings, left.warnings()...)
	for _, f := range left.found {
		ev := permissions.NewAuditEvent("write", permissions.Decision{Path: f.Path, Verdict: permissions.Deny, Rule: "sandbox", Reason: f.Message}, "sandbox")
		if err := engine.Record(ev); err != nil {
			logger.Warn("audit log write failed", "err", err)
		}
	}

	// 7. Terminals (redraws are signalled to the TUI without polling).
	var wake *ui.Wake
	// Subreaper: processes that escape a terminal's group, and orphans of the agent's own tree,
	// are re-parented to acpterm so they can be found and reaped (acpclient's orphan reaper).
	mo := terminals.ManagerOptions{MaxLive: cfg.Policy.MaxTerminals, KillGrace: cfg.Policy.KillGrace, Subreaper: true,
		Sandbox: s.sandbox.spec}
	mo.Watch, mo.Quarantine = s.sandbox.watch(getenv)
	mo.Journal = journalDir(getenv)
	// The network proxy: the only way out of a sandboxed command's (network "proxy") or a
	// sandboxed agent's (agent = true, network not "on") network namespace.
	if s.sandbox.needsProxy(cfg) {
		if s.net, err = newSessionNetwork(logger, getenv); err != nil {
			return exitFailure, fmt.Errorf("network proxy: %w", err)
		}
		if s.sandbox.spec.Network == sandbox.NetworkProxy {
			mo.Network = s.net.serveTerminal
		}
	}
	if !o.headless {
		wake = ui.NewWake()
		mo.OnChange = wake.Notify
	}
	s.mgr = terminals.NewManager(mo)

	// 7b. Interactive terminals for the agent, as the MCP server "acpterm" ([mcp] terminals).
	if cfg.MCP.Terminals {
		if s.mcp, err = startMCPTerminals(cwd, engine, logger); err != nil {
			// Not a protection, a feature: the session runs without it, and says so.
			logger.Warn("mcp terminals unavailable", "err", err)
			msg := "the agent gets no interactive terminals (MCP server \"acpterm\"): " + err.Error()
			if o.headless {
				fmt.Fprintf(std.err, "acpterm: warning: %s\n", ui.SafeText(msg))
			} else {
				grantWarnings = append(grantWarnings, msg)
			}
		}
	}

	// 8. Signals → orderly shutdown: the context ends, the TUI or the headless
	// renderer returns, and the deferred close answers prompts, kills terminals, stops the agent.
	ctx, stop := notifyShutdown(ctx)
	defer stop()

	// 9. The agent.
	logger.Info("acpterm: starting agent", "command", agent, "cwd", cwd, "config", cfg.Source, "headless", o.headless)
	// Headless questions are answered by the headless renderer (ui.RunHeadless, per --approve)
	// rather than inside acpclient, so every answer reaches the transcript together with the
	// tool kind and title of its question; acpclient therefore runs in its interactive mode.
	var agentEnv []string // nil: acpterm's own environment
	if o.demo && o.headless {
		agentEnv = append(os.Environ(), demoHeadlessEnv+"=1")
	}
	// Starting an agent can take seconds (npx, a first run): say so on the terminal rather than
	// leave it blank; the line is erased before the TUI takes the screen.
	// It stays one line (cut to the terminal's width) and keys typed meanwhile are not echoed
	// over it (they wait in the input queue for the TUI).
	startLine := !o.headless && isTerminal(os.Stderr)
	restoreEcho := func() {}
	if startLine {
		line := fmt.Sprintf("acpterm: starting %s… (ctrl+c cancels)", filepath.Base(agent[0]))
		if ws, err := unix.IoctlGetWinsize(int(os.Stderr.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 1 {
			line = ansi.Truncate(ui.SafeText(line), int(ws.Col)-1, "…")
		}
		fmt.Fprint(std.err, line)
		restoreEcho = noEcho(os.Stdin)
	}
	var trace io.Writer
	if o.trace != "" {
		tf, err := os.OpenFile(o.trace, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return exitUsage, fmt.Errorf("%w: --trace: %v", errUsage, err)
		}
		s.trace, trace = tf, tf
	}
	agentSpec := s.sandbox.agentSpec(cfg, agent, getenv)
	if agentSpec != nil && agentSpec.Network != sandbox.NetworkOn && s.mcp != nil {
		// The agent's network namespace has a loopback of its own, so acpterm's MCP server on
		// the host's 127.0.0.1 is out of its reach (and the sandbox makes no unix sockets, so
		// the stdio bridge cannot connect either): it is served on the agent's proxy listener.
		s.mcp.inSandbox = true
	}
	agentEnv = agentCacheEnv(agentSpec, agentEnv, getenv)
	clientOptions := acpclient.Options{
		Command: agent, Cwd: cwd, Config: cfg, Engine: engine, Terminals: s.mgr,
		Log: logger, Env: agentEnv, Mode: cfg.Agent.Mode, Trace: trace, ExtraMcpServers: s.mcp.serversFunc(),
		LoadSession: o.resume, Continue: o.cont, DeferSession: o.pick, Store: sessionStore(getenv),
		Sandbox: agentSpec, AgentNetwork: s.net.agentNetwork(filepath.Base(agent[0]), s.mcp),
	}
	if agentSpec != nil {
		_, clientOptions.Quarantine = s.sandbox.watch(getenv)
		clientOptions.AgentWatch = sandbox.WatchCandidates(agentSpec, getenv("HOME"), agentWatchExtra(agent, getenv))
		clientOptions.AgentJournal = journalDir(getenv)
		clientOptions.AgentRestore = agentRestore(agent, getenv, clientOptions.Quarantine)
	}
	s.client, err = acpclient.Start(ctx, clientOptions)
	s.net.attach(s.client)
	if s.client != nil && s.mcp != nil {
		s.mcp.client.Store(s.client)
	}
	if startLine {
		restoreEcho()
		fmt.Fprint(std.err, "\r\x1b[2K")
	}
	if err != nil {
		if ctx.Err() != nil {
			return exitFailure, fmt.Errorf("%w while the agent was starting", context.Cause(ctx))
		}
		return exitFailure, startFailure(agent[0], err, logPath)
	}

	// 10. The front end.
	if o.headless {
		// A reader that goes away (`| head -1`) ends the session in order instead of killing
		// acpterm with SIGPIPE halfway: writes then fail with EPIPE, which cancels hctx.
		hctx, outGone := context.WithCancel(ctx)
		defer outGone()
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, syscall.SIGPIPE)
		defer signal.Stop(pipe)
		out := &pipeWriter{w: std.out, gone: outGone}
		code, err := ui.RunHeadless(hctx, ui.HeadlessOptions{
			Client: s.client, TerminalText: ui.TerminalText(s.mgr, s.client.Screen),
			Prompts: prompts, Approve: o.approve, Answers: o.answers, Out: out,
		})
		switch {
		case ctx.Err() != nil:
			return exitFailure, context.Cause(ctx)
		case out.failed() != nil:
			return exitFailure, out.failed()
		}
		return code, err
	}
	err = ui.Run(ctx, ui.Options{
		Client: s.client, Config: cfg, Engine: engine, Terminals: s.mgr,
		AgentName: filepath.Base(agent[0]), Wake: wake, Prompts: prompts, Warnings: grantWarnings,
		PickSession: o.pick,
		Sandbox:     s.sandbox.summary(), SandboxScope: s.sandbox.scope(getenv("HOME")),
		Restart: func(ctx context.Context, resume string) (*acpclient.Client, error) {
			// The same command, cwd, policy, terminals and sandbox; the exited session again.
			ro := clientOptions
			ro.LoadSession, ro.Continue, ro.DeferSession = resume, false, false
			logger.Info("acpterm: restarting agent", "command", agent, "cwd", cwd, "resume", resume)
			c, err := acpclient.Start(ctx, ro)
			if err != nil {
				logger.Warn("acpterm: restart failed", "err", err)
				return nil, startFailure(agent[0], err, logPath)
			}
			s.net.attach(c)
			if s.mcp != nil {
				s.mcp.client.Store(c)
			}
			s.client = c // closed by s.close after Run (Run waits for a restart under way)
			return c, nil
		},
	})
	switch {
	case err == nil:
		return exitOK, nil
	case ctx.Err() != nil:
		return exitFailure, context.Cause(ctx)
	default:
		return exitFailure, err
	}
}

// sessionStore is acpterm's record of sessions ($XDG_STATE_HOME/acpterm/sessions.json); nil
// when there is no state directory.
func sessionStore(getenv func(string) string) *acpclient.SessionStore {
	d := config.StateDir(getenv)
	if d == "" {
		return nil
	}
	return acpclient.NewSessionStore(filepath.Join(d, "sessions.json"))
}

// startError is a failed agent start as the user reads it: the failure, then where to look.
type startError struct {
	err  error
	hint string
}

func (e *startError) Error() string { return e.err.Error() + e.hint }
func (e *startError) Unwrap() error { return e.err }

// startFailure is the error for an agent that did not start: what failed, the agent's last
// stderr lines (which often say why: a missing API key, a login needed) unless the error
// already quotes them, and the log file, which holds the agent's whole stderr.
func startFailure(agent string, err error, logPath string) error {
	e := &startError{err: fmt.Errorf("start agent %q: %w", agent, err)}
	var se *acpclient.StartError
	if errors.As(err, &se) && len(se.StderrTail) > 0 {
		tail := se.StderrTail[max(0, len(se.StderrTail)-5):]
		e.hint += "\nthe agent's last stderr lines:\n  " + strings.Join(tail, "\n  ")
	}
	if logPath != "" {
		e.hint += "\nthe agent's whole stderr is in acpterm's log: " + logPath
	}
	return e
}

// sessionDir returns the absolute, existing session cwd: --cwd, a fresh scratch directory for
// --demo, or the current directory.
func sessionDir(o cliOptions) (string, error) {
	dir := o.cwd
	switch {
	case dir == "" && o.demo:
		d, err := os.MkdirTemp("", "acpterm-demo-")
		if err != nil {
			return "", fmt.Errorf("create the demo's scratch directory: %w", err)
		}
		dir = d
	case dir == "":
		d, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = d
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageError("--cwd %q: %v", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", usageError("--cwd %q does not exist", dir)
		}
		return "", usageError("--cwd %q: %v", dir, err)
	}
	if !st.IsDir() {
		return "", usageError("--cwd %q is not a directory", dir)
	}
	return abs, nil
}

// agentCommand picks the agent argv: --demo, the arguments after `--`, or [agent] command.
func agentCommand(o cliOptions, cfg *config.Config) ([]string, error) {
	switch {
	case o.demo:
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find acpterm's own executable for --demo: %w", err)
		}
		return []string{exe, demoAgentArg}, nil
	case len(o.agent) > 0:
		return o.agent, nil
	case len(cfg.Agent.Command) > 0:
		return cfg.Agent.Command, nil
	}
	where := cfg.UserFile // the file read, or where the user config would be
	if where == "" {
		where = "$XDG_CONFIG_HOME/acpterm/config.toml"
	}
	return nil, usageError("no agent: name one after \"--\" (acpterm -- AGENT [ARGS...]), set [agent] command in %s, or try --demo", where)
}

// noEcho turns off f's terminal echo (keys typed while the agent starts would be printed over
// the "starting" line; they stay queued for the TUI) and returns the function that restores it.
// A no-op when f is not a terminal.
func noEcho(f *os.File) (restore func()) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	t := *old
	t.Lflag &^= unix.ECHO
	if unix.IoctlSetTermios(fd, unix.TCSETS, &t) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }
}

// isTerminal reports whether f is a terminal (TCGETS succeeds).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// maxLogValue is the longest string value written to the log (bytes); longer ones are cut, so a
// 10 MiB protocol line cannot flood the log.
const maxLogValue = 4096

// logMaxMiB caps the diagnostics log (MiB): past it the file is rotated (lumberjack), keeping
// logBackups older files beside it (acpterm-<time>.log), so a chatty agent's stderr cannot fill
// the disk.
var (
	logMaxMiB  = 16
	logBackups = 1
)

// openLog opens the diagnostics log (path, or $XDG_STATE_HOME/acpterm/acpterm.log) for appending,
// created 0600 and rotated at logMaxMiB (a regular file only: a device such as /dev/null or a
// symlink is appended to as is; a FIFO, socket or directory is a usage error), and makes it the destination of the standard `log`
// package and slog.Default. The returned logger is the same handler; the path returned is the
// log's absolute path. Errors name the file.
func openLog(path string, getenv func(string) string) (*slog.Logger, io.Closer, string, error) {
	if path == "" {
		dir := config.StateDir(getenv)
		if dir == "" {
			return nil, nil, "", usageError("no place for the log: set HOME or XDG_STATE_HOME, or pass --log FILE")
		}
		path = filepath.Join(dir, "acpterm.log")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, "", usageError("log: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, "", usageError("log %s: %v", path, err)
	}
	// Only a regular file is rotated: lumberjack renames and deletes files, which must never
	// happen to /dev/null, /dev/stderr or another device (as root it would replace the device
	// with a file). A FIFO or socket would block or fail: refused.
	// A symlink (/dev/stderr) is written through, never renamed.
	var f io.WriteCloser
	lst, lerr := os.Lstat(path)
	switch st, err := os.Stat(path); {
	case err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeDir) != 0:
		return nil, nil, "", usageError("log %s: not a regular file or device (%v)", path, st.Mode().Type())
	case err == nil && (!st.Mode().IsRegular() || lerr == nil && lst.Mode()&os.ModeSymlink != 0):
		dev, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, nil, "", usageError("log: %v", err)
		}
		f = dev
	default:
		// Open once here so that an unwritable path is a usage error now (lumberjack opens
		// lazily), and a new file is created 0600 (lumberjack keeps the mode it finds).
		probe, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, "", usageError("log: %v", err)
		}
		_ = probe.Close()
		f = &lumberjack.Logger{Filename: path, MaxSize: logMaxMiB, MaxBackups: logBackups}
	}
	level := slog.LevelInfo
	if v, err := strconv.ParseBool(getenv("ACPTERM_DEBUG")); err == nil && v {
		level = slog.LevelDebug
	}
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: level, ReplaceAttr: truncateAttr})
	logger := slog.New(h)
	log.SetOutput(f)
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	slog.SetDefault(logger)
	return logger, f, path, nil
}

// truncateAttr cuts string values longer than maxLogValue bytes.
func truncateAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindString {
		if s := a.Value.String(); len(s) > maxLogValue {
			a.Value = slog.StringValue(s[:maxLogValue] + fmt.Sprintf("…(%d bytes cut)", len(s)-maxLogValue))
		}
	}
	return a
}

// demoHeadlessEnv tells the demo agent that nobody can type into its panes (--headless).
const demoHeadlessEnv = "ACPTERM_DEMO_HEADLESS"

// runDemoAgent serves the built-in demo agent on stdin/stdout (acpterm __demo-agent). Its
// diagnostics go to stderr, which acpclient drains into the log. ACPTERM_DEMO_PACE (a Go
// duration) sets the pause between streamed chunks; ACPTERM_DEMO_RECORD names a file that
// receives one JSON line per answer the agent got (tests); ACPTERM_DEMO_HEADLESS=1 skips the
// steps that need a person typing; ACPTERM_DEMO_LONG sets the ticker's length in seconds.
func runDemoAgent() int {
	o := demo.Options{Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	slog.SetDefault(o.Log)
	if v := os.Getenv("ACPTERM_DEMO_PACE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			o.Pace = d
		}
	}
	if p := os.Getenv("ACPTERM_DEMO_RECORD"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "demo agent: record file: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		o.Record = f
	}
	o.Exit = func(code int) { os.Exit(code) }
	o.Headless = os.Getenv(demoHeadlessEnv) == "1"
	if n, err := strconv.Atoi(os.Getenv("ACPTERM_DEMO_LONG")); err == nil && n > 0 {
		o.LongSeconds = n
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	if err := demo.Run(ctx, os.Stdin, os.Stdout, o); err != nil {
		return exitFailure
	}
	return exitOK
}

// notifyShutdown returns a context that ends on SIGTERM, SIGHUP, SIGINT or SIGQUIT (SIGQUIT
// would otherwise make the Go runtime dump goroutines and exit with the terminal in raw mode),
// and its stop function. context.Cause of the ended context names the signal
// ("interrupted by SIGTERM"). SIGINT and SIGQUIT are ignored while the TUI has handed the terminal to
// $PAGER: they were typed into the pager (ctrl+c, ctrl+\), which shares acpterm's process group,
// as system(3) ignores them while its child runs.
func notifyShutdown(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if (sig == syscall.SIGINT || sig == syscall.SIGQUIT) && ui.PagerRunning() {
					continue
				}
				name := sig.String()
				if s, ok := sig.(syscall.Signal); ok {
					name = unix.SignalName(s)
				}
				cancel(fmt.Errorf("interrupted by %s", name))
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// pipeWriter passes writes to w. The first write error (EPIPE: the reader went away; ENOSPC: the
// disk is full; any other) is recorded and calls gone, which stops the session: output that
// cannot be written must not end in a success. Used for headless output, with SIGPIPE caught so
// that writes to a closed pipe return EPIPE.
type pipeWriter struct {
	w    io.Writer
	gone func()
	mu   sync.Mutex
	err  error
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil {
		p.mu.Lock()
		first := p.err == nil
		if first {
			if errors.Is(err, syscall.EPIPE) {
				p.err = errors.New("standard output was closed (broken pipe); the session was stopped")
			} else {
				p.err = fmt.Errorf("writing standard output: %v; the session was stopped", err)
			}
		}
		p.mu.Unlock()
		if first {
			p.gone()
		}
	}
	return n, err
}

// failed returns the error that stopped the output, or nil.
func (p *pipeWriter) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
