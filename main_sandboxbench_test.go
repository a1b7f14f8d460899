//go:build sandboxbench

package main

// The sandbox benchmark behind docs/benchmarks.md ("sandbox"): exec latency of `true` and
// of a 10-leaf shell line, the 100 MB flood, with and without the sandbox in one run
// (alternating), and the memory the helper adds per terminal. It is in package main, not
// terminals, because the helper is the running program re-executed: this test binary links
// all of acpterm, as the real one does, so its helper starts as acpterm's would.
//
//	ACPTERM_BENCH_FILE=/tmp/acpterm-mixed.txt go test -tags sandboxbench -run TestSandboxBench -v -timeout 30m .

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/sandbox"
	"github.com/acpterm/acpterm/terminals"
)

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// runOnce starts o, waits for its exit report and releases it; it returns the time from
// Start to the exit report.
func runOnce(t *testing.T, m *terminals.Manager, o terminals.StartOptions) time.Duration {
	t.Helper()
	begin := time.Now()
	term, err := m.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := term.Wait(context.Background())
	d := time.Since(begin)
	if err != nil || st.Code == nil || *st.Code != 0 {
		t.Fatalf("%v %v: %q", st, err, term.Output().Text)
	}
	_ = term.Release()
	return d
}

// procKiB reads a "Name: N kB" field of a /proc/PID file (status: VmRSS; smaps_rollup: Pss,
// the process's proportional share of the pages it maps, shared ones divided among their
// users); 0 when absent.
func procKiB(pid int, file, field string) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func TestSandboxBench(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	spec := &sandbox.Spec{Mode: sandbox.ModeRequired, Roots: []string{root}, TempDir: tmp, Network: sandbox.NetworkOn, Seccomp: true}
	spec.ReadOnly = sandbox.ProtectedPaths([]string{root}, os.Getenv("HOME")).ReadOnly
	plain := terminals.NewManager(terminals.ManagerOptions{})
	boxed := terminals.NewManager(terminals.ManagerOptions{Sandbox: spec})
	defer plain.Close()
	defer boxed.Close()
	env := os.Environ()
	n := sbxEnvInt("ACPTERM_BENCH_EXECS", 40)
	leaves := strings.Repeat("true && ", 9) + "true"
	for _, c := range []struct {
		name string
		o    terminals.StartOptions
	}{{"true", terminals.StartOptions{Argv: []string{"true"}, Dir: root, Env: env}},
		{"10-leaf line", terminals.StartOptions{ShellLine: leaves, Dir: root, Env: env}}} {
		var a, b []time.Duration
		for range n {
			a = append(a, runOnce(t, plain, c.o))
			b = append(b, runOnce(t, boxed, c.o))
		}
		t.Logf("exec %-12s p50 plain %6.1f ms  sandboxed %6.1f ms  (+%.1f ms, %d runs each)", c.name,
			ms(median(a)), ms(median(b)), ms(median(b)-median(a)), n)
	}

	// Memory: the helper's resident set while the command (sleep) runs.
	term, err := boxed.Start(terminals.StartOptions{Argv: []string{"sleep", "30"}, Dir: root, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let the helper settle into its wait loop
	t.Logf("memory: the helper (one extra process per sandboxed terminal) has VmRSS %d KiB, Pss %d KiB",
		procKiB(term.Pid(), "status", "VmRSS"), procKiB(term.Pid(), "smaps_rollup", "Pss"))
	_ = term.Release()

	file := os.Getenv("ACPTERM_BENCH_FILE")
	if file == "" {
		t.Log("ACPTERM_BENCH_FILE not set: no flood")
		return
	}
	reps := sbxEnvInt("ACPTERM_BENCH_REPS", 3)
	var fa, fb []time.Duration
	for range reps {
		fo := terminals.StartOptions{Argv: []string{"cat", file}, Dir: "/", Env: env, Size: terminals.Size{Cols: 200, Rows: 50}}
		fa = append(fa, runOnce(t, plain, fo))
		fb = append(fb, runOnce(t, boxed, fo))
	}
	t.Logf("flood cat %s: plain %v, sandboxed %v, median %.2f s vs %.2f s = %.3fx", file, fa, fb,
		median(fa).Seconds(), median(fb).Seconds(), median(fb).Seconds()/median(fa).Seconds())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func sbxEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
