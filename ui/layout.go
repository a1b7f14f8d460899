package ui

import (
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/terminals"
)

// Layout thresholds, in cells.
const (
	wideMinWidth     = 120 // at or above: conversation left, panes right
	convMinWidth     = 50  // conversation column width when wide (at least)
	paneMinRows      = 6   // smallest pane (outer, with border) worth showing stacked
	paneMinCols      = 40  // smallest pane (outer) worth showing side by side when narrow
	editorMaxLines   = 6   // prompt editor grows up to this many text lines
	narrowPaneShare  = 2   // narrow: panes get 1/narrowPaneShare of the main area height
	minWindowWidth   = 20
	minWindowHeight  = 6
	tabBarRows       = 1
	paneBorderCells  = 2 // one cell of border on each side
	statusBarRows    = 1
	editorBorderRows = 1 // the separator line above the editor
)

// layoutInput is what the layout depends on.
type layoutInput struct {
	width, height int
	panes         int // number of panes shown
	editorLines   int // text lines in the editor (≥1)
	zoomed        bool
	selected      int // selected pane index (for zoom and tabbed mode); -1 none
}

// paneRect places one pane: its index in the pane list and its outer rectangle (with border).
type paneRect struct {
	index int
	outer uv.Rectangle
}

// layout is the result: every region of the window.
type layout struct {
	conv   uv.Rectangle // conversation (may be empty when zoomed)
	panes  []paneRect   // visible panes
	tabs   uv.Rectangle // tab bar (empty unless panes are tabbed)
	tabbed bool
	main   uv.Rectangle // everything above the editor: where modals are centred
	editor uv.Rectangle // editor text area (below its separator)
	sep    uv.Rectangle // the separator row above the editor
	status uv.Rectangle // status bar
}

// interior returns the drawable inside of a pane's outer rectangle (border removed), at least
// 1x1 cells when the outer rectangle is non-empty.
func interior(outer uv.Rectangle) uv.Rectangle {
	r := uv.Rect(outer.Min.X+1, outer.Min.Y+1, outer.Dx()-paneBorderCells, outer.Dy()-paneBorderCells)
	if r.Dx() < 1 {
		r.Max.X = r.Min.X + 1
	}
	if r.Dy() < 1 {
		r.Max.Y = r.Min.Y + 1
	}
	return r
}

// paneSize is the terminal size (PTY and emulator) for a pane's outer rectangle.
func paneSize(outer uv.Rectangle) terminals.Size {
	in := interior(outer)
	return terminals.Size{Cols: in.Dx(), Rows: in.Dy()}
}

// computeLayout splits the window. Wide windows put the conversation on the left and panes
// stacked on the right; narrow windows put panes below the conversation, side by side when each
// gets at least paneMinCols, else one at a time with a tab bar. Panes that cannot get
// paneMinRows rows stacked are tabbed too. A zoomed pane takes the whole main area.
func computeLayout(in layoutInput) layout {
	w, h := max(in.width, minWindowWidth), max(in.height, minWindowHeight)
	var l layout
	l.status = uv.Rect(0, h-statusBarRows, w, statusBarRows)
	edLines := min(max(in.editorLines, 1), editorMaxLines)
	edTop := h - statusBarRows - edLines
	l.editor = uv.Rect(0, edTop, w, edLines)
	l.sep = uv.Rect(0, edTop-editorBorderRows, w, editorBorderRows)
	mainH := max(edTop-editorBorderRows, 1)
	l.main = uv.Rect(0, 0, w, mainH)
	if in.panes == 0 {
		l.conv = l.main
		return l
	}
	sel := in.selected
	if sel < 0 || sel >= in.panes {
		sel = in.panes - 1
	}
	if in.zoomed {
		l.panes = []paneRect{{sel, l.main}}
		return l
	}
	if w >= wideMinWidth {
		convW := max(convMinWidth, w*2/5)
		l.conv = uv.Rect(0, 0, convW, mainH)
		area := uv.Rect(convW, 0, w-convW, mainH)
		l.placeStacked(area, in.panes, sel)
		return l
	}
	paneH := mainH / narrowPaneShare
	if paneH < paneMinRows {
		paneH = min(paneMinRows, mainH)
	}
	l.conv = uv.Rect(0, 0, w, mainH-paneH)
	area := uv.Rect(0, mainH-paneH, w, paneH)
	if w/in.panes >= paneMinCols {
		x := area.Min.X
		for i := 0; i < in.panes; i++ {
			pw := area.Dx() / in.panes
			if i == in.panes-1 {
				pw = area.Max.X - x
			}
			l.panes = append(l.panes, paneRect{i, uv.Rect(x, area.Min.Y, pw, area.Dy())})
			x += pw
		}
		return l
	}
	l.placeTabbed(area, sel)
	return l
}

// placeStacked stacks n panes vertically in area, or tabs them when each would get fewer than
// paneMinRows rows.
func (l *layout) placeStacked(area uv.Rectangle, n, sel int) {
	if area.Dy()/n < paneMinRows {
		l.placeTabbed(area, sel)
		return
	}
	y := area.Min.Y
	for i := 0; i < n; i++ {
		ph := area.Dy() / n
		if i == n-1 {
			ph = area.Max.Y - y
		}
		l.panes = append(l.panes, paneRect{i, uv.Rect(area.Min.X, y, area.Dx(), ph)})
		y += ph
	}
}

// placeTabbed shows only the selected pane below a one-row tab bar.
func (l *layout) placeTabbed(area uv.Rectangle, sel int) {
	l.tabbed = true
	l.tabs = uv.Rect(area.Min.X, area.Min.Y, area.Dx(), tabBarRows)
	l.panes = []paneRect{{sel, uv.Rect(area.Min.X, area.Min.Y+tabBarRows, area.Dx(), max(area.Dy()-tabBarRows, 1))}}
}
