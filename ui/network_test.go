package ui

import (
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// A network question shows the host and port, whose connection it is and where the name
// resolved, and offers the same four answers as a command question.
func TestNetworkQuestion(t *testing.T) {
	d := &permissions.Decision{Verdict: permissions.Ask, Rule: permissions.NetworkUnmatchedRule, Host: "proxy.golang.org", Port: 443,
		From: "terminal term-3: go mod download", Addrs: []string{"127.0.0.1 (loopback)"},
		Reason: "terminal term-3: go mod download connects to proxy.golang.org:443; no [policy.network] rule covers it"}
	for key, want := range map[string]string{
		"a": `answer n1 option="" choice="allow_once"`, "s enter": `answer n1 option="" choice="allow_session"`,
		"S enter": `answer n1 option="" choice="save_rule"`, "d": `answer n1 option="" choice="deny"`, "esc": `answer n1 option="" choice="deny"`,
	} {
		h := newHarness(t, nil)
		title := "connect to proxy.golang.org:443"
		h.ev(acpclient.PermissionAsked{ID: "n1", Kind: "network", Policy: d, ToolCall: acp.ToolCallUpdate{Title: &title}})
		if key == "a" {
			scr := h.screenText()
			for _, w := range []string{"Permission 1 of 1 · Connect?", "connect to proxy.golang.org:443", "host: proxy.golang.org:443",
				"from: terminal term-3: go mod download", "addr: 127.0.0.1 (loopback)",
				"a/1   Allow once", "s/2   Allow for this session", "S/3   Save as rule", "d/4   Deny"} {
				if !strings.Contains(scr, w) {
					t.Fatalf("screen lacks %q:\n%s", w, scr)
				}
			}
		}
		h.keys(strings.Fields(key)...)
		wantCalls(t, h.agent.take(), want)
	}
}

// A refused connection is named on the bottom border of its terminal's pane.
func TestRefusedConnectionLineInPane(t *testing.T) {
	h := newHarness(t, nil)
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	t.Cleanup(func() { _ = scr.Close() })
	scr.Write([]byte("curl: (56) CONNECT tunnel failed, response 403"))
	h.agent.screens["term-1"] = scr
	h.ev(acpclient.TerminalStarted{ID: "term-1", Label: "curl https://evil.example", AgentOwned: true})
	h.ev(acpclient.ConnectionRefused{Terminal: "term-1", Host: "evil.example", Port: 443, Rule: "deny: evil.example", By: "policy"})
	out := h.screenText()
	if !strings.Contains(out, "⚠ refused evil.example:443 (deny: evil.example)") {
		t.Fatalf("pane lacks the refused line:\n%s", out)
	}
}
