package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// An agent-owned terminal that ended without an exit status (acpclient marks it ended when its
// tool call finishes or the turn ends) reads "ended", and no longer counts as running.
func TestAgentOwnedPaneEndedWithoutStatus(t *testing.T) {
	h := newHarness(t, nil)
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	t.Cleanup(func() { _ = scr.Close() })
	h.agent.screens["agent:a1"] = scr
	h.ev(acpclient.TerminalStarted{ID: "agent:a1", Label: "npm test", AgentOwned: true})
	if out := h.screenText(); !strings.Contains(out, "$ npm test · running · 0s · read-only") || !strings.Contains(out, "terminals 1 running") {
		t.Fatalf("screen before the end:\n%s", out)
	}
	h.ev(acpclient.TerminalExited{ID: "agent:a1"})
	out := h.screenText()
	if !strings.Contains(out, "$ npm test · ended · 0s · read-only") || !strings.Contains(out, "terminals 0 running") {
		t.Fatalf("screen after the end:\n%s", out)
	}
}
