package ui

import (
	"bytes"
	"fmt"
	"testing"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// plainDrawable hides a canvas's type, so screen.draw takes its general path (cv.Draw).
type plainDrawable struct{ c *lipgloss.Canvas }

func (p plainDrawable) Draw(scr uv.Screen, r uv.Rectangle) { p.c.Draw(scr, r) }

// rowFrames are frames that keep, change, shift and overwrite rows with styled, wide and
// hyperlinked cells, wide cells at the right edge, and blank rows.
func rowFrames(w, h int) []*lipgloss.Canvas {
	red := "\x1b[31m"
	texts := [][]string{
		{"hello " + red + "world\x1b[m", "second 日本語 line", "\x1b]8;;http://x.y\x1b\\link\x1b]8;;\x1b\\ after"},
		{"hello " + red + "world\x1b[m", "second 日本語 line", "\x1b]8;;http://x.y\x1b\\link\x1b]8;;\x1b\\ after"},
		{"second 日本語 line", "\x1b]8;;http://x.y\x1b\\link\x1b]8;;\x1b\\ after", "third"},
		{"second 日本語 line", "\x1b]8;;http://z\x1b\\link\x1b]8;;\x1b\\ after", "third", "\x1b[1;44m" + fmt.Sprintf("%*s", w-1, "") + "日\x1b[m"},
		{"", "", "third"},
		{"日本語日本語日本語日本語", "\x1b[38;2;1;2;3mtruecolour\x1b[m", "third"},
	}
	var out []*lipgloss.Canvas
	for _, t := range texts {
		out = append(out, canvasWith(w, h, t...))
	}
	return out
}

// TestScreenSkipsEqualRowsAsDrawWould: drawing a canvas on the screen row by row, skipping the
// rows that are unchanged, writes exactly the bytes of the general path (every cell through the
// change tracking) and leaves the same cells, frame after frame, across a resize.
func TestScreenSkipsEqualRowsAsDrawWould(t *testing.T) {
	fast, fastOut := testScreen(t, 21, 5)
	slow, slowOut := testScreen(t, 21, 5)
	for _, s := range []*screen{fast, slow} {
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, frames []*lipgloss.Canvas) {
		t.Helper()
		for i, c := range frames {
			fastOut.Reset()
			slowOut.Reset()
			fast.draw(c, nil)
			slow.draw(plainDrawable{c}, nil)
			if !bytes.Equal(fastOut.Bytes(), slowOut.Bytes()) {
				t.Fatalf("%s frame %d: wrote %q, the general path %q", step, i, fastOut.String(), slowOut.String())
			}
			for y := 0; y < fast.height; y++ {
				for x := 0; x < fast.width; x++ {
					if a, b := fast.cells.CellAt(x, y), slow.cells.CellAt(x, y); *a != *b {
						t.Fatalf("%s frame %d: cell (%d,%d) is %+v, the general path's %+v", step, i, x, y, *a, *b)
					}
				}
			}
		}
	}
	frames := rowFrames(21, 5)
	check("first", frames)
	// An unchanged frame writes nothing.
	fastOut.Reset()
	fast.draw(frames[len(frames)-1], nil)
	if fastOut.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", fastOut.String())
	}
	fast.setSize(30, 7)
	slow.setSize(30, 7)
	check("after a resize", rowFrames(30, 7))
	fast.setSize(12, 4)
	slow.setSize(12, 4)
	check("after a shrink", rowFrames(12, 4))
}

// TestCopyRowEqualsDrawing: a cached row copied into a canvas gives the cells that clearing the
// row and drawing the cached cells there one by one gives (any screen but a canvas), wide
// characters at the right edge included, and a row that holds part of a wide cell (which
// clearing would also blank outside the row's rectangle) is drawn, not copied.
func TestCopyRowEqualsDrawing(t *testing.T) {
	for _, s := range []string{"plain", "\x1b]8;;http://x.y\x1b\\link\x1b]8;;\x1b\\", "\x1b[31mred\x1b[m 日本", "abcdefgh日", "日本語日本語", ""} {
		var lc lineCache
		got := lipgloss.NewCanvas(12, 2)
		want := uv.NewScreenBuffer(12, 2)
		r := uv.Rect(2, 1, 9, 1)
		lc.draw(got, r, s) // parses and caches
		lc.draw(got, r, s) // copies the cached cells
		lc.draw(want, r, s)
		for x := 0; x < 12; x++ {
			if a, b := got.CellAt(x, 1), want.CellAt(x, 1); *a != *b {
				t.Fatalf("%q: cell %d is %+v, drawn %+v", s, x, *a, *b)
			}
		}
	}
	// A wide cell straddling the rectangle's left edge: copyRow declines.
	cv := lipgloss.NewCanvas(12, 1)
	drawText(cv, uv.Rect(0, 0, 12, 1), "a日")
	if copyRow(cv, uv.Rect(2, 0, 5, 1), make(uv.Line, 5)) {
		t.Fatal("copyRow copied over the second column of a wide cell")
	}
	if copyRow(cv, uv.Rect(8, 0, 5, 1), make(uv.Line, 5)) {
		t.Fatal("copyRow copied past the canvas's edge")
	}
}
