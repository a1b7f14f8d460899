package netproxy

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Verdict is a decision about one connection: Allow dials, Deny refuses, Ask holds the
// connection while Options.Ask gets an answer.
type Verdict string

// The verdicts.
const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Identity says whose connection it is: a terminal's command, or the agent.
type Identity struct {
	// Terminal is the terminal id ("term-3"); "" for the agent.
	Terminal string
	// Agent reports that the connection is the agent's own.
	Agent bool
	// Label is the program as a person reads it: the terminal's command line, or the agent's
	// name.
	Label string
}

// String is "terminal term-3" or "agent".
func (i Identity) String() string {
	if i.Agent {
		return "agent"
	}
	if i.Terminal == "" {
		return "unbound endpoint"
	}
	return "terminal " + i.Terminal
}

// Request is one new connection to decide.
type Request struct {
	// Identity is whose connection it is (the endpoint it arrived on).
	Identity Identity
	// Host is the host the client asked for: a lower-case name without a trailing dot, or an
	// IP literal (IPv6 without brackets).
	Host string
	// Port is the destination port (1–65535).
	Port int
	// Protocol is how the client asked: "connect" (HTTP CONNECT), "http" (an absolute-URI
	// request) or "socks5".
	Protocol string
	// Addrs are the host's addresses as resolved (Options.Ask only; nil for Options.Decide).
	// They are all public: a non-public one is refused before anyone is asked.
	Addrs []netip.Addr
}

// HostPort is "host:port" (IPv6 in brackets).
func (r Request) HostPort() string { return net.JoinHostPort(r.Host, strconv.Itoa(r.Port)) }

// Decision is a verdict and who or what made it.
type Decision struct {
	// Verdict is allow, ask or deny. Options.Ask must return allow or deny.
	Verdict Verdict
	// By is who decided: "policy", "grant", "user", "approve-flag" (headless --approve),
	// "cancel" (the question was withdrawn), or "proxy" (the proxy itself: a non-public address,
	// a bad request).
	By string
	// Rule is the deciding rule as a person reads it: "allow: proxy.golang.org",
	// "[policy.network] unmatched", "grant: host example.com", "non-public address".
	Rule string
	// NamesHost reports that the rule that allowed the connection names exactly this host (no
	// wildcard, no "unmatched"), so addresses outside the public internet are allowed too.
	NamesHost bool
}

// Record is one connection, reported to Options.Audit when it ends (at once when refused).
type Record struct {
	// Time is when the connection was accepted.
	Time time.Time
	// Identity is whose connection it was.
	Identity Identity
	// Host, Port and Protocol are what the client asked for (see Request); Host is "" when
	// the request could not be parsed.
	Host     string
	Port     int
	Protocol string
	// Addr is the address dialed; zero when nothing was dialed or the connection went through
	// an upstream proxy.
	Addr netip.AddrPort
	// Via is the upstream proxy the connection went through (Options.Upstream), without its
	// password; "" when it was dialled directly.
	Via string
	// Verdict is the final verdict (allow or deny); By and Rule say who and which rule.
	Verdict Verdict
	By      string
	Rule    string
	// Error says why an allowed connection failed (resolution, dial), or why a request was
	// refused before any decision (a malformed request); "" otherwise.
	Error string
	// Up is the bytes sent from the client to the destination, Down the bytes back (the tunnel
	// payload; for plain HTTP the request and response as forwarded, headers included).
	Up, Down int64
	// Duration is how long the connection lasted (from accept to close), including any wait for
	// an answer.
	Duration time.Duration
}

// Resolver looks up a host's addresses. *net.Resolver implements it.
type Resolver interface {
	// LookupNetIP returns the addresses of host; network is "ip".
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Proxy.
type Options struct {
	// Dir is where the proxy's private directory is made; "" means os.TempDir(). Unix socket
	// paths are limited to 107 bytes, so keep it short.
	Dir string
	// Decide judges a connection by its host name and port, before resolution. It must not
	// block for long (no questions): return Ask and Options.Ask asks. Required.
	Decide func(Request) Decision
	// Ask gets a live answer for a connection Decide said Ask about; it blocks while the
	// connection is held, and must return when ctx is done (the client went away or the proxy
	// closed), with By "cancel". It returns an allow or deny Decision. nil means Ask is Deny.
	Ask func(ctx context.Context, r Request, d Decision) Decision
	// Audit receives a Record for every connection when it ends. It must not block for long.
	Audit func(Record)
	// Resolver resolves host names; nil means net.DefaultResolver (the system's).
	Resolver Resolver
	// DialTimeout bounds each dial; 0 means 30 s.
	DialTimeout time.Duration
	// Upstream, when set, names the proxy acpterm itself must use to reach a destination (the
	// user's own HTTPS_PROXY behind a corporate firewall: EnvUpstream); nil dials directly.
	// The policy still decides by the host name the client asked for; a name that does not
	// resolve locally is then left to the upstream proxy to resolve.
	Upstream UpstreamFunc
	// Logf receives diagnostics (never the TUI's screen); nil discards them.
	Logf func(format string, args ...any)
}

// Proxy is the egress proxy: endpoints (one unix socket each) in one private directory.
// Safe for concurrent use.
type Proxy struct {
	o   Options
	dir string

	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	seq    int
	eps    map[*Endpoint]struct{}
	conns  map[net.Conn]struct{} // client connections
	ups    map[net.Conn]struct{} // upstream connections
	wg     sync.WaitGroup
	errLog *log.Logger // net/http's own complaints, to Logf
}

// New makes the proxy's private directory (mode 0700) under o.Dir. Errors: o.Decide is nil, or
// the directory cannot be made.
func New(o Options) (*Proxy, error) {
	if o.Decide == nil {
		return nil, errors.New("netproxy: Options.Decide is required")
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 30 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	parent := o.Dir
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "acpterm-net-")
	if err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{o: o, dir: dir, ctx: ctx, cancel: cancel, eps: map[*Endpoint]struct{}{},
		conns: map[net.Conn]struct{}{}, ups: map[net.Conn]struct{}{}}
	p.errLog = log.New(logfWriter(o.Logf), "netproxy: ", 0)
	return p, nil
}

// Dir is the proxy's private directory.
func (p *Proxy) Dir() string { return p.dir }

// Close stops every endpoint, ends every connection (pending questions are withdrawn: their
// ctx is done), waits for the connection goroutines, and removes the directory.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	eps := make([]*Endpoint, 0, len(p.eps))
	for ep := range p.eps {
		eps = append(eps, ep)
	}
	for c := range p.conns {
		c.Close()
	}
	for c := range p.ups {
		c.Close()
	}
	p.mu.Unlock()
	p.cancel()
	for _, ep := range eps {
		ep.Close()
	}
	p.wg.Wait()
	return os.RemoveAll(p.dir)
}

// Endpoint is one unix socket of the proxy, bound to one Identity.
type Endpoint struct {
	p    *Proxy
	dir  string
	path string
	ln   net.Listener // the endpoint's socket, or a listener handed to Serve
	srv  *http.Server
	hl   *connListener // feeds HTTP connections to srv
	// local serves origin-form requests (ServeLocal); nil: they are 400.
	local atomic.Pointer[http.Handler]

	mu      sync.Mutex
	id      Identity
	bound   chan struct{} // closed by Bind (or Close)
	isBound bool
	closed  bool
}

// NewEndpoint makes a new socket, in a subdirectory of its own (mode 0700, so a sandbox can
// make exactly that directory reachable), for connections of id. id may be completed later with
// Bind (a terminal's id is known only once it started); connections wait until then. Pass
// bound=true when id is already complete. Errors: the proxy is closed, or the socket cannot be
// made.
func (p *Proxy) NewEndpoint(id Identity, bound bool) (*Endpoint, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("netproxy: proxy closed")
	}
	p.seq++
	n := p.seq
	p.mu.Unlock()
	dir := filepath.Join(p.dir, "ep"+strconv.Itoa(n))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	path := filepath.Join(dir, "proxy.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("netproxy: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	ep, err := p.start(id, bound, ln, dir, path)
	if err != nil {
		os.RemoveAll(dir)
	}
	return ep, err
}

// Serve makes an endpoint for id from a listener the caller already has: a TCP listener
// on 127.0.0.1 inside a sandbox's network namespace, made there and handed to acpterm (the
// sandbox helper passes its descriptor back), so the command's connections reach the proxy
// with no unix socket inside the sandbox. The endpoint owns ln (Close closes it); it has no
// SocketPath. Error: the proxy is closed (ln is closed then too).
func (p *Proxy) Serve(id Identity, ln net.Listener) (*Endpoint, error) {
	return p.start(id, true, ln, "", "")
}

func (p *Proxy) start(id Identity, bound bool, ln net.Listener, dir, path string) (*Endpoint, error) {
	ep := &Endpoint{p: p, dir: dir, path: path, ln: ln, id: id, bound: make(chan struct{})}
	if bound {
		ep.isBound = true
		close(ep.bound)
	}
	ep.hl = newConnListener(ln.Addr())
	ep.srv = &http.Server{
		Handler:           &httpHandler{ep: ep},
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          p.errLog,
		BaseContext:       func(net.Listener) context.Context { return p.ctx },
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return nil, errors.New("netproxy: proxy closed")
	}
	p.eps[ep] = struct{}{}
	p.wg.Add(2)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		_ = ep.srv.Serve(ep.hl)
	}()
	go func() {
		defer p.wg.Done()
		ep.acceptLoop()
	}()
	return ep, nil
}

// ServeLocal makes h serve the endpoint's origin-form HTTP requests ("GET /path", not a
// proxy request): a service acpterm offers to the sandbox behind this endpoint on its own
// listener, e.g. its MCP server to a sandboxed agent, whose network namespace has no other
// way to acpterm. Such requests are no connection anywhere: they are not decided or audited
// here (h checks its own credentials). Without h they are 400.
func (ep *Endpoint) ServeLocal(h http.Handler) { ep.local.Store(&h) }

// SocketPath is the endpoint's unix socket ("" for an endpoint made by Serve).
func (ep *Endpoint) SocketPath() string { return ep.path }

// Dir is the endpoint's own directory (holding only SocketPath): what a sandbox bind-mounts
// ("" for an endpoint made by Serve).
func (ep *Endpoint) Dir() string { return ep.dir }

// Bind completes the endpoint's identity (e.g. with the terminal id once the terminal started)
// and releases the connections waiting for it. Later calls do nothing.
func (ep *Endpoint) Bind(id Identity) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.isBound || ep.closed {
		return
	}
	ep.id, ep.isBound = id, true
	close(ep.bound)
}

// identity waits until the endpoint is bound (or ctx ends) and returns its identity.
func (ep *Endpoint) identity(ctx context.Context) (Identity, error) {
	select {
	case <-ep.bound:
	case <-ctx.Done():
		return Identity{}, ctx.Err()
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if !ep.isBound {
		return Identity{}, errors.New("endpoint closed")
	}
	return ep.id, nil
}

// Close stops accepting on the endpoint, ends its open connections' listener and removes its
// socket and directory. Connections already tunnelling keep running until they end or the
// Proxy closes. Safe to call more than once.
func (ep *Endpoint) Close() error {
	ep.mu.Lock()
	if ep.closed {
		ep.mu.Unlock()
		return nil
	}
	ep.closed = true
	if !ep.isBound {
		close(ep.bound)
	}
	ep.mu.Unlock()
	err := ep.ln.Close()
	ep.hl.Close()
	ep.p.mu.Lock()
	delete(ep.p.eps, ep)
	ep.p.mu.Unlock()
	if ep.dir != "" {
		os.RemoveAll(ep.dir)
	}
	return err
}

func (ep *Endpoint) acceptLoop() {
	for {
		c, err := ep.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		if !ep.p.track(c) {
			c.Close()
			return
		}
		go ep.serve(c)
	}
}

// track registers a client connection so Close can end it; false when the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	p.wg.Add(1)
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	p.wg.Done()
}

// serve detects the protocol from the first byte without consuming it (MSG_PEEK), so the
// connection handed on is still the raw socket (splice works for the tunnel).
func (ep *Endpoint) serve(c net.Conn) {
	b, err := peekByte(c)
	if err != nil {
		c.Close()
		ep.p.untrack(c)
		return
	}
	if b == socksVersion {
		defer ep.p.untrack(c)
		defer c.Close()
		ep.serveSOCKS(c)
		return
	}
	// HTTP: net/http owns the connection from here; untrack when it closes.
	if !ep.hl.put(&trackedConn{Conn: c, raw: c, done: func() { ep.p.untrack(c) }}) {
		c.Close()
		ep.p.untrack(c)
	}
}

// peekByte reads the first byte of c without removing it from the socket.
func peekByte(c net.Conn) (byte, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, errors.New("not a socket")
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	defer c.SetReadDeadline(time.Time{})
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var buf [1]byte
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, rerr = recvPeek(int(fd), buf[:])
		return !isEAGAIN(rerr)
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, errors.New("connection closed before the first byte")
	}
	return buf[0], nil
}

// logfWriter turns log.Logger output into Logf calls.
type logfWriter func(format string, args ...any)

func (f logfWriter) Write(b []byte) (int, error) {
	f("%s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
