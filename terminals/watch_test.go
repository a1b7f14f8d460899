package terminals

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/internal/sandboxtest"
	"github.com/acpterm/acpterm/sandbox"
)

// TestSandboxCreatedProtectedPathsQuarantined: protected paths that did not exist cannot be
// bound read-only, so a sandboxed command can create them; once it has ended they are moved
// into the quarantine and the terminal's SandboxDenial names each. The attack: a
// .git/commondir pointing to a planted repository whose config runs code (core.fsmonitor)
// on the host's next `git status`; a new .acpterm.toml in a root; new rc files in a home
// that is a root; a new nested repository (its hooks and config would run when git is used
// there) is moved into the quarantine too.
func TestSandboxCreatedProtectedPathsQuarantined(t *testing.T) {
	w := sandboxtest.New(t)
	spec := w.Spec(sandbox.NetworkOff)
	quarantine := filepath.Join(w.State, "quarantine")
	watch := sandbox.WatchCandidates(spec, w.Home, []string{w.Config, filepath.Join(w.Config, "config.toml"), w.State})
	h := newMgr(t, ManagerOptions{Sandbox: spec, Watch: watch, Quarantine: quarantine})
	pwned := filepath.Join(w.Outside, "pwned")
	line := `cd "$ROOT" && mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ && ` +
		`printf '[core]\n\tfsmonitor = "touch ` + pwned + `; false"\n' > evil/config && printf '../evil\n' > .git/commondir && ` +
		`echo '[sandbox]' > "$HOME/.acpterm.toml" && echo evil > "$HOME/.bash_profile" && ` +
		// (.config/git is moved away the moment it is made, so the write into it may fail.)
		`mkdir -p "$HOME/.config/git" && { echo '[core]' > "$HOME/.config/git/config" || :; } && ` +
		`git init -q sub && echo done`
	term := h.start(t, StartOptions{ShellLine: line, Dir: w.Root, Env: w.Env(), Size: Size{Cols: 200, Rows: 50}})
	st := waitExit(t, term)
	if st.Code == nil || *st.Code != 0 || !strings.Contains(term.Output().Text, "done") {
		t.Fatalf("plant: %v %q", st, term.Output().Text)
	}
	gitDir := filepath.Join(w.Root, ".git")
	removed := []string{filepath.Join(gitDir, "commondir"), filepath.Join(w.Home, ".acpterm.toml"),
		filepath.Join(w.Home, ".bash_profile"), filepath.Join(w.Home, ".config", "git")}
	var want []string
	for _, p := range removed {
		want = append(want, regexp.QuoteMeta("sandbox: removed "+p+", created by the sandboxed command (moved to "+quarantine+"/")+
			`[0-9T.]+`+regexp.QuoteMeta(strings.ReplaceAll(p, "/", "%")+")"))
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists (%v)", p, err)
		}
	}
	sub := filepath.Join(w.Root, "sub")
	subGit := filepath.Join(sub, ".git")
	want = append(want, regexp.QuoteMeta("sandbox: removed "+subGit+", created by the sandboxed command (moved to "+quarantine+"/")+
		`[0-9T.]+`+regexp.QuoteMeta(strings.ReplaceAll(subGit, "/", "%")+"): git in "+sub+" would run its hooks and config"))
	re := regexp.MustCompile("^" + strings.Join(want, "; ") + "$")
	if got := term.SandboxDenial(); !re.MatchString(got) {
		t.Errorf("denial\n%q\nwant it to match\n%s", got, re)
	}
	ents, err := os.ReadDir(quarantine)
	if err != nil || len(ents) != 5 {
		t.Errorf("quarantine holds %d entries (%v), want 5", len(ents), err)
	}
	if _, err := os.Lstat(subGit); !os.IsNotExist(err) {
		t.Errorf("the nested repository's .git is still there: %v", err)
	}
	// The host's next git status runs nothing planted.
	git := exec.Command("git", "-C", w.Root, "status", "--short")
	git.Env = append(os.Environ(), "HOME="+w.Home, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := git.CombinedOutput(); err != nil {
		t.Errorf("git status on the host: %v %s", err, out)
	}
	if _, err := os.Lstat(pwned); !os.IsNotExist(err) {
		t.Errorf("the planted fsmonitor ran on the host (%v)", err)
	}
}
