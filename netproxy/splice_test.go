package netproxy

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// connPair is a connected pair of sockets of the given network ("tcp" or "unix"): a is the
// dialled end, b the accepted one.
func connPair(t *testing.T, network string) (a, b net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	a, err = net.Dial(network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-acc
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestSpliceStream copies 8 MiB plus a tail between every pairing of TCP and unix stream
// sockets with splice(2) and checks every byte and the count, and the end of file.
func TestSpliceStream(t *testing.T) {
	payload := make([]byte, 8<<20+12345)
	if _, err := rand.Read(payload); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ src, dst string }{{"tcp", "tcp"}, {"unix", "tcp"}, {"tcp", "unix"}, {"unix", "unix"}} {
		t.Run(tc.src+"→"+tc.dst, func(t *testing.T) {
			srcW, src := connPair(t, tc.src) // the test writes srcW; spliceStream reads src
			dst, dstR := connPair(t, tc.dst) // spliceStream writes dst; the test reads dstR
			go func() {
				srcW.Write(payload)
				srcW.Close()
			}()
			type result struct {
				n       int64
				handled bool
				err     error
			}
			done := make(chan result, 1)
			go func() {
				n, handled, err := spliceStream(dst, src)
				dst.Close()
				done <- result{n, handled, err}
			}()
			got, err := io.ReadAll(dstR)
			if err != nil {
				t.Fatal(err)
			}
			r := <-done
			if !r.handled || r.err != nil || r.n != int64(len(payload)) {
				t.Fatalf("spliceStream = %d, handled %v, %v; want %d, true, nil", r.n, r.handled, r.err, len(payload))
			}
			if !bytes.Equal(got, payload) {
				t.Fatalf("received %d bytes, not the %d sent (first difference at %d)", len(got), len(payload), firstDiff(got, payload))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSpliceStreamInteractive: a one-byte message is passed on at once, and the answer comes
// back the other way (nothing is held back waiting for more data).
func TestSpliceStreamInteractive(t *testing.T) {
	client, proxyIn := connPair(t, "tcp")
	proxyOut, server := connPair(t, "tcp")
	go relay(proxyIn, proxyOut)
	one := make([]byte, 1)
	for i := range 50 {
		if _, err := client.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, one); err != nil || one[0] != byte(i) {
			t.Fatalf("message %d: server read %v, %v", i, one, err)
		}
		if _, err := server.Write([]byte{byte(i) + 100}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(client, one); err != nil || one[0] != byte(i)+100 {
			t.Fatalf("answer %d: client read %v, %v", i, one, err)
		}
	}
	// Half-close: the client's end of file reaches the server, which still answers.
	client.(*net.TCPConn).CloseWrite()
	if n, err := server.Read(one); n != 0 || err != io.EOF {
		t.Fatalf("server after the client's half-close: %d, %v; want 0, EOF", n, err)
	}
	server.Write([]byte("bye"))
	server.Close()
	got, err := io.ReadAll(client)
	if err != nil || string(got) != "bye" {
		t.Fatalf("client after the server's close: %q, %v; want \"bye\"", got, err)
	}
}

// TestSpliceStreamNotSockets: between connections splice(2) cannot serve (net.Pipe, a unix
// datagram socket), spliceStream reads nothing and says so; copyStream copies them anyway.
func TestSpliceStreamNotSockets(t *testing.T) {
	pa, pb := net.Pipe()
	defer pa.Close()
	defer pb.Close()
	tcpA, tcpB := connPair(t, "tcp")
	if n, handled, err := spliceStream(tcpA, pb); handled || n != 0 || err != nil {
		t.Fatalf("spliceStream from net.Pipe = %d, %v, %v; want 0, false, nil", n, handled, err)
	}
	dir := t.TempDir()
	ga, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "g"), Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ga.Close()
	if n, handled, err := spliceStream(tcpA, ga); handled || n != 0 || err != nil {
		t.Fatalf("spliceStream from a unix datagram socket = %d, %v, %v; want 0, false, nil", n, handled, err)
	}
	go func() {
		pa.Write([]byte("through user space"))
		pa.Close()
	}()
	done := make(chan error, 1)
	go func() {
		n, err := copyStream(tcpA, pb)
		if err == nil && n != int64(len("through user space")) {
			err = errors.New("short copy")
		}
		tcpA.Close()
		done <- err
	}()
	got, err := io.ReadAll(tcpB)
	if err != nil || string(got) != "through user space" {
		t.Fatalf("copyStream from net.Pipe delivered %q, %v", got, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestSpliceStreamClosed: closing the source while the copy waits for data ends the copy with
// net.ErrClosed (Proxy.Close ends a tunnel this way). The copy is usually waiting in splice's
// poll by the time of the close; if the close came first, copyStream's fallback reports the
// same error, so the assertion holds either way and never hangs.
func TestSpliceStreamClosed(t *testing.T) {
	_, src := connPair(t, "tcp")
	dst, _ := connPair(t, "tcp")
	done := make(chan error, 1)
	go func() {
		_, err := copyStream(dst, src)
		done <- err
	}()
	src.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("copyStream after its source was closed: %v; want net.ErrClosed", err)
	}
}

// TestCopyStreamPrefixConn: the bytes an upstream proxy's tunnel already read come first, then
// the rest is spliced from its socket, and the count includes both.
func TestCopyStreamPrefixConn(t *testing.T) {
	upW, up := connPair(t, "tcp")
	dst, dstR := connPair(t, "tcp")
	src := &prefixConn{Conn: up, pre: []byte("early ")}
	go func() {
		upW.Write([]byte("and the rest"))
		upW.Close()
	}()
	done := make(chan int64, 1)
	go func() {
		n, _ := copyStream(dst, src)
		dst.Close()
		done <- n
	}()
	got, err := io.ReadAll(dstR)
	if err != nil || string(got) != "early and the rest" {
		t.Fatalf("received %q, %v; want \"early and the rest\"", got, err)
	}
	if n := <-done; n != int64(len("early and the rest")) {
		t.Fatalf("copyStream counted %d bytes, want %d", n, len("early and the rest"))
	}
}

// TestSpliceStreamPeerGone: when the destination's peer has gone, the copy ends with the
// write error (EPIPE or ECONNRESET, never a SIGPIPE that ends the process), not a hang.
func TestSpliceStreamPeerGone(t *testing.T) {
	srcW, src := connPair(t, "tcp")
	dst, dstR := connPair(t, "tcp")
	dstR.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		chunk := make([]byte, 64<<10)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := srcW.Write(chunk); err != nil {
				return
			}
		}
	}()
	_, handled, err := spliceStream(dst, src)
	if !handled || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("spliceStream to a closed peer: handled %v, %v; want EPIPE or ECONNRESET", handled, err)
	}
	srcW.Close()
}

// pipeSize is the capacity of p's pipe as the kernel reports it (F_GETPIPE_SZ).
func pipeSize(t *testing.T, p *splicePipe) int {
	t.Helper()
	n, err := unix.FcntlInt(uintptr(p.r), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSplicePipeGrowsForBulkOnly: a tunnel direction's pipe keeps the kernel's default size
// while splices move little (an idle or interactive tunnel), and grows to splicePipeSize the
// first time one fills half of it.
func TestSplicePipeGrowsForBulkOnly(t *testing.T) {
	p, err := newSplicePipe()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	def := pipeSize(t, p)
	if p.size != def {
		t.Fatalf("splicePipe.size = %d, the kernel says %d", p.size, def)
	}
	if def >= splicePipeSize {
		t.Skipf("this kernel's default pipe (%d bytes) is already %d: nothing to grow", def, splicePipeSize)
	}
	p.filled(1)
	p.filled(def/2 - 1)
	if got := pipeSize(t, p); got != def || p.grown {
		t.Fatalf("after small splices the pipe is %d bytes (grown %v); want the default %d", got, p.grown, def)
	}
	p.filled(def / 2)
	if got := pipeSize(t, p); got != splicePipeSize || p.size != splicePipeSize {
		t.Fatalf("after a half-full splice the pipe is %d bytes (size field %d); want %d", got, p.size, splicePipeSize)
	}
}
