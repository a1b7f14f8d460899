package terminals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpterm/acpterm/internal/proctree"
	"github.com/acpterm/acpterm/sandbox"
)

// The process: how a command line becomes a program to run, the waiter that reports its exit
// once its output is drained, and how it ends (Kill, Release), escaped descendants included.

// procState is a Terminal's process and its end.
type procState struct {
	marker string        // the value of markerVar every process of the terminal inherits
	grace  time.Duration // SIGTERM→SIGKILL grace of Kill and Release

	pid int
	sb  *sandbox.Process // nil: not sandboxed
	// spec is the sandbox spec the command runs under (nil: not sandboxed).
	spec *sandbox.Spec
	// denial is what the command's output says the sandbox refused (Spec.Denial), set at exit.
	denial atomic.Pointer[string]
	// watch remembers which protected paths were absent at start (ManagerOptions.Watch).
	watch      *sandbox.Watch
	swept      atomic.Pointer[[]sandbox.Swept] // what the watch found at exit
	quarantine string
	// liveStop stops the watch's inotify watching (sandbox.Watch.Live) before the sweep;
	// liveErr is why it could not start (the sweep is then the only check).
	liveStop func()
	liveErr  error
	// netStop stops serving the sandbox's proxy listener (ManagerOptions.Network); nil: none.
	netStop func()

	leaderDone chan struct{} // leader reaped (sandboxed: the command's exit reported)
	// helperReaped is closed once the sandbox helper is reaped (nil when not sandboxed).
	helperReaped chan struct{}
	done         chan struct{} // exit reported
	exit         atomic.Pointer[ExitStatus]

	killMu      sync.Mutex
	releaseOnce sync.Once
	released    atomic.Bool
	releasedCh  chan struct{}
}

// markerVar is the environment variable every process started from a
// terminal inherits; its value is "<manager nonce>:<terminal id>".
const markerVar = "ACPTERM_TERMINAL"

// reapBound is how long release waits for the processes it killed to
// disappear.
const reapBound = 3 * time.Second

// findProcs lists processes, other than this one and skip, started from a
// terminal: live ones whose environment marker is accepted by match, plus,
// when sid > 0, live members of session (or group) sid that carry no
// marker of another terminal, and zombies of that session that are this
// process's children (proctree.FindMarked).
func findProcs(match func(marker string) bool, sid, skip int) []int {
	return proctree.FindMarked(markerVar, match, sid, skip)
}

// killAndReap sends SIGKILL to pids and waits (at most reapBound) until
// each is gone, reaping only those exact pids.
func killAndReap(pids []int) { proctree.KillAndReap(pids, reapBound) }

// commandLine validates the Argv/ShellLine choice and returns the argv.
func commandLine(o StartOptions) ([]string, error) {
	switch {
	case len(o.Argv) > 0 && o.ShellLine != "":
		return nil, errors.New("terminals: start: both Argv and ShellLine given (exactly one is allowed)")
	case o.ShellLine != "":
		return []string{"/bin/sh", "-c", o.ShellLine}, nil
	case len(o.Argv) == 0 || o.Argv[0] == "":
		return nil, errors.New("terminals: start: no command (Argv and ShellLine are empty)")
	}
	for _, a := range o.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("terminals: start %q: argument contains a NUL byte", o.Argv[0])
		}
	}
	return append([]string(nil), o.Argv...), nil
}

// lookPath resolves name like a shell would, but on the PATH of the child's
// environment env (not acpterm's own); relative paths are taken from dir.
func lookPath(name string, env []string, dir string) (string, error) {
	check := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", p)
		}
		return nil
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := check(p); err != nil {
			return "", err
		}
		return p, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	if pathEnv == "" {
		pathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); check(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("executable file not found in PATH %q", pathEnv)
}

// waiter reaps the leader and reports exit once its output is drained.
func (t *Terminal) waiter(cmd *exec.Cmd) {
	var st ExitStatus
	if t.sb != nil {
		// The helper is the PID namespace's init, which no signal can end: the command's own
		// status comes over the helper's status pipe, which closes as the helper exits. The
		// kernel then still tears the namespaces down before the helper can be reaped (up to
		// tens of ms on a loaded machine): that happens in the background (Release waits).
		go func() {
			_ = cmd.Wait()
			if t.netStop != nil {
				// Nothing is left in the network namespace to connect, and the listener
				// would keep it alive.
				t.netStop()
			}
			close(t.helperReaped)
		}()
		select {
		case <-t.sb.Done():
		case <-t.helperReaped:
		}
		if es, ok := t.sb.Exit(time.Second); ok {
			st = ExitStatus{Code: es.Code, Signal: es.Signal}
		} else {
			// No report: the helper was killed (SIGKILL), and the kernel killed the
			// command with it.
			<-t.helperReaped
			st = statusOf(cmd.ProcessState)
		}
	} else {
		_ = cmd.Wait()
		st = statusOf(cmd.ProcessState)
	}
	var swept []string
	if t.watch != nil {
		// Once the helper is reaped nothing of the command's PID namespace runs any more.
		<-t.helperReaped
		if t.liveStop != nil {
			t.liveStop()
		}
		found := t.watch.Sweep(t.quarantine)
		if t.liveErr != nil {
			found = append(found, sandbox.Swept{Message: "sandbox: warning: protected paths the command created were looked for only after it ended (" + t.liveErr.Error() + ")"})
		}
		for _, f := range found {
			swept = append(swept, f.Message)
		}
		t.swept.Store(&found)
	}
	close(t.leaderDone)
	timer := time.NewTimer(DrainBound)
	select {
	case <-t.drained:
	case <-timer.C:
		// A background process holds the PTY open: stop waiting for EOF.
		_ = t.ptmx.SetReadDeadline(time.Now())
		<-t.drained
	}
	timer.Stop()
	t.tr.Flush()
	if t.spec != nil {
		text, _ := t.tr.Snapshot()
		d := t.spec.Denial(text)
		if len(swept) > 0 {
			d = strings.Join(append(swept, d), "; ")
			d = strings.TrimSuffix(d, "; ")
		}
		if d != "" {
			t.denial.Store(&d)
		}
	}
	t.exit.Store(&st)
	close(t.done)
	t.m.changed(t.id)
}

// Pid returns the leader's process id (also its process group and session id); for a
// sandboxed terminal the leader is the sandbox helper, the init of the command's PID
// namespace.
func (t *Terminal) Pid() int { return t.pid }

// SandboxDenial returns, once the terminal has exited, what its output says the sandbox
// refused ("sandbox refused a write to /p/.git/hooks/x (protected, read-only)"; see
// sandbox.Spec.Denial), or "".
func (t *Terminal) SandboxDenial() string {
	if d := t.denial.Load(); d != nil {
		return *d
	}
	return ""
}

// Swept returns, once the terminal has exited, the protected paths its sandboxed command
// created that were moved into the quarantine, and the new repositories it made (see
// sandbox.Watch.Sweep); nil when none or not watched.
func (t *Terminal) Swept() []sandbox.Swept {
	if s := t.swept.Load(); s != nil {
		return *s
	}
	return nil
}

// Sandbox returns the sandbox layers confirmed in force for the command, or nil when the
// terminal is not sandboxed (ManagerOptions.Sandbox nil).
func (t *Terminal) Sandbox() *sandbox.Report {
	if t.sb == nil {
		return nil
	}
	r := t.sb.Report()
	return &r
}

// Done returns a channel closed when the terminal has exited and the output
// it wrote before exiting has been read.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Exit returns the exit status and true once Done is closed.
func (t *Terminal) Exit() (ExitStatus, bool) {
	if ex := t.exit.Load(); ex != nil {
		return *ex, true
	}
	return ExitStatus{}, false
}

// Wait blocks until the terminal has exited (output drained) and returns
// its status, or returns ctx's error if ctx ends first; it never kills.
// Any number of goroutines may wait at once.
func (t *Terminal) Wait(ctx context.Context) (ExitStatus, error) {
	select {
	case <-t.done:
		return *t.exit.Load(), nil
	case <-ctx.Done():
		return ExitStatus{}, ctx.Err()
	}
}

// Kill ends the command: SIGTERM to its process group, then SIGKILL once
// the group is still alive after the grace period (StartOptions.KillGrace or
// the manager's). It returns when the leader is gone and its output
// drained; the terminal stays readable. Killing an exited terminal only
// sends SIGKILL to what is left of its group. Errors: none in practice (a
// vanished group is not an error).
func (t *Terminal) Kill() error {
	t.killMu.Lock()
	defer t.killMu.Unlock()
	select {
	case <-t.done:
		// The leader is long reaped and its pid may be reused: kill only
		// processes that are provably this terminal's.
		if pids := t.ownProcs(); len(pids) > 0 {
			killAndReap(pids)
		}
		return nil
	default:
	}
	// The other members of the session, so the ones re-parented to us
	// (subreaper) when their parent dies can be reaped.
	var members []int // the group's other members (they get the signals)
	for _, pid := range t.ownProcs() {
		if st, ok := proctree.ReadStat(pid); ok && st.Pgrp == t.pid {
			members = append(members, pid)
		}
	}
	deadline := time.Now().Add(t.grace)
	_ = syscall.Kill(-t.pid, syscall.SIGTERM)
	_ = syscall.Kill(-t.pid, syscall.SIGCONT) // a stopped process only sees TERM once continued
	timer := time.NewTimer(t.grace)
	defer timer.Stop()
	select {
	case <-t.leaderDone:
		// The leader went; give the rest of the group what remains of the grace.
		for time.Now().Before(deadline) && proctree.Alive(members) {
			proctree.Reap(members, 0)
			time.Sleep(10 * time.Millisecond)
		}
	case <-timer.C:
	}
	_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	<-t.done
	proctree.Reap(members, reapBound)
	return nil
}

// Release ends the terminal for good: it kills the command if it is still
// running (see Kill), ends every process started from it that left its
// process group (setsid, double fork; found by the ACPTERM_TERMINAL
// environment marker or the session id), resolves every waiter, and frees
// the PTY, file descriptors and goroutines. The final screen and the
// output stay available. Idempotent; returns nil.
func (t *Terminal) Release() error {
	t.releaseOnce.Do(func() {
		_ = t.Kill()
		t.reapEscapees()
		t.released.Store(true)
		t.inMu.Lock()
		t.inClosed = true
		t.inMu.Unlock()
		wake(t.inWake)
		t.ptMu.Lock()
		_ = t.ptmx.Close() // ends the reader (and unblocks the writer)
		t.ptMu.Unlock()
		<-t.readerDone
		<-t.writerDone
		<-t.feederDone
		if t.helperReaped != nil {
			<-t.helperReaped
		}
		_ = t.scr.Close()
		close(t.releasedCh)
		t.m.releasedTerm(t)
		t.m.changed(t.id)
	})
	<-t.releasedCh
	return nil
}

// reapEscapees kills and reaps processes started from this terminal that
// are still alive.
func (t *Terminal) reapEscapees() {
	if pids := t.ownProcs(); len(pids) > 0 {
		killAndReap(pids)
	}
}

// ownProcs lists the processes started from this terminal that remain
// (see findProcs), the leader excluded.
func (t *Terminal) ownProcs() []int {
	return findProcs(func(v string) bool { return v == t.marker }, t.pid, t.pid)
}

// Released reports whether Release has completed.
func (t *Terminal) Released() bool { return t.released.Load() }
