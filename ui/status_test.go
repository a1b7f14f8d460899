package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// The status bar leaves parts out by priority when the window is narrow: a running turn,
// waiting approvals, the mode and the policy stay; nothing is cut in the middle.
func TestStatusBarPriorities(t *testing.T) {
	for _, c := range []struct {
		width int
		want  string
	}{
		{200, " ⠋ working · demo-agent 1.0 · approvals 1 · terminals 1 running · mode Ask · session s-1 · policy built-in defaults (policy only)"},
		{120, " ⠋ working · demo-agent 1.0 · approvals 1 · mode Ask · policy built-in defaults (policy only)"},
		{80, " ⠋ working · approvals 1 · mode Ask · policy defaults (policy only)"},
		{60, " ⠋ working · approvals 1 · mode Ask"},
	} {
		t.Run(fmt.Sprint(c.width), func(t *testing.T) {
			h := newHarness(t, nil)
			h.send(tea.WindowSizeMsg{Width: c.width, Height: 24})
			h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "demo-agent", AgentVersion: "1.0", SessionID: "s-1",
				Modes: &acp.SessionModeState{CurrentModeId: "ask", AvailableModes: []acp.SessionMode{{Id: "ask", Name: "Ask"}, {Id: "code", Name: "Code"}}}}})
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			startPane(h, "t1")
			h.ev(ask("p1"))
			rows := rowsOf(h.screenText())
			status := rows[len(rows)-1]
			left := strings.TrimSuffix(strings.TrimRight(status, " "), "? help")
			if got := strings.TrimRight(left, " "); got != c.want {
				t.Fatalf("width %d: status bar %q, want %q", c.width, got, c.want)
			}
			if w := len([]rune(status)); w > c.width {
				t.Fatalf("status bar is %d cells wide", w)
			}
		})
	}
}

// With a sandbox summary beside the policy, the policy's source shortens before either goes.
func TestStatusBarKeepsSandboxSummary(t *testing.T) {
	parts := []statusPart{{prio: statusPrioWorking, text: "⠋ working"}, {prio: statusPrioAgent, text: "demo-agent 1.0"},
		{prio: statusPrioPolicy, text: "policy built-in defaults", short: "policy defaults"}, {prio: statusPrioPolicy, text: "sandbox landlock+seccomp"}}
	for _, c := range []struct {
		width int
		want  string
	}{
		{80, "⠋ working · demo-agent 1.0 · policy built-in defaults · sandbox landlock+seccomp"},
		{64, "⠋ working · policy built-in defaults · sandbox landlock+seccomp"},
		{60, "⠋ working · policy defaults · sandbox landlock+seccomp"},
		{40, "⠋ working · policy defaults"},
	} {
		if got := fitStatus(parts, c.width); got != c.want {
			t.Errorf("width %d: %q, want %q", c.width, got, c.want)
		}
	}
}

func TestStatusBarAndModeSwitch(t *testing.T) {
	h := newHarness(t, nil)
	modes := &acp.SessionModeState{CurrentModeId: "ask", AvailableModes: []acp.SessionMode{{Id: "ask", Name: "Ask"}, {Id: "code", Name: "Code"}}}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "demo", AgentVersion: "1.2", SessionID: "s-42", Modes: modes}})
	scr := h.screenText()
	last := strings.Split(scr, "\n")
	status := strings.TrimRight(last[len(last)-1], " ")
	if !strings.HasPrefix(status, " demo 1.2 · mode Ask · session s-42 · policy built-in defaults (policy only)") || !strings.HasSuffix(status, "? help") {
		t.Fatalf("status = %q", status)
	}
	h.key("alt+m")
	wantCalls(t, h.agent.take(), "mode code")
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	scr = h.screenText()
	last = strings.Split(scr, "\n")
	if !strings.Contains(last[len(last)-1], "⠋ working · demo 1.2") {
		t.Fatalf("no spinner during turn: %q", last[len(last)-1])
	}
}
