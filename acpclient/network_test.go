package acpclient

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/netproxy"
	"github.com/acpterm/acpterm/permissions"
)

// proxyFor starts a network proxy deciding through h's client, with *.acpterm.test resolving
// to 127.0.0.1 standing for a public address, and one endpoint for terminal term-7.
func proxyFor(t *testing.T, h *harness) *netproxy.Endpoint {
	t.Helper()
	_, ep := proxyAndEndpoint(t, h)
	return ep
}

func proxyAndEndpoint(t *testing.T, h *harness) (*netproxy.Proxy, *netproxy.Endpoint) {
	t.Helper()
	decide, ask, audit := h.c.ProxyOptions()
	p, err := netproxy.New(netproxy.Options{Dir: t.TempDir(), Decide: decide, Ask: ask, Audit: audit,
		Resolver: &netproxy.TestResolver{Hosts: map[string][]netip.Addr{"*.acpterm.test": {netip.MustParseAddr("127.0.0.1")}},
			Public: map[string]bool{"*.acpterm.test": true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ep, err := p.NewEndpoint(netproxy.Identity{Terminal: "term-7", Label: "go mod download"}, true)
	if err != nil {
		t.Fatal(err)
	}
	return p, ep
}

// connect sends CONNECT hostport to ep in the background; the result is the status code (and
// body when refused).
func connect(ep *netproxy.Endpoint, hostport string) <-chan string {
	out := make(chan string, 1)
	go func() {
		c, err := net.Dial("unix", ep.SocketPath())
		if err != nil {
			out <- err.Error()
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			out <- err.Error()
			return
		}
		if resp.StatusCode == 200 {
			out <- "200"
			return
		}
		b, _ := io.ReadAll(resp.Body)
		out <- fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}()
	return out
}

func echoListener(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func isNetworkAsk(e Event) bool { a, ok := e.(PermissionAsked); return ok && a.Kind == "network" }

func TestNetworkQuestionAllowSessionThenGrant(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.Network.Deny = []string{"bad.acpterm.test"} }})
	ep := proxyFor(t, h)
	port := echoListener(t)
	hp := fmt.Sprintf("new.acpterm.test:%d", port)
	res := connect(ep, hp)
	from := 0
	ask := h.waitFor(&from, "network question", isNetworkAsk).(PermissionAsked)
	d := ask.Policy
	if *ask.ToolCall.Title != "connect to "+hp || d.Host != "new.acpterm.test" || d.Port != port || d.From != "terminal term-7: go mod download" ||
		strings.Join(d.Addrs, ",") != "127.0.0.1" || d.Rule != permissions.NetworkUnmatchedRule ||
		d.Reason != "terminal term-7: go mod download connects to "+hp+"; no [policy.network] rule covers it" {
		t.Fatalf("question %+v / %+v", ask, d)
	}
	select {
	case r := <-res:
		t.Fatalf("the connection was answered (%s) before the question", r)
	default:
	}
	if err := h.eng.CanGrant(*d); err != nil {
		t.Fatalf("CanGrant: %v", err)
	}
	h.c.Answer(ask.ID, Answer{Choice: AllowSession})
	if r := <-res; r != "200" {
		t.Fatalf("after allow for the session: %s", r)
	}
	// The same host and port again: the session grant allows it without a question.
	if r := <-connect(ep, hp); r != "200" {
		t.Fatalf("second connection: %s", r)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Fatalf("%d questions, want 1", n)
	}
	gs := h.eng.Grants()
	if len(gs) != 1 || gs[0].Rule() != "grant: host "+hp {
		t.Fatalf("grants %+v", gs)
	}
	// A denied host: refused at once, and the terminal's pane is told.
	r := <-connect(ep, "bad.acpterm.test:443")
	if r != "403 acpterm: connection to bad.acpterm.test:443 refused by [policy.network] (deny: bad.acpterm.test)" {
		t.Fatalf("denied: %s", r)
	}
	ev := h.waitFor(&from, "ConnectionRefused", func(e Event) bool { _, ok := e.(ConnectionRefused); return ok }).(ConnectionRefused)
	if ev != (ConnectionRefused{Terminal: "term-7", Host: "bad.acpterm.test", Port: 443, Rule: "deny: bad.acpterm.test", By: "policy"}) {
		t.Fatalf("event %+v", ev)
	}
}

func TestNetworkQuestionDeny(t *testing.T) {
	h := start(t, setup{})
	ep := proxyFor(t, h)
	res := connect(ep, "nope.acpterm.test:443")
	from := 0
	ask := h.waitFor(&from, "network question", isNetworkAsk).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	if r := <-res; r != "403 acpterm: connection to nope.acpterm.test:443 refused by [policy.network] (refused by user)" {
		t.Fatalf("after deny: %s", r)
	}
	ev := h.waitFor(&from, "ConnectionRefused", func(e Event) bool { _, ok := e.(ConnectionRefused); return ok }).(ConnectionRefused)
	if ev.By != "user" || ev.Rule != "refused by user" {
		t.Fatalf("event %+v", ev)
	}
}

func TestNetworkSaveRuleAndAudit(t *testing.T) {
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "audit.jsonl")
	al, err := permissions.OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	grants := filepath.Join(dir, "grants.json")
	h := start(t, setup{opts: func(o *Options) {
		eng, err := permissions.NewEngine(o.Config.Permissions(nil), permissions.EngineOptions{Cwd: o.Cwd, Audit: al, GrantsFile: grants})
		if err != nil {
			t.Fatal(err)
		}
		o.Engine = eng
	}})
	p, ep := proxyAndEndpoint(t, h)
	port := echoListener(t)
	hp := fmt.Sprintf("saved.acpterm.test:%d", port)
	res := connect(ep, hp)
	from := 0
	ask := h.waitFor(&from, "network question", isNetworkAsk).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: SaveRule, By: "user"})
	if r := <-res; r != "200" {
		t.Fatalf("after save: %s", r)
	}
	p.Close() // waits for every connection's audit record
	h.close()
	al.Close()
	b, err := os.ReadFile(grants)
	if err != nil || !strings.Contains(string(b), `"kind": "host"`) || !strings.Contains(string(b), `"host": "saved.acpterm.test"`) {
		t.Fatalf("grants file: %s %v", b, err)
	}
	log, _ := os.ReadFile(auditPath)
	var net string
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, `"kind":"net"`) {
			net = l
		}
	}
	for _, want := range []string{`"verdict":"allow"`, `"rule":"grant: host ` + hp + `"`, `"by":"user"`, `"host":"saved.acpterm.test"`,
		`"terminal":"term-7"`, `"program":"go mod download"`, `"protocol":"connect"`, fmt.Sprintf(`"addr":"127.0.0.1:%d"`, port)} {
		if !strings.Contains(net, want) {
			t.Errorf("net audit record %s lacks %s", net, want)
		}
	}
}

// The agent's own connections: its model API host is allowed (here by agent_allow), anything
// else is asked about like a command's, naming the agent.
func TestAgentConnections(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.Network.AgentAllow = []string{"model.acpterm.test"} }})
	decide, ask, audit := h.c.ProxyOptions()
	p, err := netproxy.New(netproxy.Options{Dir: t.TempDir(), Decide: decide, Ask: ask, Audit: audit,
		Resolver: &netproxy.TestResolver{Hosts: map[string][]netip.Addr{"*.acpterm.test": {netip.MustParseAddr("127.0.0.1")}},
			Public: map[string]bool{"*.acpterm.test": true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ep, err := p.NewEndpoint(netproxy.Identity{Agent: true, Label: "scriptagent"}, true)
	if err != nil {
		t.Fatal(err)
	}
	port := echoListener(t)
	if r := <-connect(ep, fmt.Sprintf("model.acpterm.test:%d", port)); r != "200" {
		t.Fatalf("model API: %s", r)
	}
	res := connect(ep, "exfil.acpterm.test:443")
	from := 0
	q := h.waitFor(&from, "network question", isNetworkAsk).(PermissionAsked)
	if q.Policy.From != "agent: scriptagent" || q.Policy.Host != "exfil.acpterm.test" {
		t.Fatalf("question %+v", q.Policy)
	}
	h.c.Answer(q.ID, Answer{Choice: Deny})
	if r := <-res; !strings.HasPrefix(r, "403 ") {
		t.Fatalf("after deny: %s", r)
	}
	n := h.waitFor(&from, "notice", func(e Event) bool { n, ok := e.(Notice); return ok && strings.Contains(n.Text, "exfil") }).(Notice)
	if n.Text != "refused the agent's connection to exfil.acpterm.test:443 (refused by user)" {
		t.Fatalf("notice %q", n.Text)
	}
}
