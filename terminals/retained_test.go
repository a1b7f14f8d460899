package terminals

// What a finished terminal costs while it is kept (the UI keeps a pane, and
// the Manager keeps every terminal gettable): heap still reachable after the
// program exited, and after Release.
//
//	go test -run '^$' -bench '^BenchmarkRetained' -benchtime 3x ./terminals/
//	go test -run '^$' -bench '^BenchmarkTerminalChurn$' -benchtime 1x ./terminals/

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveHeap returns the bytes of heap objects still reachable (after two GCs,
// so finalizer-freed objects are gone too).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// retainedPerTerminal starts n terminals of size sz running shell line
// (whose transcript must be want), and returns the heap each one keeps
// (bytes, averaged) once all have exited and once all are released.
func retainedPerTerminal(tb testing.TB, n int, sz Size, line, want string) (exited, released float64) {
	tb.Helper()
	m := NewManager(ManagerOptions{MaxLive: n})
	defer func() { _ = m.Close() }()
	dir := tb.TempDir()
	base := liveHeap()
	terms := make([]*Terminal, 0, n)
	for range n {
		term, err := m.Start(StartOptions{ShellLine: line, Dir: dir, Env: testEnv, Size: sz})
		if err != nil {
			tb.Fatal(err)
		}
		terms = append(terms, term)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, term := range terms {
		if _, err := term.Wait(ctx); err != nil {
			tb.Fatalf("%s: Wait: %v", term.ID(), err)
		}
	}
	// The exit is reported once the output is drained; the screen is fed (and
	// the feeder ends) when the PTY reaches EOF, which can come a moment later.
	for _, term := range terms {
		<-term.feederDone
	}
	exited = float64(int64(liveHeap())-int64(base)) / float64(n)
	for _, term := range terms {
		if err := term.Release(); err != nil {
			tb.Fatal(err)
		}
	}
	released = float64(int64(liveHeap())-int64(base)) / float64(n)
	for _, term := range terms {
		if got := term.Output().Text; got != want {
			tb.Fatalf("%s: transcript of %d bytes, want %d", term.ID(), len(got), len(want))
		}
	}
	runtime.KeepAlive(terms)
	runtime.KeepAlive(m)
	return exited, released
}

// BenchmarkRetainedTerminal reports the heap a terminal keeps after its
// program exited (B-exited/term) and after Release (B-released/term): one
// that printed one line, at 80x24 and at 200x50, and one that printed
// 1.27 MB (`seq 1 200000`, transcript limit 1 MiB) at 80x24.
func BenchmarkRetainedTerminal(b *testing.B) {
	seq := lines(200000, "%d\n")
	cases := []struct {
		name, line, want string
		sz               Size
		n                int
	}{
		{"echo/80x24", "echo hi", "hi\n", Size{80, 24}, 20},
		{"echo/200x50", "echo hi", "hi\n", Size{200, 50}, 20},
		{"seq200000/80x24", "seq 1 200000", seq[len(seq)-DefaultOutputLimit:], Size{80, 24}, 4},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var ex, rel float64
			for b.Loop() {
				ex, rel = retainedPerTerminal(b, c.n, c.sz, c.line, c.want)
			}
			b.ReportMetric(ex, "B-exited/term")
			b.ReportMetric(rel, "B-released/term")
		})
	}
}

// BenchmarkTerminalChurn is the session a tester reported: an agent creates
// 1000 short terminals (`echo hi`), each waited for and released, all kept
// by the Manager. It reports the peak RSS during the run (MB-peak-RSS, from
// VmHWM reset at the start), the RSS and the live heap at the end
// (MB-end-RSS, KB-heap/term).
func BenchmarkTerminalChurn(b *testing.B) {
	const n = 1000
	for b.Loop() {
		m := NewManager(ManagerOptions{})
		dir := b.TempDir()
		base := liveHeap()
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		for range n {
			term, err := m.Start(StartOptions{ShellLine: "echo hi", Dir: dir, Env: testEnv})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := term.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			if err := term.Release(); err != nil {
				b.Fatal(err)
			}
		}
		cancel()
		peak := statusKiB(b, "VmHWM")
		heap := float64(int64(liveHeap())-int64(base)) / n
		b.ReportMetric(float64(peak)/1024, "MB-peak-RSS")
		b.ReportMetric(float64(statusKiB(b, "VmRSS"))/1024, "MB-end-RSS")
		b.ReportMetric(heap/1024, "KB-heap/term")
		runtime.KeepAlive(m)
		_ = m.Close()
	}
}

// statusKiB returns a "kB" field of /proc/self/status.
func statusKiB(tb testing.TB, key string) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatalf("%s: %v", key, err)
			}
			return n
		}
	}
	tb.Fatalf("%s not in /proc/self/status", key)
	return 0
}

// BenchmarkRetainedScreen reports the heap a standalone screen (an
// agent-owned terminal's, fed over ACP) keeps after one line of output,
// before Compact (B-live/screen) and after (B-compacted/screen), at 80x24.
func BenchmarkRetainedScreen(b *testing.B) {
	const n = 100
	var live, compacted float64
	for b.Loop() {
		base := liveHeap()
		scrs := make([]*Screen, n)
		for i := range scrs {
			scrs[i] = NewScreen(Size{80, 24})
			scrs[i].Write([]byte("hi\r\n"))
		}
		live = float64(int64(liveHeap())-int64(base)) / n
		for _, s := range scrs {
			s.Compact()
		}
		compacted = float64(int64(liveHeap())-int64(base)) / n
		for _, s := range scrs {
			if got := s.Text()[:3]; got != "hi\n" {
				b.Fatalf("text %q", got)
			}
		}
		runtime.KeepAlive(scrs)
	}
	b.ReportMetric(live, "B-live/screen")
	b.ReportMetric(compacted, "B-compacted/screen")
}
