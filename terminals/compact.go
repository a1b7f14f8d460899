package terminals

import (
	"slices"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"
)

// frozen is what a compacted Screen keeps instead of its emulator: the
// cells it shows, nothing else. Lines hold no trailing blank cells (a cell
// past a line's end draws as a blank), so a finished one-line terminal keeps
// a few hundred bytes instead of two full cell grids and the parser.
type frozen struct {
	rows   []uv.Line   // visible rows, len == Size.Rows; nil = blank row
	sb     []uv.Line   // main-screen scroll-back, oldest first (nil when alt)
	cursor uv.Position // cells from the top-left
	hidden bool        // the program hid the cursor
	alt    bool        // the alternate screen was showing
}

// Compact replaces the emulator of a standalone screen (NewScreen) by what
// it shows — the visible rows, the scroll-back, the cursor, title and modes
// — keeping only the cells that are not trailing blanks. Call it when no
// more output is expected (for example when an agent-owned terminal
// exited): a finished 80x24 screen goes from about 4.5 MB of heap (x/vt's
// 4 MiB parser buffer and two full cell grids) to a size proportional to
// its text. Draw, Text, Cursor, ScrollbackLen, Modes, Title and Resize work
// as before (Resize as x/vt resizes: columns beyond the new width and rows
// below the new height are dropped; on the main screen, rows above the
// cursor go to the scroll-back when the height shrinks below it, and the
// newest scroll-back lines come back onto the top rows when it grows).
//
// A later Write rebuilds an emulator from the kept cells first, so output
// arriving late is still shown; what the cells do not hold is then at its
// default: the pen (colours for new text), the scroll region, the tab stops,
// the hidden alternate or main screen, and whether the cursor sat past the
// last column.
//
// A Terminal compacts its own screen once its output has ended; on a
// Terminal's screen Compact does nothing. Idempotent.
func (s *Screen) Compact() {
	if s.sink != nil {
		return
	}
	s.callMu.Lock() // no reply drainer is reading the emulator
	defer s.callMu.Unlock()
	s.mu.Lock()
	s.compactLocked()
	s.mu.Unlock()
}

// compact is Compact for a Terminal's screen, called once nothing feeds it
// any more; it ends reply handling first (Close).
func (s *Screen) compact() {
	_ = s.Close()
	s.mu.Lock()
	s.compactLocked()
	s.mu.Unlock()
}

// compactLocked drops the emulator for a frozen copy of its content; mu held.
func (s *Screen) compactLocked() {
	em := s.em
	if em == nil {
		return
	}
	w, h := em.Width(), em.Height()
	fz := &frozen{
		rows:   make([]uv.Line, h),
		cursor: em.CursorPosition(),
		hidden: em.CursorHidden(),
		alt:    em.IsAltScreen(),
	}
	for y := range h {
		last := -1
		for x := w - 1; x >= 0; x-- {
			if c := em.CellAt(x, y); c != nil && !isBlank(c) {
				last = x
				break
			}
		}
		if last >= 0 {
			row := make(uv.Line, last+1)
			for x := range row {
				if c := em.CellAt(x, y); c != nil {
					row[x] = *c
				}
			}
			fz.rows[y] = row
		}
	}
	if sb := em.Scrollback(); sb != nil && !fz.alt && sb.Len() > 0 {
		// The lines are x/vt's own trimmed clones, no longer shared once em is dropped.
		fz.sb = slices.Clone(sb.Lines())
	}
	s.fz, s.em = fz, nil
}

// isBlank reports whether c draws as nothing but an empty cell (what x/vt
// trims from the end of a scroll-back line).
func isBlank(c *uv.Cell) bool { return c.IsZero() || c.Equal(&uv.EmptyCell) }

// resizeFrozen is resize for a compacted screen, with the effects x/vt and
// Screen.resize have on the cells; mu held.
func (s *Screen) resizeFrozen(sz Size) {
	fz := s.fz
	if sz == s.size {
		return
	}
	if !fz.alt && sz.Rows < s.size.Rows && fz.cursor.Y >= sz.Rows {
		// As CSI n S (the top rows scroll into the scroll-back; blank rows
		// enter at the bottom) then CSI n A.
		n := fz.cursor.Y - sz.Rows + 1
		fz.sb = append(fz.sb, fz.rows[:n]...)
		if over := len(fz.sb) - ScrollbackLines; over > 0 {
			fz.sb = slices.Delete(fz.sb, 0, over)
		}
		fz.rows = append(fz.rows[n:], make([]uv.Line, n)...)
		fz.cursor.Y -= n
	}
	// As uv.Buffer.Resize: cells beyond the new width and rows below the new
	// height are dropped; new cells are blank.
	for y, row := range fz.rows {
		if len(row) > sz.Cols {
			fz.rows[y] = slices.Clone(row[:sz.Cols])
		}
	}
	if sz.Rows < len(fz.rows) {
		fz.rows = slices.Clone(fz.rows[:sz.Rows])
	} else {
		fz.rows = append(fz.rows, make([]uv.Line, sz.Rows-len(fz.rows))...)
	}
	// As vt.Emulator.Resize: the cursor stays inside the screen.
	fz.cursor.X = min(max(fz.cursor.X, 0), sz.Cols-1)
	fz.cursor.Y = min(max(fz.cursor.Y, 0), sz.Rows-1)
	if grow := sz.Rows - s.size.Rows; grow > 0 && !fz.alt && len(fz.sb) > 0 {
		// As pullHistoryLocked: the newest scroll-back lines come back onto the top.
		n := min(grow, len(fz.sb))
		pulled := fz.sb[len(fz.sb)-n:]
		rows := make([]uv.Line, 0, sz.Rows)
		for _, l := range pulled {
			if len(l) > sz.Cols {
				l = slices.Clone(l[:sz.Cols])
			}
			rows = append(rows, l)
		}
		fz.rows = append(rows, fz.rows[:sz.Rows-n]...)
		fz.sb = slices.Clone(fz.sb[:len(fz.sb)-n])
		fz.cursor.Y = min(fz.cursor.Y+n, sz.Rows-1)
	}
	s.size = sz
}

// thawLocked gives a compacted screen an emulator again, showing the kept
// cells (see Compact for what is lost); mu held. A no-op when the screen
// has its emulator.
func (s *Screen) thawLocked() {
	fz := s.fz
	if fz == nil {
		return
	}
	em := s.newEmulator(s.size)
	if s.closed || s.sink != nil {
		// Replies have no reader any more (a Terminal's screen is compacted
		// only after Close).
		closeReplies(em)
	}
	sb := em.Scrollback()
	for _, l := range fz.sb {
		sb.Push(l)
	}
	var seq []byte
	if fz.alt {
		seq = append(seq, "\x1b[?1049h"...)
	}
	seq = append(seq, replayModes(s.modeSets())...)
	_, _ = em.Write(seq)
	for y, row := range fz.rows {
		for x := range row {
			if c := row[x]; c.Width > 0 { // zero width: a wide cell's placeholder, set with it
				em.SetCell(x, y, &c)
			}
		}
	}
	seq = append(seq[:0], "\x1b["...)
	seq = strconv.AppendInt(seq, int64(fz.cursor.Y+1), 10)
	seq = append(seq, ';')
	seq = strconv.AppendInt(seq, int64(fz.cursor.X+1), 10)
	seq = append(seq, 'H')
	if fz.hidden {
		seq = append(seq, "\x1b[?25l"...)
	}
	_, _ = em.Write(seq)
	s.em, s.fz = em, nil
}

// modeSets returns the private modes the program set (s.modes), as
// replayModes takes them; mu held.
func (s *Screen) modeSets() []modeSet {
	var ms []modeSet
	add := func(on bool, mode int) {
		if on {
			ms = append(ms, modeSet{mode, true})
		}
	}
	add(s.modes.CursorKeys, 1)
	add(s.modes.BracketedPaste, 2004)
	add(s.modes.Focus, 1004)
	add(s.modes.MouseSGR, 1006)
	for i, mode := range []int{9, 1000, 1002, 1003} {
		add(s.mouse&(1<<i) != 0, mode)
	}
	return ms
}
