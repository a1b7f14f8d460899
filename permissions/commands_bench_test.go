package permissions

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user+system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDecide runs DecideCommand(r) b.N times and also reports CPU time per decision
// ("cpu-ns/op"), which stays meaningful when the machine is shared and wall time is not.
func benchDecide(b *testing.B, r CommandRequest, leaves int) {
	f := newCorpusFixture(b)
	if d := f.e.DecideCommand(r); d.Verdict != Allow || len(d.Leaves) != leaves {
		b.Fatalf("%s %d leaves: %s", d.Verdict, len(d.Leaves), d.Reason)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		f.e.DecideCommand(r)
		n++
	}
	b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(n), "cpu-ns/op")
}

// BenchmarkDecideCommand decides a 5-leaf shell line (goal: < 100 µs per decision).
func BenchmarkDecideCommand(b *testing.B) {
	benchDecide(b, CommandRequest{Session: "s", Command: "git status && git diff --stat | head -n 20; ls -la; echo done"}, 5)
}

// BenchmarkDecideCommandArgv decides an exec-form request with one leaf.
func BenchmarkDecideCommandArgv(b *testing.B) {
	benchDecide(b, CommandRequest{Session: "s", Command: "git", Args: []string{"log", "-n", "5"}}, 1)
}
