package netproxy

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/nettest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	goleak.VerifyTestMain(m)
}

var loopback = netip.MustParseAddr("127.0.0.1")

// tlsServer starts an HTTPS "remote" server on 127.0.0.1 with the test CA's certificate.
func tlsServer(t *testing.T, h http.Handler) *httptest.Server { return nettest.TLSServer(t, h) }

func port(_ *testing.T, srv *httptest.Server) int { return nettest.Port(srv) }

// harness is a proxy with a scripted policy and a record of every audit record.
type harness struct {
	p  *Proxy
	ep *Endpoint

	mu      sync.Mutex
	records []Record
	recCh   chan Record
}

type harnessOpts struct {
	decide   func(Request) Decision
	ask      func(context.Context, Request, Decision) Decision
	hosts    map[string][]netip.Addr // test resolver; nil: *.acpterm.test → 127.0.0.1
	public   bool                    // every entry of hosts stands for a public address (TestResolver.Public)
	upstream UpstreamFunc            // Options.Upstream
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	hosts := o.hosts
	if hosts == nil {
		hosts = map[string][]netip.Addr{"*.acpterm.test": {loopback}}
	}
	public := map[string]bool{}
	for k := range hosts {
		public[k] = o.public
	}
	h := &harness{recCh: make(chan Record, 64)}
	p, err := New(Options{
		Dir:      t.TempDir(),
		Decide:   o.decide,
		Ask:      o.ask,
		Resolver: &TestResolver{Hosts: hosts, Public: public},
		Upstream: o.upstream,
		Audit: func(r Record) {
			h.mu.Lock()
			h.records = append(h.records, r)
			h.mu.Unlock()
			h.recCh <- r
		},
		Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	h.p = p
	h.ep, err = p.NewEndpoint(Identity{Terminal: "term-1", Label: "curl x"}, true)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// record waits for the next audit record.
func (h *harness) record(t *testing.T) Record {
	t.Helper()
	select {
	case r := <-h.recCh:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no audit record within 10s")
		return Record{}
	}
}

// client is an HTTP client that uses the endpoint as its proxy (dialing the unix socket).
func (h *harness) client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.invalid:3128"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", h.ep.SocketPath())
		},
		TLSClientConfig:   &tls.Config{RootCAs: nettest.GetCA(t).Pool},
		DisableKeepAlives: true,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func allowAll(r Request) Decision {
	return Decision{Verdict: Allow, By: "policy", Rule: "allow: " + r.Host, NamesHost: true}
}

// rules is a tiny Decide for tests: exact names allowed (naming them), others denied.
func rules(allow ...string) func(Request) Decision {
	return func(r Request) Decision {
		for _, a := range allow {
			if a == r.Host {
				return Decision{Verdict: Allow, By: "policy", Rule: "allow: " + a, NamesHost: true}
			}
			if strings.HasPrefix(a, "*.") && strings.HasSuffix(r.Host, a[1:]) {
				return Decision{Verdict: Allow, By: "policy", Rule: "allow: " + a}
			}
		}
		return Decision{Verdict: Deny, By: "policy", Rule: "[policy.network] unmatched"}
	}
}

// get fetches u through c and returns the status and body.
func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: body: %v", u, err)
	}
	return resp.StatusCode, string(b)
}

// httpServer starts a plain HTTP "remote" server on 127.0.0.1 and returns its port.
func httpServer(t *testing.T, h http.Handler) int {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return port(t, srv)
}

func statDir(dir string) (os.FileInfo, error) { return os.Stat(dir) }
