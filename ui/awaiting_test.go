package ui

import (
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// An agent-owned terminal announced before the agent asked about its command (claude-agent-acp
// 0.101, codex-acp 2.6) reads "awaiting approval", not "running", until the request is answered.
func TestPaneAwaitingApproval(t *testing.T) {
	h := newHarness(t, nil)
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	t.Cleanup(func() { _ = scr.Close() })
	h.agent.screens["agent:a1"] = scr
	title := "npm test"
	h.ev(acpclient.SessionUpdated{Update: acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
		ToolCallId: "call-1", Title: title, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending}}})
	h.ev(acpclient.TerminalStarted{ID: "agent:a1", ToolCallID: "call-1", Label: "npm test", AgentOwned: true})
	h.ev(acpclient.PermissionAsked{ID: "p1", Kind: "command", ToolCall: acp.ToolCallUpdate{ToolCallId: "call-1", Title: &title}})
	// (the permission dialog covers the pane's title: the tool call's card and the status bar say it)
	if out := h.screenText(); !strings.Contains(out, "$ npm test  awaiting approval") || !strings.Contains(out, "┌ terminal · awaiting approval") ||
		!strings.Contains(out, "terminals 0 running") || strings.Contains(out, "· running") {
		t.Fatalf("screen while the request is open:\n%s", out)
	}
	h.ev(acpclient.PermissionResolved{ID: "p1"})
	if out := h.screenText(); !strings.Contains(out, "$ npm test · running · 0s · read-only") || !strings.Contains(out, "terminals 1 running") ||
		strings.Contains(out, "awaiting approval") {
		t.Fatalf("screen after the answer:\n%s", out)
	}
}
