package ui

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// copyMode is a pane's copy mode, as in tmux: a still view of everything the pane holds (its
// scroll-back and screen, taken when copy mode starts; the program keeps running meanwhile)
// with a cursor that moves by keyboard, a search that highlights its matches, and a selection
// that is copied to the outer terminal's clipboard (OSC 52, through Bubble Tea's
// tea.SetClipboard). It is an overlay: while it is open it gets every key, and it draws the
// pane itself (drawPane in render.go is replaced for that pane).
type copyMode struct {
	p     *pane
	lines []uv.Line // the pane's history then its screen rows, oldest first (a snapshot)
	text  []string  // lines as plain text ("" cells as spaces)
	cols  [][]int   // cols[y][b]: the column of the cell that byte b of text[y] belongs to

	cur     uv.Position // cursor: X the column, Y the line index into lines
	top     int         // first line shown
	rows    int         // pane interior height at the last draw (the page)
	width   int         // pane interior width at the last draw
	refocus bool        // copy mode began while typing into the pane: typing resumes after it

	sel      bool        // a selection is being made, from anchor to cur
	lineSel  bool        // the selection takes whole lines (V)
	anchor   uv.Position // where the selection began
	typing   bool        // the search query is being typed
	back     bool        // the search (being typed, or the last one) goes up, towards older lines
	input    string      // the query being typed
	query    string      // the last search run
	matches  []copyMatch // every match of query, in line then column order
	matchIdx int         // the match the cursor is on, -1 none
	note     string      // a one-off message for the separator line ("no match", …)
}

// copyMatch is one search match: line y, columns [x0, x1).
type copyMatch struct{ y, x0, x1 int }

func (c *copyMode) overlayID() string { return "copy" }

// draw draws no box: the pane itself shows copy mode (render.go calls drawCopyPane).
func (c *copyMode) draw(m *Model, area uv.Rectangle) string { return "" }

// startCopyMode opens copy mode on the selected pane, its view where the pane's view is (the
// live screen, or as far back as it was scrolled) and its cursor on the program's cursor.
func (m *Model) startCopyMode() {
	p := m.selectedPane()
	if p == nil || p.screen == nil {
		m.addBanner("info", "no pane output to copy from")
		m.markDirty()
		return
	}
	c := &copyMode{p: p, refocus: m.focused, matchIdx: -1}
	m.setFocus(false)
	c.lines = p.screen.History()
	c.text = make([]string, len(c.lines))
	c.cols = make([][]int, len(c.lines))
	for y, l := range c.lines {
		c.text[y], c.cols[y] = lineText(l)
	}
	rows := max(p.size.Rows, 1)
	screenTop := max(len(c.lines)-rows, 0)
	c.rows, c.width = rows, max(p.size.Cols, 1)
	c.top = max(screenTop-p.scroll, 0)
	pos, _ := p.screen.Cursor()
	c.cur = uv.Pos(pos.X, min(screenTop+pos.Y, len(c.lines)-1))
	if p.scroll > 0 || c.cur.Y < c.top || c.cur.Y >= c.top+rows {
		c.cur = uv.Pos(0, min(c.top+rows-1, len(c.lines)-1))
	}
	m.nav.copy = c
	m.pushOverlay(c)
}

// lineText is a line's plain text and, for each byte of it, the column of its cell.
func lineText(l uv.Line) (string, []int) {
	var b strings.Builder
	var cols []int
	for x := 0; x < len(l); x++ {
		c := l[x]
		if c.Width == 0 && c.Content == "" && x > 0 && l[x-1].Width > 1 {
			continue // a wide cell's placeholder
		}
		s := c.Content
		if s == "" {
			s = " "
		}
		b.WriteString(s)
		for range len(s) {
			cols = append(cols, x)
		}
	}
	return b.String(), cols
}

// endCopyMode closes copy mode; typing into the pane resumes when copy mode began there.
func (m *Model) endCopyMode() {
	c := m.nav.copy
	if c == nil {
		return
	}
	m.nav.copy = nil
	m.removeOverlay("copy")
	if c.refocus && c.p == m.selectedPane() && typeable(c.p) {
		m.setFocus(true)
	}
	m.markDirty()
}

// lineLen is the number of columns line y holds (its last cell's end).
func (c *copyMode) lineLen(y int) int {
	if y < 0 || y >= len(c.lines) {
		return 0
	}
	l := c.lines[y]
	if len(l) == 0 {
		return 0
	}
	return len(l)
}

// move puts the cursor on line y, column x (clamped), scrolling the view to show it.
func (c *copyMode) move(x, y int) {
	y = min(max(y, 0), max(len(c.lines)-1, 0))
	x = min(max(x, 0), max(c.width-1, 0))
	c.cur = uv.Pos(x, y)
	if y < c.top {
		c.top = y
	}
	if y >= c.top+c.rows {
		c.top = y - c.rows + 1
	}
	c.top = min(max(c.top, 0), max(len(c.lines)-c.rows, 0))
}

func (c *copyMode) handleKey(m *Model, k tea.KeyPressMsg) action {
	c.note = ""
	if c.typing {
		return c.searchKey(k)
	}
	if keyMatches(k, m.keys.Answer.Keys()) && m.dialogWaiting() {
		// A request that arrived during copy mode waits for the answer key ("tab answers"):
		// leave copy mode and let the request have the key.
		return doAction(false, func(m *Model) tea.Cmd { m.endCopyMode(); return m.handleKey(k) })
	}
	half := max(c.rows/2, 1)
	switch k.String() {
	case "q", "ctrl+c":
		return doAction(false, func(m *Model) tea.Cmd { m.endCopyMode(); return nil })
	case "esc":
		if c.sel {
			c.sel = false
			return keptAction
		}
		return doAction(false, func(m *Model) tea.Cmd { m.endCopyMode(); return nil })
	case "up", "k":
		c.move(c.cur.X, c.cur.Y-1)
	case "down", "j":
		c.move(c.cur.X, c.cur.Y+1)
	case "left", "h":
		c.move(c.cur.X-1, c.cur.Y)
	case "right", "l":
		c.move(c.cur.X+1, c.cur.Y)
	case "pgup", "ctrl+b":
		c.top = max(c.top-c.rows, 0)
		c.move(c.cur.X, c.cur.Y-c.rows)
	case "pgdown", "ctrl+f":
		c.top += c.rows
		c.move(c.cur.X, c.cur.Y+c.rows)
	case "ctrl+u":
		c.top = max(c.top-half, 0)
		c.move(c.cur.X, c.cur.Y-half)
	case "ctrl+d":
		c.top += half
		c.move(c.cur.X, c.cur.Y+half)
	case "g", "home":
		c.move(0, 0)
	case "G", "end":
		c.move(0, len(c.lines)-1)
	case "0":
		c.move(0, c.cur.Y)
	case "$":
		c.move(max(c.lineLen(c.cur.Y)-1, 0), c.cur.Y)
	case "w":
		c.wordForward()
	case "b":
		c.wordBack()
	case "/", "?":
		c.typing, c.back, c.input = true, k.String() == "/", ""
	case "n":
		c.next(c.back)
	case "N":
		c.next(!c.back)
	case "v", "space":
		if c.sel && !c.lineSel {
			c.sel = false
		} else {
			c.sel, c.lineSel, c.anchor = true, false, c.cur
		}
	case "V":
		if c.sel && c.lineSel {
			c.sel = false
		} else {
			c.sel, c.lineSel, c.anchor = true, true, c.cur
		}
	case "enter", "y":
		if !c.sel {
			c.note = "nothing selected: v or space starts a selection"
			return keptAction
		}
		text := c.selectedText()
		n := strings.Count(text, "\n") + 1
		return doAction(false, func(m *Model) tea.Cmd {
			m.endCopyMode()
			m.addBanner("info", fmt.Sprintf("copied %d line%s (%d bytes) to the clipboard (OSC 52: the terminal must allow it)", n, plural(n), len(text)))
			return tea.SetClipboard(text)
		})
	default:
		c.note = "copy mode: " + k.String() + " does nothing here (" + copyHelp + ")"
	}
	return keptAction
}

// keyMatches reports whether k is one of keys (Bubble Tea key strings).
func keyMatches(k tea.KeyPressMsg, keys []string) bool {
	s := k.String()
	for _, x := range keys {
		if x == s {
			return true
		}
	}
	return false
}

// copyHelp lists copy mode's keys for its separator line.
const copyHelp = "↑↓←→ pgup/pgdn g/G move · / ? search · n/N next · v/space select · y/enter copy · q quits"

// searchKey edits the query being typed: enter runs it, esc drops it.
func (c *copyMode) searchKey(k tea.KeyPressMsg) action {
	switch k.String() {
	case "enter":
		c.typing = false
		if c.input == "" {
			c.input = c.query // enter on an empty query repeats the last one
		}
		c.search(c.input)
		c.next(c.back)
	case "esc":
		c.typing = false
	case "backspace":
		if r := []rune(c.input); len(r) > 0 {
			c.input = string(r[:len(r)-1])
		}
	default:
		if k.Text != "" && k.Mod&^tea.ModShift == 0 {
			c.input += k.Text
		}
	}
	return keptAction
}

// search finds every match of q (ignoring case unless q has an upper-case letter, as vim's
// smartcase does).
func (c *copyMode) search(q string) {
	c.query, c.matches, c.matchIdx = q, nil, -1
	if q == "" {
		return
	}
	fold := !strings.ContainsFunc(q, unicode.IsUpper)
	if fold {
		q = strings.ToLower(q)
	}
	for y, t := range c.text {
		if fold {
			t = strings.ToLower(t)
			if len(t) != len(c.text[y]) {
				t = c.text[y] // a case change altered the byte length: match as is
			}
		}
		for off := 0; ; {
			i := strings.Index(t[off:], q)
			if i < 0 {
				break
			}
			a, b := off+i, off+i+len(q)
			x0 := c.cols[y][a]
			last := c.cols[y][b-1]
			x1 := last + max(c.lines[y][last].Width, 1)
			c.matches = append(c.matches, copyMatch{y, x0, x1})
			off = b
		}
	}
}

// next moves the cursor to the next match up (back) or down from it, wrapping around.
func (c *copyMode) next(back bool) {
	if c.query == "" {
		c.note = "no search yet: / searches up, ? down"
		return
	}
	if len(c.matches) == 0 {
		c.note = fmt.Sprintf("no match for %q", c.query)
		return
	}
	before := func(m copyMatch) bool { return m.y < c.cur.Y || m.y == c.cur.Y && m.x0 < c.cur.X }
	after := func(m copyMatch) bool { return m.y > c.cur.Y || m.y == c.cur.Y && m.x0 > c.cur.X }
	idx := -1
	if back {
		for i := len(c.matches) - 1; i >= 0; i-- {
			if before(c.matches[i]) {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = len(c.matches) - 1
			c.note = "search wrapped to the bottom"
		}
	} else {
		for i, mt := range c.matches {
			if after(mt) {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = 0
			c.note = "search wrapped to the top"
		}
	}
	c.matchIdx = idx
	mt := c.matches[idx]
	c.move(mt.x0, mt.y)
}

// wordForward moves to the start of the next word (a run of non-blanks) or the next line's.
func (c *copyMode) wordForward() {
	y, x := c.cur.Y, c.cur.X
	for y < len(c.lines) {
		l := c.lines[y]
		inWord := x < len(l) && !blankCell(l[x])
		for x++; x < len(l); x++ {
			b := blankCell(l[x])
			if !b && !inWord {
				c.move(x, y)
				return
			}
			inWord = !b
		}
		y, x = y+1, -1
		if y < len(c.lines) && len(c.lines[y]) > 0 && !blankCell(c.lines[y][0]) {
			c.move(0, y)
			return
		}
	}
}

// wordBack moves to the start of the word before the cursor.
func (c *copyMode) wordBack() {
	y, x := c.cur.Y, c.cur.X-1
	for y >= 0 {
		l := c.lines[y]
		x = min(x, len(l)-1)
		for x >= 0 && blankCell(l[x]) {
			x--
		}
		if x >= 0 {
			for x > 0 && !blankCell(l[x-1]) {
				x--
			}
			c.move(x, y)
			return
		}
		y--
		if y >= 0 {
			x = len(c.lines[y]) - 1
		}
	}
	c.move(0, 0)
}

func blankCell(c uv.Cell) bool { return c.Content == "" || c.Content == " " }

// selRange is the selection as start and end positions in reading order (end inclusive).
func (c *copyMode) selRange() (from, to uv.Position) {
	from, to = c.anchor, c.cur
	if to.Y < from.Y || to.Y == from.Y && to.X < from.X {
		from, to = to, from
	}
	if c.lineSel {
		from.X, to.X = 0, max(c.width, c.lineLen(to.Y))
	}
	return from, to
}

// selected reports whether the cell at column x of line y is in the selection.
func (c *copyMode) selected(x, y int) bool {
	if !c.sel {
		return false
	}
	from, to := c.selRange()
	switch {
	case y < from.Y || y > to.Y:
		return false
	case y == from.Y && x < from.X:
		return false
	case y == to.Y && x > to.X:
		return false
	}
	return true
}

// selectedText is the selection as text: the cells from the start to the end position
// (inclusive), lines joined by "\n"; the blank cells past the end of a line (which the
// program never wrote) are not part of it.
func (c *copyMode) selectedText() string {
	from, to := c.selRange()
	var out []string
	for y := from.Y; y <= to.Y && y < len(c.lines); y++ {
		l := c.lines[y]
		x0, x1 := 0, len(l)
		if y == from.Y {
			x0 = from.X
		}
		if y == to.Y {
			x1 = min(to.X+1, len(l))
		}
		var b strings.Builder
		for x := x0; x < x1; x++ {
			cell := l[x]
			if cell.Width == 0 && cell.Content == "" && x > 0 && l[x-1].Width > 1 {
				continue
			}
			if cell.Content == "" {
				b.WriteByte(' ')
			} else {
				b.WriteString(cell.Content)
			}
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "\n")
}

// drawCopyPane draws p in copy mode into outer: its border and a title saying where the cursor
// is, then the lines from c.top with the matches and the selection highlighted. It returns the
// screen position of the copy cursor.
func (c *copyMode) drawCopyPane(scr uv.Screen, m *Model, outer uv.Rectangle, number int) (uv.Position, bool) {
	if outer.Dx() < 3 || outer.Dy() < 3 {
		fillRect(scr, outer)
		return uv.Position{}, false
	}
	st := m.st
	drawBox(scr, outer, st.BorderFocusColor, true)
	in := interior(outer)
	c.rows, c.width = in.Dy(), in.Dx()
	c.move(c.cur.X, c.cur.Y) // the pane may have changed size
	head := ""
	if number > 0 {
		head = fmt.Sprintf("%d ", number)
	}
	info := fmt.Sprintf("copy mode · line %d/%d", c.cur.Y+1, len(c.lines))
	if c.query != "" {
		if c.matchIdx >= 0 {
			info += fmt.Sprintf(" · match %d/%d", c.matchIdx+1, len(c.matches))
		} else {
			info += fmt.Sprintf(" · %d matches", len(c.matches))
		}
	}
	if c.sel {
		info += " · selecting"
	}
	rest := " · " + info + " · q quits"
	room := outer.Dx() - 6
	title := head + "$ " + c.p.label
	if w := room - ansi.StringWidth(rest); w >= 6 {
		title = truncate(title, w) + rest
	} else {
		title = truncate(title+rest, room)
	}
	drawLabel(scr, outer.Min.X+2, outer.Min.Y, outer.Dx()-4, st.PaneTitleFocus.Render(" "+title+" "))
	// The matches on the rows shown, per row (matches are in line order).
	spans := make([][]copyMatch, in.Dy())
	first := sort.Search(len(c.matches), func(i int) bool { return c.matches[i].y >= c.top })
	for _, mt := range c.matches[first:] {
		if mt.y >= c.top+in.Dy() {
			break
		}
		spans[mt.y-c.top] = append(spans[mt.y-c.top], mt)
	}
	var curMatch copyMatch
	if c.matchIdx >= 0 {
		curMatch = c.matches[c.matchIdx]
	} else {
		curMatch.y = -1
	}
	in1 := func(x int, ms []copyMatch) bool {
		for _, mt := range ms {
			if x >= mt.x0 && x < mt.x1 {
				return true
			}
		}
		return false
	}
	blank := uv.EmptyCell
	for row := 0; row < in.Dy(); row++ {
		y := c.top + row
		var l uv.Line
		if y < len(c.lines) {
			l = c.lines[y]
		}
		for x := 0; x < in.Dx(); {
			cell := blank
			w := 1
			if x < len(l) && l[x].Width > 0 && x+l[x].Width <= in.Dx() {
				cell = l[x]
				w = cell.Width
			}
			switch {
			case c.selected(x, y):
				cell.Style.Attrs |= uv.AttrReverse
			case curMatch.y == y && x >= curMatch.x0 && x < curMatch.x1:
				cell.Style.Attrs |= uv.AttrReverse | uv.AttrBold
			case in1(x, spans[row]):
				cell.Style.Attrs |= uv.AttrBold
				cell.Style.Underline = uv.UnderlineSingle
			}
			scr.SetCell(in.Min.X+x, in.Min.Y+row, &cell)
			x += w
		}
	}
	pos := uv.Pos(in.Min.X+min(c.cur.X, in.Dx()-1), in.Min.Y+c.cur.Y-c.top)
	return pos, c.cur.Y >= c.top && c.cur.Y < c.top+in.Dy()
}

// copyInfo is the separator line's text in copy mode: the query being typed, a message, or the
// keys.
func (m *Model) copyInfo(c *copyMode) string {
	switch {
	case c.typing:
		dir := "search down: "
		if c.back {
			dir = "search up: "
		}
		return m.st.Accent.Render(dir) + sanitizeLine(c.input) + "█" + m.st.Dim.Render(" · enter finds · esc drops")
	case c.note != "":
		return m.st.Warn.Render(c.note)
	}
	return m.st.Accent.Render("copy mode") + m.st.Dim.Render(" · "+copyHelp)
}

// copyMouse handles a mouse event while copy mode is open: over the pane in copy mode the wheel
// scrolls its view, a left click puts the cursor on the cell clicked, and dragging selects from
// there; a click anywhere else ends copy mode and is then handled as usual (handled false).
func (m *Model) copyMouse(msg tea.MouseMsg) (handled bool) {
	c := m.nav.copy
	var in uv.Rectangle
	found := false
	for _, pr := range m.lay.panes {
		if m.panes[pr.index] == c.p {
			in, found = interior(pr.outer), true
		}
	}
	mo := msg.Mouse()
	pt := uv.Pos(mo.X, mo.Y)
	if !found || !pt.In(in) {
		if _, click := msg.(tea.MouseClickMsg); click {
			m.endCopyMode()
			return false
		}
		return true
	}
	at := func() { c.move(mo.X-in.Min.X, c.top+mo.Y-in.Min.Y) }
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		step := 3
		if msg.Button == tea.MouseWheelUp {
			step = -3
		} else if msg.Button != tea.MouseWheelDown {
			return true
		}
		c.top = min(max(c.top+step, 0), max(len(c.lines)-c.rows, 0))
		c.move(c.cur.X, min(max(c.cur.Y, c.top), c.top+c.rows-1))
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft {
			c.sel = false
			at()
		}
	case tea.MouseMotionMsg:
		if msg.Button == tea.MouseLeft {
			if !c.sel {
				c.sel, c.lineSel, c.anchor = true, false, c.cur
			}
			at()
		}
	}
	m.markDirty()
	return true
}

// dialogWaiting reports whether an overlay under copy mode (an approval request, a question)
// waits for the answer key.
func (m *Model) dialogWaiting() bool {
	for _, o := range m.overlays {
		if w, ok := o.(keyWaiter); ok && o != overlay(m.nav.copy) && !w.hasKeys() {
			return true
		}
	}
	return false
}
