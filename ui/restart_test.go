package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// restartHarness is a harness whose agent can be restarted: each restart records the session
// it was asked to reopen and returns next (or fails with failWith).
type restartHarness struct {
	*harness
	resumes  []string
	next     *fakeAgent
	failWith error
}

func newRestartHarness(t *testing.T, canLoad bool) *restartHarness {
	h := &restartHarness{harness: newHarness(t, nil), next: &fakeAgent{screens: map[string]*terminals.Screen{}}}
	h.m.d.restart = func(resume string) (agentAPI, error) {
		h.resumes = append(h.resumes, resume)
		if h.failWith != nil {
			return nil, h.failWith
		}
		return h.next, nil
	}
	info := acpclient.Info{SessionID: "s1", AgentName: "fake"}
	info.Capabilities.LoadSession = canLoad
	h.ev(acpclient.SessionStarted{Info: info, Via: "session/new"})
	return h
}

func (h *restartHarness) crash() {
	h.ev(acpclient.TurnStarted{Prompt: "crash"})
	code := 7
	h.ev(acpclient.TurnEnded{Err: &acpclient.AgentExitError{Code: &code}})
	h.ev(acpclient.AgentExited{Code: &code, StderrTail: []string{"segfault"}})
}

func TestRestartReopensTheSession(t *testing.T) {
	h := newRestartHarness(t, true)
	h.crash()
	if s := h.screenText(); !strings.Contains(s, "agent exited (exit 7); ctrl+r restarts it, ctrl+q quits") {
		t.Fatalf("the exit banner offers no restart:\n%s", s)
	}
	h.typeText("after")
	h.key("enter")
	if s := h.screenText(); !strings.Contains(s, "the prompt cannot be sent; ctrl+r restarts it, ctrl+q quits") {
		t.Fatalf("enter with the agent gone:\n%s", s)
	}
	h.agent.take()
	h.key("ctrl+r")
	if !slices.Equal(h.resumes, []string{"s1"}) {
		t.Fatalf("restart reopened %q, want [s1]", h.resumes)
	}
	if h.m.agentGone != "" || h.m.d.agent != h.next {
		t.Fatalf("after the restart: agentGone %q, agent swapped %v", h.m.agentGone, h.m.d.agent == h.next)
	}
	info := acpclient.Info{SessionID: "s1", AgentName: "fake"}
	info.Capabilities.LoadSession = true
	h.ev(acpclient.SessionStarted{Info: info, Via: "session/load"})
	s := h.screenText()
	for _, want := range []string{"session s1 loaded; its history follows", "agent restarted; the conversation continues in session s1"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}
	h.key("enter") // the draft kept in the editor goes to the new agent
	if got := h.next.take(); !slices.Equal(got, []string{"prompt after"}) {
		t.Fatalf("new agent got %q", got)
	}
	if got := h.agent.take(); len(got) != 0 {
		t.Fatalf("the exited agent still got %q", got)
	}
}

func TestRestartWithoutLoadStartsNewSession(t *testing.T) {
	h := newRestartHarness(t, false)
	h.crash()
	h.key("ctrl+r")
	if !slices.Equal(h.resumes, []string{""}) {
		t.Fatalf("restart reopened %q, want a new session", h.resumes)
	}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s2"}, Via: "session/new"})
	if s := h.screenText(); !strings.Contains(s, "agent restarted in a new session s2: it does not remember the earlier conversation") {
		t.Fatalf("screen:\n%s", s)
	}
}

func TestRestartFailureCanBeRetried(t *testing.T) {
	h := newRestartHarness(t, true)
	h.crash()
	h.failWith = errors.New("start agent \"fake\": agent exited with status 1")
	h.key("ctrl+r")
	if s := h.screenText(); !strings.Contains(s, `restart failed: start agent "fake": agent exited with status 1; ctrl+r tries again, ctrl+q quits`) {
		t.Fatalf("screen:\n%s", s)
	}
	if h.m.agentGone == "" || h.m.restarting {
		t.Fatalf("after a failed restart: agentGone %q restarting %v", h.m.agentGone, h.m.restarting)
	}
	h.failWith = nil
	h.key("ctrl+r")
	if len(h.resumes) != 2 || h.m.agentGone != "" {
		t.Fatalf("retry: resumes %q, agentGone %q", h.resumes, h.m.agentGone)
	}
}

func TestRestartKeyIsTypedWhileTheAgentRuns(t *testing.T) {
	h := newRestartHarness(t, true)
	h.key("ctrl+r")
	if len(h.resumes) != 0 {
		t.Fatalf("ctrl+r restarted a running agent: %q", h.resumes)
	}
}

// TestEventSourceSwitch: the forwarder delivers the first client's events, says nothing of its
// close during a restart, then delivers the next client's events.
func TestEventSourceSwitch(t *testing.T) {
	src := newEventSource()
	a, b := make(chan acpclient.Event, 2), make(chan acpclient.Event, 1)
	got := make(chan tea.Msg, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { src.forward(ctx, a, func(m tea.Msg) { got <- m }); close(done) }()
	a <- acpclient.Notice{Text: "one"}
	src.restarting.Store(true)
	close(a)
	src.next <- b
	b <- acpclient.Notice{Text: "two"}
	for _, want := range []string{"one", "two"} {
		m := <-got
		if ev, ok := m.(acpEventMsg); !ok || ev.ev.(acpclient.Notice).Text != want {
			t.Fatalf("got %#v, want notice %q", m, want)
		}
	}
	src.restarting.Store(false)
	close(b) // no restart under way: the connection closed, and the program is told
	if m := <-got; m != (eventsClosedMsg{}) {
		t.Fatalf("after the close: %#v", m)
	}
	cancel()
	<-done
}
