package netproxy

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

func recvPeek(fd int, b []byte) (int, error) {
	n, _, err := unix.Recvfrom(fd, b, unix.MSG_PEEK)
	return n, err
}

func isEAGAIN(err error) bool { return errors.Is(err, unix.EAGAIN) }

// trackedConn is a client connection handed to net/http; done runs once when it is closed.
// raw is the socket itself (*net.UnixConn or *net.TCPConn), for splicing a tunnel.
type trackedConn struct {
	net.Conn
	raw  net.Conn
	once sync.Once
	done func()
}

// Close closes the socket and runs done once.
func (t *trackedConn) Close() error {
	err := t.Conn.Close()
	t.once.Do(t.done)
	return err
}

// connListener is a net.Listener fed by put: it hands the HTTP connections an endpoint
// accepted (after the protocol was detected) to its http.Server.
type connListener struct {
	addr   net.Addr
	ch     chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), closed: make(chan struct{})}
}

// put hands c to Accept; false when the listener is closed.
func (l *connListener) put(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.closed:
		return false
	}
}

// Accept returns the next connection put, or net.ErrClosed once closed.
func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close makes Accept return net.ErrClosed.
func (l *connListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the endpoint's socket address.
func (l *connListener) Addr() net.Addr { return l.addr }

// halfCloser is a connection whose write side can be shut down alone (TCP, unix stream).
type halfCloser interface {
	CloseWrite() error
}

// relay copies both ways between client and upstream until both directions ended, closing the
// write side of each destination when its source reached EOF. It returns the bytes copied
// client→upstream (up) and upstream→client (down). Between *net.TCPConn or *net.UnixConn
// sockets each direction is one splice(2) loop (copyStream), so the payload never passes
// through user space.
func relay(client, upstream net.Conn) (up, down int64) {
	var wg sync.WaitGroup
	var upN atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, _ := copyStream(upstream, client)
		upN.Store(n)
		if hc, ok := upstream.(halfCloser); ok {
			_ = hc.CloseWrite()
		} else {
			upstream.Close()
		}
	}()
	down, _ = copyStream(client, upstream)
	if hc, ok := client.(halfCloser); ok {
		_ = hc.CloseWrite()
	} else {
		client.Close()
	}
	wg.Wait()
	return upN.Load(), down
}
