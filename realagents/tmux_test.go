package realagents

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// tuiSession is acpterm's TUI running in a private tmux server (socket in the
// run dir) of a fixed size.
type tuiSession struct {
	*tmuxtest.Server
	t *testing.T
	r *run
}

const tuiCols, tuiRows = 160, 48

// startTUI runs `acpterm [flags] -- AGENT` as the only pane of a new tmux
// server. The server is killed at cleanup (before the leftover check of newRun).
func (r *run) startTUI(t *testing.T, config string, prompts ...string) *tuiSession {
	t.Helper()
	tmuxtest.Skip(t)
	s := &tuiSession{t: t, r: r}
	args := append([]string{acpterm(t)}, r.acptermArgs(config)...)
	for _, p := range prompts {
		args = append(args, "--prompt", p)
	}
	args = append(args, "--")
	args = append(args, agentArgv(r.agent)...)
	// A shell runs acpterm and records its exit status in a file (tmux's
	// pane_dead_status is not always filled in when the pane is found dead).
	wrapper := []string{"/bin/sh", "-c", `"$@"; echo $? > "$0"`, s.statusFile()}
	s.Server = tmuxtest.Start(t, tmuxtest.Options{
		Cols: tuiCols, Rows: tuiRows, Dir: r.cwd, Socket: filepath.Join(r.dir, "tmux.sock"),
		Env:  append(r.env(), "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"),
		Argv: append(wrapper, args...),
	})
	// Registered after Start, so it runs before the server is killed.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last screen:\n%s", s.screen())
		}
	})
	return s
}

// screen is the visible pane as plain text, wrapped lines joined.
func (s *tuiSession) screen() string {
	out, _ := s.Cmd("capture-pane", "-p", "-J", "-t", "main").Output()
	return string(out)
}

// waitScreen polls the pane until re matches it, or fails the test after timeout.
func (s *tuiSession) waitScreen(re string, timeout time.Duration) string {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	var scr string
	if !waitFor(timeout, func() bool { scr = s.screen(); return rx.MatchString(scr) }) {
		s.t.Fatalf("screen never matched %q within %v; last screen:\n%s\nacpterm.log tail:\n%s", re, timeout, scr, s.r.logTail())
	}
	return scr
}

// keys sends tmux key names (e.g. "a", "Enter", "C-q").
func (s *tuiSession) keys(k ...string) { s.t.Helper(); s.Keys(k...) }

// typeText types literal text.
func (s *tuiSession) typeText(text string) { s.t.Helper(); s.Type(text) }

func (s *tuiSession) statusFile() string { return filepath.Join(s.r.dir, "acpterm.status") }

// exited reports whether acpterm has exited, and its exit status ("0", "130", …).
func (s *tuiSession) exited() (bool, string) {
	b, err := os.ReadFile(s.statusFile())
	if err != nil || !strings.HasSuffix(string(b), "\n") {
		return false, ""
	}
	return true, strings.TrimSpace(string(b))
}

// quit presses the quit key and waits for acpterm to exit; it returns the exit status.
func (s *tuiSession) quit() string {
	s.t.Helper()
	s.keys("C-q")
	var status string
	if !waitFor(30*time.Second, func() bool { dead, st := s.exited(); status = st; return dead }) {
		s.t.Fatalf("acpterm did not exit within 30 s of ctrl+q; screen:\n%s", s.screen())
	}
	return status
}

func (r *run) logTail() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "acpterm.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
