package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestTUIEveryExitRestoresTheScreen: started at 80×24 with a question open and resized to
// 120×36 while it runs, acpterm leaves the shell's screen exactly as it was, whichever way it
// ends: the shell's own lines only, nothing of the dialog, and the terminal's modes and termios
// restored.
func TestTUIEveryExitRestoresTheScreen(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(t *testing.T, tm *tmux)
		code string
	}{
		{"pager then quit", func(t *testing.T, tm *tmux) {
			tm.keys("C-o")
			tm.waitFor("(END)")
			tm.keys("q")
			tm.waitFor("Permission 1 of 1")
			tm.keys("C-q")
		}, "0"},
		{"quit", func(t *testing.T, tm *tmux) { tm.keys("C-q") }, "0"},
		{"suspend, resume, quit", func(t *testing.T, tm *tmux) {
			tm.keys("C-z")
			tm.waitFor("Stopped")
			tm.shell("fg; echo fg-done=$?")
			tm.waitFor("Permission 1 of 1")
			tm.keys("C-q")
			// acpterm has exited (and the shell has the terminal back) before anything is typed.
			tm.waitFor("fg-done=0")
		}, ""}, // the stopped job made the command line report 148 already
		{"SIGTERM", func(t *testing.T, tm *tmux) { killDemo(t, syscall.SIGTERM) }, "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			tm := startTmux(t, e, 80, 24)
			tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
			tm.acpterm("--demo", "--cwd", e.project, "--prompt", "perm")
			tm.waitFor(modalReady)
			tm.resize(120, 36)
			// The frame is redrawn at the new size: the status bar is wider than the old 80 columns.
			tm.waitUntil("the status bar at the new width", func(scr string) bool {
				for _, l := range strings.Split(scr, "\n") {
					if strings.HasSuffix(l, "? help") && len([]rune(l)) > 100 {
						return true
					}
				}
				return false
			})
			c.end(t, tm)
			if c.code != "" {
				screen := tm.waitMatch(regexp.MustCompile(`acpterm-exit=(\d+)`))
				if screen[1] != c.code {
					t.Fatalf("exit status %s, want %s:\n%s", screen[1], c.code, tm.capture())
				}
			}
			tm.shell("echo after-$((6*7))")
			after := tm.waitFor("after-42")
			for _, bad := range []string{"│", "╭", "Permission", "Allow once", "path:"} {
				if strings.Contains(after, bad) {
					t.Fatalf("the shell's screen shows %q left by acpterm:\n%s", bad, after)
				}
			}
			checkRestored(t, e, tm)
			e.waitNoLeftovers(t)
		})
	}
}
