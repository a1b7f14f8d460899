package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxSweepNeverFollowsSwappedDirectory: a nested
// repository sub2 is in the root when the command starts; the command moves it away and puts
// a symbolic link sub2 → a directory outside the roots that holds a .git with files the sweep
// would quarantine (commondir, a submodule git directory). The sweep must leave everything
// outside alone: nothing moved, nothing deleted, and it says why.
func TestSandboxSweepNeverFollowsSwappedDirectory(t *testing.T) {
	w := newGitWorld(t)
	sub := filepath.Join(w.root, "sub2")
	if err := os.MkdirAll(filepath.Join(sub, ".git", "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(w.outside, "data")
	for _, f := range []string{".git/commondir", ".git/config.worktree", ".git/modules/x/config"} {
		p := filepath.Join(victim, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("USER DATA "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, got := w.run(t, "mv sub2 sub2x && ln -s "+victim+" sub2 && echo swapped")
	if !strings.Contains(out, "swapped") {
		t.Fatalf("command output %q", out)
	}
	for _, f := range []string{".git/commondir", ".git/config.worktree", ".git/modules/x/config"} {
		b, err := os.ReadFile(filepath.Join(victim, f))
		if err != nil || string(b) != "USER DATA "+f+"\n" {
			t.Errorf("outside file %s after the sweep: %q %v", f, b, err)
		}
	}
	for _, s := range got {
		if strings.Contains(s.Message, "sandbox: removed "+sub+"/") {
			t.Errorf("the sweep took something through the link: %s", s.Message)
		}
	}
	// sub2x/.git is a .git that appeared in the root (the moved repository): quarantined as
	// such. Nothing may come from behind the link.
	ents, _ := os.ReadDir(w.quarantine)
	for _, e := range ents {
		if strings.Contains(e.Name(), "%sub2%") {
			t.Errorf("quarantine holds %q, taken through the link", e.Name())
		}
	}
	found := false
	for _, s := range got {
		if strings.Contains(s.Message, "acpterm left it alone") && strings.Contains(s.Message, victim) {
			found = true
		}
	}
	if !found {
		t.Errorf("no message says what was left alone and why: %+v", got)
	}
}

// TestQuarantineOneNeverDeletes: when the quarantine is not reachable by rename (here: a
// quarantine path that cannot be made), the planted file is renamed beside itself to a name
// nothing reads, its content kept; nothing is deleted.
func TestQuarantineOneNeverDeletes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".acpterm.toml")
	if err := os.WriteFile(p, []byte("[sandbox]\nmode = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := quarantineOne(p, filepath.Join(blocker, "quarantine"), "STAMP", "")
	beside := p + ".acpterm-quarantined-STAMP"
	if want := "sandbox: removed " + p + ", created by the sandboxed command (renamed to " + beside + ": the quarantine is on another file system)"; s.Message != want {
		t.Fatalf("message %q, want %q", s.Message, want)
	}
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("planted file still at its name: %v", err)
	}
	if b, err := os.ReadFile(beside); err != nil || string(b) != "[sandbox]\nmode = \"off\"\n" {
		t.Fatalf("renamed file: %q %v", b, err)
	}
}
