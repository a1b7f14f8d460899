package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// handleEvent folds one acpclient event into the state and reacts to it.
func (m *Model) handleEvent(ev acpclient.Event) tea.Cmd {
	prevSession := m.state.Info.SessionID
	m.state.Apply(ev)
	m.markDirty()
	m.syncAwaiting()
	var cmds []tea.Cmd
	switch e := ev.(type) {
	case acpclient.TurnStarted:
		m.busy = true
		m.turn++
		m.noteTurnStart()
		cmds = append(cmds, m.armTick())
	case acpclient.TurnEnded:
		userCancelled := m.cancelPending // the user asked; the agent may still have ended otherwise
		m.busy = false
		m.cancelPending = false
		m.killing = 0
		m.noteTurnEnd(e.StopReason, e.Err != nil && e.StopReason != string(acp.StopReasonCancelled))
		switch {
		case e.Err != nil && e.StopReason != string(acp.StopReasonCancelled):
			m.addBanner("error", "turn failed: "+e.Err.Error()+m.holdQueueIf(userCancelled))
			if m.turnFailed == "" {
				m.turnFailed = e.Err.Error()
			}
		case e.StopReason == string(acp.StopReasonCancelled):
			m.addBanner("info", "turn cancelled"+m.holdQueue())
		case userCancelled:
			// The agent ignored the cancel and ended the turn its own way: what was queued
			// behind the cancelled turn is held all the same.
			m.addBanner("info", "turn ended ("+e.StopReason+") after you cancelled it"+m.holdQueue())
		case e.StopReason != "" && e.StopReason != string(acp.StopReasonEndTurn):
			m.addBanner("warn", "turn ended: "+e.StopReason)
		}
		cmds = append(cmds, m.nextPrompt())
	case acpclient.TerminalStarted:
		m.addPane(e)
		cmds = append(cmds, m.armTick())
	case acpclient.TerminalRetitled:
		// An agent-owned terminal's tool call got its real command or title (claude-agent-acp
		// first calls it "Terminal"): the pane's title and tab follow.
		if p := m.paneByID[e.ID]; p != nil && e.Label != "" {
			p.label = sanitizeLine(e.Label)
		}
	case acpclient.TerminalExited:
		if p := m.paneByID[e.ID]; p != nil {
			st := e.Status
			p.exit = &st
			p.exitedAt = m.now()
			if p.term != nil {
				p.truncated = p.term.Output().Truncated
				if d, ok := p.term.(interface{ SandboxDenial() string }); ok && p.refused == "" {
					p.refused = d.SandboxDenial() // shown on the bottom border
				}
			}
			if m.focused && m.selectedPane() == p {
				m.focused = false
			}
		}
	case acpclient.ConnectionRefused:
		if p := m.paneByID[e.Terminal]; p != nil {
			p.refused = "refused " + permissions.HostPort(e.Host, e.Port) + " (" + e.Rule + ")"
		}
	case acpclient.PermissionAsked:
		if m.pendingBellFor != e.ID {
			m.pendingBellFor = e.ID
			title := "a tool call"
			if e.ToolCall.Title != nil && *e.ToolCall.Title != "" {
				title = *e.ToolCall.Title
			}
			m.notify("approval needed: " + title)
		}
	case acpclient.SessionStarted:
		m.onSessionStarted(e, prevSession)
		m.noteRestartedSession(e)
	case acpclient.ElicitationAsked, acpclient.ElicitationResolved, acpclient.ElicitationCompleted:
		m.onElicitation(ev)
	case acpclient.PermissionResolved:
		delete(m.answered, e.ID)
		delete(m.appr.sel, e.ID)
		delete(m.appr.scroll, e.ID)
	case acpclient.AgentExited:
		m.busy = false
		if !e.Expected {
			m.agentGone = e.String()
			hint := "press " + m.keys.Quit.Help().Key + " to quit"
			if m.d.restart != nil {
				hint = m.exitedHint()
			}
			text := "agent exited (" + e.String() + "); " + hint + m.holdQueue()
			tail := e.StderrTail
			if len(tail) > stderrTailMax {
				tail = tail[len(tail)-stderrTailMax:]
			}
			if len(tail) > 0 {
				text += "\nstderr:\n" + strings.Join(tail, "\n")
			}
			m.addBanner("error", text)
			m.notify("agent exited (" + e.String() + ")")
		}
	case acpclient.Notice:
		level := e.Level
		if level != "error" && level != "warn" {
			level = "info"
		}
		m.addBanner(level, e.Text)
	}
	m.updateTitle()
	return tea.Batch(cmds...)
}

// agentLabel is the agent's name (and version) for the status bar and title.
func (m *Model) agentLabel() string {
	info := m.state.Info
	name := info.AgentTitle
	if name == "" {
		name = info.AgentName
	}
	if name == "" {
		name = m.d.agentName
	}
	if name == "" {
		name = "agent"
	}
	name = sanitizeLine(name)
	if info.AgentVersion != "" {
		name += " " + sanitizeLine(info.AgentVersion)
	}
	return name
}

// syncAwaiting marks the panes whose tool call waits for a permission answer: an agent-owned
// terminal announced before the agent asked has not started its command yet.
func (m *Model) syncAwaiting() {
	for _, p := range m.panes {
		p.awaiting = false
		if p.toolCallID == "" || p.exit != nil {
			continue
		}
		if t, ok := m.state.ToolCall(p.toolCallID); ok && t.PermissionID != "" {
			p.awaiting = true
		}
	}
}

// currentModel names the current model for the status bar ("" when unknown): the model config
// option's value, else the models API's current model.
func (m *Model) currentModel() string {
	ms := m.state.Models()
	return sanitizeLine(ms.Name(ms.Current))
}

// currentMode names the current mode for the status bar ("" when the agent has none), from
// the modes API or a mode config option.
func (m *Model) currentMode() string {
	ms := m.state.Modes()
	return sanitizeLine(ms.Name(ms.Current))
}

// modeWarning is the persistent warning shown while the agent is in a mode in which it acts
// without asking ("" otherwise).
func (m *Model) modeWarning() string {
	if m.state.ModeAsks() != acpclient.AsksNo {
		return ""
	}
	return "⚠ mode " + m.currentMode() + " does not ask: commands and edits skip acpterm's approval · " + m.keys.CycleMode.Help().Key + " switches"
}

// sessionCwd is the session's working directory (for @file completion).
func (m *Model) sessionCwd() string {
	if m.state.Info.Cwd != "" {
		return m.state.Info.Cwd
	}
	if r := m.roots(); len(r) > 0 {
		return r[0]
	}
	return ""
}

func (m *Model) roots() []string {
	if m.d.cfg == nil {
		return nil
	}
	return m.d.cfg.Policy.Roots
}
