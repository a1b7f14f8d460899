package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxPlantedCommondirQuarantined: the real binary, headless, runs a sandboxed script
// that plants a .git/commondir pointing to a repository whose config runs code on the host's
// next `git status`, and creates a missing .acpterm.toml. Once the terminal ended both are
// gone from the project (moved into the state dir's quarantine), the output and the audit log
// say so, and the host's `git status` runs nothing planted.
func TestSandboxPlantedCommondirQuarantined(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\n")
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", e.project}, args...)...)
		cmd.Env = append(e.vars(), "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := git("init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	pwned := filepath.Join(e.root, "pwned")
	script := "mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ && " +
		"printf '[core]\\n\\tfsmonitor = \"touch " + pwned + "; false\"\\n' > evil/config && " +
		"printf '../evil\\n' > .git/commondir && echo '[sandbox]' >> .acpterm.toml && echo planted"
	if err := os.WriteFile(filepath.Join(e.project, "plant.sh"), []byte(script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--approve", "allow", "--cwd", e.project, "--prompt", "term sh ./plant.sh", "--", scriptAgent(t))
	commondir, toml := filepath.Join(e.project, ".git", "commondir"), filepath.Join(e.project, ".acpterm.toml")
	for _, p := range []string{commondir, toml} {
		if !strings.Contains(r.stdout, "sandbox: removed "+p+", created by the sandboxed command (moved to "+filepath.Join(e.stateD, "acpterm", "quarantine")+"/") {
			t.Errorf("the output does not say %s was removed:\n%s\n%s", p, r.stdout, r.stderr)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still in the project (%v)", p, err)
		}
	}
	if !strings.Contains(r.stdout, "planted") {
		t.Fatalf("the script did not run (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	audit, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		var ev struct{ Kind, Path, Verdict, By string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.By == "sandbox" && ev.Kind == "write" && ev.Verdict == "deny" {
			found[ev.Path] = true
		}
	}
	if !found[commondir] || !found[toml] || len(found) != 2 {
		t.Errorf("audit records by the sandbox: %v", found)
	}
	if out, err := git("status", "--short"); err != nil {
		t.Errorf("git status on the host: %v %s", err, out)
	}
	if _, err := os.Lstat(pwned); !os.IsNotExist(err) {
		t.Errorf("the planted fsmonitor ran on the host (%v)", err)
	}
}

// TestSandboxedAgentPlantedCommondirQuarantined: a sandboxed agent (--sandbox-agent) that
// writes a .git/commondir itself, as a Bash tool would: once the agent is gone the file is
// out of the project, the audit log says so, and the host's git status runs nothing.
func TestSandboxedAgentPlantedCommondirQuarantined(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\n")
	cmd := exec.Command("git", "-C", e.project, "init", "-q")
	cmd.Env = e.vars()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	r := e.run("--headless", "--sandbox-agent", "--approve", "allow", "--cwd", e.project, "--prompt",
		"self printf '../evil\\n' > .git/commondir && echo planted-by-agent", "--", scriptAgent(t))
	if !strings.Contains(r.stdout, "self exit 0") {
		t.Fatalf("the agent's own command did not run (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	commondir := filepath.Join(e.project, ".git", "commondir")
	if _, err := os.Lstat(commondir); !os.IsNotExist(err) {
		t.Errorf("%s is still in the project (%v)", commondir, err)
	}
	audit, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(audit), `"path":"`+commondir+`"`) || !strings.Contains(string(audit), `"by":"sandbox"`) {
		t.Errorf("no audit record of the removal:\n%s", audit)
	}
}
