package ui

import (
	"image/color"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// drawText draws s (styled, possibly multi-line) into r, clearing r first and clipping to it.
func drawText(scr uv.Screen, r uv.Rectangle, s string) {
	if r.Empty() {
		return
	}
	uv.NewStyledString(s).Draw(scr, r)
}

// fillRect clears r (blank cells, default colours).
func fillRect(scr uv.Screen, r uv.Rectangle) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			scr.SetCell(x, y, nil)
		}
	}
}

// boxChars are the rounded border glyphs: top-left, top-right, bottom-left, bottom-right,
// horizontal, vertical.
var boxChars = [6]string{"╭", "╮", "╰", "╯", "─", "│"}

// drawBox draws a one-cell border around r's edge in colour fg (nil: default), bold when asked,
// and returns nothing; the caller fills the inside.
func drawBox(scr uv.Screen, r uv.Rectangle, fg color.Color, bold bool) {
	if r.Dx() < 2 || r.Dy() < 2 {
		return
	}
	st := uv.Style{Fg: fg}
	if bold {
		st.Attrs |= uv.AttrBold
	}
	cell := func(s string) *uv.Cell { return &uv.Cell{Content: s, Width: 1, Style: st} }
	h, v := cell(boxChars[4]), cell(boxChars[5])
	for x := r.Min.X + 1; x < r.Max.X-1; x++ {
		scr.SetCell(x, r.Min.Y, h)
		scr.SetCell(x, r.Max.Y-1, h)
	}
	for y := r.Min.Y + 1; y < r.Max.Y-1; y++ {
		scr.SetCell(r.Min.X, y, v)
		scr.SetCell(r.Max.X-1, y, v)
	}
	scr.SetCell(r.Min.X, r.Min.Y, cell(boxChars[0]))
	scr.SetCell(r.Max.X-1, r.Min.Y, cell(boxChars[1]))
	scr.SetCell(r.Min.X, r.Max.Y-1, cell(boxChars[2]))
	scr.SetCell(r.Max.X-1, r.Max.Y-1, cell(boxChars[3]))
}

// drawLabel draws a one-line styled label at (x, y), at most maxW cells wide, without clearing
// anything beyond the label itself. It returns the cells used.
func drawLabel(scr uv.Screen, x, y, maxW int, s string) int {
	if maxW <= 0 {
		return 0
	}
	s = truncate(s, maxW)
	w := ansi.StringWidth(s)
	drawText(scr, uv.Rect(x, y, w, 1), s)
	return w
}
