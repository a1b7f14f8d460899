// Package tmuxtest drives a program in a real terminal for end-to-end tests, as a person would:
// a private tmux server (its own socket) with one window of a fixed size, keys sent with
// send-keys, the screen read with capture-pane. The e2e and realagents tests share it.
//
// Every wait polls the screen every PollInterval until its condition holds and fails the test,
// printing the last screen, when the timeout passes: the screen has no event to wait on.
package tmuxtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// PollInterval is how often the waits capture the screen.
const PollInterval = 50 * time.Millisecond

// Options describe the one window a Server runs.
type Options struct {
	Cols, Rows int      // window size in cells
	Dir        string   // working directory of the window's program
	Env        []string // environment of tmux and the program ("K=V"); nil: the test's own
	Argv       []string // the program and its arguments; empty: /bin/sh
	// Socket is the server's socket: a path (tmux -S), or "" for a fresh name under tmux's
	// own directory (tmux -L), removed at cleanup.
	Socket string
	// Timeout is the default of the Wait methods; 0 means 30 s.
	Timeout time.Duration
}

// Server is one tmux server with one session, "main", of one window.
type Server struct {
	t       testing.TB
	args    []string // -S PATH or -L NAME
	env     []string
	timeout time.Duration
}

var serial atomic.Int64

// Skip skips the test when tmux is not installed (.ci/run installs it).
func Skip(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI tests need it (apt-get install tmux)")
	}
}

// Start starts the server and its window; the server is killed when the test ends. The window
// keeps its size when a client attaches or the window is resized by Resize only
// (window-size manual), and stays after its program exits (remain-on-exit), so the last screen
// can still be read.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	Skip(t)
	s := &Server{t: t, env: o.Env, timeout: o.Timeout}
	if s.timeout <= 0 {
		s.timeout = 30 * time.Second
	}
	if s.env == nil {
		s.env = os.Environ()
	}
	if o.Socket != "" {
		s.args = []string{"-u", "-S", o.Socket}
	} else {
		name := fmt.Sprintf("acpterm-test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), serial.Add(1))
		s.args = []string{"-u", "-L", name}
		t.Cleanup(func() {
			// tmux leaves its socket file behind; remove it so runs do not pile them up.
			dir := os.Getenv("TMUX_TMPDIR")
			if dir == "" {
				dir = "/tmp"
			}
			_ = os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), name))
		})
	}
	t.Cleanup(func() { _ = s.Cmd("kill-server").Run() })
	argv := o.Argv
	if len(argv) == 0 {
		argv = []string{"/bin/sh"}
	}
	args := []string{"-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", strconv.Itoa(o.Cols), "-y", strconv.Itoa(o.Rows)}
	if o.Dir != "" {
		args = append(args, "-c", o.Dir)
	}
	args = append(append(args, "--"), argv...)
	if out, err := s.Cmd(args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	s.Must("set-option", "-g", "window-size", "manual")
	s.Must("set-option", "-g", "remain-on-exit", "on")
	return s
}

// Cmd is a tmux command addressed to this server.
func (s *Server) Cmd(args ...string) *exec.Cmd {
	c := exec.Command("tmux", append(append([]string(nil), s.args...), args...)...)
	c.Env = s.env
	return c
}

// Must runs a tmux command and fails the test if it fails; it returns the output.
func (s *Server) Must(args ...string) string {
	s.t.Helper()
	out, err := s.Cmd(args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Capture returns the visible screen as plain text.
func (s *Server) Capture() string {
	out, err := s.Cmd("capture-pane", "-p", "-t", "main").Output()
	if err != nil {
		return "(capture failed: " + err.Error() + ")"
	}
	return string(out)
}

// Format evaluates a tmux format for the window's pane, e.g. "#{alternate_on}".
func (s *Server) Format(f string) string {
	return strings.TrimSpace(s.Must("display-message", "-p", "-t", "main", f))
}

// Poll captures the screen until ok returns true or timeout passes, and returns the last
// screen and whether ok held for it. It never fails the test.
func (s *Server) Poll(timeout time.Duration, ok func(screen string) bool) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		scr := s.Capture()
		if ok(scr) {
			return scr, true
		}
		if time.Now().After(deadline) {
			return scr, false
		}
		time.Sleep(PollInterval)
	}
}

// WaitUntil captures the screen until ok returns true and returns that screen; after the
// server's timeout it fails the test with the last screen.
func (s *Server) WaitUntil(what string, ok func(screen string) bool) string {
	s.t.Helper()
	scr, done := s.Poll(s.timeout, ok)
	if !done {
		s.t.Fatalf("waited %s for %s; screen:\n%s", s.timeout, what, scr)
	}
	return scr
}

// WaitFor waits until the screen contains text.
func (s *Server) WaitFor(text string) string {
	s.t.Helper()
	return s.WaitUntil(fmt.Sprintf("%q", text), func(scr string) bool { return strings.Contains(scr, text) })
}

// WaitMatch waits until the screen matches re and returns the submatches.
func (s *Server) WaitMatch(re *regexp.Regexp) []string {
	s.t.Helper()
	var m []string
	s.WaitUntil(re.String(), func(scr string) bool { m = re.FindStringSubmatch(scr); return m != nil })
	return m
}

// WaitGone waits until the screen no longer contains text.
func (s *Server) WaitGone(text string) string {
	s.t.Helper()
	return s.WaitUntil(fmt.Sprintf("%q to disappear", text), func(scr string) bool { return !strings.Contains(scr, text) })
}

// Keys sends tmux key names ("Enter", "C-q", "Escape", "y").
func (s *Server) Keys(keys ...string) {
	s.t.Helper()
	s.Must(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// Type sends text literally.
func (s *Server) Type(text string) {
	s.t.Helper()
	s.Must("send-keys", "-t", "main", "-l", text)
}

// Resize changes the window (and so the pane) size, in cells.
func (s *Server) Resize(cols, rows int) {
	s.t.Helper()
	s.Must("resize-window", "-t", "main", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
}
