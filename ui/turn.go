package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The prompt turn: a prompt is sent when no turn runs, else queued behind it; a cancel asks the
// agent to stop, a second one kills the turn's terminals, and prompts queued behind a
// cancelled turn are held for the user, never sent by themselves.

// enqueuePrompt sends text now when idle, or queues it until the running turn ends.
func (m *Model) enqueuePrompt(text string) tea.Cmd {
	if m.busy || m.agentGone != "" {
		m.queue = append(m.queue, text)
		return nil
	}
	m.busy = true
	m.cancelPending = false
	m.killing = 0
	agent := m.d.agent
	return tea.Batch(func() tea.Msg { agent.Prompt(text); return nil }, m.armTick())
}

// holdQueue takes the queued prompts back after the user cancelled a turn: whatever made them
// stop the agent may have made those prompts wrong too, so none is sent by itself. They go back
// into an empty editor (joined by blank lines; enter sends, ctrl+c drops), else into the
// history. It returns the banner's addition ("" when nothing was queued).
func (m *Model) holdQueue() string {
	if len(m.queue) == 0 {
		return ""
	}
	q := m.queue
	m.queue = nil
	if m.ed.empty() {
		m.ed.setValue(strings.Join(q, "\n\n"))
		if len(q) == 1 {
			return "; the queued prompt is back in the editor (enter sends it)"
		}
		return fmt.Sprintf("; the %d queued prompts are back in the editor (enter sends them as one)", len(q))
	}
	for _, p := range q {
		m.ed.push(p)
	}
	return fmt.Sprintf("; %d queued prompt(s) moved to the history (↑)", len(q))
}

// holdQueueIf is holdQueue when cond holds (the user cancelled the turn), else "".
func (m *Model) holdQueueIf(cond bool) string {
	if !cond {
		return ""
	}
	return m.holdQueue()
}

// nextPrompt starts the first queued prompt when no turn is running.
func (m *Model) nextPrompt() tea.Cmd {
	if m.busy || len(m.queue) == 0 || m.agentGone != "" || m.queueHeld() {
		return nil
	}
	text := m.queue[0]
	m.queue = m.queue[1:]
	return m.enqueuePrompt(text)
}

// cancelTurn sends session/cancel for the running turn (from a Cmd). Asked again while the
// cancel is pending (the agent has not stopped), it kills every running client-owned terminal the
// turn started, since an agent that ignores session/cancel would leave them running.
func (m *Model) cancelTurn() tea.Cmd {
	if !m.busy {
		return nil
	}
	if m.cancelPending {
		var cmds []tea.Cmd
		for _, p := range m.panes {
			if p.term != nil && p.exit == nil && p.turn == m.turn {
				cmds = append(cmds, killCmd(p))
			}
		}
		if len(cmds) > 0 {
			m.killing = len(cmds)
			m.markDirty()
		}
		return tea.Batch(cmds...)
	}
	m.cancelPending = true
	m.markDirty()
	agent := m.d.agent
	return func() tea.Msg { agent.Cancel(); return nil }
}
