package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/sandbox/internal/helper"
)

// The agent guard. An agent acpterm does not sandbox still runs tools of its own (its Bash
// tool's shells, language servers, MCP servers), and a child that left the agent's process
// group, or whose parent died, would outlive acpterm when acpterm itself is killed with
// SIGKILL: nothing is left to kill it. The guard is a tiny supervisor between acpterm and
// the agent: acpterm re-executes itself with GuardArg (the guard's code is in package
// sandbox/internal/helper); the guard becomes a child subreaper (every process below it
// whose parent dies is re-parented to it, setsid ones included), starts the agent as its
// child with the guard's own stdio, environment and working directory, and holds one end of
// a socket pair whose other end only acpterm has. When that end closes (acpterm exited,
// however), the guard ends the agent's whole tree: SIGTERM, the grace, then SIGKILL until
// nothing is left below it. Neither the agent's file access nor its view of other processes
// changes: the guard applies no sandbox layer.

// GuardArg is the hidden first argument that turns the program into the agent guard (see
// Guard). Any program linking this package handles it before main (the guard runs from the
// init of the package sandbox/internal/helper).
const GuardArg = helper.GuardArg

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
// Errors: cmd.ExtraFiles not empty; the guard failing to start, to become a
// subreaper (prctl(PR_SET_CHILD_SUBREAPER)) or to exec the command (the message names it).
func Guard(cmd *exec.Cmd, grace time.Duration) (*Process, error) {
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
