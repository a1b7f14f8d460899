package ui

import (
	"unsafe"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// lineCache keeps the cells of styled conversation lines already parsed, so that a frame
// copies the cells of the lines it showed before instead of parsing their escape sequences
// again (most of a streaming frame: only the growing tail's lines are new). The cells are
// exactly what drawText would set.
type lineCache struct {
	width  int
	method ansi.Method
	lines  map[string]*uv.ScreenBuffer
	off    bool // draw every line with drawText (tests compare both ways)
}

// lineCacheMax bounds the lines kept; past it the cache starts afresh.
const lineCacheMax = 4096

// draw draws the styled line s into the one-row r of scr as drawText(scr, r, s) does.
func (lc *lineCache) draw(scr uv.Screen, r uv.Rectangle, s string) {
	if r.Empty() {
		return
	}
	w := r.Dx()
	method, ok := scr.WidthMethod().(ansi.Method)
	if !ok || lc.off {
		drawText(scr, r, s) // a width method a ScreenBuffer cannot take: no cache
		return
	}
	if lc.lines == nil || lc.width != w || lc.method != method || len(lc.lines) >= lineCacheMax {
		lc.width, lc.method, lc.lines = w, method, make(map[string]*uv.ScreenBuffer, 256)
	}
	b := lc.lines[s]
	if b == nil {
		sb := uv.NewScreenBuffer(w, 1)
		sb.Method = method
		drawText(sb, sb.Bounds(), s)
		b = &sb
		lc.lines[s] = b
	}
	if cv, ok := scr.(*lipgloss.Canvas); ok && copyRow(cv, r, b.Line(0)) {
		return
	}
	for x := r.Min.X; x < r.Max.X; x++ {
		scr.SetCell(x, r.Min.Y, nil) // as drawText: the row is cleared first
	}
	b.Draw(scr, r)
}

// copyRow copies the cells of row into the one-row r of cv (len(row) == r.Dx()), which gives
// the cells that clearing r and drawing row there cell by cell gives, when no cell of r is part
// of a wide cell (clearing one would also blank its other columns, possibly outside r). It
// reports false, changing nothing, when that does not hold or r is not inside cv. Writing the
// cells in place skips the canvas's change tracking, which nothing reads (a canvas is copied
// whole to the screen).
func copyRow(cv *lipgloss.Canvas, r uv.Rectangle, row uv.Line) bool {
	y := r.Min.Y
	if r.Min.X < 0 || r.Max.X > cv.Width() || y < 0 || y >= cv.Height() || len(row) != r.Dx() {
		return false
	}
	dst := canvasRow(cv, y)
	if dst == nil {
		return false
	}
	dst = dst[r.Min.X:r.Max.X]
	for i := range dst {
		if dst[i].Width != 1 {
			return false
		}
	}
	copy(dst, row)
	return true
}

// canvasRow returns the cells of row y of cv as one slice (columns 0 to cv.Width()-1), or nil
// when y is outside cv. A canvas keeps each row as a uv.Line and CellAt returns pointers into it;
// the slice is built from the first cell's pointer, after checking that the last cell's pointer
// is where that puts it (nil otherwise, so a change in that layout falls back to CellAt).
func canvasRow(cv *lipgloss.Canvas, y int) uv.Line {
	w := cv.Width()
	if w <= 0 || y < 0 || y >= cv.Height() {
		return nil
	}
	first, last := cv.CellAt(0, y), cv.CellAt(w-1, y)
	if first == nil || last == nil {
		return nil
	}
	row := unsafe.Slice(first, w)
	if &row[w-1] != last {
		return nil
	}
	return row
}
