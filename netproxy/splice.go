package netproxy

import (
	"errors"
	"io"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// copyStream copies src to dst until src's end of file and returns the bytes copied: with
// spliceStream when both are sockets splice(2) works on, else with io.Copy. A tunnel through
// an upstream proxy that already holds bytes of the destination (*prefixConn) has them written
// first, then its socket is spliced like any other.
func copyStream(dst, src net.Conn) (int64, error) {
	var pre int64
	if pc, ok := src.(*prefixConn); ok {
		if len(pc.pre) > 0 {
			k, err := dst.Write(pc.pre)
			pc.pre = pc.pre[k:]
			if pre = int64(k); err != nil {
				return pre, err
			}
		}
		src = pc.Conn
	}
	if n, handled, err := spliceStream(dst, src); handled {
		return pre + n, err
	}
	n, err := io.Copy(dst, src)
	return pre + n, err
}

// splicePipeSize is what a tunnel direction's pipe grows to once it carries bulk data (bytes):
// 1 MiB, the default /proc/sys/fs/pipe-max-size, so one splice(2) call moves up to 1 MiB.
const splicePipeSize = 1 << 20

// splicePipe is one tunnel direction's pipe. It starts at the kernel's default size (64 KiB)
// and grows to splicePipeSize the first time a splice fills half of it: pipe capacity counts
// against the user's fs.pipe-user-pages-soft (64 MiB by default) whether or not data is in
// flight, and past that limit every new pipe of the user, in any program, gets two pages only.
// With every pipe at 1 MiB, 32 open tunnels (two pipes each) were enough; idle and interactive
// tunnels now keep the default size.
type splicePipe struct {
	r, w  int
	size  int  // capacity in bytes (F_GETPIPE_SZ)
	grown bool // the grow was tried (it may have been refused)
}

func newSplicePipe() (*splicePipe, error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	p := &splicePipe{r: fds[0], w: fds[1], size: 64 << 10}
	if n, err := unix.FcntlInt(uintptr(p.r), unix.F_GETPIPE_SZ, 0); err == nil {
		p.size = n
	}
	return p, nil
}

// filled notes that a splice put n bytes into the pipe; the first time that is half its
// capacity or more, the pipe grows (a refusal, e.g. past the user's limit, leaves it as is).
func (p *splicePipe) filled(n int) {
	if p.grown || n*2 < p.size || p.size >= splicePipeSize {
		return
	}
	p.grown = true
	if got, err := unix.FcntlInt(uintptr(p.r), unix.F_SETPIPE_SZ, splicePipeSize); err == nil {
		p.size = got
	}
}

func (p *splicePipe) close() {
	unix.Close(p.r)
	unix.Close(p.w)
}

// spliceFlags are the splice(2) flags: never wait (both sockets are non-blocking as Go makes
// them, and the pipe is too), and move pages rather than copy them where the kernel can.
const spliceFlags = unix.SPLICE_F_NONBLOCK | unix.SPLICE_F_MOVE

// spliceStream moves everything src sends to dst through a pipe of its own with splice(2): the
// payload stays in the kernel (socket → pipe → socket, page references, no copy to user space).
// It returns handled=false, having read nothing, when either end is not a socket splice works on
// (net.Pipe, a TLS or wrapped connection; the caller copies instead).
//
// It is what io.Copy between two *net.TCPConn does (internal/poll.Splice), with one
// difference measured to matter (docs/benchmarks.md, "network proxy"): each splice call is a
// raw system call, made without telling the Go scheduler that the goroutine entered the kernel.
// Every call here is non-blocking and bounded by the pipe (at most 1 MiB), so it returns in well under a
// millisecond; announced as an ordinary system call, each of those calls was long enough for
// the runtime's monitor thread to take the goroutine's P away and hand it back, and that churn
// (sysmon wake-ups, futex hand-offs) was a fifth of the proxy's CPU per byte tunnelled. Waiting
// for data or for room still goes through the runtime's poller (RawConn.Read/Write), so a close
// or a deadline ends the copy as it ends any read.
func spliceStream(dst, src net.Conn) (n int64, handled bool, err error) {
	dc, ok1 := dst.(syscall.Conn)
	sc, ok2 := src.(syscall.Conn)
	if !ok1 || !ok2 || !spliceable(dst) || !spliceable(src) {
		return 0, false, nil
	}
	drc, err := dc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	src2, err := sc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	p, err := newSplicePipe()
	if err != nil {
		return 0, false, nil
	}
	defer p.close()
	for {
		var in int
		var serr error
		rerr := src2.Read(func(fd uintptr) bool {
			for {
				r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, fd, 0, uintptr(p.w), 0, uintptr(p.size), spliceFlags)
				switch e {
				case unix.EINTR:
					continue
				case unix.EAGAIN:
					return false // nothing to read yet: wait in the poller
				case 0:
					in = int(r)
				default:
					serr = e
				}
				return true
			}
		})
		if rerr != nil {
			return n, true, rerr
		}
		if serr != nil {
			if n == 0 && errors.Is(serr, unix.EINVAL) {
				return 0, false, nil // the kernel cannot splice from src; nothing was read
			}
			return n, true, serr
		}
		if in == 0 {
			return n, true, nil // end of file
		}
		p.filled(in)
		werr := drc.Write(func(fd uintptr) bool {
			for in > 0 {
				r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, uintptr(p.r), 0, fd, 0, uintptr(in), spliceFlags)
				switch e {
				case unix.EINTR:
					continue
				case unix.EAGAIN:
					return false // dst's buffer is full: wait in the poller
				case 0:
					in -= int(r)
					n += int64(r)
				default:
					serr = e
					return true
				}
			}
			return true
		})
		if werr != nil {
			return n, true, werr
		}
		if serr != nil {
			return n, true, serr
		}
	}
}

// spliceable reports whether c is a socket splice(2) reads and writes: TCP, or a unix stream
// socket.
func spliceable(c net.Conn) bool {
	switch c := c.(type) {
	case *net.TCPConn:
		return true
	case *net.UnixConn:
		rc, err := c.SyscallConn()
		if err != nil {
			return false
		}
		typ := -1
		if err := rc.Control(func(fd uintptr) {
			if t, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TYPE); err == nil {
				typ = t
			}
		}); err != nil {
			return false
		}
		return typ == unix.SOCK_STREAM
	}
	return false
}
