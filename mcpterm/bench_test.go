package mcpterm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpterm/acpterm/internal/mcptest"
	"github.com/acpterm/acpterm/terminals"
)

// paint200x50 fills a 200x50 screen with text in a new colour every 10 cells (1,000 spans),
// then waits.
const paint200x50 = `python3 -c '
import sys, time
rows = []
for r in range(50):
    rows.append("".join("\033[%d;%dm%s" % (31 + (r + c) % 7, 40 + c % 8, ("r%02dc%03d   " % (r, c * 10))[:10]) for c in range(20)) + "\033[0m")
sys.stdout.write("\033[H\033[2J" + "\r\n".join(rows)); sys.stdout.flush()
time.sleep(600)
'`

// cpuTime is the CPU time (user and system) the process used so far: on a machine shared with
// other work, wall-clock latencies include waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func percentile(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(float64(len(s)-1)*p)]) / float64(time.Millisecond)
}

// benchSession starts the paint program through the registry and waits for its last row.
func benchSession(b *testing.B) (*registry, *session) {
	b.Helper()
	m := terminals.NewManager(terminals.ManagerOptions{})
	b.Cleanup(func() { _ = m.Close() })
	svc := New(Options{Launch: directLauncher(m), Cwd: b.TempDir(), Shell: "/bin/sh"})
	b.Cleanup(svc.Close)
	reg := newRegistry(svc)
	res, err := reg.start(context.Background(), json.RawMessage(`{"command":`+jsonText(paint200x50)+`,"cols":200,"rows":50,"settleMs":300,"settleTimeoutMs":20000}`))
	if err != nil {
		b.Fatal(err)
	}
	if last := res.snap.Screen[49]; !strings.HasPrefix(last, "r49c000") {
		b.Fatalf("screen not painted: last row %q", last)
	}
	s, _ := reg.get(res.snap.SessionID)
	return reg, s
}

// BenchmarkSnapshot200x50 is terminal_snapshot's server side for a full 200x50 screen with
// 1,000 styled spans: argument check, screen snapshot, styles, readable text, the size check
// and the JSON the SDK writes (the result, then the response around it; settleMs 0, so no
// quiet wait). Reports p50 and p95 in ms.
func BenchmarkSnapshot200x50(b *testing.B) {
	reg, s := benchSession(b)
	h := handler(reg.snapshot)
	args := json.RawMessage(`{"sessionId":"` + s.id + `","settleMs":0}`)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "terminal_snapshot", Arguments: args}}
	var ds, hs []time.Duration
	size := 0
	cpu0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		r, err := h(context.Background(), req)
		if err != nil || r.IsError {
			b.Fatalf("snapshot: %v %v", err, r)
		}
		hs = append(hs, time.Since(t0))
		// As the SDK sends it: the result encoded, then checked again inside the JSON-RPC
		// response.
		out, err := json.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}{1, out}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		size = len(out)
	}
	b.ReportMetric(percentile(ds, 0.5), "p50-ms")
	b.ReportMetric(percentile(ds, 0.95), "p95-ms")
	b.ReportMetric(percentile(hs, 0.5), "handler-p50-ms")
	b.ReportMetric(float64(size), "result-bytes")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(len(ds)), "cpu-ms/op")
}

// benchClient connects to an MCP server for BenchmarkCompare, over stdio: acpterm's service
// alone in a process (this test binary, MCPTERM_SERVE_STDIO=1), or a stdio server command
// ($ACPTERM_MCP_BENCH_PEER, for example "node /path/to/terminal-emulator-mcp/dist/src/index.js").
// It returns the server process's CPU time so far, as a function.
func benchClient(b *testing.B, peer string) (*mcp.ClientSession, func() time.Duration) {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	var t mcp.Transport
	var cpu func() time.Duration
	if peer == "" {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "MCPTERM_SERVE_STDIO=1")
		t = &mcp.CommandTransport{Command: cmd}
		cpu = func() time.Duration { return procCPU(cmd.Process.Pid) }
	} else {
		f := strings.Fields(peer)
		cmd := exec.Command(f[0], f[1:]...)
		cmd.Env = append(os.Environ(), "SHELL=/bin/sh")
		cmd.Dir = b.TempDir()
		t = &mcp.CommandTransport{Command: cmd}
		cpu = func() time.Duration { return procCPU(cmd.Process.Pid) }
	}
	cs, err := c.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs, cpu
}

// procCPU is the CPU time (user and system) process pid used so far, from /proc (clock ticks
// of 10 ms).
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	b.Helper()
	return (&mcptest.Client{TB: b, CS: cs}).OK(name, args)
}

// BenchmarkCompare measures, as an MCP client sees them over a stream, the round trip of a
// 200x50 terminal_snapshot (settleMs 0) and the input-to-settled latency of typing one
// character into `cat` (terminal_input with settleMs 50, until a returned screen shows the
// echo). The "acpterm" case is the service over pipes; $ACPTERM_MCP_BENCH_PEER adds another
// stdio MCP server with the same tools, measured the same way in the same run. The snapshot
// case also reports server-cpu-ms/op: the server process's CPU time per call.
func BenchmarkCompare(b *testing.B) {
	peers := map[string]string{"acpterm": ""}
	if p := os.Getenv("ACPTERM_MCP_BENCH_PEER"); p != "" {
		peers["peer"] = p
	}
	for _, name := range []string{"acpterm", "peer"} {
		peer, ok := peers[name]
		if !ok {
			continue
		}
		b.Run(name+"/snapshot200x50", func(b *testing.B) {
			cs, cpu := benchClient(b, peer)
			m := benchCall(b, cs, "terminal_start", map[string]any{"command": paint200x50, "cols": 200, "rows": 50,
				"settleMs": 300, "settleTimeoutMs": 20000})
			if rows := mcptest.Screen(m); !strings.HasPrefix(rows[49], "r49c000") {
				b.Fatalf("not painted: %q", rows[49])
			}
			id := m["sessionId"]
			var ds []time.Duration
			cpu0 := cpu()
			for b.Loop() {
				t0 := time.Now()
				benchCall(b, cs, "terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0})
				ds = append(ds, time.Since(t0))
			}
			b.ReportMetric(float64(cpu()-cpu0)/float64(time.Millisecond)/float64(len(ds)), "server-cpu-ms/op")
			b.ReportMetric(percentile(ds, 0.5), "p50-ms")
			b.ReportMetric(percentile(ds, 0.95), "p95-ms")
		})
		b.Run(name+"/input-to-settled", func(b *testing.B) {
			cs, _ := benchClient(b, peer)
			m := benchCall(b, cs, "terminal_start", map[string]any{"command": "cat", "cols": 80, "rows": 24})
			id := m["sessionId"]
			n := 0
			late := 0
			var ds []time.Duration
			echoed := func(r map[string]any) bool {
				if s, ok := r["snapshot"].(map[string]any); ok {
					r = s
				}
				rows := mcptest.Screen(r)
				cur := r["cursor"].(map[string]any)
				return len(rows[int(cur["row"].(float64))-1]) == n
			}
			for b.Loop() {
				if n == 70 {
					benchCall(b, cs, "terminal_input", map[string]any{"sessionId": id, "actions": []any{
						map[string]any{"type": "key", "key": "Enter"}}})
					n = 0
				}
				t0 := time.Now()
				r := benchCall(b, cs, "terminal_input", map[string]any{"sessionId": id, "settleMs": 50, "actions": []any{
					map[string]any{"type": "text", "text": "a"}}})
				n++
				// Settlement is observed quiet, not completion: on a loaded machine the echo can
				// come after 50 quiet ms. Then the time counts until a snapshot shows it.
				for i := 0; !echoed(r); i++ {
					if i == 0 {
						late++
					}
					if i > 200 {
						b.Fatalf("the echo never appeared: %v", mcptest.Screen(r))
					}
					r = benchCall(b, cs, "terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0})
				}
				ds = append(ds, time.Since(t0))
			}
			b.ReportMetric(float64(late), "late-echoes")
			b.ReportMetric(percentile(ds, 0.5), "p50-ms")
			b.ReportMetric(percentile(ds, 0.95), "p95-ms")
		})
	}
}
