package ui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// An overlay is a modal part of the UI drawn over the main area (the conversation and the
// panes): the approval requests, the key help, the grants list, and any dialog added later.
// Overlays live on a stack (Model.overlays, drawn bottom to top); the top one gets each key
// first and says what should happen with it as an action, which the root model carries out.
// An overlay never changes the root model's state by itself while handling a key; it changes
// only its own fields and returns the rest as the action's do function.
//
// Adding a dialog takes one file: a type with these three methods, pushed with
// Model.pushOverlay (and closed by returning closeAction, or by Model.closeOverlay).
type overlay interface {
	// overlayID names the overlay on the stack; at most one overlay of each id is open.
	overlayID() string
	// handleKey maps one key press (lock modifiers masked) to what happens. It runs only for
	// the top overlay, and only when no pane has the keyboard.
	handleKey(m *Model, k tea.KeyPressMsg) action
	// draw renders the overlay's box for area (the main area, in cells); "" draws nothing.
	draw(m *Model, area uv.Rectangle) string
}

// Two optional parts an overlay may implement besides overlay.
type (
	// keyWaiter is an overlay that can be open without taking keys: a request that arrives
	// while the user types a prompt or works in a pane waits for the answer key, and until
	// then the editor keeps the keys and its cursor. An overlay without it takes keys while
	// on top.
	keyWaiter interface {
		// hasKeys reports whether the overlay takes keys now.
		hasKeys() bool
		// giveKeys makes it take keys (the answer key, or leaving a pane to answer).
		giveKeys()
		// waitHint is the line a focused pane's title row shows while the overlay waits for
		// the user ("" none).
		waitHint(m *Model) string
	}
	// pasteTaker is an overlay with text fields: a paste (bracketed paste, never a key) goes
	// into the focused one instead of the prompt editor.
	pasteTaker interface {
		// takePaste inserts s and reports true, or reports false to leave s to the editor.
		takePaste(s string) bool
	}
)

// action is an overlay's answer to a key.
type action struct {
	// pass: the key is not the overlay's; the root model handles it as if no overlay were
	// open (global keys, pane and conversation keys, then the editor).
	pass bool
	// close removes the overlay from the stack (before do runs).
	close bool
	// do is run by the root model after the key (nil: nothing more to do); its command is
	// returned from Update.
	do func(m *Model) tea.Cmd
}

// Actions overlays return.
var (
	// passAction hands the key back to the root model.
	passAction = action{pass: true}
	// keptAction: the overlay used the key and stays open.
	keptAction = action{}
	// closeAction: the overlay used the key and closes.
	closeAction = action{close: true}
)

// doAction is an action that runs do after the key, closing the overlay first when close.
func doAction(close bool, do func(m *Model) tea.Cmd) action {
	return action{close: close, do: do}
}

// pushOverlay puts o on top of the stack (an open overlay of the same id is replaced).
func (m *Model) pushOverlay(o overlay) {
	m.removeOverlay(o.overlayID())
	m.overlays = append(m.overlays, o)
	m.markDirty()
}

// pushOverlayBottom puts o at the bottom of the stack (an open overlay of the same id is
// replaced): what arrives from the agent goes under the views the user opened, so it shows
// once they close them.
func (m *Model) pushOverlayBottom(o overlay) {
	m.removeOverlay(o.overlayID())
	m.overlays = append([]overlay{o}, m.overlays...)
	m.markDirty()
}

// removeOverlay closes the overlay with id, if it is open.
func (m *Model) removeOverlay(id string) {
	for i, o := range m.overlays {
		if o.overlayID() == id {
			m.overlays = append(m.overlays[:i:i], m.overlays[i+1:]...)
			m.markDirty()
			return
		}
	}
}

// findOverlay returns the open overlay with id, or nil.
func (m *Model) findOverlay(id string) overlay {
	for _, o := range m.overlays {
		if o.overlayID() == id {
			return o
		}
	}
	return nil
}

// topOverlay is the overlay that gets keys, or nil when none is open.
func (m *Model) topOverlay() overlay {
	if len(m.overlays) == 0 {
		return nil
	}
	return m.overlays[len(m.overlays)-1]
}

// overlayHasKeys reports whether the top overlay takes keys (one waiting for the answer key,
// a keyWaiter, does not: the editor keeps them, and its cursor).
func (m *Model) overlayHasKeys() bool {
	o := m.topOverlay()
	if o == nil {
		return false
	}
	if w, ok := o.(keyWaiter); ok {
		return w.hasKeys()
	}
	return true
}

// overlayPaste gives a paste to the top overlay when it takes pastes; it reports whether the
// overlay took it.
func (m *Model) overlayPaste(s string) bool {
	p, ok := m.topOverlay().(pasteTaker)
	return ok && p.takePaste(s)
}

// overlayKey gives k to the top overlay and carries out its action. handled is false when no
// overlay is open or the overlay passed the key on.
func (m *Model) overlayKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	o := m.topOverlay()
	if o == nil {
		return nil, false
	}
	a := o.handleKey(m, k)
	if a.pass {
		return nil, false
	}
	m.markDirty()
	if a.close {
		m.removeOverlay(o.overlayID())
	}
	if a.do != nil {
		return a.do(m), true
	}
	return nil, true
}

// drawOverlays draws every open overlay, bottom first, centred in area. It reports whether
// anything was drawn.
func (m *Model) drawOverlays(c uv.Screen, area uv.Rectangle) bool {
	drawn := false
	for _, o := range m.overlays {
		box := o.draw(m, area)
		if box == "" {
			continue
		}
		ow, oh := lipgloss.Width(box), lipgloss.Height(box)
		ow, oh = min(ow, area.Dx()), min(oh, area.Dy())
		x := area.Min.X + (area.Dx()-ow)/2
		y := area.Min.Y + max((area.Dy()-oh)/2, 0)
		drawText(c, uv.Rect(x, y, ow, oh), box)
		drawn = true
	}
	return drawn
}
