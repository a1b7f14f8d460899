package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// handleKey routes one key press (lock modifiers already masked). Order: a focused pane gets
// every key except the leave key; then quit and suspend; then the top overlay (approval, help,
// grants …), which may pass the key on; then interrupt; then pane and conversation commands;
// then the editor. No key is dropped on the way: each one either does what its binding says or
// reaches the editor.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if m.focused {
		if cmd, handled := m.focusedKey(k); handled {
			return cmd
		}
	}
	defer m.markDirty()
	if m.focused {
		// The leave key, or the program is gone (or the pane is read-only): leave typing mode.
		m.setFocus(false)
		if key.Matches(k, m.keys.LeavePane) {
			if w, ok := m.topOverlay().(keyWaiter); ok && m.ed.empty() {
				w.giveKeys() // the pane's title row said: leave the pane to answer
			}
			return nil
		}
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Suspend):
		return m.suspend()
	}
	if cmd, handled := m.overlayKey(k); handled {
		return cmd
	}
	if key.Matches(k, m.keys.Interrupt) {
		if m.busy {
			m.lastInterruptCancel = m.now()
			return m.cancelTurn()
		}
		if m.ed.empty() && m.now().Sub(m.lastInterruptCancel) < interruptQuitGuard {
			// A second ctrl+c right after the one that cancelled a turn (which ended in
			// between) is the user hammering "stop", not asking to quit.
			m.addBanner("info", "turn stopped; "+m.keys.Interrupt.Help().Key+" again quits")
			m.lastInterruptCancel = time.Time{}
			return nil
		}
		if !m.ed.empty() {
			// As in a shell: ctrl+c drops the line being typed rather than quitting with it
			// (it stays in the history: up brings it back).
			m.ed.push(m.ed.value())
			m.ed.reset()
			m.comp.clear()
			m.addBanner("info", "draft cleared (↑ brings it back); "+m.keys.Interrupt.Help().Key+" again quits")
			return nil
		}
		return m.quit()
	}
	switch {
	case key.Matches(k, m.keys.Cancel):
		if m.comp.active() {
			m.comp.clear()
			return nil
		}
		if m.zoomed {
			m.zoomed = false
			return nil
		}
		return m.cancelTurn()
	case key.Matches(k, m.keys.NextPane):
		m.selectNextPane()
		return nil
	case m.paneJumpKey(k):
		return nil
	case key.Matches(k, m.keys.CopyMode):
		m.startCopyMode()
		return nil
	case key.Matches(k, m.keys.FocusPane):
		return m.focusSelected()
	case key.Matches(k, m.keys.Zoom):
		if m.selectedPane() != nil {
			m.zoomed = !m.zoomed
		}
		return nil
	case key.Matches(k, m.keys.PaneScrollUp):
		m.scrollPane(m.selectedPane(), m.paneScrollStep())
		return nil
	case key.Matches(k, m.keys.PaneScrollDown):
		m.scrollPane(m.selectedPane(), -m.paneScrollStep())
		return nil
	case key.Matches(k, m.keys.ClosePane):
		m.closeSelected()
		return nil
	case key.Matches(k, m.keys.KillPane):
		return m.killSelected()
	case key.Matches(k, m.keys.Pager):
		return m.openPager()
	case key.Matches(k, m.keys.ConvPager):
		return m.pageText("conversation", m.conversationText())
	case key.Matches(k, m.keys.ScrollUp):
		m.scrollConv(max(m.lay.conv.Dy()-2, 1))
		return nil
	case key.Matches(k, m.keys.ScrollDown):
		m.scrollConv(-max(m.lay.conv.Dy()-2, 1))
		return nil
	case key.Matches(k, m.keys.ToggleThoughts):
		m.conv.showThoughts = !m.conv.showThoughts
		return nil
	case key.Matches(k, m.keys.CycleMode):
		return m.cycleMode()
	case key.Matches(k, m.keys.CycleModel):
		return m.cycleModel()
	case key.Matches(k, m.keys.Queue):
		m.openQueue()
		return nil
	case key.Matches(k, m.keys.RestartAgent) && m.canRestart():
		return m.restartAgent()
	case key.Matches(k, m.keys.Sessions):
		return m.openSessions(false)
	case key.Matches(k, m.keys.Options):
		m.openOptions()
		return nil
	case key.Matches(k, m.keys.Grants):
		m.openGrants()
		return nil
	case key.Matches(k, m.keys.Help) && (!typingKey(k) || m.ed.empty()):
		// A printable help key (the default ?) opens the help only from an empty prompt: inside
		// text it is text.
		m.pushOverlay(&helpView{})
		return nil
	}
	return m.handleEditorKey(k)
}

// interruptQuitGuard: ctrl+c on an idle, empty prompt quits, unless the previous ctrl+c
// cancelled a turn less than this long ago.
const interruptQuitGuard = time.Second

// handleEditorKey handles send, newline, completion, history and editing.
func (m *Model) handleEditorKey(k tea.KeyPressMsg) tea.Cmd {
	m.lastEditorKey = m.now()
	if !key.Matches(k, m.keys.Complete) {
		m.comp.clear()
	}
	switch {
	case key.Matches(k, m.keys.Newline):
		m.ed.newline()
		return nil
	case key.Matches(k, m.keys.Send):
		text := strings.TrimSpace(m.ed.value())
		if text == "" {
			return nil
		}
		if m.agentGone != "" && !m.restarting {
			// Nothing can take it: say so and keep the text (it was queued, silently, before).
			m.addBanner("error", "the agent has exited ("+m.agentGone+"): the prompt cannot be sent; "+m.exitedHint())
			return nil
		}
		m.ed.push(m.ed.value())
		m.ed.reset()
		m.conv.scroll = 0
		return m.enqueuePrompt(text)
	case key.Matches(k, m.keys.Complete):
		m.ed.complete(&m.comp, m.state.Commands, m.sessionCwd(), m.roots())
		return nil
	case key.Matches(k, m.keys.HistoryPrev) && m.ed.onFirstLine():
		m.ed.historyPrev()
		return nil
	case key.Matches(k, m.keys.HistoryNext) && m.ed.onLastLine():
		m.ed.historyNext()
		return nil
	}
	m.ed.handleKey(k)
	return nil
}

// handlePaste forwards a paste to a focused pane, or inserts it into the editor.
func (m *Model) handlePaste(s string) tea.Cmd {
	defer m.markDirty()
	if m.focused {
		if p := m.selectedPane(); p != nil && p.term != nil && p.exit == nil {
			_ = p.term.Paste(s)
			return nil
		}
	}
	if m.overlayPaste(s) {
		return nil // into a dialog's focused text field
	}
	// Pasted text is the prompt's, never an answer (nor a key of another overlay): it goes into
	// the editor, and a request in front waits for the answer key again.
	m.ed.insert(s)
	m.lastEditorKey = m.now()
	m.appr.focus = false
	return nil
}
