// Package nettest holds the "remote" servers the network proxy's tests reach: a certificate
// authority whose leaf covers *.acpterm.test (so TLS clients verify the test servers like real
// ones), HTTPS servers on 127.0.0.1, a git repository served over smart HTTP by the real
// git-http-backend, and a Go module proxy serving one module. Everything listens on loopback
// only; the tests make the proxy resolve names under acpterm.test to it.
package nettest

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// CA is a certificate authority and one leaf certificate for acpterm.test, *.acpterm.test
// and 127.0.0.1, valid for a day.
type CA struct {
	// Pool holds the CA certificate (for Go clients).
	Pool *x509.CertPool
	// Leaf is the servers' certificate and key.
	Leaf tls.Certificate
	// File is the CA certificate as PEM (for curl --cacert, GIT_SSL_CAINFO, SSL_CERT_FILE);
	// it is world-readable, in a directory of its own under the system temp dir.
	File string
}

var (
	caOnce sync.Once
	ca     *CA
	caErr  error
)

// GetCA returns the process's CA, made on first use (the test fails if it cannot be made).
func GetCA(t testing.TB) *CA {
	t.Helper()
	caOnce.Do(func() { ca, caErr = makeCA() })
	if caErr != nil {
		t.Fatal(caErr)
	}
	return ca
}

func makeCA() (*CA, error) {
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
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
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
	dir, err := os.MkdirTemp("", "acpterm-nettest-ca-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &CA{Pool: pool, Leaf: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, File: file}, nil
}

// TLSServer starts an HTTPS server for h on 127.0.0.1 with the CA's leaf; it is closed when
// the test ends.
func TLSServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{GetCA(t).Leaf}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// Port is the TCP port srv listens on.
func Port(srv *httptest.Server) int { return srv.Listener.Addr().(*net.TCPAddr).Port }

// Tool returns the path of the program name; the test fails when it is not installed (the
// CI installs it: .ci/run).
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (the CI installs it): %v", name, err)
	}
	return p
}

// GitEnv is the environment git runs with in the tests: no system or user config, a fixed
// identity, no prompts.
func GitEnv(home string) []string {
	return []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
}

// GitServer is a bare repository "repo.git" with one commit on main, served over smart HTTP
// (git-http-backend as CGI) by an HTTPS server.
type GitServer struct {
	*httptest.Server
	// Head is the commit main points to (40 hex digits).
	Head string
}

// URL is the repository's https URL under host (a name the proxy resolves to 127.0.0.1).
func (g *GitServer) URL(host string) string {
	return fmt.Sprintf("https://%s:%d/repo.git", host, Port(g.Server))
}

// NewGitServer builds the repository below t.TempDir() and serves it.
func NewGitServer(t testing.TB) *GitServer {
	t.Helper()
	gitPath := Tool(t, "git")
	out, err := exec.Command(gitPath, "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	root := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command(gitPath, args...)
		cmd.Env = append(os.Environ(), GitEnv(root)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	src := filepath.Join(root, "src")
	run("init", "-q", "-b", "main", src)
	run("-C", src, "commit", "-q", "--allow-empty", "-m", "first")
	head := run("-C", src, "rev-parse", "HEAD")
	run("clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
	srv := TLSServer(t, &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	return &GitServer{Server: srv, Head: head}
}

// Module is the one module a ModuleProxy serves.
const (
	ModulePath    = "example.acpterm.test/hello"
	ModuleVersion = "v1.0.0"
	// ModuleSource is hello.go in the module.
	ModuleSource = "package hello\n\nconst Hello = \"hi\"\n"
)

// NewModuleProxy starts an HTTPS server speaking the GOPROXY protocol for ModulePath at
// ModuleVersion (list, .info, .mod, .zip); anything else is 404.
func NewModuleProxy(t testing.TB) *httptest.Server {
	t.Helper()
	const mod, ver = ModulePath, ModuleVersion
	gomod := "module " + mod + "\n\ngo 1.21\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, f := range [][2]string{{"go.mod", gomod}, {"hello.go", ModuleSource}} {
		w, err := zw.Create(mod + "@" + ver + "/" + f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return TLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + mod + "/@v/list":
			fmt.Fprintln(w, ver)
		case "/" + mod + "/@v/" + ver + ".info":
			fmt.Fprintf(w, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, ver)
		case "/" + mod + "/@v/" + ver + ".mod":
			fmt.Fprint(w, gomod)
		case "/" + mod + "/@v/" + ver + ".zip":
			_, _ = w.Write(zb.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
}
