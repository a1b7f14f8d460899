package ui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitFor polls cond until it holds or the (generous) deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunProgramSmoke(t *testing.T) {
	agent := &fakeAgent{}
	m := newModel(deps{agent: agent, terms: fakeTerms{}, cfg: config.Default(t.TempDir()), agentName: "fake"})
	m.queue = []string{"hello"}
	events := make(chan acpclient.Event, 8)
	events <- acpclient.TurnStarted{Prompt: "hello"}
	events <- acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("Hi **there**\x1b]0;x\x07")}
	events <- acpclient.TurnEnded{StopReason: "end_turn"}
	in, inW := io.Pipe()
	out := &syncBuffer{}
	type result struct {
		m   *Model
		err error
	}
	done := make(chan result, 1)
	go func() {
		fm, err := runProgram(context.Background(), m, events, NewWake(), in, out, tea.WithWindowSize(80, 24))
		done <- result{fm, err}
	}()
	waitFor(t, "the agent text on the screen", func() bool { return strings.Contains(ansi.Strip(out.String()), "Hi there") })
	if _, err := inW.Write([]byte{0x11}); err != nil { // ctrl+q
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("program did not quit on ctrl+q")
	}
	_ = inW.Close()
	if r.err != nil || r.m == nil || !r.m.quitting {
		t.Fatalf("run = %+v", r)
	}
	wantCalls(t, agent.take(), "prompt hello")
	if strings.Contains(out.String(), "\x1b]0;x") {
		t.Fatal("agent escape sequence reached the output")
	}
}

func TestRedrawLoopCoalescesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	wake := NewWake()
	got := make(chan tea.Msg, 100)
	done := make(chan struct{})
	go func() { redrawLoop(ctx, wake.ch, nil, func(m tea.Msg) { got <- m }); close(done) }()
	wake.Notify("t1")
	select {
	case m := <-got:
		if _, ok := m.(redrawMsg); !ok {
			t.Fatalf("got %T", m)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no redraw after a wake")
	}
	// A burst of wakes never blocks the notifier and yields at least one more redraw.
	for i := 0; i < 1000; i++ {
		wake.Notify("t1")
	}
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("no redraw after a burst")
	}
	cancel()
	<-done
}

func TestFrameBudgetBurstsThenPaces(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newFrameBudget(t0)
	// After a quiet spell: frameBurst frames at once (a word echoed in pieces is drawn whole).
	for i := 0; i < frameBurst; i++ {
		if wait := b.take(t0); wait != 0 {
			t.Fatalf("frame %d of the burst waits %v", i+1, wait)
		}
	}
	if wait := b.take(t0); wait != frameInterval {
		t.Fatalf("frame after the burst waits %v, want %v", wait, frameInterval)
	}
	// Half an interval later, half of one is left to wait.
	if wait := b.take(t0.Add(frameInterval / 2)); wait != frameInterval/2 {
		t.Fatalf("wait %v, want %v", wait, frameInterval/2)
	}
	// Under continuous change: one frame per interval.
	at := t0.Add(frameInterval)
	for i := 0; i < 100; i++ {
		if wait := b.take(at); wait != 0 {
			t.Fatalf("paced frame %d waits %v", i, wait)
		}
		if wait := b.take(at); wait != frameInterval {
			t.Fatalf("second frame in interval %d waits %v", i, wait)
		}
		at = at.Add(frameInterval)
	}
	// A long quiet spell refills the burst, no more.
	at = at.Add(time.Hour)
	for i := 0; i < frameBurst; i++ {
		if wait := b.take(at); wait != 0 {
			t.Fatalf("refilled frame %d waits %v", i+1, wait)
		}
	}
	if wait := b.take(at); wait == 0 {
		t.Fatal("the burst grew past frameBurst")
	}
}

func TestForwardEventsInOrderThenClosed(t *testing.T) {
	ch := make(chan acpclient.Event, 3)
	ch <- acpclient.Notice{Text: "1"}
	ch <- acpclient.Notice{Text: "2"}
	ch <- acpclient.Notice{Text: "3"}
	close(ch)
	var got []string
	forwardEvents(context.Background(), ch, func(m tea.Msg) {
		switch m := m.(type) {
		case acpEventMsg:
			got = append(got, m.ev.(acpclient.Notice).Text)
		case eventsClosedMsg:
			got = append(got, "closed")
		}
	})
	if strings.Join(got, ",") != "1,2,3,closed" {
		t.Fatalf("got %v", got)
	}
}
