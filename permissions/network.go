package permissions

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/acpterm/acpterm/permissions/policy"
)

// Host decisions: [policy.network] rules (policy.HostRule) matched on the host name a client
// asked the proxy for. The proxy (package netproxy) asks through a callback; this file is the
// policy side: rules, host grants and the audit record of each connection.

// HostDecision is the policy's verdict for one connection to host:port.
type HostDecision struct {
	// Verdict is allow, ask or deny.
	Verdict Verdict `json:"verdict"`
	// Rule is the deciding rule: "allow: *.npmjs.org", "deny: pastebin.com",
	// "[policy.network] unmatched", or a grant's Rule ("grant: host example.com:443").
	Rule string `json:"rule"`
	// Reason is one readable line.
	Reason string `json:"reason"`
	// Exact reports that the allowing [policy.network] allow rule names this host exactly (no
	// wildcard, not "unmatched", not a grant): the proxy then also reaches it at a private,
	// loopback or link-local address. A grant is made from an answer about public addresses,
	// so it never is Exact (a name rebinding to the user's machine later stays out).
	Exact bool `json:"exact,omitempty"`
	// Grant is the id of the grant that allowed it, if any.
	Grant string `json:"grant,omitempty"`
}

// networkPolicy is [policy.network] compiled.
type networkPolicy struct {
	allow, deny []policy.HostRule
	unmatched   Verdict
}

func compileNetworkPolicy(n policy.Network) (*networkPolicy, error) {
	np := &networkPolicy{unmatched: Verdict(n.Unmatched)}
	if np.unmatched == "" {
		np.unmatched = Ask
	}
	for _, l := range []struct {
		in  []string
		dst *[]policy.HostRule
	}{{n.Allow, &np.allow}, {n.Deny, &np.deny}} {
		for _, s := range l.in {
			r, err := policy.ParseHostRule(s)
			if err != nil {
				return nil, fmt.Errorf("[policy.network]: %v", err)
			}
			*l.dst = append(*l.dst, r)
		}
	}
	return np, nil
}

// NetworkUnmatchedRule is the Rule of a host decision no [policy.network] rule made.
const NetworkUnmatchedRule = "[policy.network] unmatched"

// HostPort renders host and port as "host:port" (IPv6 in brackets).
func HostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// DecideHost decides a connection to host (lower-case, no trailing dot, IPv6 without
// brackets: as the proxy normalised it) and port for session: a deny rule refuses; an allow
// rule allows; else a host grant (session or saved) allows; else [policy.network] unmatched
// decides. It does not resolve the name: the proxy checks the addresses (non-public ones need
// Exact, and are refused before anyone is asked).
func (e *Engine) DecideHost(session, host string, port int) HostDecision {
	np := e.net
	hp := HostPort(host, port)
	for _, r := range np.deny {
		if r.Matches(host, port) {
			return HostDecision{Verdict: Deny, Rule: "deny: " + r.String(), Reason: fmt.Sprintf("%s is denied by [policy.network] deny %q", hp, r.String())}
		}
	}
	for _, r := range np.allow {
		if r.Matches(host, port) {
			return HostDecision{Verdict: Allow, Rule: "allow: " + r.String(), Exact: !r.Wildcard,
				Reason: fmt.Sprintf("%s is allowed by [policy.network] allow %q", hp, r.String())}
		}
	}
	if g, ok := e.grants.AllowsHost(session, host, port); ok {
		return HostDecision{Verdict: Allow, Rule: g.Rule(), Grant: g.ID, Reason: fmt.Sprintf("%s is allowed by grant %s", hp, g.ID)}
	}
	return HostDecision{Verdict: np.unmatched, Rule: NetworkUnmatchedRule,
		Reason: fmt.Sprintf("no [policy.network] rule covers %s (unmatched = %q)", hp, np.unmatched)}
}

// HostGrantOptions select the scope of a host grant.
type HostGrantOptions struct {
	// Session scopes the grant to one ACP session; "" means every session of this engine.
	Session string
	// Persist saves the grant to the grants file (every later run), as a rule.
	Persist bool
}

// GrantHost makes a grant for exactly host:port (the narrowest rule: that name, that port),
// for the session or saved, and records it in the audit log (kind "grant"). Errors: host is
// not a valid host name or IP literal, the port is out of range, a deny rule covers it (a
// grant never overrides a deny), or the grant cannot be saved.
func (e *Engine) GrantHost(host string, port int, o HostGrantOptions) (Grant, error) {
	r, err := policy.ParseHostRule(HostPort(host, port))
	if err != nil || r.Wildcard || port < 1 || port > 65535 {
		return Grant{}, fmt.Errorf("grant refused for %s: not a host and port", HostPort(host, port))
	}
	for _, d := range e.net.deny {
		if d.Matches(r.Host, port) {
			return Grant{}, fmt.Errorf("grant refused for %s: it is denied (deny: %s)", HostPort(host, port), d.String())
		}
	}
	g := Grant{Kind: "host", Host: r.Host, Port: port, Session: o.Session, Saved: o.Persist}
	if o.Persist {
		g.Session = ""
	}
	g, isNew, err := e.grants.add(g)
	if err != nil {
		return Grant{}, err
	}
	if isNew {
		e.auditGrant("grant", g)
	}
	return g, nil
}

// AllowsHost reports whether a host grant covers host:port in session, and which.
func (s *GrantStore) AllowsHost(session, host string, port int) (Grant, bool) {
	if s == nil {
		return Grant{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked(false) // on error the saved grants are gone: fail closed
	for _, g := range s.grants {
		if g.Kind == "host" && g.Host == host && (g.Port == 0 || g.Port == port) &&
			(g.Saved || g.Session == "" || g.Session == session) {
			return g, true
		}
	}
	return Grant{}, false
}

// Connection is one proxied connection as the audit log records it (kind "net").
type Connection struct {
	// Session is the ACP session id.
	Session string
	// Terminal is the terminal id, or "agent" for the agent's own connection.
	Terminal string
	// Program is the terminal's command (or the agent) as a person reads it.
	Program string
	// Host and Port are what the client asked for; Addr the address dialed ("" if none).
	Host string
	Port int
	Addr string
	// Via is the user's own upstream proxy the connection went through, "" when direct.
	Via string
	// Protocol is "connect", "http" or "socks5".
	Protocol string
	// Verdict is the final verdict (allow or deny); Rule the deciding rule; By who decided
	// ("policy", "grant", "user", "approve-flag", "cancel", "proxy").
	Verdict Verdict
	Rule    string
	By      string
	// Error says why an allowed connection failed.
	Error string
	// Up and Down are the bytes sent to and received from the destination.
	Up, Down int64
	// Duration is how long the connection was open.
	Duration time.Duration
}

// RecordConnection writes c to the audit log as a "net" event: host, port, terminal, verdict,
// rule, who decided, bytes each way and duration. Error: the log write failed.
func (e *Engine) RecordConnection(c Connection) error {
	reason := ""
	if c.Error != "" {
		reason = c.Error
	}
	ev := AuditEvent{Session: c.Session, Kind: "net", Verdict: c.Verdict, Rule: c.Rule, Reason: reason, By: c.By,
		Host: c.Host, Port: c.Port, Addr: c.Addr, Via: c.Via, Protocol: c.Protocol, Terminal: c.Terminal, Program: c.Program,
		BytesUp: c.Up, BytesDown: c.Down, DurationMS: c.Duration.Milliseconds()}
	if ev.Verdict == "" {
		ev.Verdict = Deny
	}
	return e.Record(ev)
}
