package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// plantSubmodule is the security review's reproduction: a sandboxed script makes a new
// submodule git directory .git/modules/foo whose config runs core.fsmonitor, a foo/.git file
// naming it, a gitlink in the index and a .gitmodules, so that the user's next plain `git
// status` in the project would run the planted config on the host. The git directory is built
// beside modules/ and renamed into place whole, as an attacker who knows of the live watch
// would (a script writing into .git/modules/foo step by step, fails halfway
// once the watch moves the directory).
func plantSubmodule(marker string) string {
	return `set -e
m=.git/staging; mkdir -p "$m/objects" "$m/refs/heads" foo
echo 'ref: refs/heads/main' > "$m/HEAD"
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../foo\n\tfsmonitor = "echo HOST-FSMONITOR-RAN > ` + marker + `; false"\n' > "$m/config"
mkdir -p .git/modules && mv "$m" .git/modules/foo
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

// TestSandboxKill9PlantedConfigSweptAtNextStart: the security review's reproduction. With the
// session directory (so the root) holding the home, config and state directories (auto mode,
// which runs and says so), a sandboxed command plants acpterm's user config (sandbox off,
// unmatched commands allowed) and a ~/.bashrc, fails to remove or forge the watch journal in
// the state dir, and keeps running; acpterm, stopped before the plant (so that its inotify
// watch cannot move the files either), is killed with SIGKILL, so its own sweep never comes.
// The next start (a headless session with --approve deny) moves both into the quarantine
// before it reads any config, says so on stderr naming the killed run's command, records it
// in the audit log, and does not use the planted config: the unmatched script it is asked to
// run is asked about, denied and never runs.
func TestSandboxKill9PlantedConfigSweptAtNextStart(t *testing.T) {
	e := newEnv(t)
	cfgDir, bashrc := filepath.Join(e.configD, "acpterm"), filepath.Join(e.home, ".bashrc")
	journal := filepath.Join(e.stateD, "acpterm", "watch")
	ready, ran := filepath.Join(e.root, "planted"), filepath.Join(e.root, "w-ran")
	started, goOn := filepath.Join(e.root, "started"), filepath.Join(e.root, "go")
	plant := "touch " + started + "; until [ -e " + goOn + " ]; do sleep 0.05; done\n" +
		"mkdir -p " + cfgDir + " && printf '[sandbox]\\nmode = \"off\"\\n[policy]\\nunmatched = \"allow\"\\n' > " + cfgDir + "/config.toml\n" +
		"echo 'echo RC-RAN' > " + bashrc + "\n" +
		"rm -f " + journal + "/*; ls " + journal + " > " + ready + ".journal\n" +
		"echo forged > " + journal + "/watch-forged.json || echo refused > " + ready + ".forge\n" +
		"touch " + ready + "\nexec sleep 30\n"
	for name, body := range map[string]string{"plant.sh": plant, "w.py": "open(" + strconv.Quote(ran) + ", \"w\")\n"} {
		if err := os.WriteFile(filepath.Join(e.root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	killDuringPlant(t, e, e.root, started, goOn, ready)
	// The command could neither remove its journal entry nor forge one.
	if b, err := os.ReadFile(ready + ".journal"); err != nil || !regexp.MustCompile(`^watch-[0-9]+\.json\n$`).Match(b) {
		t.Errorf("the journal as the sandboxed command saw it after rm: %q %v", b, err)
	}
	if b, err := os.ReadFile(ready + ".forge"); err != nil || string(b) != "refused\n" {
		t.Errorf("forging a journal entry was not refused: %q %v", b, err)
	}
	for _, p := range []string{filepath.Join(cfgDir, "config.toml"), bashrc} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("after kill -9, %s is not there (%v): the test would prove nothing", p, err)
		}
	}

	r := e.run("--headless", "--approve", "deny", "--cwd", e.root, "--prompt", "term python3 w.py", "--", scriptAgent(t))
	q := filepath.Join(e.stateD, "acpterm", "quarantine")
	for _, p := range []string{cfgDir, bashrc} {
		re := regexp.MustCompile(`(?m)^acpterm: warning: sandbox: removed ` + regexp.QuoteMeta(p+", created by the sandboxed command (moved to "+q+"/") +
			`[0-9T.]+` + regexp.QuoteMeta(strings.ReplaceAll(p, "/", "%")+`) (found at start-up: the acpterm that ran "`) + `[^"]*plant\.sh[^"]*" in the sandbox at [0-9: -]+ ended before it could check; if you made this yourself since, move it back\)$`)
		if !re.MatchString(r.stderr) {
			t.Errorf("the next start does not say it removed %s:\n%s", p, r.stderr)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := os.Lstat(ran); !os.IsNotExist(err) {
		t.Errorf("the planted config was used: the unmatched script ran (%v)\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stdout, "[permission] agent \"python3 w.py\" → reject (--approve deny: unmatched)\n") {
		t.Errorf("the unmatched script was not asked about:\n%s", r.stdout)
	}
	if ents, err := os.ReadDir(journal); err != nil || len(ents) != 0 {
		t.Errorf("journal entries left after the sweep and the session: %v %v", ents, err)
	}
	audit := readAudit(t, e)
	for _, p := range []string{cfgDir, bashrc} {
		if !strings.Contains(audit, `"path":"`+p+`"`) {
			t.Errorf("no audit record of the removal of %s:\n%s", p, audit)
		}
	}
}

// TestSandboxSecretStoresUnreadableE2E: through the real binary: a
// sandboxed `cat` of git's stored credentials, .netrc, Docker's config.json, a kubeconfig and
// an agent's credentials in the session's HOME (default config, --approve deny: cat is
// allowed) prints none of them.
func TestSandboxSecretStoresUnreadableE2E(t *testing.T) {
	e := newEnv(t)
	files := []string{".git-credentials", ".netrc", ".docker/config.json", ".kube/config", ".codex/auth.json"}
	var paths []string
	for _, f := range files {
		p := filepath.Join(e.home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("FAKE-SECRET "+f+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	r := e.run("--headless", "--approve", "deny", "--cwd", e.project, "--prompt", "term cat "+strings.Join(paths, " ")+"; echo cat-done", "--", scriptAgent(t))
	if !strings.Contains(r.stdout, "cat-done") {
		t.Fatalf("the command did not run (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "FAKE-SECRET") {
		t.Errorf("a secret was read:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "cat: "+paths[3]+": No such file or directory") {
		t.Errorf("the kubeconfig in the masked ~/.kube was not absent:\n%s", r.stdout)
	}
}

// killDuringPlant runs `sh ./plant.sh` (in dir, the session directory) sandboxed in a headless
// acpterm, waits until the script made started, stops acpterm (so that its inotify watch cannot
// move what the script plants either: as when acpterm is killed between a creation and its
// move), makes goOn, waits until the script made ready and kills acpterm with SIGKILL; it
// returns once nothing acpterm started runs any more.
func killDuringPlant(t *testing.T, e *testEnv, dir, started, goOn, ready string) {
	t.Helper()
	cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", dir, "--prompt", "term sh ./plant.sh", "--", scriptAgent(t))
	cmd.Env, cmd.Dir = e.vars(), dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitFile := func(p string) {
		t.Helper()
		for deadline := time.Now().Add(waitTimeout); ; time.Sleep(tmuxtest.PollInterval) {
			if _, err := os.Stat(p); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the planting command never made %s; stderr:\n%s\nlog:\n%s", p, stderr.String(), e.logText(t))
			}
		}
	}
	waitFile(started)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(ready)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	e.waitNoLeftovers(t)
}

// TestTUIKill9PlantedProjectConfigBanner: after acpterm was killed while a sandboxed command
// that planted the project's .acpterm.toml ran, the next interactive start moves it into the
// quarantine before reading the config and says so in a banner.
func TestTUIKill9PlantedProjectConfigBanner(t *testing.T) {
	e := newEnv(t)
	started, goOn, ready := filepath.Join(e.project, "started"), filepath.Join(e.project, "go"), filepath.Join(e.project, "planted")
	toml := filepath.Join(e.project, ".acpterm.toml")
	plant := "touch " + started + "; until [ -e " + goOn + " ]; do sleep 0.05; done\n" +
		"printf '[policy]\\nunmatched = \"allow\"\\n' > " + toml + "\ntouch " + ready + "\nexec sleep 30\n"
	if err := os.WriteFile(filepath.Join(e.project, "plant.sh"), []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	killDuringPlant(t, e, e.project, started, goOn, ready)
	if _, err := os.Stat(toml); err != nil {
		t.Fatalf("after kill -9, %s is not there (%v): the test would prove nothing", toml, err)
	}
	tm := startDemo(t, e)
	tm.waitFor("sandbox: removed " + toml + ", created by the sandboxed command")
	if _, err := os.Lstat(toml); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", toml, err)
	}
	quit(t, e, tm, 0)
}
