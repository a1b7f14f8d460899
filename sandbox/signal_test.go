package sandbox

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestHelperPassesSignalToCommandInOwnGroup: a command that moved to a process group of its
// own does not get a signal sent to the helper's group; the helper, which gets it, passes
// SIGTERM on, and reports the command's death by it.
func TestHelperPassesSignalToCommandInOwnGroup(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	root := t.TempDir()
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: root, Network: NetworkOff, Seccomp: true}
	cmd := exec.Command(py, "-c", "import os, signal; os.setsid(); print('moved', flush=True); signal.pause()")
	cmd.Dir = root
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if sc := bufio.NewScanner(out); !sc.Scan() || sc.Text() != "moved" {
		t.Fatalf("the command said %q", sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the command was still running 10 s after SIGTERM to the helper")
	}
	if st, ok := p.Exit(time.Second); !ok || st.Signal != "SIGTERM" || st.Code != nil {
		t.Errorf("exit %+v reported %v, want SIGTERM", st, ok)
	}
}
