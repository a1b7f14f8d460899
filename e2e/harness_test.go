package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// binary is the acpterm executable built once by TestMain.
var binary string

// raceDir collects data race reports of the binary (GORACE log_path) when the tests run with -race.
var raceDir string

// waitTimeout bounds every wait for something to appear on a screen or in a file. It is generous
// because the machine may be loaded; a passing test never waits this long.
const waitTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "acpterm-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "acpterm")
	raceDir = filepath.Join(dir, "race")
	if err := os.MkdirAll(raceDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if prebuilt := os.Getenv("ACPTERM_E2E_BINARY"); prebuilt != "" {
		// Test a given binary (e.g. a release build) instead of building one.
		binary = prebuilt
	} else {
		args := []string{"build", "-o", binary}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "..")
		build := exec.Command(goTool(), args...)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building acpterm:", err)
			return 1
		}
	}
	code := m.Run()
	// A data race inside the binary is a failure even if every assertion passed.
	reports, _ := filepath.Glob(filepath.Join(raceDir, "*"))
	for _, r := range reports {
		b, _ := os.ReadFile(r)
		for _, race := range splitRaces(string(b)) {
			if knownUpstreamRace(race) {
				fmt.Fprintf(os.Stderr, "e2e: ignoring a known upstream data race (bubbletea shutdown, muesli/cancelreader) in %s\n", r)
				continue
			}
			fmt.Fprintf(os.Stderr, "e2e: data race report %s:\n%s\n", r, race)
			code = 1
		}
	}
	return code
}

// splitRaces splits a race detector log into its "WARNING: DATA RACE" reports.
func splitRaces(log string) []string {
	var out []string
	for _, part := range strings.Split(log, "==================") {
		if strings.Contains(part, "WARNING: DATA RACE") {
			out = append(out, part)
		}
	}
	return out
}

// knownUpstreamRace reports the one race acpterm cannot fix: Bubble Tea v2.1.1's shutdown closes
// its muesli/cancelreader (os.File.Close) while the reader goroutine still calls File.Fd in
// epollCancelReader.wait. Both sides are inside those libraries.
func knownUpstreamRace(report string) bool {
	return strings.Contains(report, "muesli/cancelreader.(*epollCancelReader).Close") &&
		strings.Contains(report, "muesli/cancelreader.(*epollCancelReader).wait")
}

// goTool returns the go command of the toolchain running the tests.
func goTool() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// testEnv is an isolated environment: HOME and every XDG dir are temp dirs, and a project dir
// serves as the session cwd.
type testEnv struct {
	t        *testing.T
	root     string
	home     string
	project  string
	configD  string // $XDG_CONFIG_HOME
	stateD   string // $XDG_STATE_HOME
	record   string // ACPTERM_DEMO_RECORD file
	extraEnv []string
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	root := t.TempDir()
	e := &testEnv{t: t, root: root,
		home: filepath.Join(root, "home"), project: filepath.Join(root, "project"),
		configD: filepath.Join(root, "config"), stateD: filepath.Join(root, "state"),
		record: filepath.Join(root, "record.jsonl")}
	for _, d := range []string{e.home, e.project, e.configD, e.stateD, filepath.Join(root, "cache"), filepath.Join(root, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Real paths: the policy compares resolved paths, and TMPDIR may be a symlink.
	if p, err := filepath.EvalSymlinks(e.project); err == nil {
		e.project = p
	}
	return e
}

// vars returns the environment for acpterm and tmux.
func (e *testEnv) vars() []string {
	v := []string{
		"HOME=" + e.home,
		"XDG_CONFIG_HOME=" + e.configD,
		"XDG_STATE_HOME=" + e.stateD,
		"XDG_CACHE_HOME=" + filepath.Join(e.root, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(e.root, "data"),
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"TMPDIR=" + e.root,
		"ACPTERM_DEMO_PACE=5ms",
		"ACPTERM_DEMO_RECORD=" + e.record,
		"GORACE=halt_on_error=0 log_path=" + filepath.Join(raceDir, "race"),
	}
	return append(v, e.extraEnv...)
}

// writeConfig writes the user config file ($XDG_CONFIG_HOME/acpterm/config.toml).
func (e *testEnv) writeConfig(body string) string {
	e.t.Helper()
	p := filepath.Join(e.configD, "acpterm", "config.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// result is the outcome of a non-interactive run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// run executes the binary with args (not in a terminal) and returns its exit code and output.
// A run that does not finish within waitTimeout fails the test.
func (e *testEnv) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = e.vars()
	cmd.Dir = e.project
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("acpterm %s: did not finish within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), waitTimeout, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("acpterm %s: %v", strings.Join(args, " "), err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// tmux is one tmux server (own socket) with one session running /bin/sh in the test env.
type tmux struct {
	*tmuxtest.Server
	t *testing.T
	e *testEnv
}

// startTmux starts a detached tmux session of cols×rows cells running an interactive /bin/sh
// whose prompt is "e2e$ ", in the env's home directory. The server is killed on cleanup.
// Tests that use tmux must not run in parallel with each other (the machine may be small).
func startTmux(t *testing.T, e *testEnv, cols, rows int) *tmux {
	t.Helper()
	srv := tmuxtest.Start(t, tmuxtest.Options{Cols: cols, Rows: rows, Dir: e.home, Env: e.vars(), Timeout: waitTimeout})
	tm := &tmux{Server: srv, t: t, e: e}
	// dash ignores PS1 from the environment for root; set it in the shell itself.
	tm.shell("PS1='e2e$ '")
	tm.waitFor("e2e$")
	return tm
}

// capture returns the visible screen as plain text (trailing blank lines kept as tmux prints them).
func (tm *tmux) capture() string { return tm.Capture() }

// format evaluates a tmux format for the pane, e.g. "#{alternate_on}".
func (tm *tmux) format(f string) string { tm.t.Helper(); return tm.Format(f) }

// waitUntil polls the screen until ok returns true, failing the test (with the screen) after
// waitTimeout. It returns the screen that satisfied ok.
func (tm *tmux) waitUntil(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	return tm.WaitUntil(what, ok)
}

// waitFor waits until the screen contains text.
func (tm *tmux) waitFor(text string) string { tm.t.Helper(); return tm.WaitFor(text) }

// waitMatch waits until the screen matches re and returns the submatches.
func (tm *tmux) waitMatch(re *regexp.Regexp) []string { tm.t.Helper(); return tm.WaitMatch(re) }

// waitGone waits until the screen no longer contains text.
func (tm *tmux) waitGone(text string) string { tm.t.Helper(); return tm.WaitGone(text) }

// keys sends tmux key names ("Enter", "C-q", "Escape", "y").
func (tm *tmux) keys(keys ...string) { tm.t.Helper(); tm.Keys(keys...) }

// modalReady is the approval dialog's key hint while it takes keys. A request that arrives
// while the user is typing a prompt shows "tab answers" instead (modalWaiting) until tab.
const modalReady = "enter choose"

// modalWaiting is the hint of a request that waits for tab (the user was typing).
const modalWaiting = "tab answers · typing stays in the prompt"

// typeText sends text literally.
func (tm *tmux) typeText(s string) { tm.t.Helper(); tm.Type(s) }

// resize changes the window (and so the pane) size.
func (tm *tmux) resize(cols, rows int) { tm.t.Helper(); tm.Resize(cols, rows) }

// shell types a command line into the session's shell and presses Enter.
func (tm *tmux) shell(line string) {
	tm.t.Helper()
	tm.typeText(line)
	tm.keys("Enter")
}

// acpterm starts the binary in the session's shell with args (shell-quoted).
func (tm *tmux) acpterm(args ...string) {
	tm.t.Helper()
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	tm.shell("clear; " + shellQuote(binary) + " " + strings.Join(q, " ") + "; echo \"acpterm-exit=$?\"")
}

// exitCode waits for acpterm to end and returns its exit status as printed by the shell.
func (tm *tmux) exitCode() int {
	tm.t.Helper()
	m := tm.waitMatch(regexp.MustCompile(`acpterm-exit=(\d+)`))
	n, _ := strconv.Atoi(m[1])
	return n
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// procInfo is one live process.
type procInfo struct {
	pid     int
	cmdline string
	cwd     string
}

// processes lists live processes (Linux /proc); zombies are skipped.
func processes(t *testing.T) []procInfo {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		out = append(out, procInfo{pid: pid, cmdline: strings.ReplaceAll(string(bytes.TrimRight(cl, "\x00")), "\x00", " "), cwd: cwd})
	}
	return out
}

// leftovers returns processes that belong to the test's acpterm run: the binary itself (the TUI
// or the demo agent) or anything working in the project dir (terminal children).
func (e *testEnv) leftovers(t *testing.T) []procInfo {
	var out []procInfo
	for _, p := range processes(t) {
		if p.pid == os.Getpid() {
			continue
		}
		if strings.HasPrefix(p.cmdline, binary) || p.cwd == e.project || strings.HasPrefix(p.cwd, e.project+"/") {
			out = append(out, p)
		}
	}
	return out
}

// waitNoLeftovers waits (bounded) until no process of the run is left, failing with the list.
func (e *testEnv) waitNoLeftovers(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		left := e.leftovers(t)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after acpterm ended: %+v", left)
		}
		time.Sleep(tmuxtest.PollInterval)
	}
}
