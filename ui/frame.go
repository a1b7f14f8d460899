package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The frame: when the root model builds a new frame (redraw: at most one per frame interval,
// background panes throttled), how it reaches the terminal (present) and what keeps it moving
// while nothing else happens (the tick). What a frame holds is drawn in render.go.

// Tick intervals: the spinner runs at spinInterval during a turn; pane titles (elapsed time)
// refresh every second while a terminal runs.
const (
	spinInterval    = 100 * time.Millisecond
	elapsedInterval = time.Second
)

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// present writes the last frame built to the screen, at once, if the screen does not show it
// yet, and the window title if it changed. Without a screen (tests) it does nothing.
func (m *Model) present() {
	if m.scr == nil {
		return
	}
	m.scr.setTitle(m.windowTitle)
	if m.drawnGen != m.frameGen && m.canvas != nil {
		m.scr.draw(m.canvas, m.cursor)
		m.drawnGen = m.frameGen
	}
}

// bgFrameInterval is the minimum time between frames caused only by output in panes the user is
// not typing into (≈12 frames/s): under a flood the UI then spends its CPU on the focused pane.
const bgFrameInterval = 80 * time.Millisecond

// redraw rebuilds the cached frame when the model changed or a pane screen did. A change only in
// unfocused panes redraws at most every bgFrameInterval; the frame it defers is drawn by a
// one-shot bgRedrawMsg, so the last output of a flood is always shown.
func (m *Model) redraw() tea.Cmd {
	if !m.needFrame {
		if m.paneVersions() == m.lastPaneVersions {
			return nil
		}
		focusedChanged := false
		if p := m.selectedPane(); m.focused && p != nil && p.screen != nil && p.screen.Version() != p.drawnAt {
			focusedChanged = true
		}
		if !focusedChanged {
			if wait := bgFrameInterval - m.now().Sub(m.lastFrameAt); wait > 0 {
				if m.bgRedrawArmed {
					return nil
				}
				m.bgRedrawArmed = true
				return m.tick(wait, func(time.Time) tea.Msg { return bgRedrawMsg{} })
			}
		}
	}
	m.needFrame = false
	m.lastFrameAt = m.now()
	var text string
	text, m.cursor = m.render(m.scr == nil)
	if m.scr == nil {
		m.frame = text
	}
	m.frameGen++
	return nil
}

// paneVersions sums the screen versions of the panes (a cheap change detector).
func (m *Model) paneVersions() uint64 {
	var v uint64
	for _, p := range m.panes {
		if p.screen != nil {
			v += p.screen.Version()
		}
	}
	return v
}

// needsTick reports whether anything animates: a turn (spinner), a running terminal (elapsed
// time), or panes to poll when no Wake is wired.
func (m *Model) needsTick() (time.Duration, bool) {
	if m.busy {
		return spinInterval, true
	}
	for _, p := range m.panes {
		if p.exit == nil {
			if m.d.polling {
				return pollInterval, true
			}
			return elapsedInterval, true
		}
	}
	return 0, false
}

// armTick schedules the next tick when something animates and none is pending.
func (m *Model) armTick() tea.Cmd {
	if m.tickArmed {
		return nil
	}
	d, ok := m.needsTick()
	if !ok {
		return nil
	}
	m.tickArmed = true
	m.tickGen++
	gen := m.tickGen
	return m.tick(d, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

func (m *Model) onTick(t tickMsg) tea.Cmd {
	if t.gen != m.tickGen {
		return nil
	}
	m.tickArmed = false
	if m.busy {
		m.spin = (m.spin + 1) % len(spinFrames)
		m.needFrame = true
	}
	if now := m.now(); now.Sub(m.lastElapsedRedraw) >= elapsedInterval {
		for _, p := range m.panes {
			if p.exit != nil {
				continue
			}
			m.lastElapsedRedraw = now
			m.needFrame = true
			if p.term != nil && !p.truncated {
				// Once a second per running pane: has the transcript dropped output yet?
				p.truncated = p.term.Output().Truncated
			}
		}
	}
	return tea.Batch(m.redraw(), m.armTick())
}
