package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tabLabelMax is the widest a pane's name may be in the tab bar (cells).
const tabLabelMax = 20

// paneName is how the tab bar names a pane: the title of the tool call the terminal belongs to
// when the agent gave it one ("Print colours"), else its command line (which may be long and
// full of quoting: `printf '\033[31m…`). Both are sanitised.
func (m *Model) paneName(p *pane) string {
	for _, tc := range m.state.ToolCalls {
		if tc.Title == "" || (tc.ID != p.toolCallID || p.toolCallID == "") && !containsString(tc.Terminals, p.id) {
			continue
		}
		if t := sanitizeLine(tc.Title); t != "" && t != "Terminal" {
			return t // claude-agent-acp first calls every terminal "Terminal": the command says more
		}
	}
	return p.label
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tabText is one tab's label.
func (m *Model) tabText(i int, p *pane) string {
	return fmt.Sprintf(" %d %s · %s ", i+1, truncate(m.paneName(p), tabLabelMax), p.state())
}

// tabHit is where one tab was drawn in the tab bar (cells from its left edge), for mouse hits.
type tabHit struct{ x0, x1, index int }

// tabBar lists the panes when they are tabbed: "1 make · running │ 2 ls · exit 0". When they do
// not all fit in width cells, it shows a window of tabs around the selected one (which is
// always shown) with "+N more" on each side that has hidden tabs. It records where each tab
// went in m.tabHits.
func (m *Model) tabBar(width int) string {
	n := len(m.panes)
	m.tabHits = m.tabHits[:0]
	if n == 0 {
		return ""
	}
	texts := make([]string, n)
	widths := make([]int, n)
	for i, p := range m.panes {
		texts[i] = m.tabText(i, p)
		widths[i] = ansi.StringWidth(texts[i])
	}
	sel := min(max(m.selected, 0), n-1)
	more := func(k int) string { return fmt.Sprintf(" +%d more ", k) }
	// fits reports whether tabs lo..hi-1 and the markers for what is left out fit.
	fits := func(lo, hi int) bool {
		w := 0
		for i := lo; i < hi; i++ {
			w += widths[i]
		}
		w += hi - lo - 1 // separators
		if lo > 0 {
			w += ansi.StringWidth(more(lo)) + 1
		}
		if hi < n {
			w += ansi.StringWidth(more(n-hi)) + 1
		}
		return w <= width
	}
	lo, hi := sel, sel+1
	for grown := true; grown; {
		grown = false
		if hi < n && fits(lo, hi+1) {
			hi++
			grown = true
		}
		if lo > 0 && fits(lo-1, hi) {
			lo--
			grown = true
		}
	}
	sep := m.st.Dim.Render("│")
	var parts []string
	col := 0
	if lo > 0 {
		parts = append(parts, m.st.Warn.Render(more(lo)))
		col += ansi.StringWidth(more(lo)) + 1
	}
	for i := lo; i < hi; i++ {
		if i == sel {
			parts = append(parts, m.st.ModalSelected.Render(texts[i]))
		} else {
			parts = append(parts, m.st.Dim.Render(texts[i]))
		}
		m.tabHits = append(m.tabHits, tabHit{col, col + widths[i], i})
		col += widths[i] + 1
	}
	if hi < n {
		parts = append(parts, m.st.Warn.Render(more(n-hi)))
	}
	return truncate(strings.Join(parts, sep), width)
}

// tabAt returns the pane whose tab covers column x of the tab bar (as last drawn), or -1.
func (m *Model) tabAt(x int) int {
	for _, h := range m.tabHits {
		if x >= h.x0 && x < h.x1 {
			return h.index
		}
	}
	return -1
}
