package acpclient

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func isStarted(e Event) bool { _, ok := e.(SessionStarted); return ok }

// texts lists the state's messages as "role: text".
func (h *harness) texts() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, m := range h.state.Messages {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

func TestSessionsLoadListForkDeleteClose(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	dir := t.TempDir()
	env := []string{"SCRIPTAGENT_STATE=" + state}
	first := start(t, setup{scenario: "sessions", env: env, opts: func(o *Options) { o.Cwd = dir }})
	if id := first.c.Info().SessionID; id != "s1" {
		t.Fatalf("first session = %q", id)
	}
	first.turn("echo one")
	first.close()
	if tail := strings.Join(first.c.StderrTail(), "\n"); !strings.Contains(tail, "session/close s1") {
		t.Fatalf("no session/close on exit:\n%s", tail)
	}

	h := start(t, setup{scenario: "sessions", env: env, opts: func(o *Options) { o.Cwd = dir; o.Continue = true }})
	from := 0
	st := h.waitFor(&from, "SessionStarted", isStarted).(SessionStarted)
	if st.Info.SessionID != "s1" || st.Via != "session/load" {
		t.Fatalf("continued = %+v via %q", st.Info.SessionID, st.Via)
	}
	h.turn("echo two")
	if got, want := h.texts(), []string{"user: echo one", "agent: one", "user: echo two", "agent: two"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	list, source, err := h.c.SessionList(context.Background())
	if err != nil || source != FromAgent || len(list) != 1 || list[0].ID != "s1" || list[0].Title != "echo one" || !list[0].Current || list[0].Updated.IsZero() {
		t.Fatalf("SessionList = %+v %q %v", list, source, err)
	}

	// A new session, then a fork of s1: each starts its own conversation (a fork replays nothing).
	if err := h.c.OpenSession(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	st = h.waitFor(&from, "SessionStarted", isStarted).(SessionStarted)
	if st.Info.SessionID != "s2" || st.Via != "session/new" || len(h.texts()) != 0 {
		t.Fatalf("new = %+v %q, messages %q", st.Info.SessionID, st.Via, h.texts())
	}
	if err := h.c.ForkSession(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	st = h.waitFor(&from, "SessionStarted", isStarted).(SessionStarted)
	if st.Info.SessionID != "s3" || st.Via != "session/fork" || st.ForkedFrom != "s1" {
		t.Fatalf("fork = %+v %q %q", st.Info.SessionID, st.Via, st.ForkedFrom)
	}
	list, _, _ = h.c.SessionList(context.Background())
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if want := []string{"s3", "s2", "s1"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v (most recent first)", ids, want)
	}
	if err := h.c.DeleteSession(context.Background(), "s3"); err == nil || !strings.Contains(err.Error(), "this is the open session") {
		t.Fatalf("delete open session: %v", err)
	}
	if err := h.c.DeleteSession(context.Background(), "s2"); err != nil {
		t.Fatal(err)
	}
	// The fork's history is the agent's; load it back.
	if err := h.c.OpenSession(context.Background(), "s3"); err != nil {
		t.Fatal(err)
	}
	h.waitFor(&from, "SessionStarted", isStarted)
	h.turn("echo three") // after the replay
	if got, want := h.texts(), []string{"user: echo one", "agent: one", "user: echo two", "agent: two", "user: echo three", "agent: three"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	tail := strings.Join(h.c.StderrTail(), "\n")
	for _, want := range []string{"session/close s1", "session/close s2", "session/fork s1 -> s3", "session/delete s2", "session/load s3"} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr lacks %q:\n%s", want, tail)
		}
	}
}

func TestSessionsResumeOnlyAndErrors(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	dir := t.TempDir()
	env := []string{"SCRIPTAGENT_STATE=" + state}
	first := start(t, setup{scenario: "resume-only", env: env, opts: func(o *Options) { o.Cwd = dir }})
	first.turn("echo one")
	first.close()
	h := start(t, setup{scenario: "resume-only", env: env, opts: func(o *Options) { o.Cwd = dir; o.LoadSession = "s1" }})
	from := 0
	st := h.waitFor(&from, "SessionStarted", isStarted).(SessionStarted)
	if st.Info.SessionID != "s1" || st.Via != "session/resume" {
		t.Fatalf("resumed = %q via %q", st.Info.SessionID, st.Via)
	}
	if err := h.c.ForkSession(context.Background(), "s1"); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("fork: %v", err)
	}
	// An unknown id: the agent's error, and the open session stays.
	if err := h.c.OpenSession(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "session/resume") || !strings.Contains(err.Error(), "no session nope") {
		t.Fatalf("open unknown: %v", err)
	}
	if id := h.c.Info().SessionID; id != "s1" {
		t.Fatalf("session after a failed open = %q", id)
	}
	if end := h.turn("echo still"); end.Err != nil {
		t.Fatalf("turn after a failed open: %v", end.Err)
	}
}

func TestSessionsNotSupported(t *testing.T) {
	plain := start(t, setup{})
	if err := plain.c.OpenSession(context.Background(), "x"); !errors.Is(err, ErrNotSupported) ||
		err.Error() != `acpclient: cannot open session "x": the agent supports neither session/load nor session/resume: acpclient: not supported by the agent` {
		t.Fatalf("open: %v", err)
	}
	if _, _, err := plain.c.SessionList(context.Background()); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("list: %v", err)
	}
}

func TestContinueWithNothingToContinue(t *testing.T) {
	_, err := startErr(t, setup{opts: func(o *Options) { o.Continue = true; o.Store = NewSessionStore(filepath.Join(t.TempDir(), "s.json")) }})
	if err == nil || !strings.Contains(err.Error(), "--continue: no earlier session of") || !strings.Contains(err.Error(), "acpterm has no record of one") {
		t.Fatalf("continue with nothing: %v", err)
	}
}

func TestSessionsFromAcptermRecords(t *testing.T) {
	store := NewSessionStore(filepath.Join(t.TempDir(), "sessions.json"))
	dir := t.TempDir()
	first := start(t, setup{scenario: "load", opts: func(o *Options) { o.Cwd = dir; o.Store = store }})
	first.turn("echo hello there\nsecond line")
	first.close()
	recs, err := store.List(AgentKey([]string{agentBin}), dir)
	if err != nil || len(recs) != 1 || recs[0].ID != "sess-1" || recs[0].Title != "echo hello there" || recs[0].Cwd != dir {
		t.Fatalf("records = %+v, %v", recs, err)
	}
	if other, _ := store.List(AgentKey([]string{agentBin}), t.TempDir()); len(other) != 0 {
		t.Fatalf("records of another cwd: %+v", other)
	}
	h := start(t, setup{scenario: "load", opts: func(o *Options) { o.Cwd = dir; o.Store = store; o.Continue = true }})
	from := 0
	st := h.waitFor(&from, "SessionStarted", isStarted).(SessionStarted)
	h.waitFor(&from, "replay", func(e Event) bool { _, ok := e.(SessionUpdated); return ok })
	if st.Via != "session/load" || st.Info.SessionID != "sess-1" {
		t.Fatalf("continued %q via %q", st.Info.SessionID, st.Via)
	}
	list, source, err := h.c.SessionList(context.Background())
	if err != nil || source != FromAcpterm || len(list) != 1 || list[0].Title != "echo hello there" || !list[0].Current {
		t.Fatalf("SessionList = %+v %q %v", list, source, err)
	}
}

func TestDeferSessionWaitsForOpen(t *testing.T) {
	h := start(t, setup{opts: func(o *Options) { o.DeferSession = true }})
	if id := h.c.Info().SessionID; id != "" {
		t.Fatalf("session before OpenSession: %q", id)
	}
	from := 0
	h.c.Prompt("echo queued")
	if err := h.c.OpenSession(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	h.waitFor(&from, "SessionStarted", isStarted)
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.Err != nil || h.lastAgentText() != "queued" {
		t.Fatalf("turn = %+v, text %q", end, h.lastAgentText())
	}
}
