package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// plantSubmodule is the security review's reproduction: a sandboxed script makes a new
// submodule git directory .git/modules/foo whose config runs core.fsmonitor, a foo/.git file
// naming it, a gitlink in the index and a .gitmodules, so that the user's next plain `git
// status` in the project would run the planted config on the host.
func plantSubmodule(marker string) string {
	return `set -e
mkdir -p .git/modules/foo/objects .git/modules/foo/refs/heads foo
echo 'ref: refs/heads/main' > .git/modules/foo/HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../foo\n\tfsmonitor = "echo HOST-FSMONITOR-RAN > ` + marker + `; false"\n' > .git/modules/foo/config
echo 'gitdir: ../.git/modules/foo' > foo/.git
git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),foo
printf '[submodule "foo"]\n\tpath = foo\n\turl = ./foo\n' > .gitmodules
echo setup-done
`
}

// TestSandboxPlantedSubmoduleQuarantined: the real binary, headless, runs the planting script
// sandboxed. Once the terminal ended the planted git directory and its .git file are in the
// state dir's quarantine, the output says so naming where git would have run the config
// ("git status in PROJECT would run its config: submodule foo"), and the host's plain `git
// status` in the project runs nothing (the fsmonitor's marker file is absent).
func TestSandboxPlantedSubmoduleQuarantined(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\n")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", e.project}, args...)...)
		cmd.Env = append(e.vars(), "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	if err := os.WriteFile(filepath.Join(e.project, "f"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("add", "f")
	git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "init")
	marker := filepath.Join(e.root, "PWNED_submodule")
	if err := os.WriteFile(filepath.Join(e.project, "s.sh"), []byte(plantSubmodule(marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--approve", "allow", "--cwd", e.project, "--prompt", "term bash s.sh", "--", scriptAgent(t))
	if !strings.Contains(r.stdout, "setup-done") {
		t.Fatalf("the script did not run (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	q := filepath.Join(e.stateD, "acpterm", "quarantine")
	mod, file := filepath.Join(e.project, ".git", "modules", "foo"), filepath.Join(e.project, "foo", ".git")
	for p, use := range map[string]string{
		mod:  ": git status in " + e.project + " would run its config: submodule foo",
		file: ": git in " + filepath.Join(e.project, "foo") + " would use the git directory it names (../.git/modules/foo) and run its config",
	} {
		want := "sandbox: removed " + p + ", created by the sandboxed command (moved to " + q + "/"
		i := strings.Index(r.stdout, want)
		if i < 0 || !strings.Contains(r.stdout[i:], strings.ReplaceAll(p, "/", "%")+")"+use) {
			t.Errorf("the output does not say %s was removed and where git would have run it:\n%s", p, r.stdout)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still in the project (%v)", p, err)
		}
	}
	ents, err := os.ReadDir(q)
	if err != nil || len(ents) != 2 {
		t.Fatalf("quarantine: %v %v", ents, err)
	}
	var held string
	for _, en := range ents {
		if strings.HasSuffix(en.Name(), strings.ReplaceAll(mod, "/", "%")) {
			b, _ := os.ReadFile(filepath.Join(q, en.Name(), "config"))
			held = string(b)
		}
	}
	if !strings.Contains(held, `fsmonitor = "echo HOST-FSMONITOR-RAN`) {
		t.Errorf("the quarantine does not hold the planted git directory (config %q)", held)
	}
	git("status")
	if _, err := os.Lstat(marker); !os.IsNotExist(err) {
		t.Errorf("the host's git status ran the planted fsmonitor (%v)", err)
	}
}
