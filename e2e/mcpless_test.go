package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPPagerHasNoShellEscape: with the default policy (git log allowed), the agent starts
// `git log` through the terminal tools, which opens less, and types `!touch FILE` and `v`:
// less runs in secure mode (LESSSECURE=1 in every command's environment), so neither a shell
// command nor an editor starts, and FILE is never made.
func TestMCPPagerHasNoShellEscape(t *testing.T) {
	e := newEnv(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", e.project, "-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i := 0; i < 40; i++ {
		git("commit", "-q", "--allow-empty", "-m", "commit")
	}
	r := startMCPRun(t, e, nil, "--approve", "deny")
	id := r.OK("terminal_start", map[string]any{"command": "git log", "cols": 80, "rows": 10})["sessionId"].(string)
	r.until(id, "commit")
	marker := filepath.Join(e.project, "ESCAPED")
	r.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{act("type", "text", "text", "!")}})
	screen := strings.Join(r.until(id, "Command not available"), "\n")
	r.OK("terminal_input", map[string]any{"sessionId": id, "settleMs": 300, "actions": []any{
		act("type", "text", "text", "touch "+marker), act("type", "key", "key", "Enter"), act("type", "text", "text", "v")}})
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("less ran the shell command (stat %v); screen:\n%s", err, screen)
	}
	r.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{act("type", "key", "key", "q")}})
	r.stop()
}
