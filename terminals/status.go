package terminals

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Size is a terminal size in character cells.
type Size struct{ Cols, Rows int }

// DefaultSize is used when a zero Size is given: 80 columns by 24 rows.
var DefaultSize = Size{Cols: 80, Rows: 24}

// maxDim bounds each dimension of a Size, in cells.
const maxDim = 4096

// normalize returns s with a zero size replaced by DefaultSize, or an error
// naming the bad dimension.
func (s Size) normalize() (Size, error) {
	if s.Cols == 0 && s.Rows == 0 {
		return DefaultSize, nil
	}
	if s.Cols < 1 || s.Rows < 1 || s.Cols > maxDim || s.Rows > maxDim {
		return s, errors.New("terminals: invalid size " + strconv.Itoa(s.Cols) + "x" + strconv.Itoa(s.Rows) +
			" (each dimension must be 1.." + strconv.Itoa(maxDim) + " cells)")
	}
	return s, nil
}

// clamp returns s with each dimension forced into 1..maxDim (used by
// Screen, whose methods return no error).
func (s Size) clamp() Size {
	c := func(v int) int { return min(max(v, 1), maxDim) }
	return Size{Cols: c(s.Cols), Rows: c(s.Rows)}
}

// ExitStatus is how a terminal's leader process ended.
type ExitStatus struct {
	Code   *int   // exit code; nil when the process died by a signal
	Signal string // "SIGTERM", "SIGKILL", … ; "" for a normal exit
}

// String renders the status for people: "exit 0", "exit 2", "SIGKILL".
func (e ExitStatus) String() string {
	if e.Signal != "" {
		return e.Signal
	}
	if e.Code != nil {
		return "exit " + strconv.Itoa(*e.Code)
	}
	return "unknown"
}

// statusOf converts a process state into an ExitStatus: a code, or the
// signal's name — never a negative code.
func statusOf(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{Signal: "unknown"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Signal: signalName(ws.Signal())}
	}
	c := ps.ExitCode()
	if c < 0 {
		return ExitStatus{Signal: "unknown"}
	}
	return ExitStatus{Code: &c}
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "SIG" + strconv.Itoa(int(s))
}

// Errors returned by the package.
var (
	// ErrTooManyTerminals is returned by Manager.Start when MaxLive
	// unreleased terminals exist already.
	ErrTooManyTerminals = errors.New("terminals: too many live terminals")
	// ErrClosed is returned by Manager.Start after Manager.Close.
	ErrClosed = errors.New("terminals: manager closed")
	// ErrReleased is returned by input methods of a released terminal.
	ErrReleased = errors.New("terminals: terminal released")
	// ErrInputBacklog is returned by Write/SendKey/Paste when more than
	// maxInputQueue bytes (1 MiB) are already waiting for the program to read
	// its input.
	ErrInputBacklog = errors.New("terminals: input backlog full (the program is not reading its input)")
)

// Defaults.
const (
	// DefaultOutputLimit is the transcript size kept when StartOptions.OutputLimit <= 0, in bytes (1 MiB).
	DefaultOutputLimit = 1 << 20
	// DefaultKillGrace is the SIGTERM→SIGKILL grace period when none is configured.
	DefaultKillGrace = 2 * time.Second
	// DefaultMaxLive is the number of live terminals a Manager allows when MaxLive is 0.
	DefaultMaxLive = 16
	// DrainBound is how long exit reporting waits, after the leader exited,
	// for the PTY to report end of file (a background process may hold it
	// open); after it, whatever is buffered is read and exit is reported.
	DrainBound = 200 * time.Millisecond
	// ScrollbackLines is the emulator scroll-back kept per screen, in lines
	// (each cell costs about 112 bytes, so this bounds memory).
	ScrollbackLines = 1000
)
