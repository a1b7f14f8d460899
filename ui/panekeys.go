package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// paneNav is the pane navigation state that outlives one key: the pane selected before the
// current one (last_pane) and whether the prefix key was just pressed in a focused pane.
type paneNav struct {
	lastID string    // id of the pane selected before the current one ("" none)
	prefix bool      // the prefix key was pressed while typing into a pane: the next key is a pane command
	copy   *copyMode // the pane in copy mode, if any (copymode.go; also on the overlay stack)
}

// selectPane makes pane i the selected one, remembering the one it replaces for last_pane.
// It does not change whether a pane has the keyboard (jumpPane does).
func (m *Model) selectPane(i int) {
	if i < 0 || i >= len(m.panes) || i == m.selected {
		return
	}
	if cur := m.selectedPane(); cur != nil {
		m.nav.lastID = cur.id
	}
	m.selected = i
	m.applyLayout()
	m.markDirty()
}

// typeable reports whether the user can type into p: a client-owned pane whose program runs.
func typeable(p *pane) bool { return p != nil && p.term != nil && p.exit == nil }

// jumpPane selects pane i (0-based). While a pane has the keyboard it moves with the selection
// to pane i when that one can take keys (else typing into panes ends); otherwise only the
// selection moves. An index with no pane is said in a banner.
func (m *Model) jumpPane(i int) {
	if i < 0 || i >= len(m.panes) {
		m.addBanner("info", fmt.Sprintf("no pane %d (there are %d)", i+1, len(m.panes)))
		m.markDirty()
		return
	}
	if i == m.selected {
		return
	}
	wasFocused := m.focused
	m.setFocus(false) // focus-out report to the pane being left
	m.selectPane(i)
	if wasFocused && typeable(m.selectedPane()) {
		m.setFocus(true)
		m.selectedPane().scroll = 0
	}
}

// lastPaneIndex is the index of the pane selected before the current one, or -1 when there is
// none (never selected, or closed since).
func (m *Model) lastPaneIndex() int {
	if m.nav.lastID == "" {
		return -1
	}
	for i, p := range m.panes {
		if p.id == m.nav.lastID {
			return i
		}
	}
	return -1
}

// paneJumpKey reports whether k is one of the pane_1…pane_9 or last_pane keys, and handles it.
func (m *Model) paneJumpKey(k tea.KeyPressMsg) bool {
	for i := range m.keys.PaneN {
		if key.Matches(k, m.keys.PaneN[i]) {
			m.jumpPane(i)
			return true
		}
	}
	if key.Matches(k, m.keys.LastPane) {
		if i := m.lastPaneIndex(); i >= 0 {
			m.jumpPane(i)
		} else {
			m.addBanner("info", "no pane was selected before this one")
			m.markDirty()
		}
		return true
	}
	return false
}

// focusedKey routes a key while a pane has the keyboard: the prefix key and the command after
// it, the pane jump keys, and everything else to the program. It returns handled=false when the
// key is not the pane's (the leave key, or the pane can no longer take keys), for handleKey to
// go on with it.
func (m *Model) focusedKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	p := m.selectedPane()
	if !typeable(p) {
		m.nav.prefix = false
		return nil, false
	}
	if m.nav.prefix {
		m.nav.prefix = false
		m.markDirty()
		return m.prefixCommand(p, k), true
	}
	switch {
	case key.Matches(k, m.keys.LeavePane):
		return nil, false
	case key.Matches(k, m.keys.Prefix):
		m.nav.prefix = true
		m.markDirty()
		return nil, true
	case m.paneJumpKey(k):
		return nil, true
	case key.Matches(k, m.keys.CopyMode):
		m.startCopyMode()
		return nil, true
	}
	if p.scroll != 0 {
		p.scroll = 0
		m.markDirty()
	}
	// No frame now: the program's echo changes the screen, and that wakes the redraw.
	_ = p.term.SendKey(uv.KeyPressEvent(k))
	return nil, true
}

// prefixHelp is the title of a focused pane while the prefix key waits for its command.
const prefixHelp = "z zoom · n/p next/prev · l last · 1-9 pane · [ copy · d leave"

// prefixCommand runs the pane command typed after the prefix key (as in tmux): the prefix key
// again sends it to the program; z zooms, n/p select the next/previous pane, l or ; the last
// one, 1–9 a pane by number, d or esc leave the pane. Any other key is said in a banner, and
// is not sent to the program.
func (m *Model) prefixCommand(p *pane, k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.Prefix) {
		_ = p.term.SendKey(uv.KeyPressEvent(k))
		return nil
	}
	switch s := k.String(); s {
	case "z":
		m.zoomed = !m.zoomed
	case "n":
		if len(m.panes) > 1 {
			m.jumpPane((m.selected + 1) % len(m.panes))
		}
	case "p":
		if len(m.panes) > 1 {
			m.jumpPane((m.selected + len(m.panes) - 1) % len(m.panes))
		}
	case "l", ";":
		if i := m.lastPaneIndex(); i >= 0 {
			m.jumpPane(i)
		} else {
			m.addBanner("info", "no pane was selected before this one")
		}
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		m.jumpPane(int(s[0] - '1'))
	case "d", "esc":
		m.setFocus(false)
	case "[":
		m.startCopyMode()
	default:
		pk := m.keys.Prefix.Help().Key
		m.addBanner("info", fmt.Sprintf("%s %s is no pane command (%s; %s twice sends %s)", pk, s, prefixHelp, pk, pk))
	}
	return nil
}

// paneNumber is the number a pane's title shows for the jump keys (index+1), or 0 (none) when
// it is the only pane.
func paneNumber(index, panes int) int {
	if panes < 2 {
		return 0
	}
	return index + 1
}

// focusedInfo is the separator line's text while a pane has the keyboard: whom keys go to and
// how to leave, or, after the prefix key, the pane commands it waits for.
func (m *Model) focusedInfo(p *pane) string {
	pk := m.keys.Prefix.Help().Key
	if m.nav.prefix {
		return m.st.Accent.Render(pk+": ") + prefixHelp + m.st.Dim.Render(" · "+pk+" again sends it")
	}
	return m.st.Accent.Render("typing into "+m.paneName(p)) + m.st.Dim.Render(" · "+m.keys.LeavePane.Help().Key+" leaves · "+pk+" then z zoom, n next, d leave")
}
