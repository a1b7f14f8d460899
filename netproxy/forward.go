package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// DefaultForwardPort is the port Forward listens on inside a sandbox's network namespace when
// the caller has no reason to choose another (127.0.0.1:3128, the customary proxy port).
const DefaultForwardPort = 3128

// BringUpLoopback sets the "lo" interface up in the calling thread's network namespace (a new
// network namespace has lo down, so not even 127.0.0.1 works). Linux: SIOCSIFFLAGS with
// IFF_UP. Errors: the ioctl failed (no CAP_NET_ADMIN in the namespace).
func BringUpLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: SIOCGIFFLAGS: %w", err)
	}
	flags := ifr.Uint16()
	if flags&unix.IFF_UP != 0 {
		return nil
	}
	ifr.SetUint16(flags | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: SIOCSIFFLAGS: %w", err)
	}
	return nil
}

// Forwarder is the in-namespace end of the proxy: a TCP listener on 127.0.0.1 whose
// connections are copied to an endpoint's unix socket.
type Forwarder struct {
	ln     *net.TCPListener
	socket string
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// Listen brings lo up and listens on 127.0.0.1:port (0 picks a free port) in the calling
// thread's network namespace, forwarding to the unix socket at socket. Run it inside the
// sandbox's network namespace before the command starts (so the port is ready when the
// command reads its *_PROXY variables); then Serve. Errors: lo cannot be brought up, or the
// port cannot be bound.
func Listen(port int, socket string) (*Forwarder, error) {
	if err := BringUpLoopback(); err != nil {
		return nil, err
	}
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		return nil, fmt.Errorf("proxy forwarder: %w", err)
	}
	return &Forwarder{ln: ln, socket: socket, conns: map[net.Conn]struct{}{}}, nil
}

// Port is the TCP port the forwarder listens on.
func (f *Forwarder) Port() int { return f.ln.Addr().(*net.TCPAddr).Port }

// Serve accepts connections until ctx ends or Close, copying each to a new connection to the
// unix socket (a connection the socket refuses is closed at once: the client sees EOF). It
// returns nil after Close or ctx's end, else the accept error.
func (f *Forwarder) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	for {
		c, err := f.ln.AcceptTCP()
		if err != nil {
			f.mu.Lock()
			closed := f.closed
			f.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				f.wg.Wait()
				return nil
			}
			if isTimeout(err) {
				continue
			}
			return fmt.Errorf("proxy forwarder: %w", err)
		}
		if !f.add(c) {
			c.Close()
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer f.remove(c)
			f.pipe(c)
		}()
	}
}

func (f *Forwarder) add(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *Forwarder) remove(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
}

func (f *Forwarder) pipe(c *net.TCPConn) {
	defer c.Close()
	u, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: f.socket, Net: "unix"})
	if err != nil {
		return
	}
	defer u.Close()
	if !f.add(u) {
		return
	}
	defer f.remove(u)
	relay(c, u)
}

// Close stops listening and ends every forwarded connection.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	return f.ln.Close()
}

// Env returns the variables that point a command at a forwarder on 127.0.0.1:port, as "K=V":
// HTTP_PROXY and HTTPS_PROXY (http://127.0.0.1:port), ALL_PROXY (socks5h://127.0.0.1:port, so
// the proxy resolves names), and NO_PROXY=localhost,127.0.0.1,::1 (inside the namespace those
// are the sandbox's own loopback, reached directly: a test server the command starts itself),
// each also in lower case (curl reads http_proxy only in lower case; Go, Python, git and npm
// read either).
func Env(port int) []string {
	hp := "http://127.0.0.1:" + strconv.Itoa(port)
	sp := "socks5h://127.0.0.1:" + strconv.Itoa(port)
	no := "localhost,127.0.0.1,::1"
	var out []string
	for _, kv := range [][2]string{{"HTTP_PROXY", hp}, {"HTTPS_PROXY", hp}, {"ALL_PROXY", sp}, {"NO_PROXY", no}} {
		out = append(out, kv[0]+"="+kv[1])
	}
	for _, kv := range [][2]string{{"http_proxy", hp}, {"https_proxy", hp}, {"all_proxy", sp}, {"no_proxy", no}} {
		out = append(out, kv[0]+"="+kv[1])
	}
	return out
}

// EnvNames are the variables Env sets, so a policy can keep a command from overriding them.
var EnvNames = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}
