package e2e

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeadlessSIGTERMShutsDownInOrder: a signal cancels the running turn, the ticker's process
// group is killed, the agent is stopped, and acpterm exits 1 (the prompt was not answered).
func TestHeadlessSIGTERMShutsDownInOrder(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	cmd := exec.Command(binary, "--headless", "--demo", "--cwd", e.project, "--prompt", "long 60")
	cmd.Env = e.vars()
	cmd.Dir = e.project
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var transcript []string
	deadline := time.After(waitTimeout)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("acpterm ended early:\n%s\n%s", strings.Join(transcript, "\n"), stderr.String())
			}
			transcript = append(transcript, l)
			if l == "  | tick 2" || strings.HasPrefix(l, "[terminal ") && strings.Contains(l, "started") {
				break wait
			}
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("no terminal started:\n%s", strings.Join(transcript, "\n"))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		transcript = append(transcript, l)
	}
	werr := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	all := strings.Join(transcript, "\n")
	if code != 1 || werr == nil {
		t.Fatalf("exit %d (%v), want 1\n%s\nstderr: %s", code, werr, all, stderr.String())
	}
	for _, want := range []string{"[cancel] interrupted by SIGTERM", "[stop] cancelled"} {
		if !strings.Contains(all, want+"\n") && !strings.HasSuffix(all, want) {
			t.Errorf("transcript lacks %q:\n%s", want, all)
		}
	}
	if strings.Count(all, "[cancel]") != 1 {
		t.Errorf("transcript has %d [cancel] lines, want 1:\n%s", strings.Count(all, "[cancel]"), all)
	}
	if !strings.Contains(stderr.String(), "acpterm: interrupted by SIGTERM\n") {
		t.Errorf("stderr = %q", stderr.String())
	}
	e.waitNoLeftovers(t)
}

// TestTUISIGTERMRestoresTerminal: SIGTERM to the TUI ends the session in order and gives the
// terminal back (alternate screen off, the shell prompt visible), with no process left.
func TestTUISIGTERMRestoresTerminal(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startDemo(t, e, "long 60")
	tm.waitFor("│tick 2")
	killDemo(t, syscall.SIGTERM)
	wantSignalExit(t, tm)
	screen := tm.waitFor("e2e$")
	if !strings.Contains(screen, "acpterm: interrupted by SIGTERM") {
		t.Fatalf("screen after SIGTERM:\n%s", screen)
	}
	e.waitNoLeftovers(t)
}
