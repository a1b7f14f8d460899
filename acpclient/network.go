package acpclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/netproxy"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/permissions/policy"
)

// ConnectionRefused is emitted when the network proxy refused a connection of a client-owned
// terminal's command (by a rule, a person, or because the host resolved to a non-public
// address), so the terminal's pane can say so: the program usually prints only "403" or
// "connection not allowed".
type ConnectionRefused struct {
	// Terminal is the terminal id.
	Terminal string
	// Host and Port are the destination the program asked for.
	Host string
	Port int
	// Rule is the deciding rule; By who decided ("policy", "user", "approve-flag", "proxy", …).
	Rule, By string
}

func (ConnectionRefused) isEvent() {}

// ProxyOptions returns the callbacks that make the network proxy decide, ask and audit
// through this client: Decide (Engine.DecideHost), Ask (a PermissionAsked of kind "network",
// answered like a command prompt: AllowOnce, AllowSession or SaveRule — a host grant — or
// Deny; headless: --approve), and Audit (Engine.RecordConnection, and ConnectionRefused for a
// terminal's refused connection). Without an Engine every connection is denied.
func (c *Client) ProxyOptions() (decide func(netproxy.Request) netproxy.Decision,
	ask func(context.Context, netproxy.Request, netproxy.Decision) netproxy.Decision,
	audit func(netproxy.Record)) {
	return c.decideConnection, c.askConnection, c.recordConnection
}

func (c *Client) decideConnection(r netproxy.Request) netproxy.Decision {
	if c.o.Engine == nil {
		return netproxy.Decision{Verdict: netproxy.Deny, By: "policy", Rule: "no policy engine"}
	}
	d := c.o.Engine.DecideHost(c.sid(), r.Host, r.Port)
	if r.Identity.Agent && d.Verdict != permissions.Deny && d.Rule == permissions.NetworkUnmatchedRule {
		// The agent's own model API (built in per known agent, or [policy.network]
		// agent_allow); a deny rule still wins, and everything else is decided as for a command.
		hosts, source := config.AgentHosts(c.cfg, c.o.Command)
		for _, h := range hosts {
			if hr, err := policy.ParseHostRule(h); err == nil && hr.Matches(r.Host, r.Port) {
				// A name the user wrote in agent_allow may also resolve to a private address.
				named := !hr.Wildcard && source == "[policy.network] agent_allow"
				return netproxy.Decision{Verdict: netproxy.Allow, By: "policy", Rule: "agent model API: " + hr.String() + " (" + source + ")", NamesHost: named}
			}
		}
	}
	by := "policy"
	if d.Grant != "" {
		by = "grant"
	}
	return netproxy.Decision{Verdict: netproxy.Verdict(d.Verdict), By: by, Rule: d.Rule, NamesHost: d.Exact}
}

// from says whose connection it is, for the question and the audit log.
func from(id netproxy.Identity) string {
	if id.Agent {
		if id.Label != "" {
			return "agent: " + id.Label
		}
		return "agent"
	}
	if id.Label == "" {
		return "terminal " + id.Terminal
	}
	return "terminal " + id.Terminal + ": " + id.Label
}

// askConnection holds the connection while a person (or --approve) answers.
func (c *Client) askConnection(ctx context.Context, r netproxy.Request, nd netproxy.Decision) netproxy.Decision {
	hp := r.HostPort()
	d := permissions.Decision{Verdict: permissions.Ask, Rule: nd.Rule, Host: r.Host, Port: r.Port, From: from(r.Identity)}
	for _, a := range r.Addrs {
		d.Addrs = append(d.Addrs, a.String()) // public: the proxy refused any other unasked
	}
	d.Reason = fmt.Sprintf("%s connects to %s; no [policy.network] rule covers it", d.From, hp)
	title := "connect to " + hp
	req := c.ask(PermissionAsked{Kind: "network", Policy: &d,
		ToolCall: acp.ToolCallUpdate{Title: &title, Kind: acp.Ptr(acp.ToolKindFetch), RawInput: map[string]any{"host": r.Host, "port": r.Port}}})
	rep, err := c.await(ctx, req)
	if err != nil || rep.cancelled {
		by := "cancel"
		if err == nil && rep.by != "" {
			by = rep.by
		}
		return netproxy.Decision{Verdict: netproxy.Deny, By: by, Rule: nd.Rule + ", question withdrawn"}
	}
	if rep.choice == Deny || rep.choice == "" {
		return netproxy.Decision{Verdict: netproxy.Deny, By: rep.by, Rule: "refused by " + refuser(rep.by)}
	}
	rule := "approved once"
	if rep.choice == AllowSession || rep.choice == SaveRule {
		if g, err := c.o.Engine.Grant(d, rep.choice == SaveRule); err != nil {
			c.q.push(Notice{Level: "warn", Text: "could not remember the approval: " + err.Error()})
		} else {
			rule = g.Rule()
		}
	}
	// An answer never names the host for the proxy's non-public check: the addresses asked
	// about were public, and a later answer from DNS must be checked again.
	return netproxy.Decision{Verdict: netproxy.Allow, By: rep.by, Rule: rule}
}

// recordConnection writes the audit record and tells the pane of a refused connection.
func (c *Client) recordConnection(rec netproxy.Record) {
	term := rec.Identity.Terminal
	if rec.Identity.Agent {
		term = "agent"
	}
	conn := permissions.Connection{Session: c.sid(), Terminal: term, Program: rec.Identity.Label, Host: rec.Host, Port: rec.Port,
		Protocol: rec.Protocol, Verdict: permissions.Verdict(rec.Verdict), Rule: rec.Rule, By: rec.By, Error: rec.Error,
		Via: rec.Via, Up: rec.Up, Down: rec.Down, Duration: rec.Duration}
	if rec.Addr.IsValid() {
		conn.Addr = rec.Addr.String()
	}
	if c.o.Engine != nil {
		if err := c.o.Engine.RecordConnection(conn); err != nil {
			c.log.Warn("audit log write failed", "err", err)
		}
	}
	if rec.Verdict == netproxy.Deny && !rec.Identity.Agent && rec.Identity.Terminal != "" && rec.Host != "" {
		c.q.push(ConnectionRefused{Terminal: rec.Identity.Terminal, Host: rec.Host, Port: rec.Port, Rule: rec.Rule, By: rec.By})
	}
	if rec.Verdict == netproxy.Deny && rec.Identity.Agent {
		c.q.push(Notice{Level: "warn", Text: fmt.Sprintf("refused the agent's connection to %s (%s)", permissions.HostPort(rec.Host, rec.Port), strings.TrimSpace(rec.Rule))})
	}
}
