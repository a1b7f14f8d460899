package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/sandbox"
)

// sessionSandbox is a session's sandbox: the spec its terminals run under and what the
// canary run of the helper found in force.
type sessionSandbox struct {
	mode     sandbox.Mode
	spec     *sandbox.Spec   // nil when the mode is off
	report   *sandbox.Report // nil when the mode is off
	tempDir  string          // the session's private temp dir (removed with the session)
	tempLock *os.File        // holds the lock on tempDir while acpterm runs (lockSessionDir)
}

// summary is the status-bar text: "sandbox: landlock 7 · ns · net off", or "sandbox: off".
func (s *sessionSandbox) summary() string {
	if s == nil || s.spec == nil {
		return "sandbox: off"
	}
	return s.report.Summary()
}

// scope says how a command will run, for the approval dialog: "writes only in ~/src/proj,
// network off"; "" when commands are not confined.
func (s *sessionSandbox) scope(home string) string {
	if s == nil || s.spec == nil || !s.report.Layers.Landlock.Enforced {
		return ""
	}
	roots := make([]string, len(s.spec.Roots))
	for i, r := range s.spec.Roots {
		if home != "" && within(r, home) {
			r = "~" + strings.TrimPrefix(r, home)
		}
		roots[i] = r
	}
	return "writes only in " + strings.Join(roots, ", ") + ", network " + s.report.Layers.Net
}

// needsProxy reports whether the session needs the network proxy: its commands run with
// network "proxy", or the agent runs in the sandbox while commands do not share acpterm's
// network (network "proxy" or "off": the agent, which needs its model API, goes through the
// proxy).
func (s *sessionSandbox) needsProxy(cfg *config.Config) bool {
	if s == nil || s.spec == nil {
		return false
	}
	return s.spec.Network == sandbox.NetworkProxy || cfg.Sandbox.Agent && s.spec.Network == sandbox.NetworkOff
}

// confined reports whether commands run with Landlock and the mount namespace in force.
func (s *sessionSandbox) confined() bool { return s != nil && s.report.Confined() }

func (s *sessionSandbox) close() {
	if s != nil && s.tempDir != "" {
		_ = os.RemoveAll(s.tempDir)
	}
	if s != nil && s.tempLock != nil {
		_ = s.tempLock.Close()
	}
}

// sessionDirPrefix starts the name of a session's private temp dir, followed by the pid of the
// acpterm that made it ("acpterm-session-1234-XXXX").
const sessionDirPrefix = "acpterm-session-"

// removeStaleSessionDirs removes the session temp dirs in dir that belong to uid and whose
// acpterm is gone (killed with SIGKILL, so it could not remove its own): what sandboxed commands
// left there is no one's any more, and other sessions' commands could read it. A dir whose pid
// is running (even a reused pid) is left alone. Errors are ignored: it is housekeeping.
func removeStaleSessionDirs(dir string, uid int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), sessionDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidS, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidS)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != uid {
			continue
		}
		// The acpterm that made it holds a lock on it while it runs (lockSessionDir); the pid
		// alone cannot tell, as acpterm may run in another PID namespace.
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(p)
		}
		f.Close()
	}
}

// lockSessionDir locks dir for as long as the returned file stays open (until acpterm exits,
// however it exits), so that removeStaleSessionDirs in another acpterm leaves it alone.
func lockSessionDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}

func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// sandboxFor builds the session's sandbox spec from the config (mode overridden by --sandbox
// when flagMode is set) and runs the helper's canaries once. protect are acpterm's own files
// (config, state, logs) no sandboxed process may write. In required mode a missing layer is
// an error naming it.
func sandboxFor(cfg *config.Config, flagMode string, getenv func(string) string, protect []string) (*sessionSandbox, error) {
	modeName := cfg.Sandbox.Mode
	if flagMode != "" {
		modeName = flagMode
	}
	mode, err := sandbox.ParseMode(modeName)
	if err != nil {
		return nil, usageError("--sandbox: %v", err)
	}
	s := &sessionSandbox{mode: mode}
	if mode == sandbox.ModeOff {
		return s, nil
	}
	network, err := sandbox.ParseNetwork(cfg.Sandbox.Network)
	if err != nil {
		return nil, err
	}
	removeStaleSessionDirs(os.TempDir(), os.Getuid())
	tmp, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", sessionDirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("sandbox: session temp dir: %w", err)
	}
	s.tempDir = tmp
	if s.tempLock, err = lockSessionDir(tmp); err != nil {
		s.close()
		return nil, fmt.Errorf("sandbox: session temp dir: %w", err)
	}
	home := getenv("HOME")
	pr := sandbox.ProtectedPaths(cfg.Policy.Roots, home)
	ro := pr.ReadOnly
	for _, p := range append(protect, config.ConfigDir(getenv), config.StateDir(getenv)) {
		if filepath.IsAbs(p) {
			ro = append(ro, p)
		}
	}
	if filepath.IsAbs(cfg.Source) {
		ro = append(ro, cfg.Source)
	}
	mask := append(sandbox.SecretPaths(home), sandbox.AgentSecretsFromEnv(getenv)...)
	mask = append(mask, sandbox.MaskPaths(cfg.Policy.FS.DenyRead, cfg.Policy.Roots, home)...)
	mask = append(mask, sandbox.ControlSockets(getenv, os.Geteuid())...)
	s.spec = &sandbox.Spec{
		Mode: mode, Roots: cfg.Policy.Roots, TempDir: tmp, ReadOnly: ro, Pin: pr.Pin, Mask: mask,
		Network: network, Seccomp: true,
	}
	if filepath.IsAbs(home) {
		// Whose start-up files no root may expose (sandbox.HomeExposure).
		s.spec.Home = home
	}
	// The canaries run in auto mode, so that every missing layer is reported at once.
	probe := *s.spec
	probe.Mode = sandbox.ModeAuto
	rep, err := sandbox.Check(&probe)
	if err != nil {
		s.close()
		return nil, err
	}
	rep.Mode = mode
	s.report = &rep
	return s, nil
}

// watch returns the protected paths a sandboxed command must not create (the ones that
// do not exist cannot be bound read-only: see sandbox.WatchCandidates), acpterm's own
// config file and directories among them, and the quarantine directory below acpterm's
// state dir that created ones are moved into. Nil without a sandbox.
func (s *sessionSandbox) watch(getenv func(string) string) ([]string, string) {
	if s == nil || s.spec == nil {
		return nil, ""
	}
	q := ""
	if d := config.StateDir(getenv); filepath.IsAbs(d) {
		q = filepath.Join(d, "quarantine")
	}
	return sandbox.WatchCandidates(s.spec, getenv("HOME"), watchExtra(getenv)), q
}

// watchExtra are acpterm's own paths a sandboxed process must not create: its config dir
// and config file, and its state dir.
func watchExtra(getenv func(string) string) []string {
	var extra []string
	if d := config.ConfigDir(getenv); filepath.IsAbs(d) {
		extra = append(extra, d, filepath.Join(d, "config.toml"))
	}
	if d := config.StateDir(getenv); filepath.IsAbs(d) {
		extra = append(extra, d)
	}
	return extra
}

// refusal is the error of required mode when a layer is missing; "" when none is.
func (s *sessionSandbox) refusal() string {
	if s == nil || s.mode != sandbox.ModeRequired || s.report.Complete() {
		return ""
	}
	return "sandbox: required layer missing: " + strings.Join(s.report.Missing, "; ")
}

// runSandbox runs `acpterm sandbox check [--config FILE] [--cwd DIR] [--sandbox MODE]`: it
// runs the helper's canaries as a command would be run and prints what is in force as JSON.
// Exit 0 when what the mode asks for is in force (off: always), 1 when a layer is missing,
// 2 for a usage or config error.
func runSandbox(args []string, std stdio, getenv func(string) string) int {
	const usage = "usage: acpterm sandbox check [--config FILE] [--cwd DIR] [--sandbox MODE]"
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(std.err, "acpterm: "+usage)
		return exitUsage
	}
	var configPath, cwdFlag, mode string
	fs := flag.NewFlagSet("acpterm sandbox check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&configPath, "config", "", "")
	fs.StringVar(&cwdFlag, "cwd", "", "")
	fs.StringVar(&mode, "sandbox", "", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(std.err, "acpterm: sandbox check: "+usage)
		return exitUsage
	}
	cwd, err := sessionDir(cliOptions{cwd: cwdFlag})
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: sandbox check: %s\n", trimUsage(err))
		return exitUsage
	}
	sweepLeftovers(getenv, std.err, nil) // before the config: a planted one is never read
	cfg, err := config.Load(config.LoadOptions{Path: configPath, Cwd: cwd, Getenv: getenv})
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: sandbox check: config: %v\n", err)
		return exitUsage
	}
	effective := cfg.Sandbox.Mode
	if mode != "" {
		effective = mode
	}
	m, err := sandbox.ParseMode(effective)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: sandbox check: --sandbox: %v\n", err)
		return exitUsage
	}
	if m == sandbox.ModeOff {
		m = sandbox.ModeAuto // show what a sandbox would have; exit 0 whatever it finds
	}
	s, err := sandboxFor(cfg, string(m), getenv, nil)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: sandbox check: %s\n", trimUsage(err))
		return exitFailure
	}
	defer s.close()
	rep := *s.report
	rep.Mode = sandbox.Mode(effective)
	out, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Fprintf(std.out, "%s\n", out)
	if rep.Mode != sandbox.ModeOff && len(rep.Missing) > 0 {
		return exitFailure
	}
	return exitOK
}

// reportMissing lists the missing layers (none when the sandbox is off).
func reportMissing(s *sessionSandbox) []string {
	if s == nil || s.report == nil {
		return nil
	}
	return s.report.Missing
}

// agentSpec returns the spec the agent process runs under when [sandbox] agent is on (nil
// otherwise, and when the sandbox is off): the commands' spec with its network through the
// proxy (on when commands share acpterm's network) and, as further writable paths, the agent's own state directories (created when missing, so that
// Landlock can grant them) and [sandbox] agent_write.
func (s *sessionSandbox) agentSpec(cfg *config.Config, agent []string, getenv func(string) string) *sandbox.Spec {
	if s == nil || s.spec == nil || !cfg.Sandbox.Agent {
		return nil
	}
	a := *s.spec
	a.Network = sandbox.NetworkOn
	if s.needsProxy(cfg) {
		a.Network = sandbox.NetworkProxy // the agent's model API and the rest through the proxy
	}
	a.Write = nil
	dirs := sandbox.AgentStateDirs(agent, getenv("HOME"), getenv)
	if c := sandbox.AgentCacheDir(getenv("HOME"), getenv); c != "" {
		dirs = append(dirs, c) // see agentCacheEnv
	}
	for _, p := range append(dirs, cfg.Sandbox.AgentWrite...) {
		// A missing directory is made (Landlock grants only what exists); a missing file
		// (a name with an extension, "~/.claude.json") is not. A dot-name (".gemini") is a
		// directory.
		if ext := filepath.Ext(p); ext == "" || ext == filepath.Base(p) {
			if _, err := os.Lstat(p); err != nil {
				_ = os.MkdirAll(p, 0o700)
			}
		}
		a.Write = append(a.Write, p)
	}
	protectAgentConfig(&a, agent, getenv)
	// The agent's own credentials (its API token or login) are masked for commands, not for it.
	a.Mask = sandbox.UnmaskFor(a.Mask, append(sandbox.AgentOwnSecrets(agent, getenv("HOME")), a.Write...))
	return &a
}
