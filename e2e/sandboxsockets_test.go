package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSandboxTmuxServerUnreachable: with network "on" (unix sockets allowed by seccomp,
// and Landlock not governing connect to a path socket) a sandboxed command cannot reach the
// user's tmux server, which would run any command outside the sandbox (`tmux run-shell`):
// the tmux socket directory is masked. With the sandbox off the same command line makes the
// server write a file outside the project, so the attempt is real.
func TestSandboxTmuxServerUnreachable(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	agent := scriptAgent(t)
	for _, c := range []struct {
		mode, rc string
		pwned    bool
	}{{"off", "0", true}, {"required", "1", false}} {
		e := newEnv(t)
		sockDir := filepath.Join(e.root, "tmuxsock")
		if err := os.Mkdir(sockDir, 0o700); err != nil {
			t.Fatal(err)
		}
		e.extraEnv = append(e.extraEnv, "TMUX_TMPDIR="+sockDir)
		victim := exec.Command("tmux", "-L", "victim", "-f", "/dev/null", "new-session", "-d", "-s", "v", "sleep 300")
		victim.Env = e.vars()
		if out, err := victim.CombinedOutput(); err != nil {
			t.Fatalf("victim tmux server: %v %s", err, out)
		}
		t.Cleanup(func() {
			k := exec.Command("tmux", "-L", "victim", "kill-server")
			k.Env = e.vars()
			_ = k.Run()
		})
		e.writeConfig("[sandbox]\nmode = \"" + c.mode + "\"\nnetwork = \"on\"\n")
		pwned := filepath.Join(e.root, "pwned")
		ran := filepath.Join(e.project, "ran")
		sock := filepath.Join(sockDir, "tmux-"+strconv.Itoa(os.Geteuid()), "victim")
		line := "tmux -S " + sock + " run-shell 'touch " + pwned + "' >" + ran + ".err 2>&1; echo $? > " + ran
		cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", e.project, "--prompt", "term "+line, "--", agent)
		cmd.Env = e.vars()
		cmd.Dir = e.project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mode %s: acpterm: %v\n%s", c.mode, err, out)
		}
		b, err := os.ReadFile(ran)
		if err != nil || strings.TrimSpace(string(b)) != c.rc {
			msg, _ := os.ReadFile(ran + ".err")
			t.Errorf("mode %s: tmux exited %q (%v), want %s: %s", c.mode, b, err, c.rc, msg)
		}
		if _, err := os.Stat(pwned); (err == nil) != c.pwned {
			t.Errorf("mode %s: the host tmux server wrote %s: %v, want %v", c.mode, pwned, err == nil, c.pwned)
		}
	}
}
