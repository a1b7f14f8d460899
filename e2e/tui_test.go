package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// The TUI tests run the real binary with --demo in a 160×48 tmux window and drive it with keys.
// The demo agent reports what it received (permission outcomes, terminal output) in its reply
// text and in its record file, so the tests check what really crossed the wire.

// startDemo starts `acpterm --demo --cwd PROJECT --prompt P…` in a fresh tmux session.
func startDemo(t *testing.T, e *testEnv, prompts ...string) *tmux {
	t.Helper()
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	args := []string{"--demo", "--cwd", e.project}
	for _, p := range prompts {
		args = append(args, "--prompt", p)
	}
	tm.acpterm(args...)
	tm.waitFor("session demo-1")
	if got := tm.format("#{alternate_on}"); got != "1" {
		t.Fatalf("alternate screen while running = %q, want 1", got)
	}
	return tm
}

// quit presses ctrl+q and checks the exit status, the restored terminal and that no process of
// the run is left (the TUI, the demo agent, terminal children).
func quit(t *testing.T, e *testEnv, tm *tmux, wantCode int) {
	t.Helper()
	tm.keys("C-q")
	if code := tm.exitCode(); code != wantCode {
		t.Fatalf("acpterm exit status %d, want %d; screen:\n%s", code, wantCode, tm.capture())
	}
	if got := tm.format("#{alternate_on}"); got != "0" {
		t.Fatalf("alternate screen after quit = %q, want 0", got)
	}
	tm.waitFor("e2e$")
	checkRestored(t, e, tm)
	e.waitNoLeftovers(t)
}

// checkRestored checks that the terminal is as acpterm found it: the same termios (stty -g, saved
// by startDemo), the cursor shown, no mouse reporting left on.
func checkRestored(t *testing.T, e *testEnv, tm *tmux) {
	t.Helper()
	for f, want := range map[string]string{"#{cursor_flag}": "1", "#{mouse_any_flag}": "0", "#{mouse_button_flag}": "0",
		"#{mouse_sgr_flag}": "0", "#{mouse_standard_flag}": "0"} {
		if got := tm.format(f); got != want {
			t.Errorf("%s after quit = %q, want %q", f, got, want)
		}
	}
	before, err := os.ReadFile(filepath.Join(e.home, "stty.before"))
	if err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(e.home, "stty.after")
	tm.shell("stty -g > " + shellQuote(after+".tmp") + " && mv " + shellQuote(after+".tmp") + " " + shellQuote(after))
	var got []byte
	tm.waitUntil("stty -g after quit", func(string) bool { got, err = os.ReadFile(after); return err == nil })
	if string(got) != string(before) {
		t.Errorf("termios after quit (stty -g) = %q, want %q as before", got, before)
	}
}

// startDemoWithPager starts `acpterm --demo --prompt color` with $PAGER set to a shell script of
// the given body, and waits for the colour command's pane.
func startDemoWithPager(t *testing.T, e *testEnv, body string) *tmux {
	t.Helper()
	e.writeConfig(demoConfig("ask"))
	pager := filepath.Join(e.home, "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	tm.shell("clear; PAGER=" + shellQuote(pager) + " " + shellQuote(binary) + " --demo --cwd " + shellQuote(e.project) +
		" --prompt color; echo \"acpterm-exit=$?\"")
	tm.waitMatch(regexp.MustCompile(`terminal \S+ exit 0: red green`))
	return tm
}

// wantSignalExit waits for acpterm to end with exit status 1 (interrupted by a signal) and
// checks the alternate screen is off.
func wantSignalExit(t *testing.T, tm *tmux) {
	t.Helper()
	if code := tm.exitCode(); code != 1 {
		t.Fatalf("acpterm exit status %d after the signal, want 1; screen:\n%s", code, tm.capture())
	}
	if got := tm.format("#{alternate_on}"); got != "0" {
		t.Fatalf("alternate screen after the signal = %q, want 0", got)
	}
}

// killDemo sends sig to the running `acpterm --demo` process.
func killDemo(t *testing.T, sig syscall.Signal) {
	t.Helper()
	var pid int
	for _, p := range processes(t) {
		if strings.HasPrefix(p.cmdline, binary+" --demo") {
			pid = p.pid
		}
	}
	if pid == 0 {
		t.Fatal("acpterm's pid not found")
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatal(err)
	}
}

// TestTUIPagerSuspendsAndResumes: ctrl+o opens the selected pane's transcript in $PAGER on the
// main screen in cooked mode; when the pager ends, the TUI takes the screen back and repaints.
func TestTUIPagerSuspendsAndResumes(t *testing.T) {
	e := newEnv(t)
	// The pager shows the transcript, then reports whether the tty is in canonical mode (so the
	// report on screen means the transcript is there too) and waits.
	tm := startDemoWithPager(t, e, "cat \"$1\"\necho \"pager-running $(stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon)\"\nread x\n")
	tm.keys("C-o")
	screen := tm.waitFor("pager-running")
	if !strings.Contains(screen, "pager-running icanon") {
		t.Errorf("the pager did not get a cooked tty:\n%s", screen)
	}
	if !strings.Contains(screen, "red green yellow blue") {
		t.Errorf("the pager did not show the transcript:\n%s", screen)
	}
	if got := tm.format("#{alternate_on}"); got != "0" {
		t.Errorf("alternate screen while the pager runs = %q, want 0", got)
	}
	if got := tm.format("#{mouse_button_flag}"); got != "0" {
		t.Errorf("mouse reporting while the pager runs = %q, want 0", got)
	}
	tm.keys("Enter")
	tm.waitGone("pager-running")
	screen = tm.waitFor("session demo-1")
	if got := tm.format("#{alternate_on}"); got != "1" {
		t.Errorf("alternate screen after the pager = %q, want 1", got)
	}
	if !strings.Contains(screen, "Print colours") || !strings.Contains(screen, "│red green yellow") {
		t.Errorf("the TUI did not repaint after the pager:\n%s", screen)
	}
	// ctrl+c and ctrl+\ typed into the pager end the pager, not acpterm (they reach the whole
	// foreground process group, acpterm included).
	for _, key := range []string{"C-c", `C-\`} {
		tm.keys("C-o")
		tm.waitFor("pager-running")
		tm.keys(key)
		tm.waitGone("pager-running")
		screen = tm.waitFor("pager: ")
		if strings.Contains(screen, "acpterm-exit=") || !strings.Contains(screen, "session demo-1") {
			t.Fatalf("after %s in the pager (want the TUI, still running):\n%s", key, screen)
		}
	}
	// Every transcript file handed to the pager was removed when it ended.
	if left, _ := filepath.Glob(filepath.Join(e.root, "acpterm-*.txt")); len(left) != 0 {
		t.Errorf("pager files left behind: %v", left)
	}
	quit(t, e, tm, 0)
}

// TestTUISIGTERMWithPagerOpen: SIGTERM while $PAGER has the terminal stops the pager (here a
// script that ignores SIGTERM and has started a child, so SIGKILL to the whole tree after the
// grace), then acpterm shuts down in order; the terminal is restored and the pager's file removed.
func TestTUISIGTERMWithPagerOpen(t *testing.T) {
	e := newEnv(t)
	childPID := filepath.Join(e.home, "pager-child.pid")
	tm := startDemoWithPager(t, e, "trap '' TERM HUP\nsleep 300 &\necho $! > "+shellQuote(childPID)+"\necho pager-running\nwait\n")
	tm.keys("C-o")
	tm.waitFor("pager-running")
	killDemo(t, syscall.SIGTERM)
	wantSignalExit(t, tm)
	checkRestored(t, e, tm)
	b, err := os.ReadFile(childPID)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// Killed with the pager; init reaps it once acpterm (its subreaper) is gone.
	for deadline := time.Now().Add(waitTimeout); child > 0; time.Sleep(tmuxtest.PollInterval) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the pager's child %d outlived acpterm: %s", child, st)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(e.root, "acpterm-*.txt")); len(left) != 0 {
		t.Errorf("pager files left behind: %v", left)
	}
	e.waitNoLeftovers(t)
}

func TestTUIStreamThenQuitRestoresTerminal(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "stream")
	screen := tm.waitFor("End of stream.")
	for _, want := range []string{"Streaming", "This reply arrives in small chunks", "one", "three", "acpterm demo agent 1.0.0"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	// Markdown is rendered, not shown raw (glamour keeps a heading's "##").
	if strings.Contains(screen, "**small chunks**") || strings.Contains(screen, "- one") {
		t.Errorf("Markdown markers are shown raw")
	}
	if t.Failed() {
		t.Logf("screen:\n%s", screen)
	}
	quit(t, e, tm, 0)
	after := tm.capture()
	if !strings.Contains(after, "acpterm-exit=0") || strings.Contains(after, "End of stream.") {
		t.Fatalf("screen after quit (want the shell, not the TUI):\n%s", after)
	}
}

func TestTUIApprovalByKeySendsThatOption(t *testing.T) {
	for _, c := range []struct{ key, option string }{
		{"a", "allow-once"}, {"A Enter", "allow-always"}, {"r", "reject-once"}, {"R Enter", "reject-always"},
	} {
		t.Run(c.option, func(t *testing.T) {
			e := newEnv(t)
			tm := startDemo(t, e, "perm")
			tm.waitFor("Permission 1 of 1")
			screen := tm.waitFor(modalReady)
			for _, want := range []string{"Delete the build cache (./build)", "a/1   Allow once", "A/2   Always allow", "3     Always allow, and save as a rule (every session)", "r/4   Reject", "R/5   Always reject"} {
				if !strings.Contains(screen, want) {
					t.Fatalf("approval lacks %q:\n%s", want, screen)
				}
			}
			tm.keys(strings.Fields(c.key)...)
			tm.waitFor("permission outcome: selected " + c.option)
			tm.waitGone("Permission 1 of 1")
			if got := recorded(t, e, "permission"); len(got) != 1 || got[0]["outcome"] != "selected "+c.option {
				t.Fatalf("the agent received %v, want exactly one %q", got, "selected "+c.option)
			}
			quit(t, e, tm, 0)
		})
	}
}

func TestTUICancelWithPendingApprovalAnswersCancelledOnce(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "perm")
	tm.waitFor("Permission 1 of 1")
	tm.keys("C-c") // cancel the turn (not quit: a turn is running)
	tm.waitFor("permission outcome: cancelled")
	tm.waitFor("turn cancelled")
	tm.waitGone("Permission 1 of 1")
	got := recorded(t, e, "permission")
	if len(got) != 1 || got[0]["outcome"] != "cancelled" {
		t.Fatalf("the agent received %v, want exactly one cancelled outcome", got)
	}
	if c := recorded(t, e, "cancel"); len(c) != 1 {
		t.Fatalf("the agent got %d session/cancel, want 1", len(c))
	}
	quit(t, e, tm, 0)
}

func TestTUITypeIntoPaneAnswersRead(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "read")
	tm.waitFor("│Your name?")
	tm.keys("C-g") // type into the selected pane
	tm.typeText("Ann")
	tm.keys("Enter")
	tm.waitMatch(regexp.MustCompile(`terminal \S+ exit 0: hello Ann`))
	tm.keys("C-]") // leave the pane
	got := recorded(t, e, "terminal")
	if len(got) != 1 || got[0]["output"] != "Your name? Ann\nhello Ann\n" || got[0]["exit"] != "exit 0" {
		t.Fatalf("the agent read %v", got)
	}
	quit(t, e, tm, 0)
}

func TestTUIZoomPane(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "long 60")
	tm.waitFor("│tick 2")
	before := tm.capture()
	if !strings.Contains(before, "Tick for 60 seconds") {
		t.Fatalf("conversation not shown before zoom:\n%s", before)
	}
	tm.keys("C-f")
	zoomed := tm.waitUntil("the pane to fill the window", func(s string) bool {
		return strings.HasPrefix(s, "╭─ $ echo tick 1; sleep 1; echo tick 2") && !strings.Contains(s, "Tick for 60 seconds")
	})
	// The zoomed pane spans the whole width: its top border is 160 cells.
	top := strings.SplitN(zoomed, "\n", 2)[0]
	if n := len([]rune(top)); n != 160 || !strings.HasSuffix(top, "╮") {
		t.Fatalf("zoomed top border is %d cells (%q), want 160", n, top)
	}
	tm.keys("C-f")
	tm.waitFor("Tick for 60 seconds")
	tm.keys("C-c") // cancel the ticker's turn
	tm.waitFor("turn cancelled")
	quit(t, e, tm, 0)
}

// paneSize returns the inner size (cols, rows) of the pane whose top border contains title.
func paneSize(screen, title string) (cols, rows int, ok bool) {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		r := []rune(l)
		start := strings.Index(l, title)
		if start < 0 {
			continue
		}
		left := len([]rune(l[:start]))
		for left > 0 && r[left] != '╭' {
			left--
		}
		right := left + 1
		for right < len(r) && r[right] != '╮' {
			right++
		}
		if r[left] != '╭' || right >= len(r) {
			return 0, 0, false
		}
		for j := i + 1; j < len(lines); j++ {
			rr := []rune(lines[j])
			if left < len(rr) && rr[left] == '╰' {
				return right - left - 1, j - i - 1, true
			}
		}
	}
	return 0, 0, false
}

func TestTUIResizeReachesTheProgram(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "size")
	tm.waitFor("│size ")
	// tmux may capture a frame that is still being written, so wait for a whole pane border.
	var c1, r1 int
	var ok bool
	tm.waitUntil("the size pane with its borders", func(s string) bool {
		c1, r1, ok = paneSize(s, "$ printf 'size '")
		return ok
	})
	tm.resize(120, 40)
	var c2, r2 int
	tm.waitUntil("the pane to shrink", func(s string) bool {
		c2, r2, ok = paneSize(s, "$ printf 'size '")
		return ok && c2 < c1 && r2 < r1
	})
	tm.keys("C-g", "Enter") // the program prints `stty size` again
	tm.waitMatch(regexp.MustCompile(`terminal \S+ exit 0: size \d+ \d+`))
	got := recorded(t, e, "terminal")
	if len(got) != 1 {
		t.Fatalf("terminal records: %v", got)
	}
	out, _ := got[0]["output"].(string)
	// The program started at its pane's size (not 80x24), and saw the new one after the resize.
	if first := regexp.MustCompile(`^size (\d+) (\d+)`).FindStringSubmatch(out); first == nil || first[1] != strconv.Itoa(r1) || first[2] != strconv.Itoa(c1) {
		t.Errorf("the program started at %v (rows, cols), its pane was %dx%d (cols×rows): %q", first, c1, r1, out)
	}
	m := regexp.MustCompile(`size (\d+) (\d+)\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("terminal output %q has no final size", out)
	}
	rows, _ := strconv.Atoi(m[1])
	cols, _ := strconv.Atoi(m[2])
	if cols != c2 || rows != r2 {
		t.Fatalf("the program saw %dx%d (cols×rows), the pane is %dx%d (was %dx%d)", cols, rows, c2, r2, c1, r1)
	}
	tm.keys("C-]")
	quit(t, e, tm, 0)
}

func TestTUIAgentCrashBanner(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "crash")
	screen := tm.waitFor("agent exited (exit 3)")
	if !strings.Contains(screen, "Crashing now, on purpose") {
		t.Fatalf("screen:\n%s", screen)
	}
	// The session cannot continue: quitting reports the agent failure (exit 1).
	quit(t, e, tm, 1)
}

// TestTUIFailedTurnExits1: a prompt turn the agent failed makes the session end with exit status
// 1 (exit 1: agent or protocol failure), as in headless mode, and says why.
func TestTUIFailedTurnExits1(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "fail")
	// The agent's message, not its JSON-RPC error as JSON.
	tm.waitFor("turn failed: session/prompt: the agent failed: Internal error: the demo agent failed this prompt on purpose (error -32603)")
	if s := tm.capture(); strings.Contains(s, `{"code"`) {
		t.Fatalf("raw JSON shown:\n%s", s)
	}
	tm.typeText("echo still usable")
	tm.keys("Enter")
	tm.waitFor("still usable")
	quit(t, e, tm, 1)
	if screen := tm.capture(); !strings.Contains(screen, "acpterm: a prompt turn failed: ") {
		t.Fatalf("no reason after quitting:\n%s", screen)
	}
}

func TestTUIPlanThoughtAndModeSwitch(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "plan")
	screen := tm.waitFor("Plan sent.")
	for _, want := range []string{"Thinking about what a plan looks like.", "[x] Say hello", "[x] Run commands in panes", "[~] Ask for permission", "[ ] Wrap up", "mode Ask"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", screen)
	}
	tm.keys("M-m") // next mode: the agent gets session/set_mode and confirms it
	tm.waitFor("mode Code")
	if got := recorded(t, e, "mode"); len(got) != 1 || got[0]["mode"] != "code" {
		t.Fatalf("the agent received modes %v, want [code]", got)
	}
	quit(t, e, tm, 0)
}

func TestTUIWriteAskShowsDiffThenDenyOrAllow(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "write")
	tm.waitFor("Write file?")
	screen := tm.waitFor(modalReady)
	for _, want := range []string{"write " + e.project + "/demo.md", "+This file was written by the demo agent", "+- edit 1", "d/4   Deny"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("approval lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("d")
	tm.waitFor("write refused: acpterm user denied write of " + e.project + "/demo.md")
	if _, err := os.Stat(filepath.Join(e.project, "demo.md")); err == nil {
		t.Fatal("demo.md exists after the write was denied")
	}
	tm.typeText("write")
	tm.keys("Enter")
	tm.waitFor("Write file?")
	tm.waitFor(modalWaiting) // typed just before: the request waits for tab
	tm.keys("Tab")
	tm.waitFor(modalReady)
	tm.keys("a")
	tm.waitGone("Write file?")
	tm.waitFor("wrote " + e.project + "/demo.md (93 bytes, edit 1)")
	b, err := os.ReadFile(filepath.Join(e.project, "demo.md"))
	if err != nil || string(b) != "# acpterm demo\n\nThis file was written by the demo agent through fs/write_text_file.\n- edit 1\n" {
		t.Fatalf("demo.md = %q, %v", b, err)
	}
	quit(t, e, tm, 0)
}

func TestTUISlashCommandCompletion(t *testing.T) {
	e := newEnv(t)
	tm := startDemo(t, e, "echo ready")
	tm.waitFor("ready")
	tm.typeText("/wr")
	tm.keys("Tab")
	tm.waitMatch(regexp.MustCompile(`(?m)^› /write\s*$`))
	quit(t, e, tm, 0)
}

// TestTUISuspendAndResume: ctrl+z gives the shell its terminal back (main screen, cooked tty)
// with acpterm stopped; fg brings the TUI back, repainted, and it still works.
func TestTUISuspendAndResume(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "color")
	tm.waitMatch(regexp.MustCompile(`terminal \S+ exit 0: red green`))
	tm.keys("C-z")
	tm.waitUntil("the shell's prompt after ctrl+z", func(s string) bool {
		return strings.Contains(s, "Stopped") && strings.HasSuffix(strings.TrimRight(s, "\n "), "e2e$")
	})
	if got := tm.format("#{alternate_on}"); got != "0" {
		t.Errorf("alternate screen while suspended = %q, want 0", got)
	}
	checkRestored(t, e, tm)
	// The shell went on with the command line (printing acpterm-exit=148, SIGTSTP); clear it
	// and report the status fg ends with.
	tm.shell("clear; fg; echo \"acpterm-exit=$?\"")
	screen := tm.waitFor("session demo-1")
	if got := tm.format("#{alternate_on}"); got != "1" {
		t.Errorf("alternate screen after fg = %q, want 1", got)
	}
	if !strings.Contains(screen, "│red green yellow") {
		t.Errorf("the TUI did not repaint after fg:\n%s", screen)
	}
	tm.typeText("echo back again")
	tm.keys("Enter")
	tm.waitFor("back again")
	quit(t, e, tm, 0)
}

// TestTUINoSuspendWithoutJobControl: started with no job-control shell above it (here exec'd by
// the pane's shell, so its process group is orphaned), ctrl+z would stop acpterm for good; it
// says so and keeps running.
func TestTUINoSuspendWithoutJobControl(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startTmux(t, e, 160, 48)
	tm.shell("exec " + shellQuote(binary) + " --demo --cwd " + shellQuote(e.project) + " --prompt 'echo ready'")
	tm.waitFor("session demo-1")
	tm.keys("C-z")
	tm.waitFor("cannot suspend: acpterm was not started by a shell with job control")
	if got := tm.format("#{alternate_on}"); got != "1" {
		t.Fatalf("alternate screen after a refused suspend = %q, want 1", got)
	}
	tm.typeText("echo still here")
	tm.keys("Enter")
	tm.waitFor("still here")
	tm.keys("C-q")
	deadline := time.Now().Add(waitTimeout)
	for tm.format("#{pane_dead}") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("acpterm still running 30 s after ctrl+q: %+v\n%s", e.leftovers(t), tm.capture())
		}
		time.Sleep(tmuxtest.PollInterval)
	}
	e.waitNoLeftovers(t)
}

// TestTUIRefusesDumbTerminal: TERM=dumb cannot show the interactive mode; acpterm says so and
// exits 2 without touching the terminal.
func TestTUIRefusesDumbTerminal(t *testing.T) {
	e := newEnv(t)
	tm := startTmux(t, e, 160, 48)
	tm.shell("TERM=dumb " + shellQuote(binary) + " --demo --cwd " + shellQuote(e.project) + "; echo \"acpterm-exit=$?\"")
	if code := tm.exitCode(); code != 2 {
		t.Fatalf("exit status %d, want 2:\n%s", code, tm.capture())
	}
	screen := tm.capture()
	if !strings.Contains(screen, "acpterm: TERM=dumb has no cursor addressing") {
		t.Fatalf("no TERM=dumb error on screen:\n%s", screen)
	}
	if got := tm.format("#{alternate_on}"); got != "0" {
		t.Fatalf("alternate screen = %q, want 0", got)
	}
}

// TestTUIStartingLine: while the agent starts (here one that never answers initialize), the
// terminal says so instead of staying blank, and ctrl+c stops the start: exit 1, the reason
// on a clean line, no process left.
func TestTUIStartingLine(t *testing.T) {
	e := newEnv(t)
	tm := startTmux(t, e, 160, 48)
	tm.acpterm("--cwd", e.project, "--", "sleep", "300")
	tm.waitFor("acpterm: starting sleep… (ctrl+c cancels)")
	tm.keys("C-c")
	if code := tm.exitCode(); code != 1 {
		t.Fatalf("exit status %d, want 1:\n%s", code, tm.capture())
	}
	screen := tm.capture()
	if !strings.Contains(screen, "\nacpterm: interrupted by SIGINT while the agent was starting\n") &&
		!strings.HasPrefix(screen, "acpterm: interrupted by SIGINT while the agent was starting\n") {
		t.Fatalf("screen after ctrl+c:\n%s", screen)
	}
	if strings.Contains(screen, "starting sleep") {
		t.Fatalf("the starting line was not erased:\n%s", screen)
	}
	e.waitNoLeftovers(t)
}

// TestTUIWriteAllowForSession: "allow for this session" on a write prompt grants writes of that
// file: the next write is not asked, and the grants view lists it.
func TestTUIWriteAllowForSession(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "write")
	tm.waitFor("Write file?")
	tm.waitFor(modalReady)
	tm.keys("s")
	tm.waitFor("enter confirms “Allow for this session”")
	tm.keys("Enter")
	tm.waitFor("wrote " + e.project + "/demo.md (93 bytes, edit 1)")
	tm.typeText("write")
	tm.keys("Enter")
	tm.waitMatch(regexp.MustCompile(`wrote \S+/demo\.md \(\d+ bytes, edit 2\)`))
	if screen := tm.capture(); strings.Contains(screen, "Write file?") {
		t.Fatalf("the granted write was asked again:\n%s", screen)
	}
	tm.keys("M-g")
	tm.waitFor("Grants · d revokes")
	tm.waitFor("grant: write " + e.project + "/demo.md")
	tm.keys("Escape")
	tm.waitGone("Grants · d revokes") // before the next key: ESC + key would read as alt+key
	quit(t, e, tm, 0)
}

// TestTUICancelHoldsQueuedPrompt: a prompt typed during a turn is queued; cancelling the turn
// puts it back into the editor instead of sending it, and enter then sends it.
func TestTUICancelHoldsQueuedPrompt(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "long 60")
	tm.waitFor("│tick 2")
	tm.typeText("echo held back")
	tm.keys("Enter")
	tm.waitFor("1 queued")
	tm.keys("C-c") // cancel the turn
	tm.waitFor("turn cancelled; the queued prompt is back in the editor")
	tm.waitMatch(regexp.MustCompile(`(?m)^› echo held back\s*$`))
	if got := recorded(t, e, "prompt"); len(got) != 1 {
		t.Fatalf("the agent received %d prompts before enter, want 1 (the first): %v", len(got), got)
	}
	tm.keys("Enter")
	// The reply: "held back" on a line of its own in the conversation column (panes to its right).
	tm.waitMatch(regexp.MustCompile(`(?m)^held back\s+│`))
	if got := recorded(t, e, "prompt"); len(got) != 2 || got[1]["text"] != "echo held back" {
		t.Fatalf("the agent received %v, want the held prompt second", got)
	}
	quit(t, e, tm, 0)
}
