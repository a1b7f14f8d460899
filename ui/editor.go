package ui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// editor is the multi-line prompt editor: a rune buffer per logical line, a cursor, and the
// prompt history. Rendering soft-wraps lines to the width. It has no Update; the Model calls
// handleKey for editing keys after its own bindings.
type editor struct {
	lines    [][]rune
	row, col int // cursor: logical line and rune index

	history []string // sent prompts, oldest first
	histPos int      // index into history while browsing; len(history) = the draft
	draft   string   // what was typed before browsing history

	top int // first visual row shown (scrolls to keep the cursor visible)
}

func newEditor() *editor { return &editor{lines: [][]rune{nil}} }

// value returns the text.
func (e *editor) value() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// setValue replaces the text and puts the cursor at its end.
func (e *editor) setValue(s string) {
	e.lines = nil
	for _, l := range strings.Split(s, "\n") {
		e.lines = append(e.lines, []rune(l))
	}
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
}

func (e *editor) empty() bool { return len(e.lines) == 1 && len(e.lines[0]) == 0 }

// reset clears the text and leaves history browsing.
func (e *editor) reset() {
	e.setValue("")
	e.histPos = len(e.history)
	e.top = 0
}

// push records a sent prompt in the history (consecutive duplicates once).
func (e *editor) push(s string) {
	if s != "" && (len(e.history) == 0 || e.history[len(e.history)-1] != s) {
		e.history = append(e.history, s)
	}
	e.histPos = len(e.history)
}

// insert types text at the cursor (newlines split lines; other control characters are dropped).
func (e *editor) insert(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	for _, r := range s {
		switch {
		case r == '\n':
			e.newline()
		case r == '\t':
			e.insertRune('\t') // kept: pasted code and Makefiles need it; shown to the next tab stop
		case unicode.IsControl(r):
		default:
			e.insertRune(r)
		}
	}
}

func (e *editor) insertRune(r rune) {
	l := e.lines[e.row]
	l = append(l[:e.col], append([]rune{r}, l[e.col:]...)...)
	e.lines[e.row] = l
	e.col++
}

func (e *editor) newline() {
	l := e.lines[e.row]
	rest := append([]rune(nil), l[e.col:]...)
	e.lines[e.row] = l[:e.col]
	e.lines = append(e.lines[:e.row+1], append([][]rune{rest}, e.lines[e.row+1:]...)...)
	e.row++
	e.col = 0
}

func (e *editor) backspace() {
	if e.col > 0 {
		l := e.lines[e.row]
		e.lines[e.row] = append(l[:e.col-1], l[e.col:]...)
		e.col--
		return
	}
	if e.row > 0 {
		prev := e.lines[e.row-1]
		e.col = len(prev)
		e.lines[e.row-1] = append(prev, e.lines[e.row]...)
		e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
		e.row--
	}
}

func (e *editor) deleteForward() {
	l := e.lines[e.row]
	if e.col < len(l) {
		e.lines[e.row] = append(l[:e.col], l[e.col+1:]...)
		return
	}
	if e.row < len(e.lines)-1 {
		e.lines[e.row] = append(l, e.lines[e.row+1]...)
		e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
	}
}

func (e *editor) deleteWordBackward() {
	l := e.lines[e.row]
	i := e.col
	for i > 0 && unicode.IsSpace(l[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	e.lines[e.row] = append(l[:i], l[e.col:]...)
	e.col = i
}

// onFirstLine / onLastLine report whether up/down would leave the text (history navigation).
func (e *editor) onFirstLine() bool { return e.row == 0 }
func (e *editor) onLastLine() bool  { return e.row == len(e.lines)-1 }

// historyPrev/historyNext browse sent prompts; the text typed before browsing is kept as draft.
func (e *editor) historyPrev() {
	if e.histPos == 0 || len(e.history) == 0 {
		return
	}
	if e.histPos == len(e.history) {
		e.draft = e.value()
	}
	e.histPos--
	e.setValue(e.history[e.histPos])
}

func (e *editor) historyNext() {
	if e.histPos >= len(e.history) {
		return
	}
	e.histPos++
	if e.histPos == len(e.history) {
		e.setValue(e.draft)
		return
	}
	e.setValue(e.history[e.histPos])
}

// handleKey applies an editing key; it reports whether the key was used.
func (e *editor) handleKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "left", "ctrl+b":
		if e.col > 0 {
			e.col--
		} else if e.row > 0 {
			e.row--
			e.col = len(e.lines[e.row])
		}
	case "right", "ctrl+f":
		if e.col < len(e.lines[e.row]) {
			e.col++
		} else if e.row < len(e.lines)-1 {
			e.row++
			e.col = 0
		}
	case "up":
		if e.row > 0 {
			e.row--
			e.col = min(e.col, len(e.lines[e.row]))
		}
	case "down":
		if e.row < len(e.lines)-1 {
			e.row++
			e.col = min(e.col, len(e.lines[e.row]))
		}
	case "alt+b", "ctrl+left", "alt+left":
		e.wordLeft()
	case "alt+f", "ctrl+right", "alt+right":
		e.wordRight()
	case "home", "ctrl+a":
		e.col = 0
	case "end", "ctrl+e":
		e.col = len(e.lines[e.row])
	case "backspace", "ctrl+h":
		e.backspace()
	case "delete", "ctrl+d":
		e.deleteForward()
	case "ctrl+w", "alt+backspace":
		e.deleteWordBackward()
	case "ctrl+u":
		e.lines[e.row] = e.lines[e.row][e.col:]
		e.col = 0
	case "ctrl+k":
		e.lines[e.row] = e.lines[e.row][:e.col]
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		e.insert(k.Text)
	}
	return true
}

// wordLeft moves the cursor to the start of the word before it (across lines), as readline's
// backward-word does.
func (e *editor) wordLeft() {
	if e.col == 0 {
		if e.row > 0 {
			e.row--
			e.col = len(e.lines[e.row])
		}
		return
	}
	l := e.lines[e.row]
	for e.col > 0 && unicode.IsSpace(l[e.col-1]) {
		e.col--
	}
	for e.col > 0 && !unicode.IsSpace(l[e.col-1]) {
		e.col--
	}
}

// wordRight moves the cursor to the end of the word after it (across lines), as readline's
// forward-word does.
func (e *editor) wordRight() {
	l := e.lines[e.row]
	if e.col == len(l) {
		if e.row < len(e.lines)-1 {
			e.row++
			e.col = 0
		}
		return
	}
	for e.col < len(l) && unicode.IsSpace(l[e.col]) {
		e.col++
	}
	for e.col < len(l) && !unicode.IsSpace(l[e.col]) {
		e.col++
	}
}

// wordBeforeCursor returns the whitespace-delimited word ending at the cursor and its start
// column (runes). A backslash-escaped space belongs to the word (an "@dir\ with\ spaces/"
// mention, as completion writes it).
func (e *editor) wordBeforeCursor() (string, int) {
	l := e.lines[e.row]
	i := e.col
	for i > 0 && (!unicode.IsSpace(l[i-1]) || i >= 2 && l[i-2] == '\\') {
		i--
	}
	return string(l[i:e.col]), i
}

// replaceWord replaces runes [start, cursor) of the current line with s.
func (e *editor) replaceWord(start int, s string) {
	l := e.lines[e.row]
	rest := append([]rune(nil), l[e.col:]...)
	nl := append(append(append([]rune(nil), l[:start]...), []rune(s)...), rest...)
	e.lines[e.row] = nl
	e.col = start + len([]rune(s))
}

// tabWidth is the editor's tab stop interval (cells): a tab is shown as spaces up to the next stop
// and sent as a tab.
const tabWidth = 4

// visual lays the text out soft-wrapped at width cells: it returns the visual rows and the
// cursor's visual row and column.
func (e *editor) visual(width int) (rows []string, curRow, curCol int) {
	width = max(width, 1)
	for li, l := range e.lines {
		start := len(rows)
		var b strings.Builder
		w := 0
		for ci, r := range l {
			rw := max(ansi.StringWidth(string(r)), 1)
			if r == '\t' {
				rw = tabWidth - w%tabWidth
			}
			if w+rw > width {
				rows = append(rows, b.String())
				b.Reset()
				w = 0
				if r == '\t' {
					rw = min(tabWidth, width)
				}
			}
			if li == e.row && ci == e.col {
				curRow, curCol = len(rows), w
			}
			if r == '\t' {
				b.WriteString(strings.Repeat(" ", rw))
			} else {
				b.WriteRune(r)
			}
			w += rw
		}
		if li == e.row && e.col >= len(l) {
			if w >= width {
				rows = append(rows, b.String())
				b.Reset()
				w = 0
			}
			curRow, curCol = len(rows), w
		}
		rows = append(rows, b.String())
		_ = start
	}
	return rows, curRow, curCol
}

// view returns the rows to show in height rows (scrolling to keep the cursor visible) and the
// cursor position within them.
func (e *editor) view(width, height int) (rows []string, curRow, curCol int) {
	all, cr, cc := e.visual(width)
	height = max(height, 1)
	if cr < e.top {
		e.top = cr
	}
	if cr >= e.top+height {
		e.top = cr - height + 1
	}
	e.top = min(e.top, max(len(all)-height, 0))
	end := min(e.top+height, len(all))
	return all[e.top:end], cr - e.top, cc
}

// visualLines is how many rows the text needs at width.
func (e *editor) visualLines(width int) int {
	rows, _, _ := e.visual(width)
	return len(rows)
}
