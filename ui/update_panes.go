package ui

import (
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/acpclient"
)

// addPane creates the pane for a new terminal and selects it when none is selected.
func (m *Model) addPane(e acpclient.TerminalStarted) {
	if _, ok := m.paneByID[e.ID]; ok {
		return
	}
	p := &pane{id: e.ID, label: sanitizeLine(e.Label), cwd: sanitizeLine(e.Cwd), toolCallID: e.ToolCallID,
		agentOwned: e.AgentOwned, driven: e.Interactive, started: m.now(), turn: m.turn}
	if !e.AgentOwned && m.d.terms != nil {
		if t, ok := m.d.terms.Get(e.ID); ok {
			p.term = t
			p.screen = t.Screen()
			p.started = t.StartedAt()
			if p.label == "" {
				p.label = sanitizeLine(t.Label())
			}
			if p.cwd == "" {
				p.cwd = sanitizeLine(t.Dir())
			}
		}
	}
	if p.screen == nil && m.d.agent != nil {
		if s, ok := m.d.agent.Screen(e.ID); ok {
			p.screen = s
		}
	}
	if p.label == "" {
		p.label = e.ID
	}
	m.panes = append(m.panes, p)
	m.paneByID[p.id] = p
	if m.selected < 0 || !m.focused {
		// The newest terminal is usually the one to look at (or type into, e.g. a `read`).
		m.selected = len(m.panes) - 1
	}
	m.applyLayout()
}

func (m *Model) selectedPane() *pane {
	if m.selected < 0 || m.selected >= len(m.panes) {
		return nil
	}
	return m.panes[m.selected]
}

func (m *Model) selectNextPane() {
	if len(m.panes) == 0 {
		return
	}
	m.selectPane((m.selected + 1) % len(m.panes))
}

// focusSelected starts typing into the selected pane (its program must be running and it must
// be client-owned: agent-owned panes are read-only).
func (m *Model) focusSelected() tea.Cmd {
	p := m.selectedPane()
	if p == nil && len(m.panes) > 0 {
		m.selected = len(m.panes) - 1
		p = m.selectedPane()
	}
	switch {
	case p == nil:
		m.addBanner("info", "no pane to type into")
	case p.term == nil:
		m.addBanner("info", "pane "+p.label+" is read-only (the agent runs it)")
	case p.exit != nil:
		m.addBanner("info", "pane "+p.label+" has finished ("+p.state()+")")
	default:
		m.setFocus(true)
		p.scroll = 0
	}
	return nil
}

// setFocus starts or ends typing into the selected pane and tells its program (focus in/out
// reports, ?1004) when it asked for them.
func (m *Model) setFocus(on bool) {
	if m.focused == on {
		return
	}
	m.focused = on
	if p := m.selectedPane(); p != nil && p.term != nil && p.exit == nil && p.screen != nil && p.screen.Modes().Focus {
		seq := "\x1b[O"
		if on {
			seq = "\x1b[I"
		}
		_ = p.term.Write([]byte(seq))
	}
}

// paneScrollStep is half the selected pane's height (at least one line).
func (m *Model) paneScrollStep() int {
	if p := m.selectedPane(); p != nil {
		return max(p.size.Rows/2, 1)
	}
	return 1
}

// scrollPane moves a pane's view into history (n > 0) or back towards live (n < 0).
func (m *Model) scrollPane(p *pane, n int) {
	if p == nil || p.screen == nil {
		return
	}
	p.scroll = min(max(p.scroll+n, 0), p.screen.ScrollbackLen())
	m.markDirty()
}

// scrollConv scrolls the conversation up (n > 0) or down.
func (m *Model) scrollConv(n int) {
	m.conv.scroll = min(max(m.conv.scroll+n, 0), max(m.conv.total-m.lay.conv.Dy(), 0))
	m.markDirty()
}

// closeSelected removes the selected pane when its program has finished (releasing the
// terminal; its transcript stays with the agent until it releases it too).
func (m *Model) closeSelected() {
	p := m.selectedPane()
	if p == nil {
		return
	}
	if p.exit == nil {
		m.addBanner("info", "pane "+p.label+" is still running; only finished panes can be closed")
		return
	}
	i := m.selected
	m.panes = append(m.panes[:i], m.panes[i+1:]...)
	delete(m.paneByID, p.id)
	if m.selected >= len(m.panes) {
		m.selected = len(m.panes) - 1
	}
	m.zoomed = m.zoomed && len(m.panes) > 0
	m.applyLayout()
}

// killSelected kills the selected pane's command (Terminal.Kill, from a Cmd: it waits out the
// SIGTERM grace). Only running client-owned panes can be killed; the pane stays open and shows
// the exit status once the terminal reports it.
func (m *Model) killSelected() tea.Cmd {
	p := m.selectedPane()
	switch {
	case p == nil:
		m.addBanner("info", "no pane to kill")
	case p.term == nil:
		m.addBanner("info", "pane "+p.label+" is run by the agent; acpterm cannot kill it")
	case p.exit != nil:
		m.addBanner("info", "pane "+p.label+" has already finished ("+p.state()+")")
	default:
		m.addBanner("info", "killing "+p.label)
		return killCmd(p)
	}
	return nil
}

// killCmd kills p's terminal from a Cmd and reports the result as a killDoneMsg.
func killCmd(p *pane) tea.Cmd {
	t, label := p.term, p.label
	return func() tea.Msg { return killDoneMsg{label: label, err: t.Kill()} }
}

// openPager writes the selected pane's transcript (or the conversation when no pane is selected)
// to a temporary file and runs $PAGER (default "less -R") on it, suspending the UI.
func (m *Model) openPager() tea.Cmd {
	var text, name string
	if p := m.selectedPane(); p != nil {
		name = "pane"
		switch {
		case p.term != nil:
			text = p.term.Output().Text
		case p.screen != nil:
			text = p.screen.Text()
		}
	} else {
		name, text = "conversation", m.conversationText()
	}
	return m.pageText(name, text)
}

// conversationText is the whole conversation as plain text (100 cells wide), for $PAGER.
func (m *Model) conversationText() string {
	return stripSGR(strings.Join(m.conv.render(&m.state, m.banners, 100, nil), "\n"))
}

// pageText writes text to a temporary file and runs $PAGER on it (see openPager).
func (m *Model) pageText(name, text string) tea.Cmd {
	f, err := os.CreateTemp("", "acpterm-"+name+"-*.txt")
	if err != nil {
		m.addBanner("error", "pager: "+err.Error())
		return nil
	}
	_, werr := f.WriteString(pagerText(text))
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		m.addBanner("error", "pager: cannot write the transcript file")
		return nil
	}
	argv := pagerArgv(os.Getenv("PAGER"))
	cmd := exec.Command(argv[0], append(argv[1:], f.Name())...)
	path := f.Name()
	// The file is removed as soon as the pager ends: Bubble Tea calls this function when the
	// program returns, even when acpterm is shutting down and the message is never handled.
	return m.execCmd(cmd, func(err error) tea.Msg {
		_ = os.Remove(path)
		return pagerDoneMsg{err: err}
	})
}

// pagerText is text as a file for the pager: trailing blanks trimmed from each line, and a
// final newline (a pager like cat then leaves the shell's prompt at the start of a line).
func pagerText(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// pagerArgv splits $PAGER into words (whitespace only; no shell); empty means "less -R".
func pagerArgv(env string) []string {
	if f := strings.Fields(env); len(f) > 0 {
		return f
	}
	return []string{"less", "-R"}
}

// applyLayout recomputes the layout for the current window and resizes every visible pane's
// terminal (PTY + emulator) to its interior when that changed.
func (m *Model) applyLayout() {
	if m.width == 0 || m.height == 0 {
		return
	}
	m.lay = computeLayout(layoutInput{
		width: m.width, height: m.height, panes: len(m.panes),
		editorLines: m.ed.visualLines(max(m.width-2, 1)),
		zoomed:      m.zoomed && m.selectedPane() != nil, selected: m.selected,
	})
	m.predictNewPaneSize()
	for _, pr := range m.lay.panes {
		p := m.panes[pr.index]
		sz := paneSize(pr.outer)
		if sz == p.size {
			continue
		}
		p.size = sz
		switch {
		case p.term != nil:
			_ = p.term.Resize(sz)
		case p.screen != nil:
			p.screen.Resize(sz)
		}
	}
}

// predictNewPaneSize tells the terminals manager the size the pane of the next terminal will
// have (the layout with one more pane, the new one selected unless a pane has the keyboard), so
// the command starts at that size rather than 80x24 and a program that reads its size once
// (ls, git log) fits its pane. Only when the window or the pane count changed.
func (m *Model) predictNewPaneSize() {
	key := [3]int{m.width, m.height, len(m.panes)}
	if m.d.terms == nil || key == m.predictedFor || m.width <= 0 || m.height <= 0 {
		return
	}
	m.predictedFor = key
	sel := len(m.panes)
	if m.focused && m.selected >= 0 {
		sel = m.selected
	}
	lay := computeLayout(layoutInput{width: m.width, height: m.height, panes: len(m.panes) + 1,
		editorLines: m.ed.visualLines(max(m.width-2, 1)), selected: sel})
	for _, pr := range lay.panes {
		if pr.index == len(m.panes) {
			m.d.terms.SetDefaultSize(paneSize(pr.outer))
			return
		}
	}
	// Not shown (tabbed, another pane selected): the size of the shown one is the best guess.
	if len(lay.panes) > 0 {
		m.d.terms.SetDefaultSize(paneSize(lay.panes[0].outer))
	}
}

// handleMouse: a click focuses what it hits (a pane is selected, or typed into when already
// selected and running; the conversation or editor leave pane focus); the wheel scrolls the
// pane or conversation under the pointer. A focused pane whose program enabled mouse tracking
// receives the events instead (pane-local coordinates).
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.nav.copy != nil && m.copyMouse(msg) {
		return nil
	}
	mo := msg.Mouse()
	pt := uv.Pos(mo.X, mo.Y)
	hit := -1
	var hitRect uv.Rectangle
	for _, pr := range m.lay.panes {
		if pt.In(pr.outer) {
			hit, hitRect = pr.index, pr.outer
		}
	}
	if hit >= 0 && m.focused && hit == m.selected {
		p := m.panes[hit]
		in := interior(hitRect)
		if p.term != nil && p.screen != nil && p.screen.Modes().Mouse && pt.In(in) {
			local := mo
			local.X, local.Y = mo.X-in.Min.X, mo.Y-in.Min.Y
			if ev := toUVMouse(msg, local); ev != nil {
				_ = p.term.SendMouse(ev)
			}
			return nil
		}
	}
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft {
			return nil
		}
		if m.lay.tabbed && pt.In(m.lay.tabs) {
			if i := m.tabAt(mo.X - m.lay.tabs.Min.X); i >= 0 {
				m.setFocus(false)
				m.selectPane(i)
			}
			return nil
		}
		if hit >= 0 {
			if m.selected == hit && !m.focused {
				return m.focusSelected()
			}
			m.setFocus(false)
			m.selectPane(hit)
			return nil
		}
		if m.focused {
			m.setFocus(false)
			m.markDirty()
		}
	case tea.MouseWheelMsg:
		step := 3
		if msg.Button == tea.MouseWheelDown {
			step = -3
		} else if msg.Button != tea.MouseWheelUp {
			return nil
		}
		if hit >= 0 {
			m.scrollPane(m.panes[hit], step)
			return nil
		}
		if pt.In(m.lay.conv) {
			m.scrollConv(step)
		}
	}
	return nil
}

// toUVMouse converts a Bubble Tea mouse message to the ultraviolet event the terminal encodes.
func toUVMouse(msg tea.MouseMsg, local tea.Mouse) uv.MouseEvent {
	switch msg.(type) {
	case tea.MouseClickMsg:
		return uv.MouseClickEvent(local)
	case tea.MouseReleaseMsg:
		return uv.MouseReleaseEvent(local)
	case tea.MouseWheelMsg:
		return uv.MouseWheelEvent(local)
	case tea.MouseMotionMsg:
		return uv.MouseMotionEvent(local)
	}
	return nil
}

// preview returns the last non-empty lines of a terminal's screen for tool-call cards, cached
// per screen version (reading the screen text costs a pass over every cell).
func (m *Model) preview(id string, n int) ([]string, string, bool) {
	p := m.paneByID[id]
	if p == nil || p.screen == nil {
		return nil, "", false
	}
	if v := p.screen.Version(); v != p.previewAt || p.preview == nil || len(p.preview) > n {
		lines := strings.Split(strings.TrimRight(p.screen.Text(), "\n"), "\n")
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		for i, l := range lines {
			lines[i] = sanitizeLine(l)
		}
		p.preview, p.previewAt = lines, v
		if p.preview == nil {
			p.preview = []string{}
		}
	}
	return p.preview, p.state(), true
}
