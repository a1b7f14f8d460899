//go:build floodbench

package terminals

// The flood benchmark behind scripts/bench-terminals.sh (docs/benchmarks.md):
// `cat` of a big file in a COLSxROWS PTY, timed to completion for a raw PTY
// read, acpterm's engine and a detached tmux, in one run, plus the memory an
// acpterm terminal adds and a comparison of the final visible rows with
// tmux's capture-pane.
//
//	ACPTERM_BENCH_FILE=/tmp/mixed.txt go test -tags floodbench -run TestFloodBench -v -timeout 30m ./terminals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func TestFloodBench(t *testing.T) {
	file := os.Getenv("ACPTERM_BENCH_FILE")
	if file == "" {
		t.Skip("ACPTERM_BENCH_FILE not set")
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	cols, rows, reps := envInt("ACPTERM_BENCH_COLS", 200), envInt("ACPTERM_BENCH_ROWS", 50), envInt("ACPTERM_BENCH_REPS", 3)
	t.Logf("file %s (%d bytes), terminal %dx%d, %d repetitions, GOMAXPROCS %d", file, fi.Size(), cols, rows, reps, runtime.GOMAXPROCS(0))

	var raw, eng, tmx []time.Duration
	var rssAdded, heapAfter []float64
	mismatches := 0
	for rep := range reps {
		d := benchRaw(t, file, cols, rows)
		raw = append(raw, d)
		d, added, heap, screen := benchEngine(t, file, cols, rows)
		eng = append(eng, d)
		rssAdded = append(rssAdded, added)
		heapAfter = append(heapAfter, heap)
		d, capture := benchTmux(t, file, cols, rows)
		tmx = append(tmx, d)
		if screen != capture {
			mismatches++
			t.Errorf("rep %d: final rows differ\nacpterm:\n%s\ntmux:\n%s", rep+1, screen, capture)
		}
		t.Logf("rep %d: raw %.3fs  acpterm %.3fs  tmux %.3fs  rss added %.1f MiB  heap %.1f MiB  rows equal %v",
			rep+1, raw[rep].Seconds(), eng[rep].Seconds(), tmx[rep].Seconds(), added, heap, screen == capture)
	}
	med := func(ds []time.Duration) time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)/2] }
	medf := func(fs []float64) float64 { s := slices.Clone(fs); slices.Sort(s); return s[len(s)/2] }
	mb := float64(fi.Size()) / 1e6
	r, e, x := med(raw), med(eng), med(tmx)
	fmt.Printf("\nflood: cat %.1f MB in %dx%d, median of %d\n", mb, cols, rows, reps)
	fmt.Printf("  raw PTY read   %7.3f s  %6.1f MB/s  %.2fx tmux time\n", r.Seconds(), mb/r.Seconds(), r.Seconds()/x.Seconds())
	fmt.Printf("  acpterm engine %7.3f s  %6.1f MB/s  %.2fx tmux time\n", e.Seconds(), mb/e.Seconds(), e.Seconds()/x.Seconds())
	fmt.Printf("  tmux           %7.3f s  %6.1f MB/s  1.00x\n", x.Seconds(), mb/x.Seconds())
	fmt.Printf("  final visible rows equal to tmux capture-pane: %d/%d runs\n", reps-mismatches, reps)
	fmt.Printf("  peak RSS added by the acpterm terminal: %.1f MiB (median); live heap with it held: %.1f MiB\n", medf(rssAdded), medf(heapAfter))
}

// benchRaw: creack/pty, read and discard until EOF.
func benchRaw(t *testing.T, file string, cols, rows int) time.Duration {
	start := time.Now()
	cmd := exec.Command("cat", file)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32<<10)
	for {
		if _, err := f.Read(buf); err != nil {
			break
		}
	}
	_ = cmd.Wait()
	d := time.Since(start)
	_ = f.Close()
	return d
}

// benchEngine: acpterm's Manager/Terminal until exit and the screen caught up.
func benchEngine(t *testing.T, file string, cols, rows int) (time.Duration, float64, float64, string) {
	m := NewManager(ManagerOptions{})
	defer m.Close()
	runtime.GC()
	before := procStatusKiB(t, "VmRSS")
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM
	start := time.Now()
	term, err := m.Start(StartOptions{Argv: []string{"cat", file}, Dir: "/", Env: os.Environ(), Size: Size{Cols: cols, Rows: rows}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := term.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	<-term.feederDone
	d := time.Since(start)
	peak := procStatusKiB(t, "VmHWM")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if p := os.Getenv("ACPTERM_BENCH_HEAPPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
		}
	}
	t.Logf("acpterm: scroll-back %d lines", term.Screen().ScrollbackLen())
	screen := trimRows(term.Screen().Text())
	t.Logf("acpterm: transcript %d bytes truncated=%v, screen skipped %d bytes", len(term.Output().Text), term.Output().Truncated, term.Skipped())
	_ = term.Release()
	return d, float64(peak-before) / 1024, float64(ms.HeapAlloc) / (1 << 20), screen
}

// benchTmux: a detached tmux server of the same size running the same cat.
func benchTmux(t *testing.T, file string, cols, rows int) (time.Duration, string) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\nset -g history-limit 1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	tm := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", conf}, args...)...).CombinedOutput()
		return string(out), err
	}
	defer tm("kill-server")
	start := time.Now()
	if out, err := tm("new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"cat '"+file+"'; tmux -S '"+sock+"' wait-for -S done; sleep 600"); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	if out, err := tm("wait-for", "done"); err != nil {
		t.Fatalf("tmux wait-for: %v %s", err, out)
	}
	d := time.Since(start)
	size, _ := tm("display", "-p", "#{pane_width}x#{pane_height}")
	if strings.TrimSpace(size) != fmt.Sprintf("%dx%d", cols, rows) {
		t.Fatalf("tmux pane is %q", size)
	}
	capture, err := tm("capture-pane", "-p")
	if err != nil {
		t.Fatal(errors.New(capture))
	}
	return d, trimRows(capture)
}

// trimRows trims trailing blanks per row and trailing empty rows.
func trimRows(s string) string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	return strings.TrimRight(strings.Join(ls, "\n"), "\n")
}

func procStatusKiB(t *testing.T, key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	t.Fatalf("%s not in /proc/self/status", key)
	return 0
}
