package ui

import (
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
	for x := r.Min.X; x < r.Max.X; x++ {
		scr.SetCell(x, r.Min.Y, nil) // as drawText: the row is cleared first
	}
	b.Draw(scr, r)
}
