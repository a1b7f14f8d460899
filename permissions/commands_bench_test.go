package permissions

import "testing"

// BenchmarkDecideCommand decides a 5-leaf shell line (goal: < 100 µs per decision).
func BenchmarkDecideCommand(b *testing.B) {
	f := newCorpusFixture(b)
	r := CommandRequest{Session: "s", Command: "git status && git diff --stat | head -n 20; ls -la; echo done"}
	if d := f.e.DecideCommand(r); d.Verdict != Allow || len(d.Leaves) != 5 {
		b.Fatalf("%s %d leaves: %s", d.Verdict, len(d.Leaves), d.Reason)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f.e.DecideCommand(r)
	}
}

// BenchmarkDecideCommandArgv decides an exec-form request with one leaf.
func BenchmarkDecideCommandArgv(b *testing.B) {
	f := newCorpusFixture(b)
	r := CommandRequest{Session: "s", Command: "git", Args: []string{"log", "-n", "5"}}
	if d := f.e.DecideCommand(r); d.Verdict != Allow {
		b.Fatalf("%s: %s", d.Verdict, d.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		f.e.DecideCommand(r)
	}
}
