package terminals

import (
	"encoding/binary"
	"hash/maphash"
	"image/color"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// MouseTracking is which mouse events a program asked for (the highest of the DEC private
// modes ?9, ?1000, ?1002 and ?1003 that is set, as xterm picks it).
type MouseTracking uint8

// Mouse tracking modes (xterm).
const (
	MouseTrackingNone   MouseTracking = iota // no mouse reporting
	MouseTrackingX10                         // ?9: button presses only, no modifiers
	MouseTrackingNormal                      // ?1000: presses, releases and wheel ("vt200")
	MouseTrackingButton                      // ?1002: as normal plus motion while a button is down ("drag")
	MouseTrackingAny                         // ?1003: as normal plus all motion
)

// String names the mode as terminal_snapshot reports it: "none", "x10", "vt200", "drag", "any".
func (m MouseTracking) String() string {
	switch m {
	case MouseTrackingX10:
		return "x10"
	case MouseTrackingNormal:
		return "vt200"
	case MouseTrackingButton:
		return "drag"
	case MouseTrackingAny:
		return "any"
	}
	return "none"
}

// trackingOf picks the mouse tracking mode from the bit set of enabled modes (bits 0..3:
// ?9, ?1000, ?1002, ?1003).
func trackingOf(bits uint8) MouseTracking {
	switch {
	case bits&(1<<3) != 0:
		return MouseTrackingAny
	case bits&(1<<2) != 0:
		return MouseTrackingButton
	case bits&(1<<1) != 0:
		return MouseTrackingNormal
	case bits&(1<<0) != 0:
		return MouseTrackingX10
	}
	return MouseTrackingNone
}

// MouseEncoding names how mouse reports are encoded: "sgr-pixels" (?1016), "sgr" (?1006), or
// "legacy" (X10-style bytes, coordinates up to 223). Pixel encoding wins over SGR cells, as in
// xterm.
func (m Modes) MouseEncoding() string {
	switch {
	case m.MouseSGRPixels:
		return "sgr-pixels"
	case m.MouseSGR:
		return "sgr"
	}
	return "legacy"
}

// Span is a run of cells on one row that share a non-default style. Columns are 0-based cell
// indexes; End is inclusive.
type Span struct {
	Row, Start, End int
	Style           uv.Style
}

// Snapshot is everything a screen shows at one instant, read under one lock hold.
type Snapshot struct {
	Size Size
	// Lines are the visible rows (exactly Size.Rows) as text: one string per row, wide
	// characters once, concealed characters as spaces, trailing unstyled blanks trimmed
	// (leading blanks and styled blank cells are kept).
	Lines []string
	// Spans are the runs of non-default style over the visible cells, row by row, left to right.
	Spans []Span
	// Cursor is the cursor position in cells from the top-left (0-based); CursorVisible is
	// whether the program shows it.
	Cursor        uv.Position
	CursorVisible bool
	// Alt is whether the alternate screen is active.
	Alt bool
	// Modes are the modes the program has set.
	Modes Modes
	// History holds the last requested lines of the main screen's scroll-back, oldest first,
	// as text (trailing blanks trimmed); HistoryAvail is how many lines the scroll-back holds.
	// Both refer to the main screen even while the alternate screen is active.
	History      []string
	HistoryAvail int
	// Version is the screen's change counter when the snapshot was taken (see Screen.Version).
	Version uint64
}

// Snapshot returns the visible rows with their styles, the cursor, the active buffer, the modes
// and the last history lines of the main screen's scroll-back (history <= 0: none; at most
// ScrollbackLines). It allocates only the result.
func (s *Screen) Snapshot(history int) Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, h := s.size.Cols, s.size.Rows
	snap := Snapshot{Size: s.size, Modes: s.modes, Version: s.version.Load(), Lines: make([]string, h)}
	if s.fz != nil {
		snap.Cursor, snap.CursorVisible, snap.Alt = s.fz.cursor, !s.fz.hidden, s.fz.alt
	} else {
		snap.Cursor, snap.CursorVisible, snap.Alt = s.em.CursorPosition(), !s.em.CursorHidden(), s.em.IsAltScreen()
	}
	var b strings.Builder
	for y := range h {
		at := func(x int) *uv.Cell { return s.cellLocked(x, y) }
		snap.Lines[y] = rowText(&b, w, at, func(sp Span) {
			sp.Row = y
			snap.Spans = append(snap.Spans, sp)
		})
	}
	sb := s.mainScrollbackLocked()
	snap.HistoryAvail = len(sb)
	if history > 0 {
		n := min(history, len(sb))
		snap.History = make([]string, 0, n)
		for _, line := range sb[len(sb)-n:] {
			snap.History = append(snap.History, rowText(&b, len(line), line.At, nil))
		}
	}
	return snap
}

// mainScrollbackLocked returns the main screen's scroll-back lines, oldest first, also while the
// alternate screen shows; mu held. The slice is the emulator's own: read it under mu only.
func (s *Screen) mainScrollbackLocked() []uv.Line {
	if s.fz != nil {
		return s.fz.sb
	}
	if sb := s.em.Scrollback(); sb != nil {
		return sb.Lines()
	}
	return nil
}

// rowText renders the w cells given by at as text and reports the runs of non-default style to
// span (nil: styles are not wanted). Trailing blank cells without a style are trimmed.
func rowText(b *strings.Builder, w int, at func(x int) *uv.Cell, span func(Span)) string {
	b.Reset()
	end := 0 // bytes of b up to the last cell that must be kept
	runStart := -1
	var runStyle uv.Style
	flush := func(x int) {
		if runStart >= 0 && span != nil {
			span(Span{Start: runStart, End: x - 1, Style: runStyle})
		}
		runStart = -1
	}
	for x := 0; x < w; {
		c := at(x)
		width := 1
		var st uv.Style
		content := " "
		if c != nil {
			st = c.Style
			if c.Width > 1 {
				width = c.Width
			}
			switch {
			case c.Width == 0: // a wide character's continuation, or an empty cell
				if c.Content == "" {
					x++
					continue
				}
			case c.Content == "" || c.Style.Attrs&uv.AttrConceal != 0:
			default:
				content = c.Content
			}
			if c.Style.Attrs&uv.AttrConceal != 0 && c.Content != "" {
				content = strings.Repeat(" ", width)
			}
		}
		styled := !st.IsZero()
		if runStart >= 0 && (!styled || !st.Equal(&runStyle)) {
			flush(x)
		}
		if styled && runStart < 0 {
			runStart, runStyle = x, st
		}
		b.WriteString(content)
		if content != " " || styled {
			end = b.Len()
		}
		x += width
	}
	flush(w)
	return b.String()[:end]
}

var fingerprintSeed = maphash.MakeSeed()

// blankCell is what an erased cell holds.
var blankCell = uv.EmptyCell

// Fingerprint returns a hash of what the screen shows: every visible cell's text and style, the
// cursor position and visibility, the active buffer and the size. Output that repaints the same
// content, or that changes only the scroll-back, leaves it unchanged, so a caller can tell
// visible change from mere activity (terminal_snapshot's quiet interval). It allocates nothing
// beyond a small per-call buffer.
func (s *Screen) Fingerprint() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	w, rows := s.size.Cols, s.size.Rows
	var cur uv.Position
	var hidden, alt bool
	if s.fz != nil {
		cur, hidden, alt = s.fz.cursor, s.fz.hidden, s.fz.alt
	} else {
		cur, hidden, alt = s.em.CursorPosition(), s.em.CursorHidden(), s.em.IsAltScreen()
	}
	var buf [1024]byte
	b := buf[:0]
	b = binary.LittleEndian.AppendUint64(b, uint64(w)<<32|uint64(rows))
	b = binary.LittleEndian.AppendUint64(b, uint64(cur.X)<<32|uint64(cur.Y))
	b = append(b, boolByte(hidden), boolByte(alt))
	for y := range rows {
		for x := 0; x < w; x++ {
			c := s.cellLocked(x, y)
			if c == nil {
				c = &blankCell // a compacted row's trailing blanks
			}
			if len(b)+len(c.Content)+64 > cap(b) {
				_, _ = h.Write(b)
				b = buf[:0]
			}
			b = append(b, c.Content...)
			b = append(b, 0, byte(c.Width), c.Style.Attrs, byte(c.Style.Underline))
			for _, col := range [3]color.Color{c.Style.Fg, c.Style.Bg, c.Style.UnderlineColor} {
				k, v := colorKey(col)
				b = append(b, byte(k))
				if k != 0 {
					b = binary.LittleEndian.AppendUint32(b, uint32(v))
				}
			}
		}
	}
	_, _ = h.Write(b)
	return h.Sum64()
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// colorKey is a comparable form of a cell colour: (kind, value) with kind 0 for the default,
// 1 for a palette index and 2 for RGBA.
func colorKey(c color.Color) (uint64, uint64) {
	switch v := c.(type) {
	case nil:
		return 0, 0
	case ansi.BasicColor:
		return 1, uint64(v)
	case ansi.IndexedColor:
		return 1, uint64(v)
	}
	r, g, b, a := c.RGBA()
	return 2, uint64(r>>8)<<24 | uint64(g>>8)<<16 | uint64(b>>8)<<8 | uint64(a>>8)
}

// PaletteIndex reports the palette index of a cell colour set by SGR 30–37, 90–97, 40–47,
// 100–107 or 38;5 / 48;5 (0–255); false for a direct (RGB) colour or none.
func PaletteIndex(c color.Color) (int, bool) {
	switch v := c.(type) {
	case ansi.BasicColor:
		return int(v), true
	case ansi.IndexedColor:
		return int(v), true
	}
	return 0, false
}
