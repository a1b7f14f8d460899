package ui

import (
	"context"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
)

// RestartFunc starts the agent again after it exited on its own: the same command in the same
// working directory, with the same policy, terminals and sandbox. resume is the session to open
// again (ACP session/load, else session/resume), or "" for a new session (the agent can do
// neither). It returns the started client, or the error that stopped it (the agent failing
// again, ctx ended); nothing is left running on error.
type RestartFunc func(ctx context.Context, resume string) (*acpclient.Client, error)

// eventSource feeds the program the events of the current client, which a restart replaces:
// the old client's channel is read until it closes, then the new one's.
type eventSource struct {
	next       chan (<-chan acpclient.Event)
	restarting atomic.Bool // a restart closed the old client: its end is no "connection closed"
}

func newEventSource() *eventSource {
	return &eventSource{next: make(chan (<-chan acpclient.Event), 1)}
}

// forward delivers every event of ch, then of each channel switched to, in order, until ctx
// ends. A channel that closes without a restart under way is reported (eventsClosedMsg) once.
// A nil source forwards ch alone (forwardEvents).
func (s *eventSource) forward(ctx context.Context, ch <-chan acpclient.Event, send func(tea.Msg)) {
	if s == nil {
		forwardEvents(ctx, ch, send)
		return
	}
	for {
		if ch != nil {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-ch:
				if ok {
					send(acpEventMsg{ev})
					continue
				}
				ch = nil
				if !s.restarting.Load() {
					send(eventsClosedMsg{})
				}
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case ch = <-s.next:
		}
	}
}

// restarter runs restarts for Run: one at a time, each on the program's context, and knows the
// current client (the one Run closes at the end).
type restarter struct {
	ctx  context.Context
	fn   RestartFunc
	src  *eventSource
	stop context.CancelFunc // ends ctx
	mu   sync.Mutex         // held for the whole of a restart
	cur  atomic.Pointer[acpclient.Client]
}

// finish stops a restart under way (its Start fails on the ended context and leaves nothing
// running), waits for it, and returns the current client.
func (r *restarter) finish() *acpclient.Client {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur.Load()
}

// restart closes the exited client, starts a new one and switches the program's events to it.
func (r *restarter) restart(resume string) (agentAPI, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ctx.Err(); err != nil {
		return nil, err // acpterm is stopping
	}
	r.src.restarting.Store(true)
	_ = r.cur.Load().Close() // the process is gone; this ends its session's bookkeeping
	c, err := r.fn(r.ctx, resume)
	if err != nil {
		return nil, err
	}
	r.cur.Store(c)
	r.src.next <- c.Events()
	return clientAgent{c}, nil
}

// restartedMsg is the outcome of a restart (restartAgent): the new agent, or err.
type restartedMsg struct {
	agent agentAPI
	err   error
}

// canRestart reports whether the agent exited and can be started again now.
func (m *Model) canRestart() bool {
	return m.agentGone != "" && m.d.restart != nil && !m.restarting
}

// exitedHint says what the user can do once the agent exited: restart it, or quit.
func (m *Model) exitedHint() string {
	if m.d.restart != nil {
		return m.keys.RestartAgent.Help().Key + " restarts it, " + m.keys.Quit.Help().Key + " quits"
	}
	return m.keys.Quit.Help().Key + " quits"
}

// restartAgent starts the agent again (same command, same directory), reopening the session
// when the agent can load or resume sessions.
func (m *Model) restartAgent() tea.Cmd {
	if !m.canRestart() {
		return nil
	}
	m.restarting, m.restarted = true, true
	resume := ""
	if info := m.state.Info; info.SessionID != "" && info.Sessions().Reopen() {
		resume = info.SessionID
	}
	m.restartResume = resume
	text := "restarting the agent (same command, same directory)"
	if resume != "" {
		text += "; session " + sanitizeLine(resume) + " is opened again"
	} else {
		text += "; it can neither load nor resume sessions, so a new one starts"
	}
	m.addBanner("info", text+"…")
	restart := m.d.restart
	return func() tea.Msg {
		a, err := restart(resume)
		return restartedMsg{agent: a, err: err}
	}
}

// onRestarted takes the new agent in use, or says why it could not start.
func (m *Model) onRestarted(msg restartedMsg) tea.Cmd {
	m.restarting = false
	if msg.err != nil {
		m.restarted = false
		m.addBanner("error", "restart failed: "+msg.err.Error()+"; "+m.keys.RestartAgent.Help().Key+" tries again, "+m.keys.Quit.Help().Key+" quits")
		return nil
	}
	m.d.agent = msg.agent
	m.agentGone = ""
	m.closed = false
	m.state.Exited = nil
	m.markDirty()
	return m.nextPrompt()
}

// noteRestartedSession says, once the restarted agent's session is open, how it was opened
// (its SessionStarted may come before or after restartedMsg).
func (m *Model) noteRestartedSession(e acpclient.SessionStarted) {
	if !m.restarted {
		return
	}
	m.restarted = false
	switch {
	case m.restartResume != "" && e.Info.SessionID == m.restartResume:
		m.addBanner("info", "agent restarted; the conversation continues in session "+sanitizeLine(e.Info.SessionID))
	case m.restartResume != "":
		m.addBanner("warn", "agent restarted in a new session "+sanitizeLine(e.Info.SessionID)+": it did not reopen "+sanitizeLine(m.restartResume))
	default:
		m.addBanner("warn", "agent restarted in a new session "+sanitizeLine(e.Info.SessionID)+": it does not remember the earlier conversation")
	}
}
