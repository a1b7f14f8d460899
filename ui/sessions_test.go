package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

var fakeSessions = []acpclient.SessionEntry{
	{ID: "s3", Title: "fix the build", Updated: time.Date(2025, 12, 31, 23, 50, 0, 0, time.UTC), Current: true},
	{ID: "s1", Title: "write docs", Updated: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)},
	{ID: "s2"},
}

func (f *fakeAgent) SessionList(context.Context) ([]acpclient.SessionEntry, string, error) {
	f.rec("list")
	return fakeSessions, acpclient.FromAgent, nil
}
func (f *fakeAgent) OpenSession(_ context.Context, id string) error { f.rec("open " + id); return nil }
func (f *fakeAgent) ForkSession(_ context.Context, id string) error { f.rec("fork " + id); return nil }
func (f *fakeAgent) DeleteSession(_ context.Context, id string) error {
	f.rec("delete " + id)
	return nil
}

func allSessionCaps() acpclient.Info {
	return acpclient.Info{Capabilities: acp.AgentCapabilities{LoadSession: true, SessionCapabilities: acp.SessionCapabilities{
		List: &acp.SessionListCapabilities{}, Fork: &acp.SessionForkCapabilities{}, Delete: &acp.SessionDeleteCapabilities{}}}}
}

func TestSessionPicker(t *testing.T) {
	h := newHarness(t, nil)
	h.agent.info = allSessionCaps()
	h.key("alt+r")
	wantCalls(t, h.agent.take(), "list")
	scr := h.screenText()
	for _, want := range []string{"Sessions · from the agent", "› fix the build", "s3  (open)", "write docs", "2025-06-01", "(untitled)",
		"enter load · f fork · d delete · n new session · esc close"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("picker lacks %q:\n%s", want, scr)
		}
	}
	h.key("enter") // the open session: nothing to do
	wantCalls(t, h.agent.take())
	if strings.Contains(h.screenText(), "Sessions · from") {
		t.Fatal("picker still open after enter on the open session")
	}
	h.key("alt+r")
	h.key("down")
	h.key("d") // first d: confirm
	wantCalls(t, h.agent.take(), "list")
	if scr := h.screenText(); !strings.Contains(scr, "d again deletes it") {
		t.Fatalf("no confirmation:\n%s", scr)
	}
	h.key("d")
	wantCalls(t, h.agent.take(), "delete s1", "list")
	h.key("f")
	wantCalls(t, h.agent.take(), "fork s1")
	if strings.Contains(h.screenText(), "Sessions · from") {
		t.Fatal("picker still open after a fork")
	}
	h.key("alt+r")
	h.key("down")
	h.key("down")
	h.key("enter")
	wantCalls(t, h.agent.take(), "list", "open s2")
}

func TestSessionPickerLimitsAndStartup(t *testing.T) {
	h := newHarness(t, nil)
	h.agent.info = acpclient.Info{Capabilities: acp.AgentCapabilities{SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{}}}}
	h.run(h.m.openSessions(true))
	wantCalls(t, h.agent.take(), "list")
	h.key("down")
	h.key("enter")
	h.key("f")
	wantCalls(t, h.agent.take())
	if scr := h.screenText(); !strings.Contains(scr, "the agent cannot fork sessions (no session/fork)") || !strings.Contains(scr, "n new session · esc new session") {
		t.Fatalf("picker:\n%s", scr)
	}
	h.key("esc") // at startup: a new session
	wantCalls(t, h.agent.take(), "open ")
}

func TestSessionStartedResetsConversation(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1"}, Via: "session/new"})
	h.ev(acpclient.TurnStarted{Prompt: "old prompt"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	if !strings.Contains(h.screenText(), "old prompt") {
		t.Fatal("no old prompt")
	}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s2"}, Via: "session/load"})
	h.ev(acpclient.SessionUpdated{Update: acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{SessionUpdate: "user_message_chunk", Content: acp.TextBlock("replayed question")}}})
	scr := h.screenText()
	if strings.Contains(scr, "old prompt") || !strings.Contains(scr, "replayed question") || !strings.Contains(scr, "session s2 loaded; its history follows") {
		t.Fatalf("after the switch:\n%s", scr)
	}
}
