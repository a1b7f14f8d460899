package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// helpView is the key help overlay (the help key opens it): every binding, grouped by area.
// Any key closes it, except the scroll keys while the list is taller than the window.
type helpView struct {
	scroll     int  // first line of the list shown when it is taller than the window
	scrollable bool // the list is taller than the window (at the last draw)
	height     int  // the window's height at the last draw (the page step)
}

func (h *helpView) overlayID() string { return "help" }

func (h *helpView) handleKey(m *Model, k tea.KeyPressMsg) action {
	if h.scrollable {
		switch k.String() {
		case "down", "j":
			h.scroll++
			return keptAction
		case "up", "k":
			h.scroll--
			return keptAction
		case "pgdown", "space":
			h.scroll += max(h.height/2, 1)
			return keptAction
		case "pgup":
			h.scroll -= max(h.height/2, 1)
			return keptAction
		}
	}
	return closeAction
}

// draw shows every key binding (bubbles help, full view), in as many columns as fit.
func (h *helpView) draw(m *Model, area uv.Rectangle) string {
	h.height = area.Dy()
	avail := max(area.Dx()-6, 20)
	m.help.SetWidth(0)
	groups := m.keys.fullHelp()
	body := m.help.FullHelpView(groups)
	if lipgloss.Width(body) > avail {
		// Too narrow for every group side by side: stack groups into as many columns as fit
		// (in order, columns of about equal height), down to one group under the other.
		rendered := make([]string, len(groups))
		for i, g := range groups {
			rendered[i] = m.help.FullHelpView([][]key.Binding{g})
		}
		for n := len(groups) - 1; n >= 1; n-- {
			cols := splitColumns(rendered, n)
			parts := make([]string, 0, 2*len(cols))
			for i, c := range cols {
				if i > 0 {
					parts = append(parts, "   ")
				}
				parts = append(parts, strings.Join(c, "\n\n"))
			}
			body = lipgloss.JoinHorizontal(lipgloss.Top, parts...)
			if lipgloss.Width(body) <= avail {
				break
			}
		}
	}
	if lipgloss.Width(body) > avail {
		// Even one column is wider than the window: cut each line (with "…") rather than the box.
		ls := strings.Split(body, "\n")
		for i, l := range ls {
			tail := "…"
			if ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")) <= avail {
				tail = "" // only column padding is cut
			}
			ls[i] = ansi.Truncate(l, avail, tail)
		}
		body = strings.Join(ls, "\n")
	}
	title := m.st.ModalTitle.Render("Keys") + m.st.Dim.Render(" · any key closes")
	lines := strings.Split(body, "\n")
	frame := lipgloss.Height(m.st.Modal.Render("x")) - 1 // border and padding rows
	room := area.Dy() - frame - 2                        // rows for the body under the title
	if len(lines) <= room || room < 2 {
		h.scroll, h.scrollable = 0, false
		return m.st.Modal.Render(title + "\n\n" + body)
	}
	h.scrollable = true
	// Taller than the window: a window onto the list that ↑/↓ and pgup/pgdn move, with a marker.
	room-- // the marker row
	h.scroll = min(max(h.scroll, 0), len(lines)-room)
	shown := lines[h.scroll : h.scroll+room]
	digits := len(strconv.Itoa(len(lines))) // a fixed width: the box does not change size while scrolling
	marker := m.st.Warn.Render(ansi.Truncate(fmt.Sprintf("lines %*d–%*d of %d · ↑/↓ pgup/pgdn scroll", digits, h.scroll+1, digits, h.scroll+room, len(lines)), avail, "…"))
	title = m.st.ModalTitle.Render("Keys") + m.st.Dim.Render(" · other keys close")
	return m.st.Modal.Render(title + "\n\n" + strings.Join(shown, "\n") + "\n" + marker)
}
