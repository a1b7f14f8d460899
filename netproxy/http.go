package netproxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
)

// httpHandler serves one endpoint's HTTP connections: CONNECT tunnels and absolute-URI
// requests, and origin-form requests when the endpoint serves a local handler (ServeLocal).
// Anything else (an origin-form request otherwise, a URI scheme other than http) is 400.
type httpHandler struct {
	ep *Endpoint
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		h.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		if lh := h.ep.local.Load(); lh != nil && !r.URL.IsAbs() {
			(*lh).ServeHTTP(w, r)
			return
		}
		refuseHTTP(w, http.StatusBadRequest, "acpterm: this is acpterm's network proxy; send CONNECT host:port or an absolute http:// URL")
		return
	}
	if r.URL.Scheme != "http" {
		refuseHTTP(w, http.StatusBadRequest, fmt.Sprintf("acpterm: the proxy forwards http:// URLs only (use CONNECT for %s://)", r.URL.Scheme))
		return
	}
	h.forward(w, r)
}

// refuseHTTP answers with status and msg as a plain-text body (what curl -v, git and pip show).
func refuseHTTP(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)+1))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

func statusFor(rf *refusal) int {
	switch rf.kind {
	case refusedPolicy:
		return http.StatusForbidden
	case refusedBad:
		return http.StatusBadRequest
	case refusedResolve, refusedDial:
		return http.StatusBadGateway
	default:
		return http.StatusServiceUnavailable
	}
}

// connect tunnels CONNECT host:port: decide, dial, answer 200, then copy both ways.
func (h *httpHandler) connect(w http.ResponseWriter, r *http.Request) {
	c := h.ep.newConn("connect")
	defer c.finish()
	host, port, err := splitHostPort(r.Host)
	if err != nil {
		c.rec.Host, c.rec.Verdict, c.rec.By, c.rec.Rule, c.rec.Error = r.Host, Deny, "proxy", "bad request", err.Error()
		refuseHTTP(w, http.StatusBadRequest, "acpterm: "+err.Error())
		return
	}
	up, rf := c.open(r.Context(), host, port)
	if rf != nil {
		refuseHTTP(w, statusFor(rf), rf.msg)
		return
	}
	defer up.Close()
	untrack := h.ep.p.trackUpstream(up)
	defer untrack()
	hj, ok := w.(http.Hijacker)
	if !ok {
		refuseHTTP(w, http.StatusInternalServerError, "acpterm: cannot tunnel on this connection")
		return
	}
	cc, brw, err := hj.Hijack()
	if err != nil {
		c.rec.Error = "hijack: " + err.Error()
		return
	}
	defer cc.Close()
	if _, err := io.WriteString(cc, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// Bytes the client sent right after its CONNECT (before our 200) are already buffered.
	var early int64
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
		early = int64(n)
	}
	client := cc
	if tc, ok := cc.(*trackedConn); ok {
		client = tc.raw // the raw socket, so relay can splice
	}
	upN, downN := relay(client, up)
	c.rec.Up, c.rec.Down = upN+early, downN
}

// forward proxies one absolute-URI request to its origin over a connection of its own
// (keep-alive stays between the client and the proxy), so each request is one record.
func (h *httpHandler) forward(w http.ResponseWriter, r *http.Request) {
	c := h.ep.newConn("http")
	defer c.finish()
	port := 80
	if ps := r.URL.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil {
			refuseHTTP(w, http.StatusBadRequest, "acpterm: bad port in "+r.URL.Host)
			return
		}
		port = n
	}
	up, rf := c.open(r.Context(), r.URL.Hostname(), port)
	if rf != nil {
		refuseHTTP(w, statusFor(rf), rf.msg)
		return
	}
	untrack := h.ep.p.trackUpstream(up)
	defer untrack()
	cu := &countingConn{Conn: up}
	used := false
	var viaProxy func(*http.Request) (*url.URL, error) // the user's own proxy, in absolute form
	if c.via != nil {
		viaProxy = http.ProxyURL(c.via)
	}
	tr := &http.Transport{
		Proxy: viaProxy,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if used {
				return nil, fmt.Errorf("acpterm: one upstream connection per request")
			}
			used = true
			return cu, nil
		},
		DisableKeepAlives:  true,
		DisableCompression: true,
		MaxIdleConns:       -1,
	}
	defer tr.CloseIdleConnections()
	var proxyErr atomic.Value
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.Host = r.Host
		},
		Transport: tr,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			proxyErr.Store(err.Error())
			refuseHTTP(w, http.StatusBadGateway, "acpterm: "+err.Error())
		},
		ErrorLog:   h.ep.p.errLog,
		BufferPool: bodyBuffers,
	}
	// Deferred: ReverseProxy aborts the handler (panics with http.ErrAbortHandler) when the copy
	// of a body fails, and the record still gets the bytes moved until then.
	defer func() {
		cu.Close()
		c.rec.Up, c.rec.Down = cu.written.Load(), cu.read.Load()
		if e, ok := proxyErr.Load().(string); ok {
			c.rec.Error = e
		}
	}()
	rp.ServeHTTP(w, r)
}

// bodyBufferSize is the buffer (bytes) a forwarded request's body and response body are copied
// through: ReverseProxy's own default, 32 KiB, makes a 200 MB download 6 400 reads and 6 400
// writes, and the proxy's CPU per byte several times a tunnel's.
const bodyBufferSize = 256 << 10

// bodyBuffers are the copy buffers of forwarded requests (httputil.BufferPool).
var bodyBuffers = &bufferPool{p: sync.Pool{New: func() any { b := make([]byte, bodyBufferSize); return &b }}}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte  { return *b.p.Get().(*[]byte) }
func (b *bufferPool) Put(s []byte) { b.p.Put(&s) }

// countingConn counts the bytes read from and written to a connection.
type countingConn struct {
	net.Conn
	read, written atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read.Add(int64(n))
	return n, err
}

// Write counts before writing: net/http writes from a goroutine of its own, which may not
// have run again after the write by the time the response is read and the count is taken.
func (c *countingConn) Write(b []byte) (int, error) {
	c.written.Add(int64(len(b)))
	n, err := c.Conn.Write(b)
	if n < len(b) {
		c.written.Add(int64(n - len(b)))
	}
	return n, err
}

// trackUpstream registers an upstream connection so Proxy.Close ends it; the returned func
// unregisters it.
func (p *Proxy) trackUpstream(c net.Conn) func() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.Close()
		return func() {}
	}
	p.ups[c] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.ups, c)
		p.mu.Unlock()
	}
}
