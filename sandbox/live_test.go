package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveQuarantineWhileRunning: a sandboxed command creates .git/config.worktree (which
// git on the host would read) and a .vscode/settings.json whose directory did not exist,
// then blocks; both are in the quarantine while it still runs (Live's found callback
// says so), the command itself sees them gone, and after it ended Sweep reports them first,
// marked Live, with nothing more to move.
func TestLiveQuarantineWhileRunning(t *testing.T) {
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	home := filepath.Join(base, "home")
	root, q := filepath.Join(home, "proj"), filepath.Join(base, "state", "quarantine")
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := ProtectedPaths([]string{root}, home)
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: base, Network: NetworkOn, Seccomp: true,
		ReadOnly: pr.ReadOnly, Pin: pr.Pin, Home: home}
	worktree, settings := filepath.Join(root, ".git", "config.worktree"), filepath.Join(root, ".vscode", "settings.json")
	watch := NewWatch(WatchCandidates(spec, home, nil), spec.Roots)
	found := make(chan Swept, 16)
	stop, err := watch.Live(q, func(s Swept) { found <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cmd := exec.Command("/bin/sh", "-c", `printf '[core]\n\tfsmonitor = evil\n' > .git/config.worktree && `+
		`mkdir .vscode && echo '{}' > .vscode/settings.json && echo created && read x && `+
		`for f in .git/config.worktree .vscode/settings.json; do test -e "$f" && echo "still $f"; done; echo end`)
	cmd.Dir = root
	in, _ := cmd.StdinPipe()
	outR, outW, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = outW, outW
	p, err := Start(spec, cmd)
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() || lines.Text() != "created" {
		t.Fatalf("the command said %q", lines.Text())
	}
	want := map[string]bool{worktree: true, settings: true}
	timeout := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case s := <-found:
			if !want[s.Path] || !s.Live || !strings.HasPrefix(s.Message, "sandbox: removed "+s.Path+", created by the sandboxed command (moved to "+q+"/") {
				t.Fatalf("found %+v", s)
			}
			delete(want, s.Path)
		case <-timeout:
			t.Fatalf("not quarantined while the command runs: %v", want)
		}
	}
	select {
	case <-p.Done():
		t.Fatal("the command ended before the test let it")
	default:
	}
	for _, f := range []string{worktree, settings} {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("%s still exists while the command runs (%v)", f, err)
		}
	}
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	in.Close()
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if strings.Join(rest, "|") != "end" {
		t.Errorf("the command then said %q", rest)
	}
	_ = cmd.Wait()
	stop()
	got := watch.Sweep(q)
	if len(got) != 2 || !got[0].Live || !got[1].Live {
		t.Errorf("sweep %+v", got)
	}
	ents, _ := os.ReadDir(q)
	if len(ents) != 2 {
		t.Errorf("quarantine holds %d entries, want 2", len(ents))
	}
}
