package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/permissions"
)

// grantsView is the grants overlay (the grants key opens it): every "always" grant of this run,
// session-scoped and saved, with ↑/↓ to select, d/x/delete to revoke, esc/q/enter to close.
type grantsView struct {
	list []permissions.Grant
	sel  int
}

func (g *grantsView) overlayID() string { return "grants" }

func (g *grantsView) handleKey(m *Model, k tea.KeyPressMsg) action {
	switch k.String() {
	case "esc", "q", "enter":
		return closeAction
	case "up", "k":
		g.sel = max(g.sel-1, 0)
	case "down", "j":
		g.sel = min(g.sel+1, max(len(g.list)-1, 0))
	case "d", "x", "delete", "backspace":
		if m.d.grants == nil || g.sel >= len(g.list) {
			return keptAction
		}
		id, store := g.list[g.sel].ID, m.d.grants
		// Revoking a saved grant rewrites the grants file: done in a Cmd, not in Update.
		return doAction(false, func(*Model) tea.Cmd {
			return func() tea.Msg {
				err := store.Revoke(id)
				return grantsMsg{list: store.Grants(), id: id, err: err}
			}
		})
	}
	return keptAction
}

// setList replaces the listed grants (after a revoke), keeping the selection in range.
func (g *grantsView) setList(list []permissions.Grant) {
	g.list = list
	g.sel = min(g.sel, max(len(g.list)-1, 0))
}

// draw lists the grants with the selected one highlighted.
func (g *grantsView) draw(m *Model, area uv.Rectangle) string {
	w := max(area.Dx()-8, 20) // as wide as the window allows: paths are long
	lines := []string{m.st.ModalTitle.Render("Grants") + m.st.Dim.Render(" · d revokes · esc closes"), ""}
	if len(g.list) == 0 {
		lines = append(lines, m.st.Dim.Render("No grants in this session."))
	}
	for i, gr := range g.list {
		scope := "session"
		if gr.Saved {
			scope = "saved"
		}
		// The whole rule is shown (wrapped under itself), never cut: it is what is allowed.
		rows := wrapLabeled(fmt.Sprintf("%s  %-7s  ", gr.ID, scope), sanitizeLine(gr.Rule()), w-2)
		for j, row := range rows {
			switch {
			case i == g.sel && j == 0:
				lines = append(lines, m.st.ModalSelected.Render("› "+row))
			case i == g.sel:
				lines = append(lines, m.st.ModalSelected.Render("  "+row))
			default:
				lines = append(lines, "  "+row)
			}
		}
	}
	return m.st.Modal.Render(strings.Join(lines, "\n"))
}

// openGrants opens the grants overlay with the current list.
func (m *Model) openGrants() {
	if m.d.grants == nil {
		m.addBanner("info", "no policy engine: grants are not available")
		return
	}
	m.pushOverlay(&grantsView{list: m.d.grants.Grants()})
}
