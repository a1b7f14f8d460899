package helper

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// guardKillBound is how long the guard goes on killing and reaping after the grace before it
// gives up (a process stuck in the kernel cannot be killed).
const guardKillBound = 5 * time.Second

// guardMain is the guard: it starts the command, reports it, supervises it until it exits or
// acpterm is gone, and ends whatever is left below it. It returns the guard's exit code: the
// command's (128+N for a signal), 125 for its own failures.
func guardMain() int {
	ctl := os.NewFile(GuardFD, "agent-guard")
	send := func(m Message) {
		b, _ := json.Marshal(m)
		_, _ = ctl.Write(append(b, '\n'))
	}
	fail := func(code int, format string, a ...any) int {
		send(Message{Error: fmt.Sprintf(format, a...)})
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
	if _, err := unix.FcntlInt(GuardFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
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
	send(Message{Ready: &Report{}})

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
		send(Message{Exit: &st})
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
