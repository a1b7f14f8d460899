package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestJournalSurvivesOnlyADeadOwner: a watch's journal entry is left alone by SweepJournal
// while its owner holds it (a running acpterm's command: its own Sweep will come); once the
// owner is gone without sweeping (its descriptor closed, as by SIGKILL), SweepJournal moves
// what was created into the quarantine, says so naming the command, and removes the entry;
// a partly written entry (killed before the command started) is removed and reported; Sweep
// by the owner removes its entry.
func TestJournalSurvivesOnlyADeadOwner(t *testing.T) {
	base := t.TempDir()
	root, dir, q := filepath.Join(base, "root"), filepath.Join(base, "state", "watch"), filepath.Join(base, "state", "quarantine")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(root, ".acpterm.toml")
	g := NewWatch([]string{planted}, []string{root})
	if err := g.Journal(dir, "sh ./x.sh"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("journal dir: %v %v", fi, err)
	}
	if err := os.WriteFile(planted, []byte("[sandbox]\nmode = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, skipped := SweepJournal(dir, q); found != nil || skipped != nil {
		t.Fatalf("a live entry was swept: %v %v", found, skipped)
	}
	if _, err := os.Stat(planted); err != nil {
		t.Fatalf("a live entry's path was moved: %v", err)
	}
	// The owner dies: its descriptor (and lock) goes, the entry stays.
	<-g.synced
	_ = g.journal.Close()
	g.journal = nil
	partial := filepath.Join(dir, "watch-partial.json")
	if err := os.WriteFile(partial, []byte(`{"absent": ["/`), 0o600); err != nil {
		t.Fatal(err)
	}
	found, skipped := SweepJournal(dir, q)
	re := regexp.MustCompile("^" + regexp.QuoteMeta("sandbox: removed "+planted+", created by the sandboxed command (moved to "+q+"/") +
		`[0-9T.]+` + regexp.QuoteMeta(strings.ReplaceAll(planted, "/", "%")+`) (found at start-up: the acpterm that ran "sh ./x.sh" in the sandbox at `) +
		`[0-9-]+ [0-9:]+` + regexp.QuoteMeta(" ended before it could check; if you made this yourself since, move it back)") + "$")
	if len(found) != 1 || !re.MatchString(found[0].Message) || found[0].Path != planted {
		t.Errorf("found %+v\nwant one matching %s", found, re)
	}
	if len(skipped) != 1 || skipped[0] != partial+": unreadable (unexpected end of JSON input), removed: written by an acpterm killed before its command started" {
		t.Errorf("skipped %q", skipped)
	}
	if _, err := os.Lstat(planted); !os.IsNotExist(err) {
		t.Errorf("the planted file is still there: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("journal entries left: %v", ents)
	}
	// A watch swept by its owner leaves no entry.
	g = NewWatch([]string{planted}, []string{root})
	if err := g.Journal(dir, "true"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("journal entries: %v", ents)
	}
	if found := g.Sweep(q); found != nil {
		t.Errorf("swept %v", found)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("journal entries left after Sweep: %v", ents)
	}
}

// BenchmarkJournal: what journaling one watch costs a sandboxed command's start (the entry
// written and locked; its sync to disk runs meanwhile, its removal after: not timed).
func BenchmarkJournal(b *testing.B) {
	root, dir := b.TempDir(), filepath.Join(b.TempDir(), "watch")
	cands := []string{filepath.Join(root, ".acpterm.toml"), filepath.Join(root, ".envrc")}
	for i := 0; i < b.N; i++ {
		g := NewWatch(cands, []string{root})
		if err := g.Journal(dir, "true"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		g.Discard()
		b.StartTimer()
	}
}
