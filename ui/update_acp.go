package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// handleEvent folds one acpclient event into the state and reacts to it.
func (m *Model) handleEvent(ev acpclient.Event) tea.Cmd {
	m.state.Apply(ev)
	m.markDirty()
	var cmds []tea.Cmd
	switch e := ev.(type) {
	case acpclient.TurnStarted:
		m.busy = true
		m.turn++
		cmds = append(cmds, m.armTick())
	case acpclient.TurnEnded:
		userCancelled := m.cancelPending // the user asked; the agent may still have ended otherwise
		m.busy = false
		m.cancelPending = false
		m.killing = 0
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
			if m.scr != nil {
				m.scr.bell()
			} else {
				cmds = append(cmds, tea.Raw("\a"))
			}
		}
	case acpclient.ElicitationAsked, acpclient.ElicitationResolved, acpclient.ElicitationCompleted:
		m.onElicitation(ev)
	case acpclient.PermissionResolved:
		delete(m.answered, e.ID)
		delete(m.appr.sel, e.ID)
		delete(m.appr.scroll, e.ID)
	case acpclient.AgentExited:
		m.busy = false
		m.queue = nil
		if !e.Expected {
			m.agentGone = e.String()
			text := "agent exited (" + e.String() + "); press " + m.keys.Quit.Help().Key + " to quit"
			tail := e.StderrTail
			if len(tail) > stderrTailMax {
				tail = tail[len(tail)-stderrTailMax:]
			}
			if len(tail) > 0 {
				text += "\nstderr:\n" + strings.Join(tail, "\n")
			}
			m.addBanner("error", text)
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

// updateTitle sets the window title: a notice while approvals wait.
func (m *Model) updateTitle() {
	name := m.agentLabel()
	if n := m.pendingApprovals(); n > 0 {
		m.windowTitle = fmt.Sprintf("acpterm: approval needed (%d) · %s", n, name)
		return
	}
	m.windowTitle = "acpterm · " + name
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

// modelOption finds the session's model selector among the config options (category "model",
// or id "model"): its id, current value and the values offered, in order.
func modelOption(opts []acp.SessionConfigOption) (id, current string, values []string) {
	for _, o := range opts {
		s := o.Select
		if s == nil {
			continue
		}
		isModel := s.Id == "model" || (s.Category != nil && *s.Category == acp.SessionConfigOptionCategoryModel)
		if !isModel {
			continue
		}
		if u := s.Options.Ungrouped; u != nil {
			for _, v := range *u {
				values = append(values, string(v.Value))
			}
		}
		if g := s.Options.Grouped; g != nil {
			for _, grp := range *g {
				for _, v := range grp.Options {
					values = append(values, string(v.Value))
				}
			}
		}
		return string(s.Id), string(s.CurrentValue), values
	}
	return "", "", nil
}

// currentModel names the current model for the status bar ("" when unknown).
func (m *Model) currentModel() string {
	if _, cur, _ := modelOption(m.state.ConfigOptions); cur != "" {
		return sanitizeLine(cur)
	}
	if ms := m.state.Info.Models; ms != nil {
		return sanitizeLine(string(ms.CurrentModelId))
	}
	return ""
}

// currentMode names the current mode for the status bar ("" when the agent has none).
func (m *Model) currentMode() string {
	if ms := m.state.Info.Modes; ms != nil {
		for _, md := range ms.AvailableModes {
			if string(md.Id) == m.state.Mode {
				return sanitizeLine(md.Name)
			}
		}
	}
	return sanitizeLine(m.state.Mode)
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
