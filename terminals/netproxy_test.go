package terminals

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpterm/acpterm/internal/sandboxtest"
	"github.com/acpterm/acpterm/netproxy"
	"github.com/acpterm/acpterm/sandbox"
)

// With network "proxy" a sandboxed command's only way out is the proxy listener acpterm
// serves: allowed hosts work through HTTP_PROXY, others get the policy's refusal, and a direct
// TCP or unix socket to the outside fails.
func TestSandboxedTerminalNetworkProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is not installed (the CI installs it)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is not installed")
	}
	w := sandboxtest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { fmt.Fprintf(rw, "hello %s", r.URL.Path) }))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	// A unix socket outside the sandbox (think docker.sock): seccomp must refuse reaching it.
	sock := filepath.Join(w.Outside, "daemon.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })

	var mu sync.Mutex
	var recs []netproxy.Record
	p, err := netproxy.New(netproxy.Options{
		Dir: t.TempDir(),
		Decide: func(r netproxy.Request) netproxy.Decision {
			if r.Host == "ok.acpterm.test" {
				return netproxy.Decision{Verdict: netproxy.Allow, By: "policy", Rule: "allow: ok.acpterm.test", NamesHost: true}
			}
			return netproxy.Decision{Verdict: netproxy.Deny, By: "policy", Rule: "[policy.network] unmatched"}
		},
		Resolver: &netproxy.TestResolver{Hosts: map[string][]netip.Addr{"*.acpterm.test": {netip.MustParseAddr("127.0.0.1")}}},
		Audit: func(r netproxy.Record) {
			mu.Lock()
			recs = append(recs, r)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	stopped := make(chan string, 4)
	h := newMgr(t, ManagerOptions{Sandbox: w.Spec(sandbox.NetworkProxy), Network: func(id, label string, ln net.Listener) func() {
		ep, err := p.Serve(netproxy.Identity{Terminal: id, Label: label}, ln)
		if err != nil {
			t.Errorf("Serve: %v", err)
			return func() {}
		}
		return func() { ep.Close(); stopped <- id }
	}})
	script := fmt.Sprintf(`echo "proxy=$HTTP_PROXY all=$ALL_PROXY no=$NO_PROXY"
curl -sS http://ok.acpterm.test:%[1]d/in; echo
curl -sS http://no.acpterm.test:%[1]d/
curl -sS --noproxy '*' http://127.0.0.1:%[1]d/ >/dev/null 2>&1; echo "direct tcp exit $?"
python3 -c 'import socket,sys
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print("unix ok")
except OSError as e:
    print("unix", type(e).__name__)' %[2]s
echo END`, port, sock)
	env := append(append([]string(nil), testEnv...), "HOME="+w.Home, "HTTP_PROXY=http://evil.example:1")
	term := h.start(t, StartOptions{ShellLine: script, Dir: w.Root, Env: env, Size: Size{Cols: 200, Rows: 50}, Label: "netcheck"})
	st := waitExit(t, term)
	out := term.Output().Text
	if st.Code == nil || *st.Code != 0 || !strings.Contains(out, "END") {
		t.Fatalf("script: %v\n%s", st, out)
	}
	want := []string{
		"proxy=http://127.0.0.1:3128 all=socks5h://127.0.0.1:3128 no=localhost,127.0.0.1,::1",
		"hello /in",
		fmt.Sprintf("acpterm: connection to no.acpterm.test:%d refused by [policy.network] ([policy.network] unmatched)", port),
		"direct tcp exit 7",
		"unix PermissionError",
		"END",
	}
	if got := strings.Split(strings.TrimSpace(out), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep := term.Sandbox(); rep == nil || rep.Layers.Net != "proxy" || !rep.Layers.Seccomp || len(rep.Missing) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if id := <-stopped; id != term.ID() {
		t.Fatalf("stopped %q, want %q", id, term.ID())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 2 || recs[0].Identity != (netproxy.Identity{Terminal: term.ID(), Label: "netcheck"}) || recs[0].Verdict != netproxy.Allow ||
		recs[1].Verdict != netproxy.Deny || recs[1].Host != "no.acpterm.test" {
		t.Fatalf("records %+v", recs)
	}
}
