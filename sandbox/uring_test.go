package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uringParams is struct io_uring_params (Linux: include/uapi/linux/io_uring.h), 120 bytes.
type uringParams struct {
	SQEntries, CQEntries, Flags, SQThreadCPU, SQThreadIdle, Features, WQFd uint32
	Resv                                                                   [3]uint32
	SQOff                                                                  struct {
		Head, Tail, RingMask, RingEntries, Flags, Dropped, Array, Resv1 uint32
		UserAddr                                                        uint64
	}
	CQOff struct {
		Head, Tail, RingMask, RingEntries, Overflow, CQEs, Flags, Resv1 uint32
		UserAddr                                                        uint64
	}
}

// uringSQE is struct io_uring_sqe (64 bytes) with the fields IORING_OP_SOCKET uses.
type uringSQE struct {
	Opcode, Flags uint8
	Ioprio        uint16
	Fd            int32  // the socket's domain
	Off           uint64 // its type
	Addr          uint64
	Len           uint32 // its protocol
	RWFlags       uint32
	UserData      uint64
	BufIndex      uint16
	Personality   uint16
	FileIndex     uint32
	Addr3, Pad2   uint64
}

// uringSocket creates a socket of domain and type through io_uring's IORING_OP_SOCKET
// (Linux 5.19), without the socket system call: a ring of one entry, one submission, one
// completion. It returns the new descriptor, or the step that failed ("setup: EPERM").
func uringSocket(domain, typ int) (int, error) {
	const opSocket = 45 // IORING_OP_SOCKET
	var p uringParams
	r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return -1, fmt.Errorf("setup: %s", unix.ErrnoName(e))
	}
	ring := int(r)
	defer unix.Close(ring)
	sq, err := unix.Mmap(ring, 0, int(p.SQOff.Array+p.SQEntries*4), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap sq: %v", err)
	}
	defer unix.Munmap(sq)
	cq, err := unix.Mmap(ring, 0x8000000, int(p.CQOff.CQEs+p.CQEntries*16), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap cq: %v", err)
	}
	defer unix.Munmap(cq)
	sqes, err := unix.Mmap(ring, 0x10000000, int(p.SQEntries)*64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap sqes: %v", err)
	}
	defer unix.Munmap(sqes)
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	*(*uringSQE)(unsafe.Pointer(&sqes[0])) = uringSQE{Opcode: opSocket, Fd: int32(domain), Off: uint64(typ), UserData: 1}
	tail := atomic.LoadUint32(u32(sq, p.SQOff.Tail))
	*u32(sq, p.SQOff.Array+(tail&*u32(sq, p.SQOff.RingMask))*4) = 0
	atomic.StoreUint32(u32(sq, p.SQOff.Tail), tail+1)
	const enterGetEvents = 1 // IORING_ENTER_GETEVENTS
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(ring), 1, 1, enterGetEvents, 0, 0); e != 0 {
		return -1, fmt.Errorf("enter: %s", unix.ErrnoName(e))
	}
	head := atomic.LoadUint32(u32(cq, p.CQOff.Head))
	if head == atomic.LoadUint32(u32(cq, p.CQOff.Tail)) {
		return -1, errors.New("no completion")
	}
	cqe := p.CQOff.CQEs + (head&*u32(cq, p.CQOff.RingMask))*16
	res := int32(*u32(cq, cqe+8))
	atomic.StoreUint32(u32(cq, p.CQOff.Head), head+1)
	if res < 0 {
		return -1, fmt.Errorf("socket op: %s", unix.ErrnoName(unix.Errno(-res)))
	}
	return int(res), nil
}

// uringAttempt is the escape a sandboxed test program tries (SBX_URING_ATTEMPT=PATH): an
// AF_UNIX socket made by io_uring, connected to the unix listener at PATH, which writes
// "reached" to it. It prints one line: "uring connected" when the listener was reached,
// else the step that failed.
func uringAttempt(path string) int {
	fd, err := uringSocket(unix.AF_UNIX, unix.SOCK_STREAM)
	if err != nil {
		fmt.Println("uring", err)
		return 0
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		fmt.Println("uring connect:", unix.ErrnoName(err.(unix.Errno)))
		return 0
	}
	if _, err := unix.Write(fd, []byte("reached")); err != nil {
		fmt.Println("uring write:", err)
		return 0
	}
	fmt.Println("uring connected")
	return 0
}

// TestIOUringUnixSocketRefused: a sandboxed program cannot reach a unix listener outside
// through a socket io_uring made (IORING_OP_SOCKET skips socket(2), whose AF_UNIX rule is
// the only thing keeping path sockets out with network off or proxy). The same program run
// outside the sandbox does reach it, so the attempt is a real one; with network on
// (where socket(2) may make unix sockets) io_uring is refused as well.
func TestIOUringUnixSocketRefused(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "victim.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	reached := make(chan string, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b := make([]byte, 16)
			n, _ := c.Read(b)
			c.Close()
			reached <- string(b[:n])
		}
	}()
	run := func(spec *Spec) string {
		t.Helper()
		cmd := exec.Command("/proc/self/exe")
		cmd.Path, _ = os.Executable()
		cmd.Env = append(os.Environ(), "SBX_URING_ATTEMPT="+sock)
		root := t.TempDir()
		cmd.Dir = root
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if spec == nil {
			if err := cmd.Run(); err != nil {
				t.Fatalf("unsandboxed: %v %s", err, out.String())
			}
			return strings.TrimSpace(out.String())
		}
		spec.Roots, spec.TempDir = []string{root}, t.TempDir()
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Fatalf("sandboxed exit %+v %v: %s", st, ok, out.String())
		}
		if !p.Report().Layers.Seccomp {
			t.Fatalf("seccomp not in force: %+v", p.Report())
		}
		return strings.TrimSpace(out.String())
	}
	if got := run(nil); got != "uring connected" {
		t.Fatalf("outside the sandbox the io_uring socket printed %q, want \"uring connected\" (the attempt itself is broken)", got)
	}
	if got := <-reached; got != "reached" {
		t.Fatalf("listener got %q", got)
	}
	for _, n := range []Network{NetworkOff, NetworkProxy, NetworkOn} {
		got := run(&Spec{Mode: ModeRequired, Network: n, Seccomp: true})
		if got != "uring setup: EPERM" {
			t.Errorf("network %s: the sandboxed io_uring attempt printed %q, want \"uring setup: EPERM\"", n, got)
		}
	}
	select {
	case got := <-reached:
		t.Errorf("a sandboxed program reached the unix listener outside (%q)", got)
	default:
	}
}
