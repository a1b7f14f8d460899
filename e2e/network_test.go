package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The network proxy end to end: a sandboxed command (curl, run by the scripted agent) whose
// only way out is acpterm's proxy. Its "remote" server is on 127.0.0.1, and acpterm's test
// resolver (ACPTERM_TEST_RESOLVE, names under acpterm.test only) maps the test's host names
// to it: names under lan.acpterm.test are what 127.0.0.1 is (loopback: refused unless a rule
// names them), the other names stand for public hosts.

// helloHandler answers "hello from HOST/PATH" (the Host header the client sent).
func helloHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path) })
}

// netEnv is an env whose config runs commands in the sandbox with network "proxy", lets curl
// run unasked, and applies the given [policy.network] lines; srv's port is returned.
func netEnv(t *testing.T, network string) (*testEnv, int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's namespaces need root here (CI runs as root)")
	}
	srv := httptest.NewServer(helloHandler())
	t.Cleanup(srv.Close)
	e := newEnv(t)
	e.extraEnv = append(e.extraEnv, "ACPTERM_TEST_RESOLVE=*.acpterm.test=public:127.0.0.1;*.lan.acpterm.test=127.0.0.1")
	e.writeConfig(`[sandbox]
mode = "required"
network = "proxy"

[policy.commands]
allow = ["curl"]

[policy.network]
` + network + "\n")
	return e, srv.Listener.Addr().(*net.TCPAddr).Port
}

// An unknown host asks in the TUI (program, host, port, terminal); the connection is held
// meanwhile; "allow once" lets it through.
func TestTUINetworkAskAllow(t *testing.T) {
	e, port := netEnv(t, `deny = ["evil.acpterm.test"]`)
	tm := startScript(t, e)
	tm.typeText(fmt.Sprintf("termnoperm curl -sS http://new.acpterm.test:%d/x", port))
	tm.keys("Enter")
	tm.waitFor("Permission 1 of 1 · Connect?")
	// The dialog's last row is the last to be drawn: wait for it, as a capture may land while
	// tmux is still drawing the frame.
	want := []string{fmt.Sprintf("host: new.acpterm.test:%d", port), fmt.Sprintf("connect to new.acpterm.test:%d", port),
		"from: terminal term-1: curl -sS http://new.acpterm.test", "addr: 127.0.0.1", "a/1   Allow once",
		"s/2   Allow for this session", "S/3   Save as rule", "d/4   Deny"}
	scr := tm.WaitUntil("the whole question", func(scr string) bool {
		for _, w := range want {
			if !strings.Contains(scr, w) {
				return false
			}
		}
		return true
	})
	if strings.Contains(scr, "hello from") {
		t.Fatalf("the connection went through before the answer:\n%s", scr)
	}
	answerDialog(tm)
	tm.keys("a")
	tm.waitFor(fmt.Sprintf("hello from new.acpterm.test:%d/x", port))
	quit(t, e, tm, 0)
	audit := readAudit(t, e)
	for _, w := range []string{`"kind":"net"`, `"verdict":"allow"`, `"rule":"approved once"`, `"by":"user"`, `"host":"new.acpterm.test"`,
		fmt.Sprintf(`"port":%d`, port), `"terminal":"term-1"`, `"protocol":"http"`} {
		if !strings.Contains(audit, w) {
			t.Fatalf("audit log lacks %s:\n%s", w, audit)
		}
	}
}

// "deny" refuses with the policy's message (what curl prints), and the pane says so on its
// border.
func TestTUINetworkAskDeny(t *testing.T) {
	e, port := netEnv(t, ``)
	tm := startScript(t, e)
	tm.typeText(fmt.Sprintf("termnoperm curl -sS http://new.acpterm.test:%d/x", port))
	tm.keys("Enter")
	tm.waitFor("Permission 1 of 1 · Connect?")
	answerDialog(tm)
	tm.keys("d")
	tm.waitFor(fmt.Sprintf("acpterm: connection to new.acpterm.test:%d refused by [policy.network] (refused by user)", port))
	tm.waitFor(fmt.Sprintf("⚠ refused new.acpterm.test:%d (refused by user)", port))
	quit(t, e, tm, 0)
}

// Headless: --approve answers the question (never "always"); a denied host fails at once with
// the policy message and a [network] line; a direct connection has no route.
func TestHeadlessNetwork(t *testing.T) {
	e, port := netEnv(t, `allow = ["ok.acpterm.test"]
deny = ["evil.acpterm.test"]`)
	agent := scriptAgent(t)
	line := fmt.Sprintf("termnoperm curl -sS http://new.acpterm.test:%[1]d/a; echo; curl -sS http://ok.acpterm.test:%[1]d/b; echo; "+
		"curl -sS http://evil.acpterm.test:%[1]d/c; curl -sS --noproxy '*' http://127.0.0.1:%[1]d/ 2>&1; echo direct=$?", port)
	r := e.run("--headless", "--approve", "allow", "--prompt", line, "--", agent)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{
		fmt.Sprintf(`[permission] fetch "connect to new.acpterm.test:%d" → allow (--approve allow: [policy.network] unmatched)`, port),
		fmt.Sprintf("hello from new.acpterm.test:%d/a", port),
		fmt.Sprintf("hello from ok.acpterm.test:%d/b", port),
		fmt.Sprintf("acpterm: connection to evil.acpterm.test:%d refused by [policy.network] (deny: evil.acpterm.test)", port),
		fmt.Sprintf("[network term-1] refused evil.acpterm.test:%d (deny: evil.acpterm.test)", port),
		"direct=7",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Fatalf("headless output lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "save") || strings.Contains(readAudit(t, e), `"kind":"grant"`) {
		t.Fatalf("headless made a lasting grant:\n%s", r.stdout)
	}
}

// A sandboxed agent ([sandbox] agent = true) goes through the same proxy: its model API host
// (here named by agent_allow) is reached unasked, anything else is decided like a command's
// connection (headless --approve deny: refused), and a direct connection has no route.
func TestHeadlessSandboxedAgentNetwork(t *testing.T) {
	e, port := netEnv(t, `agent_allow = ["model.acpterm.test"]`)
	cfg := e.configD + "/acpterm/config.toml"
	b, _ := os.ReadFile(cfg)
	e.writeConfig(strings.Replace(string(b), "[sandbox]\n", "[sandbox]\nagent = true\n", 1))
	agent := scriptAgent(t)
	r := e.run("--headless", "--approve", "deny",
		"--prompt", fmt.Sprintf("netget http://model.acpterm.test:%d/v1/messages", port),
		"--prompt", fmt.Sprintf("netget http://exfil.acpterm.test:%d/upload", port),
		"--prompt", fmt.Sprintf("netdial 127.0.0.1:%d", port), "--", agent)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{
		fmt.Sprintf("netget 200 hello from model.acpterm.test:%d/v1/messages", port),
		fmt.Sprintf(`[permission] fetch "connect to exfil.acpterm.test:%d" → deny (--approve deny: [policy.network] unmatched)`, port),
		fmt.Sprintf("netget 403 acpterm: connection to exfil.acpterm.test:%d refused by [policy.network] (refused by headless --approve)", port),
		fmt.Sprintf("[notice] warn: refused the agent's connection to exfil.acpterm.test:%d (refused by headless --approve)", port),
		// Around the proxy: the agent's namespace has only its own loopback, where nothing listens.
		fmt.Sprintf("netdial error dial tcp 127.0.0.1:%d: connect: connection refused", port),
	} {
		if !strings.Contains(r.stdout, w) {
			t.Fatalf("headless output lacks %q:\n%s", w, r.stdout)
		}
	}
	audit := readAudit(t, e)
	for _, w := range []string{`"rule":"agent model API: model.acpterm.test ([policy.network] agent_allow)"`, `"terminal":"agent"`} {
		if !strings.Contains(audit, w) {
			t.Fatalf("audit lacks %s:\n%s", w, audit)
		}
	}
}

// An allowed name that resolves to a non-public address (DNS rebinding: here every test name
// resolves to 127.0.0.1) is refused unless an allow rule names it exactly; so is an IP
// literal, even with unmatched = "allow".
func TestHeadlessNetworkRebindingRefused(t *testing.T) {
	e, port := netEnv(t, `allow = ["exact.lan.acpterm.test", "*.wild.lan.acpterm.test"]
unmatched = "allow"`)
	line := fmt.Sprintf("termnoperm curl -sS http://exact.lan.acpterm.test:%[1]d/a; echo; curl -sS http://x.wild.lan.acpterm.test:%[1]d/b; echo; "+
		"curl -sS http://other.lan.acpterm.test:%[1]d/c; echo; curl -sS --noproxy '' http://127.0.0.1:%[1]d/d", port)
	r := e.run("--headless", "--prompt", line, "--", scriptAgent(t))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	refused := func(host string) string {
		return fmt.Sprintf("acpterm: connection to %[1]s:%[2]d refused by [policy.network] (non-public address: 127.0.0.1 (loopback); "+
			"only an allow rule naming %[1]s exactly reaches it)", host, port)
	}
	// The 403 bodies end with a newline, the hello does not; echo adds one after each.
	want := fmt.Sprintf("hello from exact.lan.acpterm.test:%d/a\n", port) + refused("x.wild.lan.acpterm.test") + "\n\n" +
		refused("other.lan.acpterm.test") + "\n\n" + refused("127.0.0.1") + "\n"
	if w := fmt.Sprintf("exit=0 truncated=false output=%q", want); !strings.Contains(r.stdout, w) {
		t.Fatalf("headless output lacks %s:\n%s", w, r.stdout)
	}
}

// Non-public addresses are refused before anyone is asked: with unmatched = "ask" and
// --approve allow, an IP literal of this machine in any spelling (IPv4-mapped IPv6, 0.0.0.0,
// the IPv6 loopback) and a name resolving to loopback get the proxy's refusal, and no question
// is printed.
func TestHeadlessNetworkNonPublicNotAsked(t *testing.T) {
	e, port := netEnv(t, ``)
	line := fmt.Sprintf("termnoperm for u in 'http://[::ffff:127.0.0.1]:%[1]d/a' http://0.0.0.0:%[1]d/b 'http://[::1]:%[1]d/c' http://intra.lan.acpterm.test:%[1]d/d; "+
		"do curl -sS --noproxy '' \"$u\"; done", port)
	r := e.run("--headless", "--approve", "allow", "--prompt", line, "--", scriptAgent(t))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	refused := func(host, hp, addr string) string {
		return fmt.Sprintf("acpterm: connection to %s refused by [policy.network] (non-public address: %s; only an allow rule naming %s exactly reaches it)\n", hp, addr, host)
	}
	want := refused("127.0.0.1", fmt.Sprintf("127.0.0.1:%d", port), "127.0.0.1 (loopback)") +
		refused("0.0.0.0", fmt.Sprintf("0.0.0.0:%d", port), "0.0.0.0 (unspecified)") +
		refused("::1", fmt.Sprintf("[::1]:%d", port), "::1 (loopback)") +
		refused("intra.lan.acpterm.test", fmt.Sprintf("intra.lan.acpterm.test:%d", port), "127.0.0.1 (loopback)")
	if w := fmt.Sprintf("exit=0 truncated=false output=%q", want); !strings.Contains(r.stdout, w) {
		t.Fatalf("headless output lacks %s:\n%s", w, r.stdout)
	}
	if strings.Contains(r.stdout, "[permission] fetch") || strings.Contains(r.stdout, "hello from") {
		t.Fatalf("a non-public address was asked about or reached:\n%s", r.stdout)
	}
	audit := readAudit(t, e)
	if strings.Count(audit, `"kind":"net"`) != 4 || strings.Count(audit, `"kind":"net","verdict":"deny"`) != 4 || strings.Count(audit, `"by":"proxy"`) != 4 {
		t.Fatalf("audit log:\n%s", audit)
	}
}

// "Save as rule" on a connection question makes a lasting host grant: the next connection to
// the host is not asked, the grants view lists the grant, and once revoked there the host is
// asked about again.
func TestTUINetworkSaveRuleListedAndRevoked(t *testing.T) {
	e, port := netEnv(t, ``)
	tm := startScript(t, e)
	curl := func(path string) {
		tm.typeText(fmt.Sprintf("termnoperm curl -sS http://saved.acpterm.test:%d/%s", port, path))
		tm.keys("Enter")
	}
	curl("one")
	tm.waitFor("Permission 1 of 1 · Connect?")
	answerDialog(tm)
	tm.keys("S")
	scr := tm.waitUntil("the first answer", func(s string) bool {
		return strings.Contains(s, "hello from saved.acpterm.test") || strings.Contains(s, "enter confirms")
	})
	if strings.Contains(scr, "enter confirms") {
		tm.keys("Enter")
	}
	tm.waitFor(fmt.Sprintf("hello from saved.acpterm.test:%d/one", port))
	curl("two")
	tm.waitFor(fmt.Sprintf("hello from saved.acpterm.test:%d/two", port))
	if scr := tm.capture(); strings.Contains(scr, "Connect?") {
		t.Fatalf("the saved host was asked about again:\n%s", scr)
	}
	grants := filepath.Join(e.stateD, "acpterm", "grants.json")
	var file struct {
		Grants []struct {
			Kind, Host string
			Port       int
			Saved      bool
		}
	}
	if b, err := os.ReadFile(grants); err != nil || json.Unmarshal(b, &file) != nil || len(file.Grants) != 1 ||
		file.Grants[0].Kind != "host" || file.Grants[0].Host != "saved.acpterm.test" || file.Grants[0].Port != port || !file.Grants[0].Saved {
		t.Fatalf("grants file: %s, %v", b, err)
	}
	tm.keys("M-g")
	tm.waitFor("Grants · d revokes")
	tm.waitFor(fmt.Sprintf("saved    grant: host saved.acpterm.test:%d", port))
	tm.keys("d")
	scr = tm.waitUntil("the revocation", func(s string) bool {
		return !strings.Contains(s, "grant: host saved.acpterm.test") || strings.Contains(s, "d again")
	})
	if strings.Contains(scr, "d again") {
		tm.keys("d")
	}
	tm.waitGone("grant: host saved.acpterm.test")
	tm.keys("Escape")
	tm.waitGone("Grants · d revokes")
	if b, err := os.ReadFile(grants); err != nil || strings.Contains(string(b), "saved.acpterm.test") {
		t.Fatalf("grants file after the revocation: %s, %v", b, err)
	}
	curl("three")
	tm.waitFor("Permission 1 of 1 · Connect?")
	answerDialog(tm)
	tm.keys("d")
	tm.waitFor(fmt.Sprintf("acpterm: connection to saved.acpterm.test:%d refused by [policy.network] (refused by user)", port))
	quit(t, e, tm, 0)
	audit := readAudit(t, e)
	for _, w := range []string{`"kind":"grant"`, `"kind":"revoke"`, `"rule":"grant: host saved.acpterm.test:` + fmt.Sprint(port) + `"`} {
		if !strings.Contains(audit, w) {
			t.Fatalf("audit lacks %s:\n%s", w, audit)
		}
	}
}
