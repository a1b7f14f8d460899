package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
)

// Messages delivered to the model from outside Update.
type (
	// acpEventMsg carries one acpclient event, in order.
	acpEventMsg struct{ ev acpclient.Event }
	// eventsClosedMsg reports that the client's event channel closed (Client.Close ran).
	eventsClosedMsg struct{}
	// redrawMsg asks the model to rebuild its cached frame (coalesced, ≤ 1 per frameInterval).
	redrawMsg struct{}
)

// Model is the root (and only) tea.Model of the interactive program.
type Model struct {
	d     deps
	dirty chan struct{} // model-side "please redraw" signal, read by redrawLoop

	width, height int
	frame         string // cached frame; View returns it
	needFrame     bool

	state acpclient.State

	busy      bool     // a prompt turn is running
	queue     []string // prompts typed during a turn, sent in order when it ends
	agentGone string   // non-empty once the agent process exited: the status text
	quitting  bool
}

func newModel(d deps) *Model {
	return &Model{d: d, dirty: make(chan struct{}, 1), needFrame: true}
}

// markDirty asks for a new frame soon (coalesced by redrawLoop); never blocks.
func (m *Model) markDirty() {
	m.needFrame = true
	select {
	case m.dirty <- struct{}{}:
	default:
	}
}

// enqueuePrompt sends text now when idle, or queues it until the running turn ends.
func (m *Model) enqueuePrompt(text string) tea.Cmd {
	if m.busy {
		m.queue = append(m.queue, text)
		return nil
	}
	m.busy = true
	agent := m.d.agent
	return func() tea.Msg { agent.Prompt(text); return nil }
}

// nextPrompt starts the first queued prompt when no turn is running.
func (m *Model) nextPrompt() tea.Cmd {
	if m.busy || len(m.queue) == 0 {
		return nil
	}
	text := m.queue[0]
	m.queue = m.queue[1:]
	return m.enqueuePrompt(text)
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	return m.nextPrompt()
}

// Update implements tea.Model: a dispatcher by message family.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.markDirty()
	case redrawMsg:
		if m.needFrame {
			m.frame = m.render()
			m.needFrame = false
		}
	case acpEventMsg:
		m.state.Apply(msg.ev)
		m.markDirty()
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+q" {
			m.quitting = true
			return m, tea.Quit
		}
	}
	return m, nil
}

// View implements tea.Model; it returns the cached frame built on the last redrawMsg.
func (m *Model) View() tea.View {
	v := tea.NewView(m.frame)
	v.AltScreen = true
	return v
}

func (m *Model) render() string { return "acpterm" }
