package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// userProxy is a stand-in for the user's own (corporate) proxy on 127.0.0.1: it serves CONNECT
// and absolute-form HTTP requests, sends every destination to 127.0.0.1 (same port) whatever
// its name, and records what it was asked. With auth set it wants that Proxy-Authorization.
type userProxy struct {
	url  *url.URL
	auth string

	mu   sync.Mutex
	seen []string // "CONNECT host:port" or "GET http://…", plus " auth=…" when one came
}

func newUserProxy(t *testing.T, auth string) *userProxy {
	t.Helper()
	up := &userProxy{auth: auth}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: up}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	up.url = &url.URL{Scheme: "http", Host: ln.Addr().String()}
	return up
}

func (up *userProxy) log() []string {
	up.mu.Lock()
	defer up.mu.Unlock()
	return append([]string(nil), up.seen...)
}

func (up *userProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	line := r.Method + " " + target
	if r.Method != http.MethodConnect {
		line = r.Method + " " + r.URL.String()
	}
	if a := r.Header.Get("Proxy-Authorization"); a != "" {
		line += " auth=" + a
	}
	up.mu.Lock()
	up.seen = append(up.seen, line)
	up.mu.Unlock()
	if up.auth != "" && r.Header.Get("Proxy-Authorization") != up.auth {
		w.Header().Set("Proxy-Authenticate", `Basic realm="corp"`)
		http.Error(w, "who are you", http.StatusProxyAuthRequired)
		return
	}
	_, p, _ := net.SplitHostPort(target)
	if r.Method != http.MethodConnect {
		_, p, _ = net.SplitHostPort(r.URL.Host)
	}
	dst, err := net.Dial("tcp", "127.0.0.1:"+p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer dst.Close()
	if r.Method != http.MethodConnect {
		r.RequestURI = ""
		r.URL.Host = "127.0.0.1:" + p
		if err := r.Write(dst); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(dst), r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		return
	}
	cc, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer cc.Close()
	io.WriteString(cc, "HTTP/1.1 200 OK\r\n\r\n")
	go io.Copy(dst, cc)
	io.Copy(cc, dst)
}

// via returns an UpstreamFunc that sends every destination through up (with user info u).
func (up *userProxy) via(u *url.Userinfo) UpstreamFunc {
	return func(string, string, int) (*url.URL, error) {
		v := *up.url
		v.User = u
		return &v, nil
	}
}

// TestUpstreamConnectChained: behind the user's own proxy, an allowed CONNECT goes through it
// (CONNECT host:port with the user's credentials), the bytes arrive both ways and the record
// names the upstream proxy without its password.
func TestUpstreamConnectChained(t *testing.T) {
	up := newUserProxy(t, "Basic dTpzZWNyZXQ=") // u:secret
	p := echoServer(t, 5, "hello world")
	h := newHarness(t, harnessOpts{decide: rules("echo.acpterm.test"), upstream: up.via(url.UserPassword("u", "secret"))})
	resp, body, c, br := rawConnect(t, h.ep, fmt.Sprintf("echo.acpterm.test:%d", p))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %d %q", resp.StatusCode, body)
	}
	io.WriteString(c, "12345")
	got, _ := io.ReadAll(br)
	if string(got) != "hello world" {
		t.Fatalf("tunnel read %q, want %q", got, "hello world")
	}
	c.Close()
	r := h.record(t)
	want := fmt.Sprintf("CONNECT echo.acpterm.test:%d auth=Basic dTpzZWNyZXQ=", p)
	if l := up.log(); len(l) != 1 || l[0] != want {
		t.Fatalf("user's proxy saw %q, want [%q]", l, want)
	}
	if r.Verdict != Allow || r.Via != "http://u:xxxxx@"+up.url.Host || r.Up != 5 || r.Down != 11 || r.Addr.IsValid() || r.Error != "" {
		t.Fatalf("record = %+v", r)
	}
}

// TestUpstreamNameResolvedThere: a name the local resolver does not know is handed to the
// user's proxy by name (corporate networks often resolve outside names only there); without an
// upstream proxy the same name is "not found".
func TestUpstreamNameResolvedThere(t *testing.T) {
	up := newUserProxy(t, "")
	p := echoServer(t, 5, "hi")
	h := newHarness(t, harnessOpts{decide: rules("outside.example"), upstream: up.via(nil)})
	resp, body, c, br := rawConnect(t, h.ep, fmt.Sprintf("outside.example:%d", p))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %d %q", resp.StatusCode, body)
	}
	io.WriteString(c, "12345")
	if got, _ := io.ReadAll(br); string(got) != "hi" {
		t.Fatalf("tunnel read %q", got)
	}
	if l := up.log(); len(l) != 1 || l[0] != fmt.Sprintf("CONNECT outside.example:%d", p) {
		t.Fatalf("user's proxy saw %q", l)
	}
	direct := newHarness(t, harnessOpts{decide: rules("outside.example")})
	resp, body, _, _ = rawConnect(t, direct.ep, fmt.Sprintf("outside.example:%d", p))
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "host outside.example not found") {
		t.Fatalf("without an upstream: %d %q", resp.StatusCode, body)
	}
}

// TestUpstreamRefusalPassedOn: the user's proxy answering 407 fails the connection fast with a
// message naming that proxy and its answer; the policy still refuses before anything is sent.
func TestUpstreamRefusalPassedOn(t *testing.T) {
	up := newUserProxy(t, "Basic right")
	h := newHarness(t, harnessOpts{decide: rules("a.acpterm.test"), upstream: up.via(nil)})
	resp, body, _, _ := rawConnect(t, h.ep, "a.acpterm.test:443")
	want := fmt.Sprintf(`upstream proxy http://%s answered CONNECT a.acpterm.test:443 with "407 Proxy Authentication Required"`, up.url.Host)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, want) {
		t.Fatalf("got %d %q, want 502 with %q", resp.StatusCode, body, want)
	}
	if r := h.record(t); r.Verdict != Allow || !strings.Contains(r.Error, want) {
		t.Fatalf("record = %+v", r)
	}
	resp, body, _, _ = rawConnect(t, h.ep, "b.acpterm.test:443")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "[policy.network]") {
		t.Fatalf("denied host: %d %q", resp.StatusCode, body)
	}
	if l := up.log(); len(l) != 1 {
		t.Fatalf("user's proxy saw %q: the denied host reached it", l)
	}
}

// TestUpstreamPlainHTTP: a plain HTTP request is forwarded to the user's proxy in absolute
// form (as curl would send it there), not tunnelled.
func TestUpstreamPlainHTTP(t *testing.T) {
	up := newUserProxy(t, "")
	srv := httpServer(t, http.HandlerFunc(hello))
	h := newHarness(t, harnessOpts{decide: rules("plain.acpterm.test"), upstream: up.via(nil)})
	code, body := get(t, h.client(t), fmt.Sprintf("http://plain.acpterm.test:%d/p", srv))
	if code != 200 || body != "hello /p" {
		t.Fatalf("got %d %q", code, body)
	}
	if l := up.log(); len(l) != 1 || l[0] != fmt.Sprintf("GET http://plain.acpterm.test:%d/p", srv) {
		t.Fatalf("user's proxy saw %q", l)
	}
	if r := h.record(t); r.Protocol != "http" || r.Verdict != Allow || r.Via != "http://"+up.url.Host {
		t.Fatalf("record = %+v", r)
	}
}

// TestEnvUpstream: the user's variables as curl reads them: HTTPS_PROXY for tunnels,
// HTTP_PROXY for plain HTTP, NO_PROXY exceptions, lower-case forms; an unsupported scheme is an
// error naming the variable; nothing set means direct.
func TestEnvUpstream(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	if EnvUpstream(env()) != nil {
		t.Fatal("no variables: want direct (nil)")
	}
	f := EnvUpstream(env("https_proxy", "http://corp:8080", "HTTP_PROXY", "http://plain:3128", "NO_PROXY", "internal.example,.corp.example"))
	for _, c := range []struct {
		scheme, host, want string
	}{
		{"https", "github.com", "http://corp:8080"},
		{"http", "github.com", "http://plain:3128"},
		{"https", "internal.example", ""},
		{"https", "git.corp.example", ""},
	} {
		u, err := f(c.scheme, c.host, 443)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != c.want {
			t.Errorf("%s %s: got %q, %v; want %q", c.scheme, c.host, got, err, c.want)
		}
	}
	_, err := EnvUpstream(env("HTTPS_PROXY", "socks5://u:pw@corp:1080"))("https", "github.com", 443)
	if err == nil || err.Error() != `upstream proxy socks5://u:xxxxx@corp:1080 (HTTPS_PROXY): scheme "socks5" is not supported (use http:// or https://)` {
		t.Fatalf("socks5 upstream: %v", err)
	}
}

// TestLookupFailureRecordSaysSo: a host that does not resolve is refused without asking, and
// the record's rule says the lookup failed (not the rule that would have asked).
func TestLookupFailureRecordSaysSo(t *testing.T) {
	asked := false
	h := newHarness(t, harnessOpts{
		decide: func(r Request) Decision {
			return Decision{Verdict: Ask, By: "policy", Rule: "[policy.network] unmatched"}
		},
		ask: func(context.Context, Request, Decision) Decision {
			asked = true
			return Decision{Verdict: Allow, By: "user"}
		},
	})
	resp, body, _, _ := rawConnect(t, h.ep, "nowhere.example:443")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "acpterm: host nowhere.example not found") {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	r := h.record(t)
	if asked || r.Verdict != Deny || r.By != "proxy" || r.Rule != "lookup failed: host nowhere.example not found" {
		t.Fatalf("asked %v, record %+v", asked, r)
	}
}
