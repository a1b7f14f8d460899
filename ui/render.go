package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/acpclient"
)

// render builds a whole frame on the persistent canvas (m.canvas) and returns the cursor to show
// (nil: hidden) and, when text is set, the frame as a string. Only Update calls it (via redraw).
func (m *Model) render(text bool) (string, *tea.Cursor) {
	if m.width <= 0 || m.height <= 0 {
		return "", nil
	}
	// Pane versions as of before drawing (see drawPane): a change during the frame redraws.
	versions := m.paneVersions()
	if m.width < minWindowWidth || m.height < minWindowHeight {
		// Too small for the layout: say so (size and minimum) rather than show a clipped corner.
		m.newCanvas(m.width, m.height)
		lines := []string{fmt.Sprintf("window %dx%d", m.width, m.height), fmt.Sprintf("needs %dx%d", minWindowWidth, minWindowHeight)}
		for i, l := range lines[:min(len(lines), m.height)] {
			l = truncate(l, m.width)
			drawText(m.canvas, uv.Rect(max((m.width-ansi.StringWidth(l))/2, 0), max((m.height-len(lines))/2, 0)+i, m.width, 1), m.st.Warn.Render(l))
		}
		m.lastPaneVersions = versions
		if !text {
			return "", nil
		}
		return m.canvas.Render(), nil
	}
	m.applyLayout()
	w, h := max(m.width, minWindowWidth), max(m.height, minWindowHeight)
	m.newCanvas(w, h)
	c := m.canvas
	l := m.lay
	var cursor *tea.Cursor
	now := m.now()

	if !l.conv.Empty() {
		m.drawConversation(c, l.conv)
	}
	for _, pr := range l.panes {
		p := m.panes[pr.index]
		sel := pr.index == m.selected
		var pos uv.Position
		var show bool
		if cm := m.nav.copy; cm != nil && cm.p == p {
			pos, show = cm.drawCopyPane(c, m, pr.outer, paneNumber(pr.index, len(m.panes)))
		} else {
			pos, show = drawPane(c, m.st, p, pr.outer, paneDrawOpts{
				focused: sel && m.focused, selected: sel && len(m.panes) > 1, only: sel && len(m.panes) == 1,
				leaveKey: m.keys.LeavePane.Help().Key, killKey: m.keys.KillPane.Help().Key, now: now,
				number: paneNumber(pr.index, len(m.panes)), prefixKey: m.keys.Prefix.Help().Key, prefixPending: m.nav.prefix,
			})
		}
		if show {
			cursor = tea.NewCursor(pos.X, pos.Y)
		}
	}
	if l.tabbed {
		drawText(c, l.tabs, m.tabBar(l.tabs.Dx()))
	}
	drawText(c, l.sep, m.separatorLine(w))
	rows, cr, cc := m.ed.view(max(w-2, 1), l.editor.Dy())
	for i, row := range rows {
		prefix := "  "
		if i == 0 && m.ed.top == 0 {
			prefix = m.st.EditorPrompt.Render("›") + " "
		}
		drawText(c, uv.Rect(0, l.editor.Min.Y+i, w, 1), prefix+row)
	}
	if !m.focused && m.nav.copy == nil {
		cursor = tea.NewCursor(2+cc, l.editor.Min.Y+cr)
	}
	drawText(c, l.status, m.statusLine(w))

	if m.focused {
		// A dialog waiting for the user says so on the focused pane's title row; the top one is
		// drawn last, since leaving the pane gives the keys to it.
		for _, o := range m.overlays {
			if kw, ok := o.(keyWaiter); ok {
				if hint := kw.waitHint(m); hint != "" {
					drawLabel(c, 1, 0, w-2, m.st.ModalTitle.Render(hint))
				}
			}
		}
	}
	if m.drawOverlays(c, l.main) && !m.focused && m.overlayHasKeys() {
		cursor = nil // the keys go to the overlay, not to the editor
	}
	m.lastPaneVersions = versions
	if !text {
		return "", cursor
	}
	return c.Render(), cursor
}

// newCanvas makes m.canvas a blank w×h canvas (reused when the size did not change).
func (m *Model) newCanvas(w, h int) {
	if m.canvas == nil || m.canvas.Width() != w || m.canvas.Height() != h {
		m.canvas = lipgloss.NewCanvas(w, h)
	} else {
		m.canvas.Clear()
	}
}

// drawConversation draws the visible window of the conversation (following the end unless
// scrolled) into r.
func (m *Model) drawConversation(c uv.Screen, r uv.Rectangle) {
	width := r.Dx()
	if r.Max.X < m.width { // a neighbour on the right: keep a gap
		width--
	}
	lines := m.conv.render(&m.state, m.banners, width, m.preview)
	if len(lines) == 0 {
		lines = m.welcome(width)
	}
	h := r.Dy()
	total := len(lines)
	if m.conv.scroll > 0 && total > m.conv.drawnTotal {
		// Scrolled back: keep the same lines in view while new ones arrive below.
		m.conv.scroll += total - m.conv.drawnTotal
	}
	m.conv.drawnTotal = total
	m.conv.scroll = min(m.conv.scroll, max(total-h, 0))
	start := max(total-h-m.conv.scroll, 0)
	end := min(start+h, total)
	for i := start; i < end; i++ {
		m.conv.cells.draw(c, uv.Rect(r.Min.X, r.Min.Y+i-start, width, 1), lines[i])
	}
	if m.conv.scroll > 0 {
		tag := m.st.Warn.Render(fmt.Sprintf(" ↓ %d more lines (%s) ", m.conv.scroll, m.keys.ScrollDown.Help().Key))
		tw := ansi.StringWidth(tag)
		drawText(c, uv.Rect(r.Min.X+max(width-tw, 0), r.Max.Y-1, min(tw, width), 1), tag)
	}
}

func (m *Model) welcome(width int) []string {
	lines := []string{
		m.st.Accent.Render("acpterm") + m.st.Dim.Render(" · "+m.agentLabel()),
		m.st.Dim.Render(truncate("Type a prompt and press enter. "+m.keys.Help.Help().Key+" shows every key.", width)),
	}
	return lines
}

// separatorLine is the rule above the editor: completion candidates, queue and turn state, or
// key hints.
func (m *Model) separatorLine(width int) string {
	var info string
	switch {
	case m.comp.active():
		var items []string
		for i, it := range m.comp.items {
			if i == m.comp.idx {
				items = append(items, m.st.ModalSelected.Render(it))
			} else {
				items = append(items, it)
			}
		}
		info = strings.Join(items, "  ")
	case m.nav.copy != nil:
		info = m.copyInfo(m.nav.copy)
	case m.focused:
		if p := m.selectedPane(); p != nil {
			info = m.focusedInfo(p)
		}
	default:
		var parts []string
		if m.busy {
			if m.cancelPending {
				c := "cancelling…"
				if m.killing > 0 {
					c += fmt.Sprintf(" · killing %d terminal%s", m.killing, plural(m.killing))
				} else if n := m.turnTerminals(); n > 0 {
					c += fmt.Sprintf(" · %s again kills %d terminal%s", m.keys.Cancel.Help().Key, n, plural(n))
				}
				parts = append(parts, m.st.Warn.Render(c))
			} else {
				parts = append(parts, m.st.Dim.Render("working · "+m.keys.Cancel.Help().Key+" cancels"))
			}
		}
		if _, ok := m.frontApproval(); ok && !m.appr.focus {
			parts = append(parts, m.st.Warn.Render("approval waiting · "+m.keys.Answer.Help().Key+" answers"))
		}
		if n := len(m.queue); n > 0 {
			parts = append(parts, m.st.Warn.Render(fmt.Sprintf("%d queued (%s edits)", n, m.keys.Queue.Help().Key)))
		}
		if w := m.modeWarning(); w != "" {
			parts = append(parts, m.st.Error.Render(w))
		}
		if m.agentGone != "" {
			parts = append(parts, m.st.Error.Render("agent exited ("+m.agentGone+")"))
		} else if m.closed {
			parts = append(parts, m.st.Error.Render("agent connection closed"))
		}
		if len(parts) == 0 {
			parts = append(parts, m.st.Dim.Render(fmt.Sprintf("%s send · %s newline · %s complete · %s help",
				m.keys.Send.Help().Key, m.keys.Newline.Help().Key, m.keys.Complete.Help().Key, m.keys.Help.Help().Key)))
		}
		info = strings.Join(parts, m.st.Dim.Render(" · "))
	}
	info = truncate(info, max(width-4, 1))
	rule := m.st.PaneBorder.Render("─ ") + info + " "
	if rest := width - ansi.StringWidth(rule); rest > 0 {
		rule += m.st.PaneBorder.Render(strings.Repeat("─", rest))
	}
	return rule
}

// turnTerminals counts the running client-owned terminals started by the current turn.
func (m *Model) turnTerminals() int {
	n := 0
	for _, p := range m.panes {
		if p.term != nil && p.exit == nil && p.turn == m.turn {
			n++
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// statusLine is the bottom bar: agent, session, mode, model, policy source and enforcement,
// running terminals, pending approvals, and a spinner during a turn. When it does not fit in
// width cells, parts are left out by priority (statusPrio), never cut in the middle: a turn
// running, approvals waiting, the mode and the policy stay longest.
func (m *Model) statusLine(width int) string {
	st := m.st
	var parts []statusPart
	add := func(prio int, text string) { parts = append(parts, statusPart{prio: prio, text: text}) }
	if m.busy {
		add(statusPrioWorking, spinFrames[m.spin]+" working")
	}
	add(statusPrioAgent, m.agentLabel())
	if n := m.pendingApprovals(); n > 0 {
		add(statusPrioApprovals, fmt.Sprintf("approvals %d", n))
	}
	running := 0 // a pane whose command awaits approval is not running yet
	for _, p := range m.panes {
		if p.exit == nil && !p.awaiting {
			running++
		}
	}
	if len(m.panes) > 0 {
		add(statusPrioTerminals, fmt.Sprintf("terminals %d running", running))
	}
	if md := m.currentMode(); md != "" {
		switch m.state.ModeAsks() {
		case acpclient.AsksYes:
			md += " (asks)"
		case acpclient.AsksNo:
			md += " (does not ask)"
		}
		add(statusPrioMode, "mode "+md)
	}
	if mo := m.currentModel(); mo != "" {
		add(statusPrioModel, "model "+mo)
	}
	if sid := m.state.Info.SessionID; sid != "" {
		add(statusPrioSession, "session "+truncate(sanitizeLine(sid), 12))
	}
	// The policy and the OS enforcement (the sandbox summary, or "policy only" without one)
	// share a priority: they say together what protects the user.
	short := "policy " + strings.TrimPrefix(m.policySource(), "built-in ")
	if m.d.sandbox != "" {
		add(statusPrioPolicy, "policy "+m.policySource())
		parts[len(parts)-1].short = short
		add(statusPrioPolicy, m.d.sandbox)
	} else {
		add(statusPrioPolicy, "policy "+m.policySource()+" (policy only)")
		parts[len(parts)-1].short = short + " (policy only)"
	}
	right := m.keys.Help.Help().Key + " help"
	room := width - ansi.StringWidth(right) - 2
	left := " " + fitStatus(parts, max(room-1, 1))
	left = truncate(left, max(room, 1))
	gap := max(width-ansi.StringWidth(left)-ansi.StringWidth(right)-1, 1)
	line := left + strings.Repeat(" ", gap) + right + " "
	return st.StatusBar.Render(truncate(line, width))
}

// statusPart is one part of the status bar, its priority (lower stays longer) and a shorter
// form of it tried before it is left out ("" none).
type statusPart struct {
	prio        int
	text, short string
}

// Status bar priorities: what stays when the window is narrow, first to last.
const (
	statusPrioWorking = iota
	statusPrioApprovals
	statusPrioMode
	statusPrioPolicy
	statusPrioModel
	statusPrioAgent
	statusPrioTerminals
	statusPrioSession
)

// fitStatus joins the parts (in their order) with " · " in width cells: while they do not fit,
// a part of the lowest priority is shortened (when one of them has a short form) or else the
// last of them is left out; when even the last part left does not fit, it is cut.
func fitStatus(parts []statusPart, width int) string {
	keep := slices.Clone(parts)
	for {
		texts := make([]string, len(keep))
		for i, p := range keep {
			texts[i] = p.text
		}
		joined := strings.Join(texts, " · ")
		if ansi.StringWidth(joined) <= width || len(keep) <= 1 {
			return truncate(joined, width)
		}
		worst, shorten := 0, -1
		for i, p := range keep {
			if p.prio > keep[worst].prio {
				worst, shorten = i, -1
			}
			if p.prio == keep[worst].prio {
				worst = i
				if p.short != "" && p.short != p.text {
					shorten = i
				}
			}
		}
		if shorten >= 0 {
			keep[shorten].text, keep[shorten].short = keep[shorten].short, ""
			continue
		}
		keep = slices.Delete(keep, worst, worst+1)
	}
}

// policySource names where the policy came from: the config file's base name (and the
// project file), or "built-in defaults".
func (m *Model) policySource() string {
	if m.d.cfg == nil {
		return "none"
	}
	src := m.d.cfg.Source
	if src == "" {
		src = "built-in defaults"
	} else if filepath.IsAbs(src) {
		src = filepath.Base(src)
	}
	if m.d.cfg.Project != "" {
		src += " + " + filepath.Base(m.d.cfg.Project)
	}
	return sanitizeLine(src)
}

// splitColumns splits blocks, in order, into at most n columns so that the tallest column is as
// short as possible (blocks are few: a plain search over the cut points).
func splitColumns(blocks []string, n int) [][]string {
	hs := make([]int, len(blocks))
	for i, b := range blocks {
		hs[i] = lipgloss.Height(b) + 1
	}
	var best [][]string
	bestH := -1
	var rec func(start int, cols [][]string, tallest int)
	rec = func(start int, cols [][]string, tallest int) {
		if start == len(blocks) {
			if bestH < 0 || tallest < bestH {
				bestH = tallest
				best = append([][]string(nil), cols...)
			}
			return
		}
		if len(cols) == n {
			return
		}
		h := 0
		for end := start + 1; end <= len(blocks); end++ {
			h += hs[end-1]
			rec(end, append(cols, blocks[start:end]), max(tallest, h))
		}
	}
	rec(0, nil, 0)
	return best
}
