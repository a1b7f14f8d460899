package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/config"
)

func TestDecideHost(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, func(c *config.Config) {
		c.Policy.Network = config.Network{
			Allow:     []string{"proxy.golang.org", "*.npmjs.org", "example.com:8443", "10.0.0.5"},
			Deny:      []string{"*.evil.npmjs.org"},
			Unmatched: "ask",
		}
	}, EngineOptions{})
	cases := []struct {
		host  string
		port  int
		want  string // verdict rule exact
		exact bool
	}{
		{"proxy.golang.org", 443, "allow allow: proxy.golang.org", true},
		{"registry.npmjs.org", 443, "allow allow: *.npmjs.org", false},
		{"npmjs.org", 443, "ask [policy.network] unmatched", false},
		{"x.evil.npmjs.org", 443, "deny deny: *.evil.npmjs.org", false},
		{"example.com", 8443, "allow allow: example.com:8443", true},
		{"example.com", 443, "ask [policy.network] unmatched", false},
		{"10.0.0.5", 22, "allow allow: 10.0.0.5", true},
	}
	for _, c := range cases {
		d := e.DecideHost("s1", c.host, c.port)
		if got := string(d.Verdict) + " " + d.Rule; got != c.want || d.Exact != c.exact {
			t.Errorf("DecideHost(%s:%d) = %q exact %v (%s), want %q exact %v", c.host, c.port, got, d.Exact, d.Reason, c.want, c.exact)
		}
	}
	if d := e.DecideHost("s1", "npmjs.org", 443); d.Reason != `no [policy.network] rule covers npmjs.org:443 (unmatched = "ask")` {
		t.Errorf("reason %q", d.Reason)
	}
}

func TestHostGrants(t *testing.T) {
	s := newFSSandbox(t)
	grants := filepath.Join(s.base, "grants.json")
	path := filepath.Join(s.base, "audit.jsonl")
	audit, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(c *config.Config) { c.Policy.Network.Deny = []string{"*.bad.example"} }
	e := s.engine(t, edit, EngineOptions{GrantsFile: grants, Audit: audit})
	g, err := e.GrantHost("api.example.com", 443, HostGrantOptions{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if g.Rule() != "grant: host api.example.com:443" || g.Saved || g.Session != "s1" {
		t.Fatalf("grant %+v (%s)", g, g.Rule())
	}
	if d := e.DecideHost("s1", "api.example.com", 443); d.Verdict != Allow || d.Grant != g.ID || d.Exact || d.Rule != g.Rule() {
		t.Errorf("granted host: %+v", d)
	}
	for _, c := range []struct {
		sess, host string
		port       int
	}{{"s2", "api.example.com", 443}, {"s1", "api.example.com", 80}, {"s1", "x.api.example.com", 443}} {
		if d := e.DecideHost(c.sess, c.host, c.port); d.Verdict != Ask {
			t.Errorf("%s %s:%d = %+v, want ask", c.sess, c.host, c.port, d)
		}
	}
	if _, err := e.GrantHost("x.bad.example", 443, HostGrantOptions{}); err == nil || err.Error() != "grant refused for x.bad.example:443: it is denied (deny: *.bad.example)" {
		t.Errorf("grant of a denied host: %v", err)
	}
	// Saved: another engine (a later run) reads it from the grants file; revoking removes it.
	saved, err := e.GrantHost("proxy.golang.org", 443, HostGrantOptions{Persist: true})
	if err != nil {
		t.Fatal(err)
	}
	e2 := s.engine(t, edit, EngineOptions{GrantsFile: grants})
	if d := e2.DecideHost("other", "proxy.golang.org", 443); d.Verdict != Allow || d.Grant != saved.ID {
		t.Errorf("saved grant in a new engine: %+v", d)
	}
	if ws := e2.GrantWarnings(); len(ws) != 0 {
		t.Errorf("warnings %q", ws)
	}
	if err := e.Revoke(saved.ID); err != nil {
		t.Fatal(err)
	}
	if d := e2.DecideHost("other", "proxy.golang.org", 443); d.Verdict != Ask {
		t.Errorf("after revoke: %+v", d)
	}
	// A connection record.
	if err := e.RecordConnection(Connection{Session: "s1", Terminal: "term-2", Program: "go mod download", Host: "api.example.com", Port: 443,
		Addr: "127.0.0.1:443", Protocol: "connect", Verdict: Allow, Rule: g.Rule(), By: "grant", Up: 517, Down: 4096, Duration: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	audit.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var got []string
	for _, l := range lines {
		var ev AuditEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{ev.Kind, string(ev.Verdict), ev.Rule, ev.By, ev.Host, ev.Terminal, ev.Program, ev.Addr, ev.Protocol,
			itoa(ev.Port), itoa(int(ev.BytesUp)), itoa(int(ev.BytesDown)), itoa(int(ev.DurationMS))}, "|"))
	}
	want := []string{
		"grant|allow|grant: host api.example.com:443|user|api.example.com|||||443|0|0|0",
		"grant|allow|grant: host proxy.golang.org:443|user|proxy.golang.org|||||443|0|0|0",
		"revoke|deny|grant: host proxy.golang.org:443|user|proxy.golang.org|||||443|0|0|0",
		"net|allow|grant: host api.example.com:443|grant|api.example.com|term-2|go mod download|127.0.0.1:443|connect|443|517|4096|1500",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, _, err := VerifyAuditNote(path); err != nil || n != 4 {
		t.Fatalf("verify %d %v", n, err)
	}
}

func TestHostGrantFileValidated(t *testing.T) {
	s := newFSSandbox(t)
	grants := filepath.Join(s.base, "grants.json")
	write(t, grants, `{"version":1,"grants":[{"id":"g-1","kind":"host","host":"*.example.com","created":"2026-01-01T00:00:00Z"},{"id":"g-2","kind":"host","host":"ok.example.com","port":443,"created":"2026-01-01T00:00:00Z"}]}`)
	os.Chmod(grants, 0o600)
	e := s.engine(t, nil, EngineOptions{GrantsFile: grants})
	if ws := e.GrantWarnings(); len(ws) != 1 || !strings.Contains(ws[0], "grant g-1 ignored: a host grant needs one host name") {
		t.Errorf("warnings %q", ws)
	}
	if d := e.DecideHost("", "a.example.com", 443); d.Verdict != Ask {
		t.Errorf("wildcard grant honoured: %+v", d)
	}
	if d := e.DecideHost("", "ok.example.com", 443); d.Verdict != Allow || d.Grant != "g-2" {
		t.Errorf("valid grant: %+v", d)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestGrantFromNetworkQuestion(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, func(c *config.Config) { c.Policy.Network.Allow = []string{"*.ok.example"} }, EngineOptions{})
	q := Decision{Verdict: Ask, Rule: NetworkUnmatchedRule, Host: "new.example", Port: 443}
	if err := e.CanGrant(q); err != nil {
		t.Fatal(err)
	}
	g, err := e.Grant(q, false)
	if err != nil || g.Kind != "host" || g.Host != "new.example" || g.Port != 443 || g.Saved {
		t.Fatalf("grant %+v, %v", g, err)
	}
	if d := e.DecideHost("any", "new.example", 443); d.Verdict != Allow || d.Grant != g.ID {
		t.Errorf("after grant: %+v", d)
	}
	bad := Decision{Verdict: Ask, Rule: "allow: *.ok.example", Host: "a.ok.example", Port: 443}
	if err := e.CanGrant(bad); err == nil || err.Error() != "grant refused for a.ok.example:443: only a host no [policy.network] rule covers can be granted (allow: *.ok.example)" {
		t.Errorf("CanGrant(%+v) = %v", bad, err)
	}
}
