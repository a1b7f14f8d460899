package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// plantedSubmodule plants a new submodule git directory
// .git/modules/foo whose config runs core.fsmonitor, a foo/.git file naming it, a gitlink in
// the index and a .gitmodules, so that the user's next plain `git status` in the
// superproject would run the planted config outside the sandbox. MARKER is the file the
// fsmonitor would create.
const plantedSubmodule = `set -e
mkdir -p .git/modules/foo/objects .git/modules/foo/refs/heads foo
echo 'ref: refs/heads/main' > .git/modules/foo/HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../foo\n\tfsmonitor = "echo HOST-FSMONITOR-RAN > $MARKER; false"\n' > .git/modules/foo/config
echo 'gitdir: ../.git/modules/foo' > foo/.git
git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),foo
printf '[submodule "foo"]\n\tpath = foo\n\turl = ./foo\n' > .gitmodules
echo setup-done
`

// gitWorld is a repository with one commit in a fresh root, a HOME and a directory outside.
type gitWorld struct{ root, home, outside, quarantine string }

func newGitWorld(t *testing.T) *gitWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &gitWorld{root: filepath.Join(base, "sm"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"),
		quarantine: filepath.Join(base, "state", "quarantine")}
	for _, d := range []string{w.root, w.home, w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.root, "f"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git(t, "init", "-q", "-b", "main")
	w.git(t, "add", "f")
	w.git(t, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "init")
	return w
}

func (w *gitWorld) env() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + w.home, "GIT_CONFIG_NOSYSTEM=1",
		"MARKER=" + filepath.Join(w.outside, "PWNED_submodule")}
}

// git runs git in the root on the host (unsandboxed) and returns its output.
func (w *gitWorld) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = w.root, w.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// run runs line with bash in the sandbox (root w.root, writable) under a Watch, as a terminal
// does, and returns its output and what the Watch swept.
func (w *gitWorld) run(t *testing.T, line string) (string, []Swept) {
	t.Helper()
	pr := ProtectedPaths([]string{w.root}, w.home)
	spec := &Spec{Mode: ModeRequired, Roots: []string{w.root}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true,
		ReadOnly: pr.ReadOnly, Pin: pr.Pin}
	watch := NewWatch(WatchCandidates(spec, w.home, nil), spec.Roots)
	cmd := exec.Command("/bin/bash", "-c", line)
	cmd.Dir, cmd.Env = w.root, w.env()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if st, ok := p.Exit(5e9); !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("sandboxed command: %+v %v\n%s", st, ok, out.String())
	}
	return out.String(), watch.Sweep(w.quarantine)
}

// sweptRE is the message of a path moved into q, followed by tail.
func sweptRE(p, q, tail string) string {
	return regexp.QuoteMeta("sandbox: removed "+p+", created by the sandboxed command (moved to "+q+"/") + `[0-9T.]+` +
		regexp.QuoteMeta(strings.ReplaceAll(p, "/", "%")+")"+tail)
}

func checkSwept(t *testing.T, got []Swept, want ...string) {
	t.Helper()
	var msgs []string
	for _, s := range got {
		msgs = append(msgs, s.Message)
	}
	re := regexp.MustCompile("^" + strings.Join(want, "\n") + "$")
	if !re.MatchString(strings.Join(msgs, "\n")) {
		t.Errorf("swept:\n%s\nwant it to match\n%s", strings.Join(msgs, "\n"), re)
	}
}

// TestSandboxPlantedSubmoduleQuarantined: the attack, made by a sandboxed bash.
// Afterwards the planted submodule git directory and its .git file are in the quarantine, the
// message says where git would have run the config, and the host's plain `git status` in the
// root runs nothing (the fsmonitor's marker file is absent).
func TestSandboxPlantedSubmoduleQuarantined(t *testing.T) {
	w := newGitWorld(t)
	out, found := w.run(t, plantedSubmodule)
	if !strings.Contains(out, "setup-done") {
		t.Fatalf("the plant did not run:\n%s", out)
	}
	mod, file := filepath.Join(w.root, ".git", "modules", "foo"), filepath.Join(w.root, "foo", ".git")
	checkSwept(t, found,
		sweptRE(mod, w.quarantine, ": git status in "+w.root+" would run its config: submodule foo"),
		sweptRE(file, w.quarantine, ": git in "+filepath.Join(w.root, "foo")+" would use the git directory it names (../.git/modules/foo) and run its config"))
	for _, p := range []string{mod, file} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	ents, _ := os.ReadDir(w.quarantine)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !strings.HasSuffix(names[0], strings.ReplaceAll(mod, "/", "%")) ||
		!strings.HasSuffix(names[1], strings.ReplaceAll(file, "/", "%")) {
		t.Fatalf("quarantine holds %v", names)
	}
	cfg, err := os.ReadFile(filepath.Join(w.quarantine, names[0], "config"))
	if err != nil || !strings.Contains(string(cfg), "fsmonitor = \"echo HOST-FSMONITOR-RAN") {
		t.Errorf("the quarantined git directory's config: %q %v", cfg, err)
	}
	w.git(t, "status")
	if _, err := os.Lstat(filepath.Join(w.outside, "PWNED_submodule")); !os.IsNotExist(err) {
		t.Errorf("the planted fsmonitor ran on the host at git status (%v)", err)
	}
}

// TestSandboxPlantedNestedGitDirsQuarantined: below a submodule git directory that existed
// before the command (bound read-only where git runs code from it), a new nested submodule
// (modules/sub/modules/inner), a new submodule whose name has a slash (modules/a/b), and a
// linked worktree the command adds with `git worktree add` (worktrees/wt, and the wt/.git
// file) are all moved into the quarantine, each message naming where git would use it; the
// existing submodule git directory stays.
func TestSandboxPlantedNestedGitDirsQuarantined(t *testing.T) {
	w := newGitWorld(t)
	sub := filepath.Join(w.root, ".git", "modules", "sub")
	if err := os.MkdirAll(filepath.Join(sub, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, found := w.run(t, `set -e
mkdir -p .git/modules/sub/modules/inner .git/modules/a/b
echo 'ref: refs/heads/main' > .git/modules/sub/modules/inner/HEAD
echo 'ref: refs/heads/main' > .git/modules/a/b/HEAD
git worktree add -q wt
echo planted`)
	if !strings.Contains(out, "planted") {
		t.Fatalf("the plant did not run:\n%s", out)
	}
	a, inner, wt := filepath.Join(w.root, ".git", "modules", "a"), filepath.Join(sub, "modules", "inner"), filepath.Join(w.root, ".git", "worktrees", "wt")
	wtFile := filepath.Join(w.root, "wt", ".git")
	checkSwept(t, found,
		sweptRE(a, w.quarantine, ": git status in "+w.root+" would run its config: submodule a"),
		sweptRE(inner, w.quarantine, ": git status in "+w.root+" would run its config: submodule inner of submodule sub"),
		sweptRE(wt, w.quarantine, ": git in "+filepath.Join(w.root, "wt")+" would run its config: worktree wt of "+w.root),
		sweptRE(wtFile, w.quarantine, ": git in "+filepath.Join(w.root, "wt")+" would use the git directory it names ("+wt+") and run its config"))
	if _, err := os.Stat(filepath.Join(sub, "HEAD")); err != nil {
		t.Errorf("the existing submodule git directory was touched: %v", err)
	}
}

// TestSandboxPlantedSubmoduleMovedWhileRunning: with the Watch's Live inotify watch on, the
// planted submodule git directory is moved into the quarantine while the command still runs
// (the command itself sees it gone), reported at once and by Sweep (Live set), the message
// naming where git would have run it.
func TestSandboxPlantedSubmoduleMovedWhileRunning(t *testing.T) {
	w := newGitWorld(t)
	pr := ProtectedPaths([]string{w.root}, w.home)
	spec := &Spec{Mode: ModeRequired, Roots: []string{w.root}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true,
		ReadOnly: pr.ReadOnly, Pin: pr.Pin}
	watch := NewWatch(WatchCandidates(spec, w.home, nil), spec.Roots)
	reported := make(chan Swept, 8)
	stop, err := watch.Live(w.quarantine, func(s Swept) { reported <- s })
	if err != nil {
		t.Fatal(err)
	}
	// The git directory is made beside modules/ and renamed into place whole (so that its
	// early move cannot break the plant halfway); then the command waits (at most 10 s)
	// until it is gone.
	line := `set -e
m=.git/staging; mkdir -p "$m/objects" "$m/refs/heads" foo
echo 'ref: refs/heads/main' > "$m/HEAD"
printf '[core]\n\tworktree = ../../../foo\n\tfsmonitor = "echo HOST-FSMONITOR-RAN > $MARKER; false"\n' > "$m/config"
mkdir -p .git/modules && mv "$m" .git/modules/foo
echo 'gitdir: ../.git/modules/foo' > foo/.git
git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),foo
printf '[submodule "foo"]\n\tpath = foo\n\turl = ./foo\n' > .gitmodules
for i in $(seq 200); do [ -e .git/modules/foo ] || { echo moved-while-running; exit 0; }; sleep 0.05; done; echo still-there`
	cmd := exec.Command("/bin/bash", "-c", line)
	cmd.Dir, cmd.Env = w.root, w.env()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if _, err := Start(spec, cmd); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	stop()
	if !strings.Contains(out.String(), "moved-while-running") {
		t.Fatalf("the planted git directory was not moved while the command ran:\n%s", out.String())
	}
	mod := filepath.Join(w.root, ".git", "modules", "foo")
	want := sweptRE(mod, w.quarantine, ": git status in "+w.root+" would run its config: submodule foo")
	select {
	case s := <-reported:
		if !regexp.MustCompile("^"+want+"$").MatchString(s.Message) || !s.Live {
			t.Errorf("reported %+v\nwant %s", s, want)
		}
	default:
		t.Error("nothing was reported while the command ran")
	}
	found := watch.Sweep(w.quarantine)
	checkSwept(t, found, want,
		sweptRE(filepath.Join(w.root, "foo", ".git"), w.quarantine, ": git in "+filepath.Join(w.root, "foo")+" would use the git directory it names (../.git/modules/foo) and run its config"))
	w.git(t, "status")
	if _, err := os.Lstat(filepath.Join(w.outside, "PWNED_submodule")); !os.IsNotExist(err) {
		t.Errorf("the planted fsmonitor ran on the host at git status (%v)", err)
	}
}
