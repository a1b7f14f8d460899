package ui

import (
	"errors"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
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

// frontApproval is the oldest pending request not answered yet.
func (m *Model) frontApproval() (acpclient.PermissionAsked, bool) {
	for _, p := range m.state.Pending {
		if !m.answered[p.ID] {
			return p, true
		}
	}
	return acpclient.PermissionAsked{}, false
}

// errNoGrants: without a grant store (tests, a headless-like setup) nothing can be remembered.
var errNoGrants = errors.New("grants are not available in this session")

// grantErr is why acpterm cannot remember an "always" answer to p as its own grant
// (permissions.Engine.CanGrant: a build runner, a shell, a program-launching option, an ask
// rule, a protected path …), or nil when it can. For acpterm's own prompt it decides whether
// "allow for this session" / "save as rule" are offered; for an agent request with an
// allow_always option, whether "always allow, and save as a rule" is, and what the dialog says
// about the agent's own "always" (the agent may still remember it by itself).
func (m *Model) grantErr(p acpclient.PermissionAsked) error {
	if !ownPrompt(p) && !hasAlwaysOption(p) {
		return nil // nothing "always" to remember
	}
	if m.d.grants == nil {
		return errNoGrants
	}
	if p.Policy == nil {
		if !ownPrompt(p) {
			return errors.New("acpterm's policy cannot judge this kind of request")
		}
		return errors.New("no policy decision to remember")
	}
	if !ownPrompt(p) && p.Policy.Verdict != permissions.Ask {
		return errors.New("the policy does not ask about it")
	}
	return m.d.grants.CanGrant(*p.Policy)
}

// hasAlwaysOption reports whether the agent offered an allow_always option.
func hasAlwaysOption(p acpclient.PermissionAsked) bool {
	for _, o := range p.Options {
		if o.Kind == acp.PermissionOptionKindAllowAlways {
			return true
		}
	}
	return false
}

// pendingApprovals counts requests waiting for the user.
func (m *Model) pendingApprovals() int {
	n := 0
	for _, p := range m.state.Pending {
		if !m.answered[p.ID] {
			n++
		}
	}
	return n
}

// answer sends the user's answer from a Cmd and hides the request until it is resolved.
func (m *Model) answer(id string, a acpclient.Answer) tea.Cmd {
	m.answered[id] = true
	m.appr.done++
	agent := m.d.agent
	return func() tea.Msg { agent.Answer(id, a); return nil }
}

// cycleMode switches to the next session mode, however the agent offers modes (the modes API
// or a mode config option; acpclient SetMode, from a Cmd).
func (m *Model) cycleMode() tea.Cmd {
	ms := m.state.Modes()
	if len(ms.Options) < 2 {
		m.addBanner("info", "the agent offers no modes to switch")
		return nil
	}
	next := nextOption(ms)
	agent := m.d.agent
	return func() tea.Msg {
		if err := agent.SetMode(next); err != nil {
			return cmdErrMsg{"switch mode", err}
		}
		return nil
	}
}

// nextOption is the option after the current one (the first when the current one is unknown).
func nextOption(ms acpclient.Modes) string {
	next := ms.Options[0].ID
	for i, o := range ms.Options {
		if o.ID == ms.Current {
			next = ms.Options[(i+1)%len(ms.Options)].ID
		}
	}
	return next
}

// cycleModel switches to the next model: the "model" config option (SetConfigOption) or, when
// the agent offers models through the models API (gemini-cli), session/set_model (SetModel).
func (m *Model) cycleModel() tea.Cmd {
	ms := m.state.Models()
	if len(ms.Options) < 2 {
		m.addBanner("info", "the agent offers no models to switch")
		return nil
	}
	next := nextOption(ms)
	agent, cfgID := m.d.agent, ms.ConfigID
	return func() tea.Msg {
		var err error
		if cfgID != "" {
			err = agent.SetConfigOption(cfgID, next)
		} else {
			err = agent.SetModel(next)
		}
		if err != nil {
			return cmdErrMsg{"switch model", err}
		}
		return nil
	}
}
