package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// TestUnsandboxedAgentTreeDiesWithKill9: with the sandbox in its default mode and the agent
// itself not sandboxed, everything the agent started — a child in its group (the `child`
// scenario's sleep 600), a setsid child and a double-forked orphan its Bash-like tool left —
// ends within 3 s of acpterm being killed with SIGKILL (the agent runs below the agent
// guard, which sees acpterm go). The agent's file access is not confined: the guard is no
// sandbox.
func TestUnsandboxedAgentTreeDiesWithKill9(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[sandbox]\nmode = \"auto\"\nagent = false\n")
	cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", e.project,
		"--prompt", "self echo outside > ../agent-wrote-outside",
		"--prompt", "self setsid sleep 303 </dev/null >/dev/null 2>&1 &",
		"--prompt", "self (sleep 304 </dev/null >/dev/null 2>&1 &)",
		"--prompt", "slow", "--", scriptAgent(t))
	cmd.Env = append(e.vars(), "SCRIPTAGENT_SCENARIO=child")
	cmd.Dir = e.project
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	want := []string{"sleep 303", "sleep 304", "sleep 600"}
	running := func() []string {
		var out []string
		for _, p := range e.leftovers(t) {
			if slices.Contains(want, p.cmdline) {
				out = append(out, p.cmdline)
			}
		}
		slices.Sort(out)
		return out
	}
	for deadline := time.Now().Add(waitTimeout); !slices.Equal(running(), want); time.Sleep(tmuxtest.PollInterval) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's children never all ran (%q); log:\n%s", running(), e.logText(t))
		}
	}
	// The first prompt ran before the ones that started the sleeps: the agent wrote outside
	// the project, as an unsandboxed agent may.
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(e.project), "agent-wrote-outside")); string(b) != "outside\n" {
		t.Errorf("the unsandboxed agent's write outside the project: %q, %v; want \"outside\\n\"", b, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	for left := e.leftovers(t); len(left) > 0; left = e.leftovers(t) {
		if time.Since(killed) > 3*time.Second {
			t.Fatalf("3 s after kill -9 of acpterm, still running: %+v", left)
		}
		time.Sleep(tmuxtest.PollInterval)
	}
}
