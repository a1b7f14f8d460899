package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// dgramAttempt is what a sandboxed test program tries (SBX_DGRAM_PATH=PATH): make a unix
// socket pair of each datagram type (SOCK_DGRAM, SOCK_DGRAM|SOCK_NONBLOCK, SOCK_RAW) and
// send a datagram from it to the socket at PATH, then make a stream pair (which must work).
// It prints one line per attempt: "TYPE sent", "TYPE socketpair: ERRNO", "TYPE sendto: ERRNO";
// "stream ok" or "stream socketpair: ERRNO".
func dgramAttempt(path string) int {
	for _, c := range []struct {
		name string
		typ  int
	}{{"dgram", unix.SOCK_DGRAM}, {"dgram-nonblock", unix.SOCK_DGRAM | unix.SOCK_NONBLOCK}, {"raw", unix.SOCK_RAW}} {
		fds, err := unix.Socketpair(unix.AF_UNIX, c.typ|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println(c.name, "socketpair:", unix.ErrnoName(err.(unix.Errno)))
			continue
		}
		err = unix.Sendto(fds[0], []byte(c.name), 0, &unix.SockaddrUnix{Name: path})
		unix.Close(fds[0])
		unix.Close(fds[1])
		if err != nil {
			fmt.Println(c.name, "sendto:", unix.ErrnoName(err.(unix.Errno)))
			continue
		}
		fmt.Println(c.name, "sent")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Println("stream socketpair:", unix.ErrnoName(err.(unix.Errno)))
		return 0
	}
	unix.Close(fds[0])
	unix.Close(fds[1])
	fmt.Println("stream ok")
	return 0
}

// TestDatagramPairCannotReachOutside: with network off or proxy a sandboxed program cannot
// send to a unix datagram socket outside through a socket pair (a datagram pair's sendto
// takes any path, as the user's journald socket): socketpair of a datagram type is refused;
// a stream pair still works. Outside the sandbox the same program's datagrams arrive.
func TestDatagramPairCannotReachOutside(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "dgram.sock")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 16)
	go func() {
		b := make([]byte, 64)
		for {
			n, _, err := l.ReadFrom(b)
			if err != nil {
				return
			}
			got <- string(b[:n])
		}
	}()
	run := func(spec *Spec) string {
		t.Helper()
		cmd := exec.Command("/proc/self/exe")
		cmd.Path, _ = os.Executable()
		cmd.Env = append(os.Environ(), "SBX_DGRAM_PATH="+sock)
		root := t.TempDir()
		cmd.Dir = root
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if spec == nil {
			if err := cmd.Run(); err != nil {
				t.Fatalf("unsandboxed: %v %s", err, out.String())
			}
			return out.String()
		}
		spec.Roots, spec.TempDir = []string{root}, t.TempDir()
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if ln := p.Listener(); ln != nil {
			ln.Close()
		}
		_ = cmd.Wait()
		if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Fatalf("sandboxed exit %+v %v: %s", st, ok, out.String())
		}
		return out.String()
	}
	if out := run(nil); out != "dgram sent\ndgram-nonblock sent\nraw sent\nstream ok\n" {
		t.Fatalf("outside the sandbox the attempt printed %q (the attempt itself is broken)", out)
	}
	for i := 0; i < 3; i++ {
		<-got
	}
	want := "dgram socketpair: EPERM\ndgram-nonblock socketpair: EPERM\nraw socketpair: EPERM\nstream ok\n"
	for _, n := range []Network{NetworkOff, NetworkProxy} {
		if out := run(&Spec{Mode: ModeRequired, Network: n, Seccomp: true}); out != want {
			t.Errorf("network %s: the sandboxed attempt printed\n%s\nwant\n%s", n, out, want)
		}
	}
	select {
	case m := <-got:
		t.Errorf("a sandboxed program's datagram reached the socket outside (%q)", m)
	default:
	}
}
