package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// queueOverlayID names the queued-prompts view on the overlay stack.
const queueOverlayID = "queue"

// queueView is the queued-prompts overlay (the queue key opens it): the prompts typed while a
// turn runs, in the order they will be sent. ↑/↓ select, enter or e edits the selected prompt
// in place (enter saves, alt+enter adds a line, esc leaves it as it was), d/x/delete removes
// it, alt+↑/alt+↓ (K/J) move it, esc/q closes. While the view is open no queued prompt is sent:
// the turn that ends meanwhile leaves the queue to the user, and closing the view sends the
// first one if no turn runs.
type queueView struct {
	sel  int
	edit *editor // the prompt being edited (nil: choosing)
}

func (q *queueView) overlayID() string { return queueOverlayID }

// takePaste inserts a paste into the prompt being edited.
func (q *queueView) takePaste(s string) bool {
	if q.edit == nil {
		return false
	}
	q.edit.insert(sanitize(s))
	return true
}

func (q *queueView) handleKey(m *Model, k tea.KeyPressMsg) action {
	if q.edit != nil {
		return q.editKey(m, k)
	}
	n := len(m.queue)
	q.sel = min(q.sel, max(n-1, 0))
	switch k.String() {
	case "esc", "q":
		return doAction(true, func(m *Model) tea.Cmd { return m.nextPrompt() })
	case "up", "k":
		q.sel = max(q.sel-1, 0)
	case "down", "j":
		q.sel = min(q.sel+1, max(n-1, 0))
	case "enter", "e":
		if n > 0 {
			q.edit = newEditor()
			q.edit.setValue(m.queue[q.sel])
		}
	case "d", "x", "delete", "backspace":
		if n > 0 {
			i := q.sel
			return doAction(false, func(m *Model) tea.Cmd {
				m.queue = append(m.queue[:i:i], m.queue[i+1:]...)
				return nil
			})
		}
	case "alt+up", "K":
		if q.sel > 0 {
			i := q.sel
			q.sel--
			return doAction(false, func(m *Model) tea.Cmd {
				m.queue[i-1], m.queue[i] = m.queue[i], m.queue[i-1]
				return nil
			})
		}
	case "alt+down", "J":
		if q.sel < n-1 {
			i := q.sel
			q.sel++
			return doAction(false, func(m *Model) tea.Cmd {
				m.queue[i], m.queue[i+1] = m.queue[i+1], m.queue[i]
				return nil
			})
		}
	}
	return keptAction
}

// editKey edits the selected prompt: enter saves it (an emptied prompt is removed), esc
// leaves it unchanged.
func (q *queueView) editKey(m *Model, k tea.KeyPressMsg) action {
	switch {
	case k.String() == "esc":
		q.edit = nil
	case k.String() == "enter":
		text := strings.TrimSpace(q.edit.value())
		i := q.sel
		q.edit = nil
		return doAction(false, func(m *Model) tea.Cmd {
			if i >= len(m.queue) {
				return nil
			}
			if text == "" {
				m.queue = append(m.queue[:i:i], m.queue[i+1:]...)
			} else {
				m.queue[i] = text
			}
			return nil
		})
	case k.String() == "alt+enter" || k.String() == "shift+enter" || k.String() == "ctrl+j":
		q.edit.newline()
	default:
		q.edit.handleKey(k)
	}
	return keptAction
}

// draw lists the queued prompts (each on one line, cut), or the one being edited in full.
func (q *queueView) draw(m *Model, area uv.Rectangle) string {
	w := max(min(area.Dx()-8, 100), 20)
	n := len(m.queue)
	q.sel = min(q.sel, max(n-1, 0))
	var lines []string
	if q.edit != nil {
		lines = append(lines, m.st.ModalTitle.Render(fmt.Sprintf("Queued prompt %d of %d", q.sel+1, n))+
			m.st.Dim.Render(" · enter saves · alt+enter new line · esc leaves it as it was"), "")
		rows, cr, cc := q.edit.view(w-2, max(area.Dy()-8, 3))
		for i, r := range rows {
			if i == cr {
				at := ansi.Cut(r, cc, cc+1)
				if at == "" {
					at = " "
				}
				r = ansi.Cut(r, 0, cc) + m.st.ModalSelected.Render(at) + ansi.Cut(r, cc+1, w)
			}
			lines = append(lines, "  "+r)
		}
		return m.st.Modal.Render(strings.Join(lines, "\n"))
	}
	lines = append(lines, m.st.ModalTitle.Render("Queued prompts")+
		m.st.Dim.Render(" · enter edits · d removes · K/J move · esc closes"), "")
	if n == 0 {
		lines = append(lines, m.st.Dim.Render("No prompt is queued."))
	}
	for i, p := range m.queue {
		text := truncate(sanitizeLine(p), w-6)
		row := fmt.Sprintf("%d. %s", i+1, text)
		if i == q.sel {
			lines = append(lines, m.st.ModalSelected.Render("› "+row))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	lines = append(lines, "", m.st.Dim.Render("They are sent in this order when the turn ends (held while this is open)."))
	return m.st.Modal.Render(strings.Join(lines, "\n"))
}

// openQueue opens the queued-prompts view.
func (m *Model) openQueue() {
	m.pushOverlay(&queueView{})
}

// queueHeld reports whether the queued prompts wait for the user (the queue view is open).
func (m *Model) queueHeld() bool { return m.findOverlay(queueOverlayID) != nil }
