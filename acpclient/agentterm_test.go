package acpclient

import (
	"fmt"
	"strings"
	"testing"
)

// terminalEvents describes the terminal events of evs, one line each, in order.
func terminalEvents(evs []Event) []string {
	var got []string
	for _, e := range evs {
		switch e := e.(type) {
		case TerminalStarted:
			got = append(got, fmt.Sprintf("started %s tc=%s %q owned=%v", e.ID, e.ToolCallID, e.Label, e.AgentOwned))
		case TerminalRetitled:
			got = append(got, fmt.Sprintf("retitled %s %q", e.ID, e.Label))
		case TerminalExited:
			got = append(got, fmt.Sprintf("exited %s %s", e.ID, e.Status))
		case TurnEnded:
			got = append(got, "turn ended "+e.StopReason)
		}
	}
	return got
}

// checkTerminalEvents compares the terminal events of each terminal id (in order) with want;
// every terminal event must belong to one of want's ids.
func checkTerminalEvents(t *testing.T, evs []Event, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	for _, e := range evs {
		var id string
		switch e := e.(type) {
		case TerminalStarted:
			id = e.ID
		case TerminalRetitled:
			id = e.ID
		case TerminalExited:
			id = e.ID
		default:
			continue
		}
		got[id] = append(got[id], terminalEvents([]Event{e})...)
	}
	for id, w := range want {
		if strings.Join(got[id], "\n") != strings.Join(w, "\n") {
			t.Errorf("events of %s:\n%s\nwant:\n%s", id, strings.Join(got[id], "\n"), strings.Join(w, "\n"))
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("unexpected events of %s: %q", id, g)
		}
	}
}

func screenText(t *testing.T, h *harness, id string) string {
	t.Helper()
	scr, ok := h.c.Screen(id)
	if !ok {
		t.Fatalf("no screen for %q", id)
	}
	return strings.TrimRight(scr.Text(), "\n")
}

// An agent that announces `_meta.terminal_info` with the id acpterm gives its next own terminal
// ("term-1") cannot take over that terminal's pane: the agent's terminal is "agent:term-1", and
// the real terminal/create shows the real output and exit status.
func TestAgentCannotShadowClientTerminal(t *testing.T) {
	h := start(t, setup{})
	h.turn("forgeinfo echo REAL-OUTPUT")
	if got, want := h.lastAgentText(), `term-1 exit=0 output="REAL-OUTPUT\n"`; got != want {
		t.Fatalf("agent saw %q, want %q", got, want)
	}
	checkTerminalEvents(t, h.snapshot(), map[string][]string{
		"term-1":       {`started term-1 tc= "echo REAL-OUTPUT" owned=false`, `exited term-1 exit 0`},
		"agent:term-1": {`started agent:term-1 tc=toolu_forge "rm -rf ~" owned=true`, `exited agent:term-1 unknown`},
	})
	if got := screenText(t, h, "term-1"); got != "REAL-OUTPUT" {
		t.Errorf("real pane shows %q", got)
	}
	if got := screenText(t, h, "agent:term-1"); got != "rm: removed all your files" {
		t.Errorf("agent pane shows %q", got)
	}
	if _, _, ok := h.c.AgentTerminalOutput("term-1"); ok {
		t.Error("the client terminal's id names an agent-owned transcript")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	real := h.state.Terminals["term-1"]
	if real == nil || real.AgentOwned || real.Label != "echo REAL-OUTPUT" || real.Exit == nil || real.Exit.String() != "exit 0" {
		t.Errorf("state of term-1 = %+v", real)
	}
	tc, _ := h.state.ToolCall("toolu_forge")
	if tc == nil || strings.Join(tc.Terminals, ",") != "agent:term-1" {
		t.Errorf("forging tool call's terminals = %+v (content naming term-1 is its own announced terminal)", tc)
	}
}

// `_meta.terminal_exit` (and terminal_output) naming one of acpterm's own terminals reach only an
// agent-owned terminal of that name: the real one keeps its exit status and output.
func TestAgentCannotRewriteClientTerminalExit(t *testing.T) {
	h := start(t, setup{})
	h.turn("forgeexit echo REAL")
	if got, want := h.lastAgentText(), `term-1 exit=0 output="REAL\n"`; got != want {
		t.Fatalf("agent saw %q, want %q", got, want)
	}
	checkTerminalEvents(t, h.snapshot(), map[string][]string{
		"term-1":       {`started term-1 tc= "echo REAL" owned=false`, `exited term-1 exit 0`},
		"agent:term-1": {`started agent:term-1 tc=toolu_forge2 "Forged" owned=true`, `exited agent:term-1 exit 42`},
	})
	if got := screenText(t, h, "term-1"); got != "REAL" {
		t.Errorf("real pane shows %q", got)
	}
	if got := screenText(t, h, "agent:term-1"); got != "FAKE" {
		t.Errorf("agent pane shows %q", got)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if real := h.state.Terminals["term-1"]; real == nil || real.AgentOwned || real.Exit == nil || real.Exit.String() != "exit 0" {
		t.Errorf("state of term-1 = %+v", real)
	}
}

// Agent-owned terminals that never get `_meta.terminal_exit` end with their tool call's final
// status, or with the turn; the exit status is unknown (the zero ExitStatus). A real status that
// comes later replaces it once.
func TestAgentTerminalEndsWithToolCallOrTurn(t *testing.T) {
	h := start(t, setup{})
	h.turn("metaopen")
	want := []string{
		`started agent:call_done tc=call_done "run call_done" owned=true`,
		`exited agent:call_done unknown`,
		`started agent:call_fail tc=call_fail "run call_fail" owned=true`,
		`exited agent:call_fail unknown`,
		`started agent:call_late tc=call_late "run call_late" owned=true`,
		`exited agent:call_late unknown`,
		`exited agent:call_late exit 7`,
		`started agent:call_open tc=call_open "run call_open" owned=true`,
		`exited agent:call_open unknown`,
		`turn ended end_turn`,
	}
	got := terminalEvents(h.snapshot())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, exit := range map[string]string{"call_done": "unknown", "call_fail": "unknown", "call_late": "exit 7", "call_open": "unknown"} {
		ts := h.state.Terminals[AgentTerminalID(id)]
		if ts == nil || ts.Exit == nil || ts.Exit.String() != exit {
			t.Errorf("%s: state %+v, want exit %q", id, ts, exit)
		}
	}
}

// Cancelling the turn (Esc) while an agent-owned terminal runs ends it with the turn.
func TestAgentTerminalEndsOnCancel(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("metaslow")
	from := 0
	h.waitFor(&from, "TerminalStarted", func(e Event) bool { _, ok := e.(TerminalStarted); return ok })
	h.c.Cancel()
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	want := []string{
		`started agent:call_slow tc=call_slow "sleep 60" owned=true`,
		`exited agent:call_slow unknown`,
		`turn ended cancelled`,
	}
	got := terminalEvents(h.snapshot())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ts := h.state.Terminals["agent:call_slow"]; ts == nil || ts.Exit == nil || ts.Exit.Code != nil || ts.Exit.Signal != "" {
		t.Errorf("state %+v", ts)
	}
}
