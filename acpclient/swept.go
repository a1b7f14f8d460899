package acpclient

import (
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// reportSwept says loudly what the sandbox's watch found once terminal t exited (protected
// paths its command created, moved into the quarantine; repositories it made): a warn
// Notice, a diagnostics log line and an audit record (kind "write", verdict deny, by
// "sandbox", Path the path, Reason the message) for each.
func (c *Client) reportSwept(t *terminals.Terminal) {
	for _, s := range t.Swept() {
		c.q.push(Notice{Level: "warn", Text: s.Message})
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
