package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The benchmarks measure the proxy as a sandboxed command meets it: a TCP connection to the
// listener Serve serves (in production it is made in the command's network namespace),
// CONNECT host:port, then the tunnel. The "remote" server is on 127.0.0.1.
// Figures and how to run them: docs/benchmarks.md.

// sinkServer serves n bytes to every connection after reading its first byte (a request).
func sinkServer(b testing.TB, n int64) int {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	buf := make([]byte, 256<<10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				one := make([]byte, 1)
				if _, err := io.ReadFull(c, one); err != nil {
					return
				}
				for left := n; left > 0; {
					k := min(left, int64(len(buf)))
					w, err := c.Write(buf[:k])
					if err != nil {
						return
					}
					left -= int64(w)
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// benchProxy is a proxy allowing bench.acpterm.test, served on a TCP listener.
func benchProxy(b testing.TB) (addr string) {
	b.Helper()
	p, err := New(Options{Dir: b.TempDir(), Decide: func(r Request) Decision {
		return Decision{Verdict: Allow, By: "policy", Rule: "allow: bench.acpterm.test", NamesHost: true}
	}, Resolver: &TestResolver{Hosts: map[string][]netip.Addr{"bench.acpterm.test": {netip.MustParseAddr("127.0.0.1")}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Serve(Identity{Terminal: "bench"}, ln); err != nil {
		b.Fatal(err)
	}
	return ln.Addr().String()
}

// tunnel opens a CONNECT tunnel through the proxy at addr to bench.acpterm.test:port.
func tunnel(b testing.TB, addr string, port int) (net.Conn, *bufio.Reader) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT bench.acpterm.test:%d HTTP/1.1\r\nHost: bench.acpterm.test:%d\r\n\r\n", port, port)
	br := bufio.NewReaderSize(c, 64<<10)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("CONNECT: %v %v", resp, err)
	}
	return c, br
}

const downloadSize = 200 << 20 // bytes

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the process CPU time per op since t0 (server, proxy and client together)
// as "cpu-ms/op": under a loaded machine the wall time mostly measures waiting for a CPU.
func reportCPU(b *testing.B, t0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-t0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// clientReadSize is the benchmark client's read size (bytes): curl's download buffer (an
// strace of curl 7.88 shows 102 400-byte reads), the same for the direct and the proxied runs.
const clientReadSize = 100 << 10

// drain reads c to EOF with reads of len(buf), after the bytes br (the reader the CONNECT
// response was read with; nil for none) holds already, and returns the bytes read.
func drain(c net.Conn, br *bufio.Reader, buf []byte) int64 {
	var n int64
	if br != nil {
		k, _ := br.Discard(br.Buffered())
		n += int64(k)
	}
	for {
		k, err := c.Read(buf)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}

// BenchmarkDownload200MB: 200 MB from a loopback server, directly and through the proxy, all
// three parties (server, proxy, client) in this one process; the client reads as curl does
// (clientReadSize). TestProxyBench (build tag proxybench) runs them as separate processes.
func BenchmarkDownload200MB(b *testing.B) {
	port := sinkServer(b, downloadSize)
	buf := make([]byte, clientReadSize)
	direct := func(b *testing.B) {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			b.Fatal(err)
		}
		c.Write([]byte{'g'})
		n := drain(c, nil, buf)
		c.Close()
		if n != downloadSize {
			b.Fatalf("read %d bytes", n)
		}
	}
	proxied := func(b *testing.B, addr string) {
		c, br := tunnel(b, addr, port)
		c.Write([]byte{'g'})
		n := drain(c, br, buf)
		c.Close()
		if n != downloadSize {
			b.Fatalf("read %d bytes", n)
		}
	}
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(downloadSize)
		t0 := cpuTime()
		defer func() { reportCPU(b, t0) }()
		for b.Loop() {
			direct(b)
		}
	})
	b.Run("proxy", func(b *testing.B) {
		addr := benchProxy(b)
		b.SetBytes(downloadSize)
		t0 := cpuTime()
		defer func() { reportCPU(b, t0) }()
		for b.Loop() {
			proxied(b, addr)
		}
	})
	// pairs: every op is one direct and one proxied download, in alternating order; it reports
	// the median over the ops of proxied/direct throughput (direct time / proxied time), which
	// holds on a machine whose speed drifts between the two sub-benchmarks above.
	b.Run("pairs", func(b *testing.B) {
		addr := benchProxy(b)
		var ratios []float64
		i := 0
		for b.Loop() {
			var td, tp time.Duration
			timed := func(f func()) time.Duration { t0 := time.Now(); f(); return time.Since(t0) }
			if i%2 == 0 {
				td = timed(func() { direct(b) })
				tp = timed(func() { proxied(b, addr) })
			} else {
				tp = timed(func() { proxied(b, addr) })
				td = timed(func() { direct(b) })
			}
			ratios = append(ratios, td.Seconds()/tp.Seconds())
			i++
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "proxied/direct")
	})
}

// BenchmarkNewConnection: from dial to the first byte back, for a new connection; the
// proxy's figure includes the CONNECT exchange, the decision, the resolution and its dial.
// It reports the median (p50-µs) besides the mean.
func BenchmarkNewConnection(b *testing.B) {
	port := sinkServer(b, 1)
	one := make([]byte, 1)
	measure := func(b *testing.B, open func() (net.Conn, io.Reader)) {
		var ds []time.Duration
		for b.Loop() {
			t0 := time.Now()
			c, r := open()
			c.Write([]byte{'g'})
			if _, err := io.ReadFull(r, one); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			c.Close()
		}
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	}
	b.Run("direct", func(b *testing.B) {
		measure(b, func() (net.Conn, io.Reader) {
			c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				b.Fatal(err)
			}
			return c, c
		})
	})
	b.Run("proxy", func(b *testing.B) {
		addr := benchProxy(b)
		measure(b, func() (net.Conn, io.Reader) { return tunnel(b, addr, port) })
	})
}

// TestMemory50Connections reports (it asserts nothing about the figure) the heap and
// goroutines the proxy holds for 50 open tunnels; run with -v (docs/benchmarks.md).
func TestMemory50Connections(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement")
	}
	port := sinkServer(t, 1<<30)
	addr := benchProxy(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	var conns []net.Conn
	for range 50 {
		c, br := tunnel(t, addr, port)
		c.Write([]byte{'g'})
		if _, err := io.ReadFull(br, make([]byte, 1)); err != nil { // the tunnel carries data
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()
	heap := int64(after.HeapInuse) - int64(before.HeapInuse)
	stack := int64(after.StackInuse) - int64(before.StackInuse)
	t.Logf("50 open tunnels: heap in use +%d KiB (%.1f KiB each), goroutine stacks +%d KiB, goroutines +%d (the test's sink server included: 1 per tunnel)",
		heap>>10, float64(heap)/50/1024, stack>>10, g1-g0)
	for _, c := range conns {
		c.Close()
	}
}
