package acpclient

import (
	"fmt"
	"path/filepath"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/permissions"
)

// Unasked actions: a tool call that acts (execute, edit, delete, move) and ran (in_progress or
// completed) although the agent never asked acpterm (no session/request_permission named it)
// and acpterm did not carry it out itself (no client terminal of the call, no fs write of one of
// its paths). That is an agent bypassing the client's approval, whatever its reason (a mode that
// does not ask, its own allow list); acpterm cannot stop it after the fact, but it says so on
// the card, in headless output and in the audit log.

// actingKind reports whether a tool kind changes something.
func actingKind(k acp.ToolKind) bool {
	switch k {
	case acp.ToolKindExecute, acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove:
		return true
	}
	return false
}

// noteStatusLocked records what a status update says of a tool call for the unasked check and
// returns the ToolCallUnasked event when the call, now finished, ran unasked.
func (c *Client) noteStatusLocked(id string, ti *ToolCall, st acp.ToolCallStatus) []Event {
	switch st {
	case acp.ToolCallStatusInProgress, acp.ToolCallStatusCompleted:
		ti.ran = true
	}
	if !finalStatus(st) || st == StatusCancelled {
		return nil
	}
	return c.checkUnaskedLocked(id, ti)
}

// checkUnaskedLocked flags ti once when it ran, acts, and went past acpterm.
func (c *Client) checkUnaskedLocked(id string, ti *ToolCall) []Event {
	if ti.flagged || !ti.ran || ti.asked || !actingKind(ti.Kind) || c.viaClientLocked(ti) {
		return nil
	}
	ti.flagged = true
	ev := ToolCallUnasked{ToolCallID: id, Kind: ti.Kind, Title: ti.Title}
	c.auditUnaskedLocked(id, ti)
	return []Event{ev}
}

// viaClientLocked reports whether acpterm itself carried the call out: one of its terminals is
// the call's, or acpterm wrote one of its paths this turn (through its policy either way).
func (c *Client) viaClientLocked(ti *ToolCall) bool {
	for _, ct := range ti.Content {
		if ct.Terminal != nil && c.terms[ct.Terminal.TerminalId] != nil {
			return true
		}
	}
	for _, p := range c.pathsOf(ti) {
		if c.written[filepath.Clean(p)] {
			return true
		}
	}
	return false
}

// flagUnaskedAtEndLocked flags, when a turn ends, the calls that ran and were left open.
func (c *Client) flagUnaskedAtEndLocked() []Event {
	var out []Event
	for id, ti := range c.tools {
		if ti.Open() {
			out = append(out, c.checkUnaskedLocked(id, ti)...)
		}
	}
	return out
}

// auditUnaskedLocked writes the audit record of an unasked tool call: kind "unasked", verdict
// allow (it ran), by "agent".
func (c *Client) auditUnaskedLocked(id string, ti *ToolCall) {
	if c.o.Engine == nil {
		return
	}
	d := permissions.Decision{Verdict: permissions.Allow, Reason: fmt.Sprintf("tool call %s (%s) ran without asking: %s", id, ti.Kind, clip(ti.Title, 200))}
	if cmd, argv := commandOf(ti.RawInput); cmd != "" {
		d.Argv = []string{cmd}
	} else if len(argv) > 0 {
		d.Argv = argv
	} else if ti.Kind == acp.ToolKindExecute && ti.Title != "" {
		d.Argv = []string{ti.Title}
	}
	if ps := c.pathsOf(ti); len(ps) > 0 {
		d.Path = ps[0]
	}
	ev := permissions.NewAuditEvent("unasked", d, "agent")
	ev.Session = c.sessionID
	ev.Req = "tool_call#" + id
	if err := c.o.Engine.Record(ev); err != nil {
		c.log.Warn("audit log write failed", "err", err)
	}
}
