package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func hello(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello %s", r.URL.Path) }

// rawConnect sends CONNECT hostport on a new connection to the endpoint and returns the
// response and the connection (the tunnel, after a 200).
func rawConnect(t *testing.T, ep *Endpoint, hostport string) (*http.Response, string, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", hostport, err)
	}
	body := ""
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
	}
	return resp, body, c, br
}

// echoServer accepts one connection on 127.0.0.1, reads want bytes and answers reply, then
// closes. It returns the port.
func echoServer(t *testing.T, want int, reply string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, want)
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		io.WriteString(c, reply)
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestConnectAllowedHTTPS(t *testing.T) {
	srv := tlsServer(t, http.HandlerFunc(hello))
	h := newHarness(t, harnessOpts{decide: rules("good.acpterm.test")})
	code, body := get(t, h.client(t), fmt.Sprintf("https://good.acpterm.test:%d/x", port(t, srv)))
	if code != 200 || body != "hello /x" {
		t.Fatalf("got %d %q, want 200 %q", code, body, "hello /x")
	}
	r := h.record(t)
	want := netip.AddrPortFrom(loopback, uint16(port(t, srv)))
	if r.Verdict != Allow || r.By != "policy" || r.Rule != "allow: good.acpterm.test" || r.Host != "good.acpterm.test" ||
		r.Port != port(t, srv) || r.Protocol != "connect" || r.Addr != want || r.Identity.Terminal != "term-1" || r.Error != "" {
		t.Fatalf("record = %+v", r)
	}
	if r.Up < 200 || r.Down < 200 { // a TLS handshake each way at least
		t.Fatalf("bytes up %d down %d: too few for a TLS exchange", r.Up, r.Down)
	}
}

func TestConnectCountsBytesExactly(t *testing.T) {
	p := echoServer(t, 5, "hello world")
	h := newHarness(t, harnessOpts{decide: rules("echo.acpterm.test")})
	resp, _, c, br := rawConnect(t, h.ep, "echo.acpterm.test:"+strconv.Itoa(p))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	io.WriteString(c, "ping\n")
	got, err := io.ReadAll(br)
	if err != nil || string(got) != "hello world" {
		t.Fatalf("tunnel read %q, %v", got, err)
	}
	c.Close()
	r := h.record(t)
	if r.Up != 5 || r.Down != 11 || r.Verdict != Allow {
		t.Fatalf("record up %d down %d verdict %s, want 5 11 allow", r.Up, r.Down, r.Verdict)
	}
}

func TestConnectDeniedIs403NamingPolicy(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: rules("good.acpterm.test")})
	resp, body, _, _ := rawConnect(t, h.ep, "evil.acpterm.test:443")
	want := "acpterm: connection to evil.acpterm.test:443 refused by [policy.network] ([policy.network] unmatched)\n"
	if resp.StatusCode != http.StatusForbidden || body != want {
		t.Fatalf("got %d %q, want 403 %q", resp.StatusCode, body, want)
	}
	r := h.record(t)
	if r.Verdict != Deny || r.By != "policy" || r.Host != "evil.acpterm.test" || r.Port != 443 || r.Addr.IsValid() || r.Up != 0 || r.Down != 0 {
		t.Fatalf("record = %+v", r)
	}
}

func TestPlainHTTPForwarded(t *testing.T) {
	var gotHost, gotProxyHdr atomic.Value
	srv := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost.Store(r.Host)
		gotProxyHdr.Store(r.Header.Get("Proxy-Connection") + r.Header.Get("Proxy-Authorization"))
		hello(w, r)
	}))
	h := newHarness(t, harnessOpts{decide: rules("plain.acpterm.test")})
	u := fmt.Sprintf("http://plain.acpterm.test:%d/p?q=1", srv)
	code, body := get(t, h.client(t), u)
	if code != 200 || body != "hello /p" {
		t.Fatalf("got %d %q", code, body)
	}
	if gotHost.Load() != fmt.Sprintf("plain.acpterm.test:%d", srv) || gotProxyHdr.Load() != "" {
		t.Fatalf("origin saw Host %q, proxy headers %q", gotHost.Load(), gotProxyHdr.Load())
	}
	r := h.record(t)
	if r.Protocol != "http" || r.Verdict != Allow || r.Host != "plain.acpterm.test" || r.Port != srv || r.Up == 0 || r.Down == 0 {
		t.Fatalf("record = %+v", r)
	}
}

func TestPlainHTTPDenied(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: rules()})
	code, body := get(t, h.client(t), "http://nope.acpterm.test/")
	want := "acpterm: connection to nope.acpterm.test:80 refused by [policy.network] ([policy.network] unmatched)\n"
	if code != 403 || body != want {
		t.Fatalf("got %d %q, want 403 %q", code, body, want)
	}
	if r := h.record(t); r.Verdict != Deny || r.Protocol != "http" {
		t.Fatalf("record = %+v", r)
	}
}

func TestOriginFormRequestIs400(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: allowAll})
	c, err := net.Dial("unix", h.ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "acpterm's network proxy") {
		t.Fatalf("got %d %q", resp.StatusCode, b)
	}
}

// With a local handler, origin-form requests are served by it (no decision, no record) while
// proxy requests on the same connection's endpoint are still decided.
func TestServeLocalOriginForm(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: rules()})
	h.ep.ServeLocal(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "local %s %s", r.Method, r.URL.Path)
	}))
	c, err := net.Dial("unix", h.ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nContent-Length: 0\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "local POST /mcp" {
		t.Fatalf("local: %d %q", resp.StatusCode, b)
	}
	io.WriteString(c, "GET http://evil.acpterm.test/x HTTP/1.1\r\nHost: evil.acpterm.test\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("proxy request beside the local handler: %d", resp.StatusCode)
	}
	if r := h.record(t); r.Host != "evil.acpterm.test" || r.Verdict != Deny {
		t.Fatalf("record %+v", r)
	}
	h.mu.Lock()
	n := len(h.records)
	h.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d records, want 1 (the local request is none)", n)
	}
}

// socks dials the endpoint, greets and sends a CONNECT for the given address bytes.
func socks(t *testing.T, ep *Endpoint, atyp byte, addr []byte, port int) (net.Conn, []byte) {
	t.Helper()
	c, err := net.Dial("unix", ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Write([]byte{5, 1, 0})
	var g [2]byte
	if _, err := io.ReadFull(c, g[:]); err != nil || g != [2]byte{5, 0} {
		t.Fatalf("greeting reply %v, %v", g, err)
	}
	req := []byte{5, 1, 0, atyp}
	if atyp == socksAtypDomain {
		req = append(req, byte(len(addr)))
	}
	req = append(req, addr...)
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	c.Write(req)
	rep := make([]byte, 10)
	if _, err := io.ReadFull(c, rep); err != nil {
		t.Fatalf("socks reply: %v", err)
	}
	return c, rep
}

func TestSOCKS5DomainAllowed(t *testing.T) {
	p := echoServer(t, 4, "pong")
	h := newHarness(t, harnessOpts{decide: rules("s.acpterm.test")})
	c, rep := socks(t, h.ep, socksAtypDomain, []byte("S.acpterm.test."), p)
	if rep[1] != socksSucceeded || rep[3] != socksAtypIPv4 || !netip.AddrFrom4([4]byte(rep[4:8])).IsLoopback() {
		t.Fatalf("reply %v", rep)
	}
	io.WriteString(c, "ping")
	got, _ := io.ReadAll(c)
	if string(got) != "pong" {
		t.Fatalf("tunnel read %q", got)
	}
	c.Close() // the record comes when both directions ended
	r := h.record(t)
	if r.Protocol != "socks5" || r.Host != "s.acpterm.test" || r.Up != 4 || r.Down != 4 || r.Verdict != Allow {
		t.Fatalf("record = %+v", r)
	}
}

func TestSOCKS5DeniedNotAllowedByRuleset(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: rules()})
	_, rep := socks(t, h.ep, socksAtypDomain, []byte("x.acpterm.test"), 443)
	if rep[1] != socksNotAllowed {
		t.Fatalf("reply code %d, want 2 (connection not allowed by ruleset)", rep[1])
	}
	if r := h.record(t); r.Verdict != Deny || r.Host != "x.acpterm.test" || r.Port != 443 {
		t.Fatalf("record = %+v", r)
	}
}

func TestSOCKS5IPLiterals(t *testing.T) {
	p := echoServer(t, 1, "k")
	// 127.0.0.1 is loopback: refused unless a rule names it.
	h := newHarness(t, harnessOpts{decide: func(r Request) Decision {
		return Decision{Verdict: Allow, By: "policy", Rule: "[policy.network] unmatched"}
	}})
	_, rep := socks(t, h.ep, socksAtypIPv4, []byte{127, 0, 0, 1}, p)
	r := h.record(t)
	if rep[1] != socksNotAllowed || r.Host != "127.0.0.1" || r.By != "proxy" || !strings.HasPrefix(r.Rule, "non-public address: 127.0.0.1 (loopback)") {
		t.Fatalf("reply %d, record %+v", rep[1], r)
	}
	_, rep = socks(t, h.ep, socksAtypIPv6, netip.MustParseAddr("::1").AsSlice(), 443)
	r = h.record(t)
	if rep[1] != socksNotAllowed || r.Host != "::1" || !strings.Contains(r.Rule, "loopback") {
		t.Fatalf("reply %d, record %+v", rep[1], r)
	}
	// A rule naming the address reaches it.
	h2 := newHarness(t, harnessOpts{decide: rules("127.0.0.1")})
	c, rep := socks(t, h2.ep, socksAtypIPv4, []byte{127, 0, 0, 1}, p)
	if rep[1] != socksSucceeded {
		t.Fatalf("reply %d", rep[1])
	}
	c.Write([]byte("x"))
	if got, _ := io.ReadAll(c); string(got) != "k" {
		t.Fatalf("tunnel read %q", got)
	}
}

func TestSOCKS5UnsupportedCommand(t *testing.T) {
	h := newHarness(t, harnessOpts{decide: allowAll})
	c, err := net.Dial("unix", h.ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80}) // BIND
	rep := make([]byte, 12)
	if _, err := io.ReadFull(c, rep); err != nil {
		t.Fatal(err)
	}
	if rep[3] != socksCmdNotSupported {
		t.Fatalf("reply %v, want code 7", rep)
	}
	if r := h.record(t); r.Verdict != Deny || r.Rule != "bad request" {
		t.Fatalf("record = %+v", r)
	}
}

// countingResolver counts lookups and answers from a script: the first answer for the
// first call, the second for every later one (a rebinding DNS server).
type countingResolver struct {
	calls   atomic.Int32
	answers [][]netip.Addr
}

func (r *countingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n := int(r.calls.Add(1))
	if n > len(r.answers) {
		n = len(r.answers)
	}
	return r.answers[n-1], nil
}

func TestRebindingToLoopbackRefused(t *testing.T) {
	srv := tlsServer(t, http.HandlerFunc(hello))
	// *.acpterm.test is allowed by a wildcard, which never reaches a non-public address.
	h := newHarness(t, harnessOpts{decide: rules("*.acpterm.test")})
	resp, body, _, _ := rawConnect(t, h.ep, "rebind.acpterm.test:"+strconv.Itoa(port(t, srv)))
	want := fmt.Sprintf("acpterm: connection to rebind.acpterm.test:%d refused by [policy.network] (non-public address: 127.0.0.1 (loopback); only an allow rule naming rebind.acpterm.test exactly reaches it)\n", port(t, srv))
	if resp.StatusCode != 403 || body != want {
		t.Fatalf("got %d %q\nwant 403 %q", resp.StatusCode, body, want)
	}
	if r := h.record(t); r.Verdict != Deny || r.By != "proxy" || r.Addr.IsValid() {
		t.Fatalf("record = %+v", r)
	}
}

func TestResolvedOnceAndDialedAsChecked(t *testing.T) {
	p := echoServer(t, 1, "k")
	// The name resolves to 127.0.0.1 (allowed: the rule names it) the first time and to
	// 127.0.0.2 afterwards; the proxy must resolve once and dial what it checked.
	res := &countingResolver{answers: [][]netip.Addr{{loopback}, {netip.MustParseAddr("127.0.0.2")}}}
	pr, err := New(Options{Dir: t.TempDir(), Decide: rules("named.acpterm.test"), Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ep, _ := pr.NewEndpoint(Identity{Terminal: "t"}, true)
	resp, _, c, br := rawConnect(t, ep, "named.acpterm.test:"+strconv.Itoa(p))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	c.Write([]byte("x"))
	if got, _ := io.ReadAll(br); string(got) != "k" {
		t.Fatalf("tunnel read %q", got)
	}
	if n := res.calls.Load(); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
}

func TestAskHoldsConnectionThenAllowOrDeny(t *testing.T) {
	srv := tlsServer(t, http.HandlerFunc(hello))
	type question struct {
		r   Request
		d   Decision
		ans chan Decision
	}
	asked := make(chan question)
	h := newHarness(t, harnessOpts{
		public: true,
		decide: func(r Request) Decision {
			return Decision{Verdict: Ask, By: "policy", Rule: "[policy.network] unmatched"}
		},
		ask: func(ctx context.Context, r Request, d Decision) Decision {
			q := question{r, d, make(chan Decision)}
			asked <- q
			select {
			case a := <-q.ans:
				return a
			case <-ctx.Done():
				return Decision{Verdict: Deny, By: "cancel", Rule: d.Rule}
			}
		},
	})
	cl := h.client(t)
	u := fmt.Sprintf("https://new.acpterm.test:%d/a", port(t, srv))
	for _, allow := range []bool{true, false} {
		type result struct {
			code int
			body string
			err  error
		}
		res := make(chan result, 1)
		go func() {
			resp, err := cl.Get(u)
			if err != nil {
				res <- result{err: err}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			res <- result{code: resp.StatusCode, body: string(b)}
		}()
		q := <-asked
		if q.r.Host != "new.acpterm.test" || q.r.Port != port(t, srv) || q.r.Identity.Terminal != "term-1" ||
			len(q.r.Addrs) != 1 || q.r.Addrs[0] != loopback {
			t.Fatalf("question %+v", q.r)
		}
		// Held, not failed: no answer has reached the client yet.
		select {
		case r := <-res:
			t.Fatalf("the client got %+v before the question was answered", r)
		case <-time.After(100 * time.Millisecond):
		}
		if allow {
			q.ans <- Decision{Verdict: Allow, By: "user", Rule: "approved: new.acpterm.test"}
			r := <-res
			if r.err != nil || r.code != 200 || r.body != "hello /a" {
				t.Fatalf("after allow: %+v", r)
			}
			if rec := h.record(t); rec.Verdict != Allow || rec.By != "user" {
				t.Fatalf("record = %+v", rec)
			}
		} else {
			q.ans <- Decision{Verdict: Deny, By: "user", Rule: "refused: new.acpterm.test"}
			r := <-res
			if r.err == nil || !strings.Contains(r.err.Error(), "Forbidden") {
				t.Fatalf("after deny: %+v", r)
			}
			if rec := h.record(t); rec.Verdict != Deny || rec.By != "user" || rec.Rule != "refused: new.acpterm.test" {
				t.Fatalf("record = %+v", rec)
			}
		}
	}
}

func TestAskWithdrawnWhenClientLeaves(t *testing.T) {
	withdrawn := make(chan string, 1)
	asked := make(chan struct{})
	h := newHarness(t, harnessOpts{
		public: true,
		decide: func(r Request) Decision { return Decision{Verdict: Ask, By: "policy", Rule: "unmatched"} },
		ask: func(ctx context.Context, r Request, d Decision) Decision {
			close(asked)
			<-ctx.Done()
			withdrawn <- r.Host
			return Decision{Verdict: Deny, By: "cancel", Rule: d.Rule}
		},
	})
	c, err := net.Dial("unix", h.ep.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte{5, 1, 0})
	io.ReadFull(c, make([]byte, 2))
	req := append([]byte{5, 1, 0, 3, byte(len("gone.acpterm.test"))}, "gone.acpterm.test"...)
	c.Write(binary.BigEndian.AppendUint16(req, 443))
	<-asked
	c.Close()
	select {
	case host := <-withdrawn:
		if host != "gone.acpterm.test" {
			t.Fatalf("withdrawn %q", host)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the question was not withdrawn when the client hung up")
	}
	if r := h.record(t); r.Verdict != Deny || r.By != "cancel" {
		t.Fatalf("record = %+v", r)
	}
}

// A non-public address (a name resolving to one, or an IP literal in any spelling: mapped
// IPv6, 0.0.0.0, private, link-local) is refused before anyone is asked, whatever the answer
// would have been; only a rule naming the host exactly reaches it.
func TestNonPublicRefusedBeforeAsking(t *testing.T) {
	srv := tlsServer(t, http.HandlerFunc(hello))
	p := strconv.Itoa(port(t, srv))
	var asked atomic.Int32
	h := newHarness(t, harnessOpts{
		hosts: map[string][]netip.Addr{"lan.acpterm.test": {netip.MustParseAddr("192.168.1.7")}, "*.acpterm.test": {loopback}},
		decide: func(r Request) Decision {
			return Decision{Verdict: Ask, By: "policy", Rule: "[policy.network] unmatched"}
		},
		ask: func(ctx context.Context, r Request, d Decision) Decision {
			asked.Add(1)
			return Decision{Verdict: Allow, By: "approve-flag", Rule: "--approve allow"}
		},
	})
	for _, c := range []struct{ dest, host, addr string }{
		{"new.acpterm.test:" + p, "new.acpterm.test", "127.0.0.1 (loopback)"},
		{"lan.acpterm.test:" + p, "lan.acpterm.test", "192.168.1.7 (private)"},
		{"[::ffff:127.0.0.1]:" + p, "127.0.0.1", "127.0.0.1 (loopback)"},
		{"0.0.0.0:" + p, "0.0.0.0", "0.0.0.0 (unspecified)"},
		{"[::]:" + p, "::", ":: (unspecified)"},
		{"10.1.2.3:" + p, "10.1.2.3", "10.1.2.3 (private)"},
		{"169.254.169.254:80", "169.254.169.254", "169.254.169.254 (link-local)"},
		{"[fe80::1]:80", "fe80::1", "fe80::1 (link-local)"},
		{"[64:ff9b::7f00:1]:80", "64:ff9b::7f00:1", "64:ff9b::7f00:1 (loopback (through NAT64))"},
	} {
		resp, body, _, _ := rawConnect(t, h.ep, c.dest)
		hp := net.JoinHostPort(c.host, c.dest[strings.LastIndex(c.dest, ":")+1:])
		want := fmt.Sprintf("acpterm: connection to %s refused by [policy.network] (non-public address: %s; only an allow rule naming %s exactly reaches it)\n", hp, c.addr, c.host)
		if resp.StatusCode != 403 || body != want {
			t.Errorf("CONNECT %s: got %d %q\nwant 403 %q", c.dest, resp.StatusCode, body, want)
		}
		if r := h.record(t); r.Verdict != Deny || r.By != "proxy" || r.Addr.IsValid() {
			t.Errorf("CONNECT %s: record = %+v", c.dest, r)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("asked %d times about non-public addresses", n)
	}
	// A rule naming the host exactly reaches it.
	h2 := newHarness(t, harnessOpts{decide: rules("new.acpterm.test")})
	if resp, _, c, _ := rawConnect(t, h2.ep, "new.acpterm.test:"+p); resp.StatusCode != 200 {
		t.Fatalf("named host: %s", resp.Status)
	} else {
		c.Close()
	}
}

func TestUnboundEndpointWaitsForBind(t *testing.T) {
	p := echoServer(t, 1, "k")
	pr, err := New(Options{Dir: t.TempDir(), Decide: func(r Request) Decision {
		if r.Identity.Terminal != "term-9" {
			return Decision{Verdict: Deny, By: "policy", Rule: "wrong identity " + r.Identity.String()}
		}
		return Decision{Verdict: Allow, By: "policy", Rule: "ok", NamesHost: true}
	}, Resolver: &TestResolver{Hosts: map[string][]netip.Addr{"a.acpterm.test": {loopback}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ep, _ := pr.NewEndpoint(Identity{Label: "make"}, false)
	done := make(chan int, 1)
	go func() {
		c, err := net.Dial("unix", ep.SocketPath())
		if err != nil {
			done <- -1
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT a.acpterm.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", p)
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			done <- -2
			return
		}
		c.Write([]byte("x"))
		io.ReadAll(resp.Body)
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		t.Fatalf("answered %d before Bind", code)
	case <-time.After(100 * time.Millisecond):
	}
	ep.Bind(Identity{Terminal: "term-9", Label: "make"})
	if code := <-done; code != 200 {
		t.Fatalf("status %d after Bind", code)
	}
}

func TestCloseEndsTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(io.Discard, c) // holds the tunnel open until the proxy closes it
			c.Close()
		}
	}()
	pr, err := New(Options{Dir: t.TempDir(), Decide: rules("hold.acpterm.test"),
		Resolver: &TestResolver{Hosts: map[string][]netip.Addr{"hold.acpterm.test": {loopback}}}})
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := pr.NewEndpoint(Identity{Terminal: "t"}, true)
	resp, _, c, _ := rawConnect(t, ep, "hold.acpterm.test:"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	dir := pr.Dir()
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("tunnel read after Close: %v, want EOF", err)
	}
	if _, err := net.Dial("unix", ep.SocketPath()); err == nil {
		t.Fatal("socket still accepts after Close")
	}
	if _, err := statDir(dir); err == nil {
		t.Fatalf("%s still exists after Close", dir)
	}
}

// Serve takes a listener made elsewhere (in a sandbox's network namespace, handed over):
// its TCP connections are proxied like an endpoint socket's.
func TestServeListener(t *testing.T) {
	p := echoServer(t, 2, "ok")
	h := newHarness(t, harnessOpts{decide: rules("tcp.acpterm.test")})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep, err := h.p.Serve(Identity{Terminal: "term-4", Label: "npm ci"}, ln)
	if err != nil {
		t.Fatal(err)
	}
	if ep.SocketPath() != "" {
		t.Fatalf("SocketPath %q", ep.SocketPath())
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT tcp.acpterm.test:%d HTTP/1.1\r\nHost: x\r\n\r\n", p)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	io.WriteString(c, "hi")
	if got, _ := io.ReadAll(br); string(got) != "ok" {
		t.Fatalf("tunnel read %q", got)
	}
	c.Close()
	r := h.record(t)
	if r.Identity.Terminal != "term-4" || r.Up != 2 || r.Down != 2 || r.Verdict != Allow {
		t.Fatalf("record %+v", r)
	}
	ep.Close()
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Fatal("the listener still accepts after the endpoint closed")
	}
}
