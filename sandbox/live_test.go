package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// liveRun starts line in a sandboxed shell in a fresh root (with an existing .vscode
// directory and a directory outside every root, $OUT) under a Live watch, and returns the
// root, $OUT, the found channel, and a function that waits for the command, stops the watch
// and returns Sweep's findings.
func liveRun(t *testing.T, line string) (root, out string, found chan Swept, finish func() []Swept) {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	root, out = filepath.Join(base, "proj"), filepath.Join(base, "outside")
	q := filepath.Join(base, "state", "quarantine")
	for _, d := range []string{filepath.Join(root, ".vscode"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: base, Network: NetworkOn, Seccomp: true,
		Home: filepath.Join(base, "home")}
	watch := NewWatch(WatchCandidates(spec, spec.Home, nil), spec.Roots)
	found = make(chan Swept, 100)
	stop, err := watch.Live(q, func(s Swept) { found <- s })
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "OUT="+out)
	p, err := Start(spec, cmd)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return root, out, found, func() []Swept {
		_ = cmd.Wait()
		if st, ok := p.Exit(time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Errorf("the command: %+v %v", st, ok)
		}
		stop()
		return watch.Sweep(q)
	}
}

// TestLiveLeavesSwappedDirectoryAlone: a command that swaps the directory above a watched
// path for a symbolic link to a directory outside the roots, where a file of that name
// exists, does not get acpterm to move that file: Live leaves it alone (a later creation is
// still moved), and the sweep after the command says a directory above it changed.
func TestLiveLeavesSwappedDirectoryAlone(t *testing.T) {
	root, out, found, finish := liveRun(t, `echo victim > "$OUT/settings.json" && mv .vscode .vscode-old && ln -s "$OUT" .vscode && echo x > .nvim.lua`)
	victim := filepath.Join(out, "settings.json")
	select {
	case s := <-found:
		if s.Path != filepath.Join(root, ".nvim.lua") {
			t.Fatalf("found %+v first", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal(".nvim.lua was not moved while the command ran")
	}
	got := finish()
	if b, err := os.ReadFile(victim); string(b) != "victim\n" {
		t.Errorf("the file outside the roots was touched: %q %v", b, err)
	}
	if len(got) != 2 || got[0].Path != filepath.Join(root, ".nvim.lua") || !got[0].Live ||
		!strings.HasPrefix(got[1].Message, "sandbox: "+filepath.Join(root, ".vscode", "settings.json")+" appeared while a sandboxed command ran, but a directory above it is no longer what it was") {
		t.Errorf("sweep %+v", got)
	}
}

// TestLiveReportsAtMostLimit: a command that creates a watched path again each time it was
// moved gets each one moved, but only liveReportLimit reported one by one; the sweep says
// how many more there were.
func TestLiveReportsAtMostLimit(t *testing.T) {
	n := liveReportLimit + 8
	_, _, found, finish := liveRun(t, `i=0; while [ $i -lt `+strconv.Itoa(n)+` ]; do echo x > .acpterm.toml; while test -e .acpterm.toml; do :; done; i=$((i+1)); done`)
	got := finish()
	if len(found) != liveReportLimit || len(got) != liveReportLimit+1 {
		t.Fatalf("reported %d live, sweep %d; want %d and %d", len(found), len(got), liveReportLimit, liveReportLimit+1)
	}
	if want := "sandbox: warning: the sandboxed command created watched paths 8 more times; each was moved into "; !strings.HasPrefix(got[liveReportLimit].Message, want) {
		t.Errorf("last: %q", got[liveReportLimit].Message)
	}
}
