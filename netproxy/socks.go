package netproxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 (RFC 1928) constants.
const (
	socksVersion = 0x05

	socksNoAuth       = 0x00
	socksNoAcceptable = 0xff

	socksCmdConnect = 0x01

	socksAtypIPv4   = 0x01
	socksAtypDomain = 0x03
	socksAtypIPv6   = 0x04

	socksSucceeded          = 0x00
	socksGeneralFailure     = 0x01
	socksNotAllowed         = 0x02 // "connection not allowed by ruleset"
	socksHostUnreachable    = 0x04
	socksConnRefused        = 0x05
	socksCmdNotSupported    = 0x07
	socksAddrTypeNotSupport = 0x08
)

// serveSOCKS handles one SOCKS5 connection: greeting (no authentication), one CONNECT
// request, the reply, then the tunnel.
func (ep *Endpoint) serveSOCKS(cl net.Conn) {
	c := ep.newConn("socks5")
	defer c.finish()
	_ = cl.SetReadDeadline(time.Now().Add(time.Minute))
	host, port, rep, err := readSOCKSRequest(cl)
	if err != nil {
		c.rec.Host, c.rec.Port = host, port
		c.rec.Verdict, c.rec.By, c.rec.Rule, c.rec.Error = Deny, "proxy", "bad request", err.Error()
		if id, ierr := ep.identityNow(); ierr == nil {
			c.rec.Identity = id
		}
		if rep != 0 {
			_ = writeSOCKSReply(cl, rep, netip.AddrPort{})
		}
		return
	}
	_ = cl.SetReadDeadline(time.Time{})

	// The client waits for the reply; if it hangs up meanwhile (a held question), the
	// question is withdrawn. A byte it sends early is kept for the destination.
	ctx, cancel := context.WithCancel(ep.p.ctx)
	defer cancel()
	var early [1]byte
	earlyN := 0
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		n, err := cl.Read(early[:])
		earlyN = n
		if err != nil && !errors.Is(err, errDeadline) && !isTimeout(err) {
			cancel()
		}
	}()
	up, rf := c.open(ctx, host, port)
	_ = cl.SetReadDeadline(time.Now())
	<-watched
	_ = cl.SetReadDeadline(time.Time{})
	if rf != nil {
		_ = writeSOCKSReply(cl, socksReplyFor(rf), netip.AddrPort{})
		return
	}
	defer up.Close()
	untrack := ep.p.trackUpstream(up)
	defer untrack()
	if ctx.Err() != nil {
		c.rec.Error = "the client went away"
		return
	}
	bound, _ := netip.ParseAddrPort(up.LocalAddr().String())
	if err := writeSOCKSReply(cl, socksSucceeded, bound); err != nil {
		return
	}
	if earlyN > 0 {
		if _, err := up.Write(early[:earlyN]); err != nil {
			return
		}
	}
	upN, downN := relay(cl, up)
	c.rec.Up, c.rec.Down = upN+int64(earlyN), downN
}

var errDeadline = errors.New("deadline")

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// identityNow is the endpoint's identity if it is bound already.
func (ep *Endpoint) identityNow() (Identity, error) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if !ep.isBound {
		return Identity{}, errors.New("unbound")
	}
	return ep.id, nil
}

func socksReplyFor(rf *refusal) byte {
	switch rf.kind {
	case refusedPolicy:
		return socksNotAllowed
	case refusedResolve:
		return socksHostUnreachable
	case refusedDial:
		return socksConnRefused
	default:
		return socksGeneralFailure
	}
}

// readSOCKSRequest reads the greeting (answering it) and the request. On error, rep is the
// reply to send (0: none, the greeting failed).
func readSOCKSRequest(rw io.ReadWriter) (host string, port int, rep byte, err error) {
	var hdr [2]byte
	if _, err := io.ReadFull(rw, hdr[:]); err != nil {
		return "", 0, 0, fmt.Errorf("socks5 greeting: %v", err)
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(rw, methods); err != nil {
		return "", 0, 0, fmt.Errorf("socks5 greeting: %v", err)
	}
	noAuth := false
	for _, m := range methods {
		if m == socksNoAuth {
			noAuth = true
		}
	}
	if !noAuth {
		_, _ = rw.Write([]byte{socksVersion, socksNoAcceptable})
		return "", 0, 0, errors.New("socks5: the client offers no method without authentication")
	}
	if _, err := rw.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return "", 0, 0, err
	}
	var req [4]byte
	if _, err := io.ReadFull(rw, req[:]); err != nil {
		return "", 0, 0, fmt.Errorf("socks5 request: %v", err)
	}
	if req[0] != socksVersion {
		return "", 0, socksGeneralFailure, fmt.Errorf("socks5 request: version %d", req[0])
	}
	switch req[3] {
	case socksAtypIPv4:
		var b [4]byte
		if _, err := io.ReadFull(rw, b[:]); err != nil {
			return "", 0, 0, fmt.Errorf("socks5 request: %v", err)
		}
		host = netip.AddrFrom4(b).String()
	case socksAtypIPv6:
		var b [16]byte
		if _, err := io.ReadFull(rw, b[:]); err != nil {
			return "", 0, 0, fmt.Errorf("socks5 request: %v", err)
		}
		host = netip.AddrFrom16(b).String()
	case socksAtypDomain:
		var n [1]byte
		if _, err := io.ReadFull(rw, n[:]); err != nil {
			return "", 0, 0, fmt.Errorf("socks5 request: %v", err)
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(rw, b); err != nil {
			return "", 0, 0, fmt.Errorf("socks5 request: %v", err)
		}
		host = string(b)
	default:
		return "", 0, socksAddrTypeNotSupport, fmt.Errorf("socks5 request: address type %d", req[3])
	}
	var pb [2]byte
	if _, err := io.ReadFull(rw, pb[:]); err != nil {
		return host, 0, 0, fmt.Errorf("socks5 request: %v", err)
	}
	port = int(binary.BigEndian.Uint16(pb[:]))
	if req[1] != socksCmdConnect {
		return host, port, socksCmdNotSupported, fmt.Errorf("socks5: command %d is not supported (CONNECT only)", req[1])
	}
	return host, port, 0, nil
}

// writeSOCKSReply sends a reply with the bound address (0.0.0.0:0 when unknown or IPv6-less).
func writeSOCKSReply(w io.Writer, rep byte, bound netip.AddrPort) error {
	b := []byte{socksVersion, rep, 0}
	a := bound.Addr().Unmap()
	switch {
	case a.Is4():
		v := a.As4()
		b = append(b, socksAtypIPv4)
		b = append(b, v[:]...)
	case a.Is6():
		v := a.As16()
		b = append(b, socksAtypIPv6)
		b = append(b, v[:]...)
	default:
		b = append(b, socksAtypIPv4, 0, 0, 0, 0)
	}
	b = binary.BigEndian.AppendUint16(b, bound.Port())
	_, err := w.Write(b)
	return err
}
