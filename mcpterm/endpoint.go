package mcpterm

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// Environment variables that tell the bridge (acpterm's hidden __mcp-bridge subcommand) where
// the running acpterm listens and which secret to present.
const (
	EnvSocket = "ACPTERM_MCP_SOCKET"
	EnvSecret = "ACPTERM_MCP_SECRET"
)

// helloPrefix starts the single line a bridge sends before the MCP stream: helloPrefix, the
// secret, "\n".
const helloPrefix = "acpterm-mcp/1 "

// StreamPath is where Handler takes a bridge's stream over HTTP (an "Upgrade: acpterm-mcp"
// request carrying the bearer secret), for a bridge that cannot reach the unix socket: one
// in a sandbox, which makes no unix sockets. After the 101 answer the connection carries
// the MCP stream as the unix socket does after the hello line.
const StreamPath = "/mcp-stream"

// streamUpgrade is the Upgrade protocol of StreamPath.
const streamUpgrade = "acpterm-mcp"

// helloTimeout bounds how long a connection may take to present its secret.
const helloTimeout = 5 * time.Second

// EndpointOptions configure Listen.
type EndpointOptions struct {
	// Dir is where the private socket directory is made ("" → os.TempDir()).
	Dir string
	// Peer, when set, must accept the process id of every unix-socket client (for example:
	// only descendants of the agent process); the client's user id must always be acpterm's.
	Peer func(pid int) bool
}

// Endpoint is where an agent reaches a Service: a unix socket in a fresh directory of mode
// 0700 (only acpterm's user can open it), whose clients must run as acpterm's user, pass
// EndpointOptions.Peer, and present the endpoint's secret first; optionally an HTTP listener on
// the loopback interface that requires "Authorization: Bearer <secret>". The secret is 32
// random bytes, fresh for each endpoint (one per ACP session).
type Endpoint struct {
	svc    *Service
	o      EndpointOptions
	dir    string
	sock   string
	secret string
	ln     net.Listener

	httpLn  net.Listener
	httpSrv *http.Server
	httpURL string
	handler http.Handler // the streamable-HTTP server at /mcp, made once

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	once   sync.Once
}

// Listen opens an endpoint for svc. Errors: the directory, socket or HTTP listener could not
// be made.
func Listen(svc *Service, o EndpointOptions) (*Endpoint, error) {
	parent := o.Dir
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "acpterm-mcp-")
	if err != nil {
		return nil, fmt.Errorf("mcpterm: socket directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("mcpterm: socket directory: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("mcpterm: secret: %w", err)
	}
	e := &Endpoint{svc: svc, o: o, dir: dir, sock: filepath.Join(dir, "mcp.sock"), secret: hex.EncodeToString(b[:]),
		conns: map[net.Conn]struct{}{}}
	e.ln, err = net.Listen("unix", e.sock)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("mcpterm: socket: %w", err)
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.wg.Add(1)
	go e.accept()
	return e, nil
}

// Socket returns the unix socket's path.
func (e *Endpoint) Socket() string { return e.sock }

// Secret returns the secret clients must present.
func (e *Endpoint) Secret() string { return e.secret }

// HTTP starts (once) serving the tools over streamable HTTP on 127.0.0.1, a random port, for
// agents whose mcpCapabilities.http is true, and returns its URL; requests must carry
// "Authorization: Bearer " + Secret(). Errors: the listener could not be opened.
func (e *Endpoint) HTTP() (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.httpURL != "" {
		return e.httpURL, nil
	}
	if e.ctx.Err() != nil {
		return "", errors.New("mcpterm: endpoint closed")
	}
	if err := e.listenHTTP(); err != nil {
		return "", err
	}
	return e.httpURL, nil
}

// Close stops listening, ends every open connection (their terminals are closed) and removes
// the socket directory. Idempotent; returns nil.
func (e *Endpoint) Close() error {
	e.once.Do(func() {
		e.mu.Lock()
		e.cancel()
		_ = e.ln.Close()
		if e.httpSrv != nil {
			_ = e.httpSrv.Close()
		}
		for c := range e.conns {
			_ = c.Close()
		}
		e.mu.Unlock()
		e.wg.Wait()
		_ = os.RemoveAll(e.dir)
	})
	return nil
}

func (e *Endpoint) accept() {
	defer e.wg.Done()
	for {
		c, err := e.ln.Accept()
		if err != nil {
			return
		}
		e.mu.Lock()
		e.conns[c] = struct{}{}
		e.mu.Unlock()
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			defer func() {
				e.mu.Lock()
				delete(e.conns, c)
				e.mu.Unlock()
				_ = c.Close()
			}()
			if err := e.serveConn(c.(*net.UnixConn)); err != nil {
				e.svc.o.Log.Warn("mcp connection refused or failed", "err", err)
			}
		}()
	}
}

// serveConn checks a unix client (user, Peer, secret) and runs an MCP server over it.
func (e *Endpoint) serveConn(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("peer credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer runs as uid %d, not acpterm's %d", cred.Uid, os.Getuid())
	}
	if e.o.Peer != nil && !e.o.Peer(int(cred.Pid)) {
		return fmt.Errorf("peer pid %d is not allowed (not started by the agent)", cred.Pid)
	}
	_ = c.SetReadDeadline(time.Now().Add(helloTimeout))
	br := bufio.NewReaderSize(c, 256)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("no secret presented: %w", err)
	}
	got, ok := strings.CutPrefix(strings.TrimSuffix(string(line), "\n"), helloPrefix)
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(e.secret)) != 1 {
		return errors.New("wrong secret presented")
	}
	_ = c.SetReadDeadline(time.Time{})
	return e.svc.Serve(e.ctx, readCloser{br, c}, c)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Handler is the tools over streamable HTTP at path /mcp (requests must carry
// "Authorization: Bearer " + Secret(); others get 401), for serving on a listener acpterm
// already has: a sandboxed agent's own loopback, where acpterm's 127.0.0.1 is out of reach.
// The same handler serves HTTP()'s listener.
func (e *Endpoint) Handler() http.Handler {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.handlerLocked()
}

func (e *Endpoint) handlerLocked() http.Handler {
	if e.handler != nil {
		return e.handler
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		srv, _ := e.svc.NewServer() // its terminals end with the service
		return srv
	}, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 32 << 20})
	want := []byte("Bearer " + e.secret)
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "acpterm: missing or wrong bearer secret", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	mux.Handle(StreamPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "acpterm: missing or wrong bearer secret", http.StatusUnauthorized)
			return
		}
		if !strings.EqualFold(r.Header.Get("Upgrade"), streamUpgrade) {
			http.Error(w, "acpterm: "+StreamPath+" takes an Upgrade: "+streamUpgrade+" request", http.StatusBadRequest)
			return
		}
		e.serveStream(w)
	}))
	e.handler = mux
	return mux
}

// serveStream takes over an upgraded StreamPath connection and runs an MCP server over it.
func (e *Endpoint) serveStream(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "acpterm: cannot take over this connection", http.StatusInternalServerError)
		return
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	e.mu.Lock()
	if e.ctx.Err() != nil {
		e.mu.Unlock()
		_ = c.Close()
		return
	}
	e.conns[c] = struct{}{}
	e.wg.Add(1)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.conns, c)
		e.mu.Unlock()
		_ = c.Close()
		e.wg.Done()
	}()
	if _, err := io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+streamUpgrade+"\r\n\r\n"); err != nil {
		return
	}
	if err := e.svc.Serve(e.ctx, readCloser{brw.Reader, c}, c); err != nil {
		e.svc.o.Log.Warn("mcp stream failed", "err", err)
	}
}

func (e *Endpoint) listenHTTP() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("mcpterm: http listener: %w", err)
	}
	e.httpLn = ln
	e.httpURL = "http://" + ln.Addr().String() + "/mcp"
	mux := e.handlerLocked()
	e.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		_ = e.httpSrv.Serve(ln)
	}()
	return nil
}

// Bridge connects in/out (the bridge process's stdin and stdout, spoken to by the agent) to
// the acpterm endpoint at socket: a unix socket's path (the secret presented in the hello
// line), or an http:// URL of StreamPath (the secret as the bearer of the Upgrade request);
// then it copies both ways until either side ends. Errors: acpterm could not be reached or
// refused the secret, or the connection failed.
func Bridge(socket, secret string, in io.Reader, out io.Writer) error {
	if socket == "" || secret == "" {
		return fmt.Errorf("%s and %s must be set (acpterm passes them to this bridge)", EnvSocket, EnvSecret)
	}
	if strings.HasPrefix(socket, "http://") {
		return bridgeHTTP(socket, secret, in, out)
	}
	c, err := net.Dial("unix", socket)
	if err != nil {
		return fmt.Errorf("connect to acpterm: %w", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, helloPrefix+secret+"\n"); err != nil {
		return fmt.Errorf("connect to acpterm: %w", err)
	}
	go func() {
		_, _ = io.Copy(c, in)
		_ = c.(*net.UnixConn).CloseWrite() // the agent ended the stream
	}()
	_, err = io.Copy(out, c)
	return err
}

// bridgeHTTP is Bridge over an upgraded HTTP connection to StreamPath at rawURL.
func bridgeHTTP(rawURL, secret string, in io.Reader, out io.Writer) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s %q is not a usable URL", EnvSocket, rawURL)
	}
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return fmt.Errorf("connect to acpterm: %w", err)
	}
	defer c.Close()
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n",
		u.RequestURI(), u.Host, secret, streamUpgrade)
	if _, err := io.WriteString(c, req); err != nil {
		return fmt.Errorf("connect to acpterm: %w", err)
	}
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(helloTimeout))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("connect to acpterm: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return fmt.Errorf("acpterm refused the bridge: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	_ = c.SetReadDeadline(time.Time{})
	go func() {
		_, _ = io.Copy(c, in)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // the agent ended the stream
		}
	}()
	_, err = io.Copy(out, br)
	return err
}

// DescendantOf returns a Peer check that accepts root and the processes below it (by the
// parent chain in /proc).
func DescendantOf(root int) func(pid int) bool {
	return func(pid int) bool {
		for range 64 {
			if pid == root {
				return true
			}
			if pid <= 1 {
				return false
			}
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				return false
			}
			i := strings.LastIndexByte(string(b), ')')
			if i < 0 {
				return false
			}
			f := strings.Fields(string(b[i+1:]))
			if len(f) < 2 {
				return false
			}
			if pid, err = strconv.Atoi(f[1]); err != nil {
				return false
			}
		}
		return false
	}
}
