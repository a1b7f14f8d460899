package netproxy

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	goleak.VerifyTestMain(m)
}

var loopback = netip.MustParseAddr("127.0.0.1")

// testCA is a certificate authority and a leaf for *.acpterm.test (and 127.0.0.1), so TLS
// clients verify the test "remote" servers like real ones.
type testCA struct {
	pool   *x509.CertPool
	leaf   tls.Certificate
	caFile string
}

var (
	caOnce sync.Once
	ca     *testCA
	caErr  error
)

func getCA(t *testing.T) *testCA {
	t.Helper()
	caOnce.Do(func() { ca, caErr = makeCA() })
	if caErr != nil {
		t.Fatal(caErr)
	}
	return ca
}

func makeCA() (*testCA, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "acpterm test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "acpterm.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames:    []string{"acpterm.test", "*.acpterm.test"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "acpterm-netproxy-ca-")
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &testCA{pool: pool, leaf: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile: caFile}, nil
}

// tlsServer starts an HTTPS "remote" server on 127.0.0.1 with the test CA's certificate.
func tlsServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{getCA(t).leaf}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func port(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	ap := netip.MustParseAddrPort(u.Host)
	return int(ap.Port())
}

// harness is a proxy with a scripted policy and a record of every audit record.
type harness struct {
	p  *Proxy
	ep *Endpoint

	mu      sync.Mutex
	records []Record
	recCh   chan Record
}

type harnessOpts struct {
	decide func(Request) Decision
	ask    func(context.Context, Request, Decision) Decision
	hosts  map[string][]netip.Addr // test resolver; nil: *.acpterm.test → 127.0.0.1
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	hosts := o.hosts
	if hosts == nil {
		hosts = map[string][]netip.Addr{"*.acpterm.test": {loopback}}
	}
	h := &harness{recCh: make(chan Record, 64)}
	p, err := New(Options{
		Dir:      t.TempDir(),
		Decide:   o.decide,
		Ask:      o.ask,
		Resolver: &TestResolver{Hosts: hosts},
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
		TLSClientConfig:   &tls.Config{RootCAs: getCA(t).pool},
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
