package netproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpterm/acpterm/internal/nettest"
)

// The netns tests run real tools (curl, git, go, python3) in a new, empty network namespace
// whose only way out is a Forwarder to the test proxy, as the sandbox runs commands. The test
// binary re-executes itself in the namespace (helperMain): it brings lo up, starts the
// forwarder, runs the tool with Env(port) and exits with its status.
const (
	helperEnv     = "ACPTERM_NETPROXY_TEST_SOCKET" // the endpoint socket; set: run as the helper
	helperArgvEnv = "ACPTERM_NETPROXY_TEST_ARGV"   // JSON argv of the tool
)

func helperMain() int {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(helperArgvEnv)), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "helper: bad argv:", err)
		return 250
	}
	f, err := Listen(0, os.Getenv(helperEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 250
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Serve(ctx) }()
	cmd := exec.Command(argv[0], argv[1:]...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ACPTERM_NETPROXY_TEST_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, Env(f.Port())...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	err = cmd.Run()
	cancel()
	<-done
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 251
	}
}

// inNetns runs argv in a new network namespace behind ep and returns its exit code, stdout
// and stderr. env is added to the tool's environment.
func inNetns(t *testing.T, ep *Endpoint, env []string, argv ...string) (int, string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a new network namespace (CLONE_NEWNET); CI runs as root")
	}
	js, _ := json.Marshal(argv)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+ep.SocketPath(), helperArgvEnv+"="+string(js))
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v in a new network namespace: %v", argv, err)
	}
	if code >= 250 {
		t.Fatalf("helper failed (%d): %s", code, errb.String())
	}
	return code, out.String(), errb.String()
}

func TestCurlThroughForwarder(t *testing.T) {
	nettest.Tool(t, "curl")
	srv := tlsServer(t, http.HandlerFunc(hello))
	plain := httpServer(t, http.HandlerFunc(hello))
	h := newHarness(t, harnessOpts{decide: rules("good.acpterm.test")})
	cafile := nettest.GetCA(t).File

	code, out, errs := inNetns(t, h.ep, nil, "curl", "-sS", "--cacert", cafile, fmt.Sprintf("https://good.acpterm.test:%d/x", port(t, srv)))
	if code != 0 || out != "hello /x" {
		t.Fatalf("curl https: exit %d, out %q, err %q", code, out, errs)
	}
	if r := h.record(t); r.Verdict != Allow || r.Protocol != "connect" || r.Host != "good.acpterm.test" {
		t.Fatalf("record %+v", r)
	}
	code, out, errs = inNetns(t, h.ep, nil, "curl", "-sS", fmt.Sprintf("http://good.acpterm.test:%d/plain", plain))
	if code != 0 || out != "hello /plain" {
		t.Fatalf("curl http: exit %d, out %q, err %q", code, out, errs)
	}
	h.record(t)
	// ALL_PROXY (socks5h): the proxy resolves the name.
	code, out, errs = inNetns(t, h.ep, nil, "sh", "-c", fmt.Sprintf(`curl -sS --cacert %s --proxy "$ALL_PROXY" https://good.acpterm.test:%d/s`, cafile, port(t, srv)))
	if code != 0 || out != "hello /s" {
		t.Fatalf("curl socks5h: exit %d, out %q, err %q", code, out, errs)
	}
	if r := h.record(t); r.Protocol != "socks5" || r.Host != "good.acpterm.test" || r.Verdict != Allow {
		t.Fatalf("record %+v", r)
	}

	// Denied: CONNECT gets 403; plain HTTP shows the policy message.
	code, _, errs = inNetns(t, h.ep, nil, "curl", "-sS", "--cacert", cafile, fmt.Sprintf("https://evil.acpterm.test:%d/", port(t, srv)))
	if code != 56 || !strings.Contains(errs, "CONNECT tunnel failed, response 403") {
		t.Fatalf("curl denied https: exit %d, err %q", code, errs)
	}
	h.record(t)
	code, out, _ = inNetns(t, h.ep, nil, "curl", "-sS", fmt.Sprintf("http://evil.acpterm.test:%d/", plain))
	want := fmt.Sprintf("acpterm: connection to evil.acpterm.test:%d refused by [policy.network] ([policy.network] unmatched)\n", plain)
	if code != 0 || out != want {
		t.Fatalf("curl denied http: exit %d, out %q, want %q", code, out, want)
	}
	h.record(t)
	code, _, errs = inNetns(t, h.ep, nil, "sh", "-c", fmt.Sprintf(`curl -sS --proxy "$ALL_PROXY" http://evil.acpterm.test:%d/`, plain))
	if code != 97 || !strings.Contains(errs, "SOCKS5") {
		t.Fatalf("curl denied socks5h: exit %d, err %q", code, errs)
	}
	h.record(t)
}

func TestDirectSocketHasNoRoute(t *testing.T) {
	nettest.Tool(t, "curl")
	nettest.Tool(t, "python3")
	plain := httpServer(t, http.HandlerFunc(hello))
	h := newHarness(t, harnessOpts{decide: allowAll})
	// The server listens on the host's 127.0.0.1; inside the namespace 127.0.0.1 is the
	// namespace's own loopback, and there is no other route.
	code, _, errs := inNetns(t, h.ep, nil, "curl", "-sS", "--noproxy", "*", fmt.Sprintf("http://127.0.0.1:%d/", plain))
	if code != 7 {
		t.Fatalf("curl --noproxy: exit %d (%q), want 7 (could not connect)", code, errs)
	}
	code, out, errs := inNetns(t, h.ep, nil, "python3", "-c", fmt.Sprintf(`
import socket
s = socket.socket()
try:
    s.connect(("127.0.0.1", %d))
    print("connected")
except OSError as e:
    print(type(e).__name__)
`, plain))
	if code != 0 || out != "ConnectionRefusedError\n" {
		t.Fatalf("python direct connect: exit %d, out %q, err %q", code, out, errs)
	}
}

func TestPythonUrllibThroughForwarder(t *testing.T) {
	nettest.Tool(t, "python3")
	srv := tlsServer(t, http.HandlerFunc(hello))
	h := newHarness(t, harnessOpts{decide: rules("py.acpterm.test")})
	code, out, errs := inNetns(t, h.ep, []string{"SSL_CERT_FILE=" + nettest.GetCA(t).File}, "python3", "-c", fmt.Sprintf(`
import urllib.request, urllib.error
print(urllib.request.urlopen("https://py.acpterm.test:%d/py").read().decode())
try:
    urllib.request.urlopen("https://other.acpterm.test:%d/")
except OSError as e:
    print("refused:", e)
`, port(t, srv), port(t, srv)))
	if code != 0 || out != "hello /py\nrefused: <urlopen error Tunnel connection failed: 403 Forbidden>\n" {
		t.Fatalf("python: exit %d, out %q, err %q", code, out, errs)
	}
	// The records come as the connections close, in either order.
	byHost := map[string]Record{}
	for range 2 {
		r := h.record(t)
		byHost[r.Host] = r
	}
	if r := byHost["py.acpterm.test"]; r.Verdict != Allow || r.Down == 0 {
		t.Fatalf("record %+v", r)
	}
	if r := byHost["other.acpterm.test"]; r.Verdict != Deny {
		t.Fatalf("record %+v", r)
	}
}

func TestGitSmartHTTPThroughForwarder(t *testing.T) {
	g := nettest.NewGitServer(t)
	h := newHarness(t, harnessOpts{decide: rules("git.acpterm.test")})
	env := append([]string{"GIT_SSL_CAINFO=" + nettest.GetCA(t).File}, nettest.GitEnv(t.TempDir())...)
	code, stdout, errs := inNetns(t, h.ep, env, "git", "ls-remote", g.URL("git.acpterm.test"))
	want := g.Head + "\tHEAD\n" + g.Head + "\trefs/heads/main\n"
	if code != 0 || stdout != want {
		t.Fatalf("git ls-remote: exit %d, out %q, want %q, err %q", code, stdout, want, errs)
	}
	if r := h.record(t); r.Verdict != Allow || r.Host != "git.acpterm.test" || r.Down == 0 {
		t.Fatalf("record %+v", r)
	}
	code, _, errs = inNetns(t, h.ep, env, "git", "ls-remote", g.URL("elsewhere.acpterm.test"))
	if code != 128 || !strings.Contains(errs, "CONNECT tunnel failed, response 403") {
		t.Fatalf("git denied: exit %d, err %q", code, errs)
	}
}

func TestGoModDownloadThroughForwarder(t *testing.T) {
	goPath := nettest.Tool(t, "go")
	const mod, ver = nettest.ModulePath, nettest.ModuleVersion
	srv := nettest.NewModuleProxy(t)
	h := newHarness(t, harnessOpts{decide: rules("goproxy.acpterm.test")})
	tmp := t.TempDir()
	env := []string{
		"GOPROXY=" + fmt.Sprintf("https://goproxy.acpterm.test:%d", port(t, srv)),
		"GOSUMDB=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=",
		"HOME=" + tmp, "GOPATH=" + filepath.Join(tmp, "gopath"), "GOMODCACHE=" + filepath.Join(tmp, "modcache"),
		"GOCACHE=" + filepath.Join(tmp, "cache"), "SSL_CERT_FILE=" + nettest.GetCA(t).File,
	}
	code, out, errs := inNetns(t, h.ep, env, goPath, "mod", "download", "-json", mod+"@"+ver)
	if code != 0 {
		t.Fatalf("go mod download: exit %d, out %q, err %q", code, out, errs)
	}
	var res struct{ Version, Error, Dir string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Version != ver || res.Error != "" {
		t.Fatalf("go mod download -json: %q (%v)", out, err)
	}
	if b, err := os.ReadFile(filepath.Join(res.Dir, "hello.go")); err != nil || string(b) != nettest.ModuleSource {
		t.Fatalf("downloaded module: %q %v", b, err)
	}
	r := h.record(t)
	if r.Verdict != Allow || r.Host != "goproxy.acpterm.test" {
		t.Fatalf("record %+v", r)
	}
}
