package ui

// The options dialog (the options key, alt+c): every config option the agent offers for the
// session (ACP configOptions: select and boolean), with its current value; ←/→ change a select,
// space or enter toggles a boolean; each change is sent at once (session/set_config_option) and
// the agent's answer (the complete new list) is what the dialog then shows.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/coder/acp-go-sdk"
)

const optionsOverlayID = "options"

type optionsDialog struct {
	sel     int
	pending string // "id=value" being set
}

func (d *optionsDialog) overlayID() string { return optionsOverlayID }

// configChoice is one value of a select option.
type configChoice struct{ value, name string }

// configRow is one option as the dialog shows it.
type configRow struct {
	id, name, desc, category string
	boolean, on              bool
	cur                      string
	choices                  []configChoice
}

// configRows lists the session's select and boolean config options in the agent's order.
func configRows(opts []acp.SessionConfigOption) []configRow {
	var rows []configRow
	for _, o := range opts {
		switch {
		case o.Select != nil:
			s := o.Select
			r := configRow{id: string(s.Id), name: s.Name, desc: derefStr(s.Description), cur: string(s.CurrentValue)}
			if s.Category != nil {
				r.category = string(*s.Category)
			}
			if u := s.Options.Ungrouped; u != nil {
				for _, v := range *u {
					r.choices = append(r.choices, configChoice{string(v.Value), v.Name})
				}
			}
			if g := s.Options.Grouped; g != nil {
				for _, grp := range *g {
					for _, v := range grp.Options {
						r.choices = append(r.choices, configChoice{string(v.Value), grp.Name + ": " + v.Name})
					}
				}
			}
			rows = append(rows, r)
		case o.Boolean != nil:
			b := o.Boolean
			r := configRow{id: string(b.Id), name: b.Name, desc: derefStr(b.Description), boolean: true, on: b.CurrentValue}
			if b.Category != nil {
				r.category = string(*b.Category)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// curName is the current value as a person reads it.
func (r configRow) curName() string {
	if r.boolean {
		if r.on {
			return "on"
		}
		return "off"
	}
	for _, c := range r.choices {
		if c.value == r.cur {
			return c.name
		}
	}
	return r.cur
}

// step is the value d steps away from the current one (select options wrap around).
func (r configRow) step(d int) string {
	if len(r.choices) == 0 {
		return r.cur
	}
	i := 0
	for j, c := range r.choices {
		if c.value == r.cur {
			i = j
		}
	}
	return r.choices[(i+d+len(r.choices))%len(r.choices)].value
}

func (m *Model) openOptions() {
	if len(configRows(m.state.ConfigOptions)) == 0 {
		m.addBanner("info", "the agent offers no session options")
		return
	}
	m.pushOverlay(&optionsDialog{})
}

func (d *optionsDialog) handleKey(m *Model, k tea.KeyPressMsg) action {
	rows := configRows(m.state.ConfigOptions)
	if len(rows) == 0 {
		return closeAction
	}
	d.sel = min(d.sel, len(rows)-1)
	r := rows[d.sel]
	set := func(v string) action {
		id := r.id
		d.pending = id + "=" + v
		agent := m.d.agent
		return doAction(false, func(m *Model) tea.Cmd {
			return func() tea.Msg {
				if err := agent.SetConfigOption(id, v); err != nil {
					return cmdErrMsg{"set " + id, err}
				}
				return nil
			}
		})
	}
	switch k.String() {
	case "esc", "q":
		return closeAction
	case "up", "k":
		d.sel = max(d.sel-1, 0)
	case "down", "j", "tab":
		d.sel = min(d.sel+1, len(rows)-1)
	case "right", "l", "enter", "space":
		if r.boolean {
			return set(fmt.Sprint(!r.on))
		}
		if len(r.choices) > 1 {
			return set(r.step(1))
		}
	case "left", "h":
		if r.boolean {
			return set(fmt.Sprint(!r.on))
		}
		if len(r.choices) > 1 {
			return set(r.step(-1))
		}
	}
	return keptAction
}

func (d *optionsDialog) draw(m *Model, area uv.Rectangle) string {
	st := m.st
	w := min(max(area.Dx()-8, 30), 100)
	rows := configRows(m.state.ConfigOptions)
	d.sel = min(d.sel, max(len(rows)-1, 0))
	lines := []string{st.ModalTitle.Render("Session options"), ""}
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, min(len([]rune(sanitizeLine(r.name))), 28))
	}
	for i, r := range rows {
		val := sanitizeLine(r.curName())
		if !r.boolean && len(r.choices) > 1 {
			val = "‹ " + val + " ›"
		}
		line := fmt.Sprintf("%-*s  %s", nameW, truncate(sanitizeLine(r.name), nameW), val)
		if d.pending != "" && strings.HasPrefix(d.pending, r.id+"=") && !d.applied(r) {
			line += st.Dim.Render("  setting…")
		}
		line = truncate(line, w-2)
		if i == d.sel {
			lines = append(lines, st.ModalSelected.Render("› "+line))
		} else {
			lines = append(lines, "  "+line)
		}
	}
	if d.sel < len(rows) {
		r := rows[d.sel]
		var about []string
		if r.category != "" {
			about = append(about, sanitizeLine(r.category))
		}
		if r.desc != "" {
			about = append(about, sanitizeLine(r.desc))
		}
		if !r.boolean && len(r.choices) > 0 {
			var names []string
			for _, c := range r.choices {
				names = append(names, sanitizeLine(c.name))
			}
			about = append(about, "values: "+strings.Join(names, ", "))
		}
		if len(about) > 0 {
			lines = append(lines, "")
			lines = append(lines, wrapCells(st.Dim.Render(strings.Join(about, " · ")), w)...)
		}
	}
	lines = append(lines, "", st.Dim.Render(truncate("↑↓ option · ←→ change · space toggle · esc close", w)))
	return st.Modal.Render(strings.Join(lines, "\n"))
}

// applied reports whether the pending change shows in r (the agent answered it).
func (d *optionsDialog) applied(r configRow) bool {
	_, v, _ := strings.Cut(d.pending, "=")
	if r.boolean {
		return fmt.Sprint(r.on) == v
	}
	return r.cur == v
}
