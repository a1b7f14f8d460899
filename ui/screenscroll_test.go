package ui

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
)

// scrollFrame is a 60x20 canvas: conversation lines first..first+15 (styled, some wide) in
// rows 0–15 of the left width columns, a pane on the right of the other columns whose text
// does not move, and a status row at the bottom.
func scrollFrame(first, width int, pane string) *lipgloss.Canvas {
	const w, h = 60, 20
	c := lipgloss.NewCanvas(w, h)
	for y := 0; y < 16; y++ {
		n := first + y
		var l string
		switch n % 4 {
		case 0:
			l = fmt.Sprintf("\x1b[1mline %d\x1b[m plain text", n)
		case 1:
			l = fmt.Sprintf("\x1b[38;5;203;48;5;236m code %d \x1b[m and 日本語 %d", n, n)
		case 2:
			l = ""
		default:
			l = fmt.Sprintf("• item %d %s", n, strings.Repeat("x", n%30))
		}
		drawText(c, uv.Rect(0, y, width, 1), l)
		if width < w {
			drawText(c, uv.Rect(width, y, w-width, 1), fmt.Sprintf("│%s %d", pane, y))
		}
	}
	drawText(c, uv.Rect(0, h-1, w, 1), fmt.Sprintf("\x1b[7m status %d \x1b[m", first))
	return c
}

// emulatorText is what a terminal shows after the bytes: each row's cells' text.
func emulatorText(em *vt.Emulator, w, h int) string {
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := em.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte('?')
			case c.Width == 0:
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// canvasText is the same for a canvas.
func canvasText(c *lipgloss.Canvas) string {
	var b strings.Builder
	for y := 0; y < c.Height(); y++ {
		for x := 0; x < c.Width(); x++ {
			cell := c.CellAt(x, y)
			switch {
			case cell == nil:
				b.WriteByte('?')
			case cell.Width == 0:
			case cell.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(cell.Content)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestScreenScrolledFramesShowTheCanvas draws frames whose conversation scrolls by one to four
// lines (whole width, and beside a pane that stays), sometimes back, into a terminal emulator:
// after every frame the emulator shows exactly the canvas, and a frame that scrolled a whole-
// width conversation by a line writes far fewer bytes than repainting its rows.
func TestScreenScrolledFramesShowTheCanvas(t *testing.T) {
	const w, h = 60, 20
	for _, width := range []int{w, 35} {
		s, out := testScreen(t, w, h)
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		em := vt.NewEmulator(w, h)
		rng := rand.New(rand.NewSource(int64(width)))
		first := 0
		for i := 0; i < 60; i++ {
			switch r := rng.Intn(10); {
			case r < 6:
				first++
			case r < 8:
				first += 2 + rng.Intn(3)
			case r < 9:
				first = max(first-1-rng.Intn(3), 0)
			}
			c := scrollFrame(first, width, fmt.Sprint("pane ", i%3))
			out.Reset()
			s.draw(c, nil)
			if _, err := em.Write(onlcr(out.Bytes())); err != nil {
				t.Fatal(err)
			}
			if got, want := emulatorText(em, w, h), canvasText(c); got != want {
				t.Fatalf("width %d frame %d (first line %d): the terminal shows\n%s\nwant\n%s", width, i, first, got, want)
			}
		}
		if width == w {
			// One more line: the rows move up; only the new row and the status are painted.
			scrolled := scrollFrame(first+1, width, "")
			out.Reset()
			s.draw(scrolled, nil)
			moved := out.Len()
			if _, err := em.Write(onlcr(out.Bytes())); err != nil {
				t.Fatal(err)
			}
			if got, want := emulatorText(em, w, h), canvasText(scrolled); got != want {
				t.Fatalf("after a one-line scroll the terminal shows\n%s\nwant\n%s", got, want)
			}
			// The same two frames with the rows repainted instead.
			defer func(n int) { scrollOptimRows = n }(scrollOptimRows)
			scrollOptimRows = h + 1
			full, fullOut := testScreen(t, w, h)
			if err := full.start(); err != nil {
				t.Fatal(err)
			}
			full.draw(scrollFrame(first, width, ""), nil)
			fullOut.Reset()
			full.draw(scrolled, nil)
			if moved*3 > fullOut.Len()*2 {
				t.Fatalf("a one-line scroll wrote %d bytes; repainting the rows writes %d", moved, fullOut.Len())
			}
			t.Logf("a one-line scroll wrote %d bytes; repainting the rows writes %d", moved, fullOut.Len())
		}
	}
}

// onlcr maps \n to \r\n as a terminal's line discipline does on output (the test screen is
// not a tty, so its renderer counts on that).
func onlcr(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "\n", "\r\n")) }
