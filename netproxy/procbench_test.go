//go:build proxybench

package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/nettest"
)

// TestProxyBench measures a 200 MB download by curl, as a sandboxed command makes it, through
// the proxy and directly, with every party in a process of its own: curl (the client), the
// proxy (this test binary re-executed) and the origin server (this test process). Direct and
// proxied runs use the same curl command line, the same server and the same URL, and alternate
// (ABBA), after one discarded warm-up each. For every run it takes the wall time and the CPU
// time (user+system, getrusage) of each party. Run it with scripts/bench-proxy.sh; figures in
// docs/benchmarks.md, section "network proxy". It asserts only that every download is whole.
// ACPTERM_BENCH_REPS sets the pairs per mode (default 5), ACPTERM_BENCH_MODE keeps the modes
// whose name contains it ("CONNECT", "SOCKS5", "forwarded"), ACPTERM_BENCH_RATE (curl's
// --limit-rate, e.g. 100M) makes every download, direct and proxied, as slow as a network link. ACPTERM_BENCH_HOLD=FILE measures
// nothing: it writes the URLs and proxy addresses to FILE as shell assignments and keeps the
// server and the proxy up until interrupted, to time other clients against them.
func TestProxyBench(t *testing.T) {
	reps := 5
	if s := os.Getenv("ACPTERM_BENCH_REPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ACPTERM_BENCH_REPS=%q: want a positive number", s)
		}
		reps = n
	}
	curl := nettest.Tool(t, "curl")
	ca := nettest.GetCA(t)

	// The origin: one 200 MB file, served over http (sendfile, as a static file server does)
	// and https.
	file := filepath.Join(t.TempDir(), "200MB")
	writeBenchFile(t, file, downloadSize)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	httpLn := listenLoopback(t)
	httpsLn := listenLoopback(t)
	srv := &http.Server{Handler: h}
	tsrv := &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{ca.Leaf}}}
	go srv.Serve(httpLn)
	go tsrv.ServeTLS(httpsLn, "", "")
	t.Cleanup(func() { srv.Close(); tsrv.Close() })

	px := startBenchProxy(t)
	proxyURL := "http://127.0.0.1:" + strconv.Itoa(px.port)
	socksURL := "socks5h://127.0.0.1:" + strconv.Itoa(px.port)
	httpURL := "http://bench.acpterm.test:" + strconv.Itoa(httpLn.Addr().(*net.TCPAddr).Port) + "/200MB"
	httpsURL := "https://bench.acpterm.test:" + strconv.Itoa(httpsLn.Addr().(*net.TCPAddr).Port) + "/200MB"

	// Direct runs reach bench.acpterm.test through --resolve; through the proxy the proxy
	// resolves it (its test resolver), as it resolves a real name.
	resolve := func(u string) []string {
		p := u[strings.LastIndex(u, ":")+1 : strings.LastIndex(u, "/")]
		return []string{"--resolve", "bench.acpterm.test:" + p + ":127.0.0.1"}
	}
	modes := []struct {
		name      string
		url       string
		proxyEnv  string // the variable a sandboxed command has, as curl reads it
		proxyAddr string
	}{
		{"https via HTTPS_PROXY (CONNECT tunnel)", httpsURL, "HTTPS_PROXY", proxyURL},
		{"http via ALL_PROXY (SOCKS5 tunnel)", httpURL, "ALL_PROXY", socksURL},
		{"http via http_proxy (forwarded request)", httpURL, "http_proxy", proxyURL},
	}
	if hold := os.Getenv("ACPTERM_BENCH_HOLD"); hold != "" {
		holdForClients(t, hold, ca.File, httpURL, httpsURL, proxyURL, socksURL, resolve)
		return
	}
	for _, m := range modes {
		if only := os.Getenv("ACPTERM_BENCH_MODE"); only != "" && !strings.Contains(m.name, only) {
			continue
		}
		base := []string{"-sS", "--fail", "-o", "/dev/null", "-w", "%{size_download}", "--cacert", ca.File}
		if rate := os.Getenv("ACPTERM_BENCH_RATE"); rate != "" {
			base = append(base, "--limit-rate", rate)
		}
		direct := append(append(slices.Clip(base), resolve(m.url)...), m.url)
		proxied := append(slices.Clip(base), m.url)
		run := func(viaProxy bool) benchRun {
			env := cleanProxyEnv()
			args := direct
			if viaProxy {
				env = append(env, m.proxyEnv+"="+m.proxyAddr)
				args = proxied
			}
			srv0, srvW0 := selfCPU(), selfWait()
			px0, pxW0 := px.cpu(t)
			cmd := exec.Command(curl, args...)
			cmd.Env = env
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			t0 := time.Now()
			err := cmd.Run()
			wall := time.Since(t0)
			if err != nil || out.String() != strconv.Itoa(downloadSize) {
				t.Fatalf("%s (proxy %v): curl %v: %v, downloaded %q bytes: %s", m.name, viaProxy, args, err, out.String(), errb.String())
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			run := benchRun{
				wall:       wall,
				client:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
				server:     selfCPU() - srv0,
				serverWait: selfWait() - srvW0,
			}
			pxc, pxw := px.cpu(t)
			run.proxy, run.proxyWait = pxc-px0, pxw-pxW0
			return run
		}
		run(false) // warm-up: page cache, TLS session code paths, the proxy's first connection
		run(true)
		var ds, ps []benchRun
		for i := range reps {
			if i%2 == 0 {
				ds = append(ds, run(false))
				ps = append(ps, run(true))
			} else {
				ps = append(ps, run(true))
				ds = append(ds, run(false))
			}
		}
		report(t, m.name, ds, ps)
	}
}

// holdForClients writes the shell assignments a client needs to file, then waits for SIGINT or
// SIGTERM.
func holdForClients(t *testing.T, file, caFile, httpURL, httpsURL, proxyURL, socksURL string, resolve func(string) []string) {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	body := strings.Join([]string{
		"CA=" + q(caFile),
		"HTTP_URL=" + q(httpURL),
		"HTTPS_URL=" + q(httpsURL),
		"HTTP_RESOLVE=" + q(strings.Join(resolve(httpURL), " ")),
		"HTTPS_RESOLVE=" + q(strings.Join(resolve(httpsURL), " ")),
		"PROXY=" + q(proxyURL),
		"SOCKS=" + q(socksURL),
	}, "\n") + "\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t.Logf("serving; the addresses are in %s; interrupt to stop", file)
	<-ctx.Done()
}

// benchRun is one download: its wall time, each party's CPU time (user+system), and how long
// the server's and the proxy's threads waited in a run queue for a CPU (schedstat).
type benchRun struct {
	wall, client, server, proxy time.Duration
	serverWait, proxyWait       time.Duration
}

func report(t *testing.T, name string, ds, ps []benchRun) {
	mbps := func(d time.Duration) float64 { return float64(downloadSize) / 1e6 / d.Seconds() }
	var ratios []float64
	for i := range ds {
		ratios = append(ratios, ds[i].wall.Seconds()/ps[i].wall.Seconds())
	}
	med := func(rs []benchRun, f func(benchRun) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	wall := func(r benchRun) time.Duration { return r.wall }
	cl := func(r benchRun) time.Duration { return r.client }
	sv := func(r benchRun) time.Duration { return r.server }
	pr := func(r benchRun) time.Duration { return r.proxy }
	svw := func(r benchRun) time.Duration { return r.serverWait }
	prw := func(r benchRun) time.Duration { return r.proxyWait }
	sorted := slices.Clone(ratios)
	slices.Sort(sorted)
	var each []string
	for _, r := range ratios {
		each = append(each, fmt.Sprintf("%.2f", r))
	}
	mb := float64(downloadSize) / (1 << 20)
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("%s, %d pairs:\n"+
		"  direct:  median %.0f MB/s; CPU per download: curl %v, server %v; waiting for a CPU: server %v\n"+
		"  proxied: median %.0f MB/s; CPU per download: curl %v, server %v, proxy %v (%.2f ms per MiB); waiting for a CPU: server %v, proxy %v\n"+
		"  proxied/direct throughput per pair: %s; median %.2f×",
		name, len(ds),
		mbps(med(ds, wall)), ms(med(ds, cl)), ms(med(ds, sv)), ms(med(ds, svw)),
		mbps(med(ps, wall)), ms(med(ps, cl)), ms(med(ps, sv)),
		ms(med(ps, pr)), float64(med(ps, pr).Microseconds())/1000/mb, ms(med(ps, svw)), ms(med(ps, prw)),
		strings.Join(each, " "), sorted[len(sorted)/2])
}

func listenLoopback(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func writeBenchFile(t *testing.T, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for left := n; left > 0; left -= len(buf) {
		if _, err := f.Write(buf[:min(left, len(buf))]); err != nil {
			t.Fatal(err)
		}
	}
}

// cleanProxyEnv is the environment without any proxy variable (the machine's own would
// otherwise send the direct runs through some other proxy).
func cleanProxyEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(EnvNames, k) {
			env = append(env, kv)
		}
	}
	return env
}

// selfWait is how long this process's threads have waited in a run queue for a CPU so far:
// the sum of the second field of /proc/self/task/*/schedstat (0 where the kernel has no
// schedstats).
func selfWait() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var sum int64
	for _, e := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			sum += n
		}
	}
	return time.Duration(sum)
}

// selfCPU is this process's CPU time so far (user+system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchProxyProc is the proxy in a process of its own: the test binary re-executed with
// benchProxyEnv set. It prints its port, then answers each line on its stdin with its CPU time
// so far (ns), and exits when stdin closes (so it never outlives the test).
type benchProxyProc struct {
	port int
	in   io.WriteCloser
	out  *bufio.Scanner
}

const benchProxyEnv = "ACPTERM_NETPROXY_BENCH_PROXY"

func init() {
	if os.Getenv(benchProxyEnv) == "" {
		return
	}
	p, err := New(Options{Dir: os.TempDir(), Decide: func(r Request) Decision {
		return Decision{Verdict: Allow, By: "policy", Rule: "allow: bench.acpterm.test", NamesHost: true}
	}, Resolver: &TestResolver{Hosts: map[string][]netip.Addr{"bench.acpterm.test": {netip.MustParseAddr("127.0.0.1")}}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		_, err = p.Serve(Identity{Terminal: "bench"}, ln)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println(int64(selfCPU()), int64(selfWait()))
	}
	p.Close()
	os.Exit(0)
}

func startBenchProxy(t *testing.T) *benchProxyProc {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchProxyEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	p := &benchProxyProc{in: in, out: bufio.NewScanner(outp)}
	if !p.out.Scan() {
		t.Fatal("the proxy process printed no port")
	}
	if p.port, err = strconv.Atoi(p.out.Text()); err != nil {
		t.Fatalf("the proxy process printed %q, not a port", p.out.Text())
	}
	return p
}

// cpu is the proxy process's CPU time so far, and its threads' run-queue wait (selfWait).
func (p *benchProxyProc) cpu(t *testing.T) (cpu, wait time.Duration) {
	if _, err := io.WriteString(p.in, "cpu\n"); err != nil {
		t.Fatal(err)
	}
	if !p.out.Scan() {
		t.Fatal("the proxy process stopped answering")
	}
	var c, w int64
	if _, err := fmt.Sscan(p.out.Text(), &c, &w); err != nil {
		t.Fatalf("the proxy process answered %q", p.out.Text())
	}
	return time.Duration(c), time.Duration(w)
}
