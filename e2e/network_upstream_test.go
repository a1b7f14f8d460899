package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestHeadlessNetworkThroughUserProxy: with the user's own proxy in acpterm's environment
// (HTTP_PROXY, as behind a corporate firewall), a sandboxed curl still reaches an allowed host:
// acpterm's proxy decides by name, then forwards the request to the user's proxy in absolute
// form with the user's credentials; a denied host never reaches the user's proxy, and the
// audit record names the proxy without its password.
func TestHeadlessNetworkThroughUserProxy(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	corp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String()+" auth="+r.Header.Get("Proxy-Authorization"))
		mu.Unlock()
		fmt.Fprintf(w, "corp proxy fetched %s", r.URL)
	}))
	t.Cleanup(corp.Close)
	e, port := netEnv(t, `allow = ["ok.acpterm.test"]
deny = ["evil.acpterm.test"]`)
	corpAddr := corp.Listener.Addr().(*net.TCPAddr).String()
	e.extraEnv = append(e.extraEnv, "HTTP_PROXY=http://me:pw@"+corpAddr)
	agent := scriptAgent(t)
	line := fmt.Sprintf("termnoperm curl -sS http://ok.acpterm.test:%[1]d/b; echo; curl -sS http://evil.acpterm.test:%[1]d/c", port)
	r := e.run("--headless", "--approve", "deny", "--prompt", line, "--", agent)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{
		fmt.Sprintf("corp proxy fetched http://ok.acpterm.test:%d/b", port),
		fmt.Sprintf("acpterm: connection to evil.acpterm.test:%d refused by [policy.network] (deny: evil.acpterm.test)", port),
	} {
		if !strings.Contains(r.stdout, w) {
			t.Fatalf("headless output lacks %q:\n%s", w, r.stdout)
		}
	}
	mu.Lock()
	got := strings.Join(seen, "\n")
	mu.Unlock()
	if want := fmt.Sprintf("GET http://ok.acpterm.test:%d/b auth=Basic bWU6cHc=", port); got != want {
		t.Fatalf("the user's proxy saw %q, want %q", got, want)
	}
	audit := readAudit(t, e)
	if want := fmt.Sprintf(`"host":"ok.acpterm.test","port":%d,"via":"http://me:xxxxx@%s"`, port, corpAddr); !strings.Contains(audit, want) {
		t.Fatalf("audit lacks %s:\n%s", want, audit)
	}
	if strings.Contains(audit, ":pw@") {
		t.Fatalf("the audit log holds the proxy password:\n%s", audit)
	}
}
