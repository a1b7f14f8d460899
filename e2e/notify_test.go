package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// pipePane starts copying everything the program in the tmux pane writes to its terminal (the
// raw bytes, escapes included) into a file, and returns a function that reads it so far.
func pipePane(t *testing.T, tm *tmux) func() string {
	t.Helper()
	file := filepath.Join(tm.e.root, "pane-output")
	tm.Must("pipe-pane", "-o", "-t", "main", "cat >> "+shellQuote(file))
	return func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}
}

// waitOutput waits until the pane's raw output (pipePane) contains each of want, in order.
func waitOutput(t *testing.T, read func() string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		out := read()
		rest, ok := out, true
		for _, w := range want {
			i := strings.Index(rest, w)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(w):]
		}
		if ok {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal output lacks %q (in order); it has %d bytes, ending %q", want, len(out), tail(out, 600))
		}
		time.Sleep(tmuxtest.PollInterval)
	}
}

// oscRE matches one OSC sequence (ended by BEL or ST), whose BEL is no bell.
var oscRE = regexp.MustCompile("\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)")

// turnDoneRE matches the bell and both desktop notifications of a finished prompt turn.
var turnDoneRE = regexp.MustCompile("\a\x1b\\]9;acpterm: prompt turn finished after ([0-9]+)s\a\x1b\\]777;notify;acpterm;prompt turn finished after ([0-9]+)s\a")

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestTUINotifications: an approval rings the bell, sends OSC 9 and OSC 777 desktop
// notifications and puts "needs approval" in the window title, which goes back to "acpterm"
// once answered; the turn's end is notified (notify_after = "0s") and the title says so until a
// key; the agent's crash is notified and shown in the title. The sequences are read from what
// acpterm wrote to its terminal (tmux pipe-pane).
func TestTUINotifications(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[ui]\nnotify = [\"bell\", \"title\", \"osc9\", \"osc777\"]\nnotify_after = \"0s\"\n")
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	read := pipePane(t, tm)
	tm.acpterm("--demo", "--cwd", e.project, "--prompt", "perm")
	tm.waitFor(modalReady)
	waitOutput(t, read,
		"\a\x1b]9;acpterm: approval needed: Delete the build cache (./build)\a"+
			"\x1b]777;notify;acpterm;approval needed: Delete the build cache (./build)\a",
		"\x1b]2;acpterm · needs approval\a")
	if got := tm.format("#{pane_title}"); got != "acpterm · needs approval" {
		t.Fatalf("pane title with the approval open = %q", got)
	}
	tm.keys("a")
	tm.waitFor("permission outcome: selected allow-once")
	waitOutput(t, read, "\x1b]2;acpterm · needs approval\a", "\x1b]2;acpterm\a",
		"\a\x1b]9;acpterm: prompt turn finished after ")
	out := waitOutput(t, read, "\x1b]2;acpterm · turn finished\a")
	// The turn lasted as long as the approval took to answer: whole seconds, the same in both.
	if m := turnDoneRE.FindStringSubmatch(out); m == nil || m[1] != m[2] {
		t.Fatalf("the turn's end is not notified by OSC 9 and OSC 777 with one duration: %q", tail(out, 600))
	}
	if n := strings.Count(out, "approval needed"); n != 2 {
		t.Fatalf("the approval was notified %d times by escape, want once per escape (2)", n)
	}
	tm.typeText("crash")
	waitOutput(t, read, "\x1b]2;acpterm · turn finished\a", "\x1b]2;acpterm\a")
	tm.keys("Enter")
	tm.waitFor("agent exited")
	waitOutput(t, read, "\a\x1b]9;acpterm: agent exited (exit 3)\a\x1b]777;notify;acpterm;agent exited (exit 3)\a",
		"\x1b]2;acpterm · agent exited\a")
	if got := tm.format("#{pane_title}"); got != "acpterm · agent exited" {
		t.Fatalf("pane title after the crash = %q", got)
	}
	tm.keys("C-q")
	if code := tm.exitCode(); code == 0 {
		t.Fatalf("acpterm exited 0 after the agent crashed; screen:\n%s", tm.capture())
	}
	checkRestored(t, e, tm)
	e.waitNoLeftovers(t)
}

// TestTUINotifyOff: notify = [] sends no bell, no desktop notification and no title.
func TestTUINotifyOff(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[ui]\nnotify = []\n")
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	read := pipePane(t, tm)
	tm.acpterm("--demo", "--cwd", e.project, "--prompt", "perm")
	tm.waitFor(modalReady)
	tm.keys("a")
	tm.waitFor("permission outcome: selected allow-once")
	quit(t, e, tm, 0)
	out := read()
	for _, bad := range []string{"\x1b]9;", "\x1b]777;", "\x1b]2;acpterm"} {
		if strings.Contains(out, bad) {
			t.Errorf("notify = [] still wrote %q", bad)
		}
	}
	if bare := oscRE.ReplaceAllString(out, ""); strings.Contains(bare, "\a") {
		t.Errorf("notify = [] still rang the bell: %q", tail(bare, 400))
	}
}

// TestTUIRestartAfterCrash: the scripted agent crashes mid-turn; ctrl+r starts it again in the
// same directory and reopens the session with session/load (its history is replayed), and the
// conversation goes on with the new process.
func TestTUIRestartAfterCrash(t *testing.T) {
	e := sessionsEnv(t, "sessions")
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	tm.acpterm("--cwd", e.project, "--", scriptAgent(t))
	tm.waitFor("session s1")
	tm.typeText("echo the first answer")
	tm.keys("Enter")
	tm.waitMatch(regexp.MustCompile(`(?m)^the first answer\s*$`))
	tm.typeText("crash")
	tm.keys("Enter")
	tm.waitFor("agent exited (exit 7); ctrl+r restarts it, ctrl+q quits")
	tm.typeText("echo after the restart")
	tm.keys("C-r")
	tm.waitFor("agent restarted; the conversation continues in session s1")
	screen := tm.waitFor("session s1 loaded; its history follows")
	if !strings.Contains(screen, "› echo the first answer") {
		t.Fatalf("the reopened session does not show its history:\n%s", screen)
	}
	tm.keys("Enter") // the prompt typed while the agent was gone is still in the editor
	tm.waitMatch(regexp.MustCompile(`(?m)^after the restart\s*$`))
	tm.keys("C-q")
	code := tm.exitCode()
	if code != 1 {
		// The crashed turn failed: that stays the run's outcome, as in headless mode.
		t.Fatalf("exit status %d, want 1 (a prompt turn failed); screen:\n%s", code, tm.capture())
	}
	checkRestored(t, e, tm)
	e.waitNoLeftovers(t)
	log := e.logText(t)
	for _, want := range []string{"acpterm: restarting agent", `line="session/load s1"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s", want)
		}
	}
}
