package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoConfig allows the demo's shell commands (printf/head/sed/echo/stty/sleep) so terminals start
// without a question; writes stay "ask" unless writeVerdict says otherwise.
func demoConfig(writeVerdict string) string {
	return fmt.Sprintf(`[policy]
unmatched = "ask"
[policy.commands]
allow = ["printf", "head", "sed", "echo", "stty", "sleep"]
[policy.fs]
write = %q
`, writeVerdict)
}

// headless runs `acpterm --headless --demo --cwd PROJECT [extra...] --prompt P...`.
func (e *testEnv) headless(extra []string, prompts ...string) result {
	e.t.Helper()
	args := append([]string{"--headless", "--demo", "--cwd", e.project}, extra...)
	for _, p := range prompts {
		args = append(args, "--prompt", p)
	}
	return e.run(args...)
}

// header is what every headless demo run prints first.
func (e *testEnv) header() string {
	return "[session] demo-1 acpterm-demo 1.0.0 in " + e.project + "\n[mode] ask\n" +
		"[commands] tour stream perm read color long size write plan repl echo fail crash\n"
}

func TestHeadlessEchoAndStreamExactOutput(t *testing.T) {
	e := newEnv(t)
	r := e.headless(nil, "echo Hello, World", "stream")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := e.header() +
		"[prompt] echo Hello, World\nHello, World\n[stop] end_turn\n" +
		"[prompt] stream\n## Streaming\n\nThis reply arrives in **small chunks**, the way a model streams tokens:\n\n- one\n- two\n- three\n\nEnd of stream.\n[stop] end_turn\n"
	if r.stdout != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.stderr != "" {
		t.Fatalf("stderr = %q, want nothing", r.stderr)
	}
	// Diagnostics went to the default log file in the state dir, not to the terminal.
	logb, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "acpterm.log"))
	if err != nil || !strings.Contains(string(logb), `msg="acpterm: start"`) || !strings.Contains(string(logb), `msg="acpterm: exit"`) {
		t.Fatalf("log file: %v\n%s", err, logb)
	}
}

func TestHeadlessPermissionAnsweredByApprove(t *testing.T) {
	for _, c := range []struct{ approve, option, status string }{
		{"deny", "reject-once", "failed"},
		{"allow", "allow-once", "completed"},
	} {
		t.Run(c.approve, func(t *testing.T) {
			e := newEnv(t)
			r := e.headless([]string{"--approve", c.approve}, "perm")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			want := e.header() + "[prompt] perm\n" +
				`[tool] delete "Delete the build cache (./build)" (pending)` + "\n" +
				`[permission] delete "Delete the build cache (./build)" → ` + c.option + " (--approve " + c.approve + ": fs.write)\n" +
				`[tool] delete "Delete the build cache (./build)" (` + c.status + ")\n" +
				"  | The demo only pretends: nothing is deleted.\n" + // the tool call's content text
				"permission outcome: selected " + c.option + "\n\n[stop] end_turn\n"
			if r.stdout != want {
				t.Fatalf("stdout:\n%s\nwant:\n%s", r.stdout, want)
			}
			// The agent itself recorded the optionId it received.
			if got := recorded(t, e, "permission"); len(got) != 1 || got[0]["outcome"] != "selected "+c.option {
				t.Fatalf("agent recorded %v", got)
			}
		})
	}
}

func TestHeadlessTerminalOutputTail(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	r := e.headless(nil, "color", "long 2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, re := range []string{
		`(?m)^\[tool\] execute "Print colours" \(in_progress\)$`,
		`(?m)^\[terminal (\S+)\] exit 0\n  \| red green yellow blue magenta cyan bold underline$`,
		`(?m)^\[tool\] execute "Print colours" \(completed\)$`,
		`(?m)^\[terminal \S+\] exit 0\n  \| tick 1\n  \| tick 2$`,
		`(?m)^terminal \S+ exit 0: tick 2$`,
		`(?m)^\[stop\] end_turn\n\z`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("stdout does not match %s", re)
		}
	}
	if strings.Contains(r.stdout, "\x1b") {
		t.Errorf("stdout contains an escape sequence")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", r.stdout)
	}
}

func TestHeadlessWrite(t *testing.T) {
	t.Run("allowed by policy", func(t *testing.T) {
		e := newEnv(t)
		e.writeConfig(demoConfig("allow"))
		r := e.headless(nil, "write")
		path := filepath.Join(e.project, "demo.md")
		want := "# acpterm demo\n\nThis file was written by the demo agent through fs/write_text_file.\n- edit 1\n"
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Fatalf("demo.md = %q, %v", b, err)
		}
		if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("[write] %s (created, %d bytes)\n", path, len(want))) ||
			!strings.Contains(r.stdout, fmt.Sprintf("wrote %s (%d bytes, edit 1)\n\n", path, len(want))) {
			t.Fatalf("exit %d\n%s", r.code, r.stdout)
		}
	})
	t.Run("asked and denied", func(t *testing.T) {
		e := newEnv(t)
		r := e.headless([]string{"--approve", "deny"}, "write")
		if _, err := os.Stat(filepath.Join(e.project, "demo.md")); err == nil {
			t.Fatal("demo.md was written although the write was denied")
		}
		if r.code != 0 || !regexp.MustCompile(`(?m)^\[permission\] .*demo\.md.* → deny`).MatchString(r.stdout) ||
			!regexp.MustCompile(`(?m)^write refused: `).MatchString(r.stdout) {
			t.Fatalf("exit %d\n%s", r.code, r.stdout)
		}
	})
}

func TestHeadlessAgentFailuresExit1(t *testing.T) {
	t.Run("crash", func(t *testing.T) {
		e := newEnv(t)
		r := e.headless(nil, "crash", "echo never sent")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "[prompt] crash\nCrashing now, on purpose (exit status 3).\n") ||
			!regexp.MustCompile(`(?m)^\[agent\] exited: exit 3$`).MatchString(r.stdout) || strings.Contains(r.stdout, "never sent") {
			t.Fatalf("stdout:\n%s", r.stdout)
		}
		if !strings.Contains(r.stderr, "acpterm: the agent exited (exit 3)") {
			t.Fatalf("stderr = %q", r.stderr)
		}
	})
	t.Run("prompt error", func(t *testing.T) {
		e := newEnv(t)
		r := e.headless(nil, "fail")
		if r.code != 1 || !regexp.MustCompile(`(?m)^\[error\] turn failed: .*failed this prompt on purpose`).MatchString(r.stdout) {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("agent not found", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--prompt", "hi", "--", filepath.Join(e.root, "no-such-agent"))
		if r.code != 1 || !strings.Contains(r.stderr, "no-such-agent") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// recorded returns the demo agent's record lines with the given event name.
func recorded(t *testing.T, e *testEnv, event string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(e.record)
	if err != nil {
		t.Fatalf("record file: %v", err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		if m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}

// TestHeadlessDemoTourInScratchDir: --demo without --cwd works in a new scratch directory (named
// in the transcript), runs the tour by default, and skips the step that needs a person.
func TestHeadlessDemoTourInScratchDir(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("allow"))
	e.extraEnv = append(e.extraEnv, "ACPTERM_DEMO_LONG=2")
	r := e.run("--headless", "--demo", "--approve", "allow")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`(?m)^\[session\] demo-1 acpterm-demo 1\.0\.0 in (` + regexp.QuoteMeta(e.root) + `/acpterm-demo-\d+)$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no session line in a scratch dir under %s:\n%s", e.root, r.stdout)
	}
	scratch := m[1]
	for _, re := range []string{
		`(?m)^\[prompt\] tour$`,
		`(?m)^\[thought\] The user wants the tour\.`,
		`(?m)^\[plan\] \[>\] Say hello; \[ \] Run commands in panes;`,
		"(?m)I work in `" + regexp.QuoteMeta(scratch) + "`, a scratch directory",
		`(?m)^\[terminal term-1\] exit 0\n  \| red green yellow blue magenta cyan bold underline$`,
		`(?m)^\[permission\] delete "Delete the build cache \(\./build\)" → allow-once \(policy: fs\.write\)$`, // write = "allow" covers it
		`(?m)^permission outcome: selected allow-once$`,
		`(?m)^\[mode\] code$`,
		`(?m)^\[write\] ` + regexp.QuoteMeta(scratch) + `/demo\.md \(created, 93 bytes\)$`,
		`(?m)^terminal term-2 exit 0: tick 2$`,
		`(?m)^\[plan\] \[x\] Say hello; \[x\] Run commands in panes; \[x\] Ask for permission; \[x\] Edit a file; \[x\] Wrap up$`,
		`(?m)^\[stop\] end_turn\n\z`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("transcript does not match %s", re)
		}
	}
	if strings.Contains(r.stdout, "Your name?") {
		t.Errorf("the interactive step ran in a headless run")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", r.stdout)
	}
}

// TestDemoScratchDirRemovedWhenUnused: a --demo run that wrote nothing leaves no scratch dir.
func TestDemoScratchDirRemovedWhenUnused(t *testing.T) {
	e := newEnv(t)
	r := e.run("--headless", "--demo", "--prompt", "echo hi")
	if r.code != 0 || !strings.Contains(r.stdout, "acpterm-demo-") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(e.root, "acpterm-demo-*")); len(left) != 0 {
		t.Fatalf("scratch dirs left: %v", left)
	}
}

// TestHeadlessReaderGoesAway: `acpterm --headless … | head -1`: when stdout's reader closes,
// the session stops in order (exit 1, a message on stderr), with no process and no demo scratch
// directory left behind, instead of acpterm dying of SIGPIPE halfway.
func TestHeadlessReaderGoesAway(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--headless", "--demo", "--approve", "allow", "--prompt", "long 30")
	cmd.Env = e.vars()
	cmd.Dir = e.project
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "[session] demo-1 acpterm-demo") {
		t.Fatalf("first line %q, %v", first, err)
	}
	_ = stdout.Close() // the reader goes away, as head -1 does
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v (want status 1); stderr %q", err, errb.String())
	}
	if got := errb.String(); got != "acpterm: standard output was closed (broken pipe); the session was stopped\n" {
		t.Fatalf("stderr %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(e.root, "acpterm-demo-*")); len(left) != 0 {
		t.Fatalf("demo scratch directories left: %v", left)
	}
	e.waitNoLeftovers(t)
}

// TestHeadlessOutputToFullDisk: output that cannot be written (here /dev/full: ENOSPC) ends the
// session with exit status 1 and says so, instead of reporting success with a lost transcript.
func TestHeadlessOutputToFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	e := newEnv(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--headless", "--demo", "--approve", "allow", "--prompt", "echo hi")
	cmd.Env = e.vars()
	cmd.Dir = e.project
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &errb
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v (want status 1); stderr %q", err, errb.String())
	}
	if got := errb.String(); got != "acpterm: writing standard output: write /dev/stdout: no space left on device; the session was stopped\n" {
		t.Fatalf("stderr %q", got)
	}
	e.waitNoLeftovers(t)
}
