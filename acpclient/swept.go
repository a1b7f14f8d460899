package acpclient

import (
	"sync"

	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/sandbox"
	"github.com/acpterm/acpterm/terminals"
)

// reportSwept says loudly what the sandbox's watch found once terminal t exited (protected
// paths its command created, moved into the quarantine; repositories it made): a warn
// Notice, a diagnostics log line and an audit record (kind "write", verdict deny, by
// "sandbox", Path the path, Reason the message) for each. Only the first call for a
// terminal reports: it is called when the terminal's exit is seen and again before an answer
// that tells the agent it exited (so the notices come before the turn can end).
func (c *Client) reportSwept(t *terminals.Terminal) {
	if _, ok := t.Exit(); !ok {
		return
	}
	once, _ := c.swept.LoadOrStore(t, &sync.Once{})
	once.(*sync.Once).Do(func() { c.reportSweptNow(t) })
}

// What a watch moved while the command ran (Swept.Live) was reported then, through
// Manager.OnSwept, which Start registers: it is not reported again.
func (c *Client) reportSweptNow(t *terminals.Terminal) {
	found := t.Swept()
	for _, s := range found {
		if !s.Live {
			c.q.push(Notice{Level: "warn", Text: s.Message})
		}
	}
	for _, s := range found {
		if !s.Live {
			c.log.Warn("sandbox watch", "terminal", t.ID(), "path", s.Path, "found", s.Message)
			c.auditSwept(s)
		}
	}
}

// reportSweptItem says one finding of a watch at once (a warn Notice with suffix appended,
// the diagnostics log naming who — a terminal id or "agent" —, the audit log).
func (c *Client) reportSweptItem(s sandbox.Swept, suffix, who string) {
	c.q.push(Notice{Level: "warn", Text: s.Message + suffix})
	c.log.Warn("sandbox watch", "by", who, "path", s.Path, "found", s.Message, "live", s.Live)
	c.auditSwept(s)
}

// sweepAgent waits until the sandboxed agent is gone (its helper reaped: nothing it started
// runs any more), stops the live watching (stopLive), then moves what it created of watch's
// paths into the quarantine, saying each in a warn Notice, the diagnostics log and the audit
// log (what the live watching moved was said when it happened).
func (c *Client) sweepAgent(watch *sandbox.Watch, stopLive func()) {
	defer c.wg.Done()
	<-c.proc.exited
	stopLive()
	for _, s := range watch.Sweep(c.o.Quarantine) {
		if !s.Live {
			c.reportSweptItem(s, " (by the sandboxed agent)", "agent")
		}
	}
	if c.o.AgentRestore != nil {
		for _, s := range c.o.AgentRestore() {
			c.reportSweptItem(s, "", "agent")
		}
	}
}

func (c *Client) auditSwept(s sandbox.Swept) {
	if c.o.Engine == nil {
		return
	}
	ev := permissions.NewAuditEvent("write", permissions.Decision{Path: s.Path, Verdict: permissions.Deny, Rule: "sandbox", Reason: s.Message}, "sandbox")
	ev.Session = c.sid()
	if err := c.o.Engine.Record(ev); err != nil {
		c.log.Warn("audit log write failed", "err", err)
	}
}
