package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

func TestEscCancelsTurnAndPromptsQueue(t *testing.T) {
	h := newHarness(t, nil)
	h.key("esc") // idle: nothing to cancel
	wantCalls(t, h.agent.take())
	h.typeText("first")
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt first")
	h.ev(acpclient.TurnStarted{Prompt: "first"})
	h.typeText("second")
	h.key("enter")
	h.typeText("third")
	h.key("enter")
	wantCalls(t, h.agent.take()) // queued, not sent
	if scr := h.screenText(); !strings.Contains(scr, "2 queued") {
		t.Fatalf("no queue marker:\n%s", scr)
	}
	h.key("esc")
	h.key("esc") // a second Esc does not cancel twice
	wantCalls(t, h.agent.take(), "cancel")
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	// Cancelling holds the queue: the queued prompts come back into the editor, unsent.
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "second\n\nthird" || len(h.m.queue) != 0 {
		t.Fatalf("after cancel: editor %q, queue %q", h.m.ed.value(), h.m.queue)
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn cancelled; the 2 queued prompts are back in the editor (enter sends them as one)") {
		t.Fatalf("no notice of the held queue:\n%s", scr)
	}
	h.key("ctrl+c") // drop them (idle with a draft)
	h.typeText("second")
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt second")
	h.ev(acpclient.TurnStarted{Prompt: "second"})
	h.typeText("third")
	h.key("enter")
	h.key("ctrl+c") // during a turn: cancel, not quit
	wantCalls(t, h.agent.take(), "cancel")
	if h.quit {
		t.Fatal("ctrl+c during a turn quit")
	}
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"}) // the agent ignored the cancel
	wantCalls(t, h.agent.take())                      // "third" is held all the same
	if h.m.ed.value() != "third" {
		t.Fatalf("editor after an ignored cancel = %q", h.m.ed.value())
	}
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt third")
	h.ev(acpclient.TurnStarted{Prompt: "third"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	h.typeText("a long draft")
	h.key("ctrl+c") // idle with a draft: the draft goes (to the history), acpterm stays
	if h.quit || !h.m.ed.empty() {
		t.Fatalf("ctrl+c with a draft: quit %v, editor %q", h.quit, h.m.ed.value())
	}
	if scr := h.screenText(); !strings.Contains(scr, "draft cleared (↑ brings it back); ctrl+c again quits") {
		t.Fatalf("no notice of the cleared draft:\n%s", scr)
	}
	h.key("up")
	if h.m.ed.value() != "a long draft" {
		t.Fatalf("up after ctrl+c: editor %q", h.m.ed.value())
	}
	h.key("ctrl+u")
	h.clock = h.clock.Add(interruptQuitGuard) // long after the ctrl+c that cancelled a turn
	h.key("ctrl+c")                           // idle, empty editor: quit
	if !h.quit {
		t.Fatal("ctrl+c when idle did not quit")
	}
}

func TestQuitKeyAndHistory(t *testing.T) {
	h := newHarness(t, map[string][]string{"quit": {"ctrl+x"}, "close_pane": {"alt+w"}})
	h.key("ctrl+q") // rebound: no longer quits
	if h.quit {
		t.Fatal("ctrl+q quit after rebinding")
	}
	h.typeText("hello")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "hello"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	h.key("up")
	if h.m.ed.value() != "hello" {
		t.Fatalf("history recall = %q", h.m.ed.value())
	}
	h.key("ctrl+x")
	if !h.quit {
		t.Fatal("rebound quit key did not quit")
	}
}

func TestAgentExitBannerAndErrors(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	h.ev(acpclient.TurnEnded{Err: fmt.Errorf("agent said \x1b[31mno")})
	code := 3
	h.ev(acpclient.AgentExited{Code: &code, StderrTail: []string{"panic: boom"}})
	scr := h.screenText()
	for _, w := range []string{"✗ turn failed: agent said no", "✗ agent exited (exit 3); press ctrl+q to quit", "stderr:", "panic: boom"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("screen lacks %q:\n%s", w, scr)
		}
	}
	if h.m.agentGone != "exit 3" {
		t.Fatalf("agentGone = %q", h.m.agentGone)
	}
	h.typeText("more")
	h.key("enter")
	wantCalls(t, h.agent.take()) // nothing is sent to a dead agent
	if got := h.m.ed.value(); got != "more" || len(h.m.queue) != 0 {
		t.Fatalf("editor %q, queue %q: want the text kept, nothing queued", got, h.m.queue)
	}
	h.key("enter") // again: the same explanation is not repeated
	if scr := h.screenText(); strings.Count(scr, "✗ the agent has exited (exit 3): the prompt cannot be sent; ctrl+q quits") != 1 {
		t.Fatalf("want the explanation once on screen:\n%s", scr)
	}
}

func TestSecondEscKillsTurnTerminals(t *testing.T) {
	h := newHarness(t, nil)
	old := startPane(h, "term-0") // started before the turn: left alone
	h.typeText("go")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	yes := startPane(h, "term-1")
	done := startPane(h, "term-2")
	h.ev(acpclient.TerminalExited{ID: "term-2", Status: terminals.ExitStatus{Code: new(int)}})
	h.agent.take()
	h.key("esc")
	wantCalls(t, h.agent.take(), "cancel")
	if r := rowWith(h.screenText(), "cancelling…"); !strings.HasPrefix(r, "─ cancelling… · esc again kills 1 terminal ─") {
		t.Fatalf("separator = %q", r)
	}
	h.key("esc") // the agent ignored session/cancel
	wantCalls(t, h.agent.take())
	if strings.Join(yes.input, ",") != "kill" || len(old.input) != 0 || len(done.input) != 0 {
		t.Fatalf("kills: turn pane %q, older pane %q, finished pane %q", yes.input, old.input, done.input)
	}
	if r := rowWith(h.screenText(), "cancelling…"); !strings.HasPrefix(r, "─ cancelling… · killing 1 terminal ─") {
		t.Fatalf("separator = %q", r)
	}
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	if r := rowWith(h.screenText(), "cancelling"); r != "" {
		t.Fatalf("still cancelling after the turn ended: %q", r)
	}
}

// An agent that ignores the cancel and ends the turn with end_turn: the prompt queued behind the
// cancelled turn is held all the same.
func TestCancelIgnoredByAgentStillHoldsQueue(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("first")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "first"})
	h.typeText("rm -rf everything please")
	h.key("enter")
	h.key("esc")
	wantCalls(t, h.agent.take(), "prompt first", "cancel")
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "rm -rf everything please" {
		t.Fatalf("editor = %q", h.m.ed.value())
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn ended (end_turn) after you cancelled it; the queued prompt is back in the editor") {
		t.Fatalf("no notice:\n%s", scr)
	}
}

// Two quick ctrl+c during a turn: the first cancels it; if the turn ended in between, the second
// does not quit (a third, or one a second later, does).
func TestDoubleCtrlCDoesNotQuit(t *testing.T) {
	h := newHarness(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.m.now = func() time.Time { return now }
	h.typeText("go")
	h.send(keyMsg("enter"))
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	h.send(keyMsg("ctrl+c"))
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	now = now.Add(200 * time.Millisecond)
	h.send(keyMsg("ctrl+c"))
	if h.quit {
		t.Fatal("the second quick ctrl+c quit")
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn stopped; ctrl+c again quits") {
		t.Fatalf("no notice:\n%s", scr)
	}
	now = now.Add(200 * time.Millisecond)
	h.send(keyMsg("ctrl+c"))
	if !h.quit {
		t.Fatal("the third ctrl+c did not quit")
	}
}
