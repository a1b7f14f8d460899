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
	"syscall"
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

	var raw, eng, tmx, rawCPU, engCPU, tmxCPU []time.Duration
	var rssAdded, heapAfter []float64
	mismatches := 0
	for rep := range reps {
		d, c := benchRaw(t, file, cols, rows)
		raw, rawCPU = append(raw, d), append(rawCPU, c)
		d, c, added, heap, screen := benchEngine(t, file, cols, rows)
		eng, engCPU = append(eng, d), append(engCPU, c)
		rssAdded = append(rssAdded, added)
		heapAfter = append(heapAfter, heap)
		d, c, capture := benchTmux(t, file, cols, rows)
		tmx, tmxCPU = append(tmx, d), append(tmxCPU, c)
		if screen != capture {
			mismatches++
			t.Errorf("rep %d: final rows differ\nacpterm:\n%s\ntmux:\n%s", rep+1, screen, capture)
		}
		t.Logf("rep %d: raw %.3fs (cpu %.2fs)  acpterm %.3fs (cpu %.2fs)  tmux %.3fs (server cpu %.2fs)  rss added %.1f MiB  heap %.1f MiB  rows equal %v",
			rep+1, raw[rep].Seconds(), rawCPU[rep].Seconds(), eng[rep].Seconds(), engCPU[rep].Seconds(), tmx[rep].Seconds(), tmxCPU[rep].Seconds(), added, heap, screen == capture)
	}
	med := func(ds []time.Duration) time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)/2] }
	medf := func(fs []float64) float64 { s := slices.Clone(fs); slices.Sort(s); return s[len(s)/2] }
	mb := float64(fi.Size()) / 1e6
	r, e, x := med(raw), med(eng), med(tmx)
	fmt.Printf("\nflood: cat %.1f MB in %dx%d, median of %d\n", mb, cols, rows, reps)
	rc, ec, xc := med(rawCPU), med(engCPU), med(tmxCPU)
	fmt.Printf("  %-15s %8s %9s %11s %16s %9s\n", "", "wall s", "MB/s", "wall ratio", "reader CPU s", "CPU ratio")
	fmt.Printf("  %-15s %8.3f %9.1f %10.2fx %16.2f %8.2fx\n", "raw PTY read", r.Seconds(), mb/r.Seconds(), r.Seconds()/x.Seconds(), rc.Seconds(), rc.Seconds()/xc.Seconds())
	fmt.Printf("  %-15s %8.3f %9.1f %10.2fx %16.2f %8.2fx\n", "acpterm engine", e.Seconds(), mb/e.Seconds(), e.Seconds()/x.Seconds(), ec.Seconds(), ec.Seconds()/xc.Seconds())
	fmt.Printf("  %-15s %8.3f %9.1f %10.2fx %16.2f %8.2fx\n", "tmux", x.Seconds(), mb/x.Seconds(), 1.0, xc.Seconds(), 1.0)
	fmt.Printf("  final visible rows equal to tmux capture-pane: %d/%d runs\n", reps-mismatches, reps)
	fmt.Printf("  peak RSS added by the acpterm terminal: %.1f MiB (median); live heap with it held: %.1f MiB\n", medf(rssAdded), medf(heapAfter))
}

// benchRaw: creack/pty, read and discard until EOF.
func benchRaw(t *testing.T, file string, cols, rows int) (time.Duration, time.Duration) {
	cpu0 := cpuSelf()
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
	return d, cpuSelf() - cpu0
}

// benchEngine: acpterm's Manager/Terminal until exit and the screen caught up.
func benchEngine(t *testing.T, file string, cols, rows int) (time.Duration, time.Duration, float64, float64, string) {
	m := NewManager(ManagerOptions{})
	defer m.Close()
	runtime.GC()
	before := procStatusKiB(t, "VmRSS")
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM
	cpu0 := cpuSelf()
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
	cpu := cpuSelf() - cpu0
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
	return d, cpu, float64(peak-before) / 1024, float64(ms.HeapAlloc) / (1 << 20), screen
}

// benchTmux: a detached tmux server of the same size running the same cat.
func benchTmux(t *testing.T, file string, cols, rows int) (time.Duration, time.Duration, string) {
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
	spid, _ := tm("display", "-p", "#{pid}")
	serverPid, _ := strconv.Atoi(strings.TrimSpace(spid))
	cpu := cpuOfPid(serverPid)
	size, _ := tm("display", "-p", "#{pane_width}x#{pane_height}")
	if strings.TrimSpace(size) != fmt.Sprintf("%dx%d", cols, rows) {
		t.Fatalf("tmux pane is %q", size)
	}
	capture, err := tm("capture-pane", "-p")
	if err != nil {
		t.Fatal(errors.New(capture))
	}
	return d, cpu, trimRows(capture)
}

// trimRows trims trailing blanks per row and trailing empty rows.
func trimRows(s string) string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	return strings.TrimRight(strings.Join(ls, "\n"), "\n")
}

// cpuSelf returns this process's user+system CPU time.
func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOfPid returns a process's user+system CPU time from /proc (clock ticks at 100 Hz).
func cpuOfPid(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
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
