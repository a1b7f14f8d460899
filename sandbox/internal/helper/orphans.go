package helper

import (
	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// Without a PID namespace (the kernel refused one; auto mode runs without it) nothing ends
// the command's tree when the helper dies: a setsid child, or one whose parent exited, would
// outlive acpterm killed with SIGKILL. The helper then stands in for the namespace as the
// agent guard does for an unsandboxed agent: it gives up its own parent-death signal
// (SIGKILL would end it before it could act), becomes a child subreaper (every process below
// it whose parent dies is re-parented to it, setsid ones included), and watches its end of
// the status pipe, which reports an error (POLLERR) as soon as no reader is left, i.e. when
// acpterm is gone, however it ended. Then, or when the command itself has exited (as the
// init of a PID namespace takes its whole namespace along), it kills everything below it
// with SIGKILL and reaps it (endTree). The command keeps its parent-death signal: it dies
// with the helper.

// guardTree prepares the helper to end the command's tree itself when no PID namespace does
// (h.rep.Layers.PidNS false; it does nothing otherwise). Call it before the command is
// forked. It returns a channel closed once acpterm is gone (nil: never, with a PID
// namespace) and the function that ends every process left below the helper. A failure is
// reported as missing (layer "pid_ns", reason "orphan guard: …"); in ModeRequired a PID
// namespace is in force anyway.
func (h *helper) guardTree() (gone <-chan struct{}, end func()) {
	if h.rep.Layers.PidNS {
		return nil, func() {}
	}
	if err := proctree.BecomeSubreaper(); err != nil {
		h.missing("pid_ns", "orphan guard: prctl(PR_SET_CHILD_SUBREAPER): "+err.Error())
		return nil, func() {}
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, 0, 0, 0, 0); err != nil {
		h.missing("pid_ns", "orphan guard: prctl(PR_SET_PDEATHSIG, 0): "+err.Error())
		return nil, func() { endTree(0) }
	}
	c := make(chan struct{})
	go func() {
		// A pipe's write end polls POLLERR once its last reader closed (pipe(7)); no event
		// is asked for, POLLERR and POLLHUP are always reported. acpterm died before the
		// prctl above: the first poll returns at once.
		fds := []unix.PollFd{{Fd: StatusFD}}
		for {
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				close(c)
				return
			}
		}
	}()
	return c, func() { endTree(0) }
}
