package acpclient

import (
	"sync"

	"github.com/acpterm/acpterm/permissions"
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

func (c *Client) reportSweptNow(t *terminals.Terminal) {
	found := t.Swept()
	for _, s := range found {
		c.q.push(Notice{Level: "warn", Text: s.Message})
	}
	for _, s := range found {
		c.log.Warn("sandbox watch", "terminal", t.ID(), "path", s.Path, "found", s.Message)
		if c.o.Engine == nil {
			continue
		}
		ev := permissions.NewAuditEvent("write", permissions.Decision{Path: s.Path, Verdict: permissions.Deny, Rule: "sandbox", Reason: s.Message}, "sandbox")
		ev.Session = c.sid()
		if err := c.o.Engine.Record(ev); err != nil {
			c.log.Warn("audit log write failed", "err", err)
		}
	}
}
