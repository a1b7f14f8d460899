package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync/atomic"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/netproxy"
)

// testResolveEnv, when set, makes the session's proxy resolve names under acpterm.test (a
// reserved domain that never resolves on the internet) to the loopback addresses it lists,
// e.g. "*.acpterm.test=127.0.0.1"; every other name is then not found. "name=public:ADDR"
// makes the entry's loopback address stand for a public one (asked about, grantable) instead
// of being refused as non-public. The end-to-end tests use it to reach their own "remote"
// servers on 127.0.0.1; it cannot redirect a real name.
const testResolveEnv = "ACPTERM_TEST_RESOLVE"

// sessionNetwork is the session's network proxy ([sandbox] network = "proxy"): every
// sandboxed terminal's (and a sandboxed agent's) listener is served by it, and every
// connection is decided, asked about and audited through the session's client.
type sessionNetwork struct {
	proxy  *netproxy.Proxy
	client atomic.Pointer[acpclient.Client] // set once the client exists
	log    *slog.Logger
}

// newSessionNetwork starts the proxy (no socket yet: endpoints come with the sandboxes).
// Errors: a bad ACPTERM_TEST_RESOLVE, or the proxy's private directory cannot be made.
func newSessionNetwork(logger *slog.Logger, getenv func(string) string) (*sessionNetwork, error) {
	n := &sessionNetwork{log: logger}
	o := netproxy.Options{Decide: n.decide, Ask: n.ask, Audit: n.audit,
		Logf: func(format string, args ...any) { logger.Debug("netproxy: " + fmt.Sprintf(format, args...)) }}
	// acpterm's own proxy goes through the user's (HTTPS_PROXY / HTTP_PROXY, NO_PROXY): behind
	// a corporate firewall that is the only way out, for commands as it was before the sandbox.
	if up := netproxy.EnvUpstream(getenv); up != nil {
		o.Upstream = up
		logger.Info("netproxy: connections go through the user's proxy", "HTTPS_PROXY", redactedEnvURL(getenv, "HTTPS_PROXY", "https_proxy"),
			"HTTP_PROXY", redactedEnvURL(getenv, "HTTP_PROXY", "http_proxy"), "NO_PROXY", getenv("NO_PROXY")+getenv("no_proxy"))
	}
	if spec := getenv(testResolveEnv); spec != "" {
		r, err := netproxy.ParseTestResolver(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", testResolveEnv, err)
		}
		o.Resolver = r
		logger.Warn("netproxy: names resolve through the test resolver only", "env", testResolveEnv, "spec", spec)
	}
	p, err := netproxy.New(o)
	if err != nil {
		return nil, err
	}
	n.proxy = p
	return n, nil
}

// attach makes the proxy decide through c. Until then every connection is refused.
func (n *sessionNetwork) attach(c *acpclient.Client) {
	if n != nil {
		n.client.Store(c)
	}
}

func (n *sessionNetwork) decide(r netproxy.Request) netproxy.Decision {
	c := n.client.Load()
	if c == nil {
		return netproxy.Decision{Verdict: netproxy.Deny, By: "proxy", Rule: "acpterm is not ready"}
	}
	decide, _, _ := c.ProxyOptions()
	return decide(r)
}

func (n *sessionNetwork) ask(ctx context.Context, r netproxy.Request, d netproxy.Decision) netproxy.Decision {
	c := n.client.Load()
	if c == nil {
		return netproxy.Decision{Verdict: netproxy.Deny, By: "proxy", Rule: "acpterm is not ready"}
	}
	_, ask, _ := c.ProxyOptions()
	return ask(ctx, r, d)
}

func (n *sessionNetwork) audit(rec netproxy.Record) {
	if c := n.client.Load(); c != nil {
		_, _, audit := c.ProxyOptions()
		audit(rec)
		return
	}
	n.log.Warn("netproxy: connection before the session", "host", rec.Host, "port", rec.Port, "verdict", rec.Verdict)
}

// serveTerminal is terminals.ManagerOptions.Network: the terminal's listener, served with
// the terminal as the identity of its connections.
func (n *sessionNetwork) serveTerminal(id, label string, ln net.Listener) func() {
	ep, err := n.proxy.Serve(netproxy.Identity{Terminal: id, Label: label}, ln)
	if err != nil {
		n.log.Warn("netproxy: terminal listener not served", "terminal", id, "err", err)
		_ = ln.Close()
		return func() {}
	}
	return func() { _ = ep.Close() }
}

// agentNetwork is acpclient.Options.AgentNetwork: the agent's listener, served with the
// agent (named label) as the identity; the client is attached first, so that the agent's
// connections during initialize are decided too. With m, the listener also serves acpterm's
// MCP server (at /mcp and mcpterm.StreamPath, the endpoint's bearer secret required) for m to
// offer the agent. nil
// when there is no proxy.
func (n *sessionNetwork) agentNetwork(label string, m *mcpTerminals) func(*acpclient.Client, net.Listener) func() {
	if n == nil {
		return nil
	}
	return func(c *acpclient.Client, ln net.Listener) func() {
		n.attach(c)
		addr := ln.Addr().String()
		ep, err := n.proxy.Serve(netproxy.Identity{Agent: true, Label: label}, ln)
		if err != nil {
			n.log.Warn("netproxy: agent listener not served", "err", err)
			_ = ln.Close()
			return func() {}
		}
		if m != nil {
			ep.ServeLocal(m.ep.Handler())
			u := "http://" + addr
			m.sandboxURL.Store(&u)
		}
		return func() { _ = ep.Close() }
	}
}

// close ends every connection (pending questions are withdrawn) and removes the proxy's
// directory.
func (n *sessionNetwork) close() {
	if n != nil && n.proxy != nil {
		_ = n.proxy.Close()
	}
}

// redactedEnvURL is the first of the variables names that is set, as a URL without its
// password (a value that is no URL is shown as "(set)").
func redactedEnvURL(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			if u, err := url.Parse(v); err == nil {
				return u.Redacted()
			}
			return "(set)"
		}
	}
	return ""
}
