package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// The agent guard. An agent acpterm does not sandbox still runs tools of its own (its Bash
// tool's shells, language servers, MCP servers), and a child that left the agent's process
// group, or whose parent died, would outlive acpterm when acpterm itself is killed with
// SIGKILL: nothing is left to kill it. The guard is a tiny supervisor between acpterm and
// the agent: acpterm re-executes itself with GuardArg; the guard becomes a child subreaper
// (every process below it whose parent dies is re-parented to it, setsid ones included),
// starts the agent as its child with the guard's own stdio, environment and working
// directory, and holds one end of a socket pair whose other end only acpterm has. When that
// end closes (acpterm exited, however), the guard ends the agent's whole tree: SIGTERM, the
// grace, then SIGKILL until nothing is left below it. Neither the agent's file access nor its
// view of other processes changes: the guard applies no sandbox layer.

// GuardArg is the hidden first argument that turns the program into the agent guard (see
// Guard). RunHelperIfAsked handles it.
const GuardArg = "__agent-guard"

// guardFD is the guard's end of its socket pair with acpterm.
const guardFD = 3

// guardKillBound is how long the guard goes on killing and reaping after the grace before it
// gives up (a process stuck in the kernel cannot be killed).
const guardKillBound = 5 * time.Second

// guardServed is set once RunHelperIfAsked returned in this process: re-executing
// /proc/self/exe with GuardArg then runs the guard, not the program (a test binary without
// RunHelperIfAsked in its TestMain would run its tests again instead).
var guardServed atomic.Bool

// ErrNoGuard is returned by Guard when the program never called RunHelperIfAsked, so its own
// binary cannot act as the guard.
var ErrNoGuard = errors.New("sandbox: agent guard unavailable: the program does not call sandbox.RunHelperIfAsked")

func isGuard() bool { return len(os.Args) > 1 && os.Args[1] == GuardArg }

// Guard starts cmd (filled as for a plain start: Path, Args, Dir, Env, Stdin/Stdout/Stderr,
// SysProcAttr; ExtraFiles empty) below the agent guard: cmd becomes the exec of the guard
// (/proc/self/exe GuardArg), which starts the real command as its only child with the same
// stdio, environment and working directory, in the guard's session and process group (so
// signals to that group reach both; one sent to the guard alone is passed on). grace is how
// long the guard waits between SIGTERM and SIGKILL when acpterm is gone.
//
// cmd.Wait then reaps the guard, which exits once the command has exited and the rest of its
// tree was killed and reaped; Process.Exit gives the command's own status (false when the
// guard was killed before reporting it). Process.Report is empty: the guard enforces nothing.
//
// Errors: ErrNoGuard; cmd.ExtraFiles not empty; the guard failing to start, to become a
// subreaper (prctl(PR_SET_CHILD_SUBREAPER)) or to exec the command (the message names it).
func Guard(cmd *exec.Cmd, grace time.Duration) (*Process, error) {
	if !guardServed.Load() {
		return nil, ErrNoGuard
	}
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: guard: cmd.ExtraFiles must be empty")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: guard socket pair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "agent-guard")
	theirs := os.NewFile(uintptr(fds[1]), "agent-guard-child")
	defer theirs.Close()
	args := append([]string{"acpterm-agent-guard", GuardArg, strconv.FormatInt(grace.Milliseconds(), 10), cmd.Path}, cmd.Args...)
	cmd.Path, cmd.Args = "/proc/self/exe", args
	cmd.ExtraFiles = []*os.File{theirs}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, fmt.Errorf("sandbox: start guard: %w", err)
	}
	theirs.Close()
	p, _, err := awaitReady(cmd, ours, "the guard", "start the command")
	if err != nil {
		return nil, err
	}
	go p.readRest()
	return p, nil
}

// guardMain is the guard: it starts the command, reports it, supervises it until it exits or
// acpterm is gone, and ends whatever is left below it. It returns the guard's exit code: the
// command's (128+N for a signal), 125 for its own failures.
func guardMain() int {
	ctl := os.NewFile(guardFD, "agent-guard")
	send := func(m message) {
		b, _ := json.Marshal(m)
		_, _ = ctl.Write(append(b, '\n'))
	}
	fail := func(code int, format string, a ...any) int {
		send(message{Error: fmt.Sprintf(format, a...)})
		return code
	}
	if len(os.Args) < 5 {
		return fail(125, "sandbox: guard: expected GRACE_MS PATH ARGV…, got %q", os.Args[1:])
	}
	graceMS, err := strconv.Atoi(os.Args[2])
	if err != nil || graceMS < 0 {
		return fail(125, "sandbox: guard: bad grace %q", os.Args[2])
	}
	grace := time.Duration(graceMS) * time.Millisecond
	path, argv := os.Args[3], os.Args[4:]
	// The guard's end of the pair does not reach the command (a command holding it would keep
	// the guard from seeing acpterm go); every other descriptor acpterm passed on does, as it
	// would without the guard.
	if _, err := unix.FcntlInt(guardFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fail(125, "sandbox: guard: close-on-exec on its socket: %v", err)
	}
	if err := proctree.BecomeSubreaper(); err != nil {
		return fail(125, "sandbox: guard: prctl(PR_SET_CHILD_SUBREAPER): %v", err)
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, supervisedSignals...)
	wd, _ := os.Getwd()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: wd, Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail(127, "exec %s: %v", path, err)
	}
	// The guard keeps no copy of the command's stdio: acpterm sees EOF on the agent's stdout
	// when the agent closes it, not only when the guard exits.
	if null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup3(null, fd, 0)
		}
		unix.Close(null)
	}
	send(message{Ready: &Report{}})

	gone := make(chan struct{}) // acpterm's end of the pair closed
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := ctl.Read(buf); err != nil {
				close(gone)
				return
			}
		}
	}()
	st, code, ok := superviseChild(pid, sigs, gone)
	if ok {
		// The agent is gone: the rest of its tree goes too (as acpterm ends it when the agent
		// exits), now, before the status is final.
		send(message{Exit: &st})
		endTree(0)
		return code
	}
	endTree(grace)
	return 125
}

// endTree ends every process below the guard: SIGTERM to each and up to grace for them to go
// (none with grace 0), then SIGKILL, again and again (a process may fork meanwhile, and
// orphans come here), reaping as they end, until nothing is left or guardKillBound passed.
func endTree(grace time.Duration) {
	self := os.Getpid()
	reap := func() {
		for {
			var ws unix.WaitStatus
			if got, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); err != nil || got <= 0 {
				return
			}
		}
	}
	signalAll := func(sig unix.Signal) int {
		pids := proctree.Descendants(self)
		for _, pid := range pids {
			_ = unix.Kill(pid, sig)
		}
		return len(pids)
	}
	if grace > 0 && signalAll(unix.SIGTERM) > 0 {
		for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			reap()
			if len(proctree.Descendants(self)) == 0 {
				return
			}
		}
	}
	for deadline := time.Now().Add(guardKillBound); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		reap()
		if signalAll(unix.SIGKILL) == 0 {
			return
		}
	}
}
