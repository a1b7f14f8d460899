package terminals

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

// compactScenarios are outputs a finished terminal may leave behind.
var compactScenarios = []struct {
	name string
	out  string
}{
	{"one line", "hi\r\n"},
	{"empty", ""},
	{"history, styles, wide cells", "\x1b]0;build\x07" +
		strings.ReplaceAll(lines(60, "line %d \x1b[1;31mred\x1b[0m \x1b[44m  blue bg  \x1b[0m 漢字€\n"), "\n", "\r\n") +
		"\x1b[42m      \x1b[0m\r\n" + // a row of coloured blanks is not trailing blank
		"\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1004hprompt> 漢"},
	{"cursor mid-screen, hidden", strings.ReplaceAll(lines(30, "%d\n"), "\n", "\r\n") + "\x1b[5;7Hmid\x1b[?25l"},
	{"long lines wrap", strings.Repeat("abcdefghij", 30) + "\r\nend"},
	{"alternate screen", strings.ReplaceAll(lines(40, "main %d\n"), "\n", "\r\n") + "\x1b[?1049h\x1b[2J\x1b[Hfull-screen\x1b[10;3H漢x"},
}

// compactResizes is the sequence of sizes both screens go through.
var compactResizes = []Size{{40, 10}, {100, 30}, {20, 5}, {80, 24}, {81, 3}, {7, 30}}

// sameScreen fails unless a and b show the same thing in every way a pane
// or a client can observe: size, text, cursor, modes, title, scroll-back
// length, and every drawn cell at scroll offsets 0, 1, 7 and the whole
// scroll-back, into an area larger than the screen.
func sameScreen(t *testing.T, what string, a, b *Screen) {
	t.Helper()
	if a.Size() != b.Size() {
		t.Fatalf("%s: size %v vs %v", what, a.Size(), b.Size())
	}
	if at, bt := a.Text(), b.Text(); at != bt {
		t.Fatalf("%s: text\n%q\nvs\n%q", what, at, bt)
	}
	ap, av := a.Cursor()
	bp, bv := b.Cursor()
	if ap != bp || av != bv {
		t.Fatalf("%s: cursor %v %v vs %v %v", what, ap, av, bp, bv)
	}
	if a.Modes() != b.Modes() || a.Title() != b.Title() {
		t.Fatalf("%s: modes %+v %q vs %+v %q", what, a.Modes(), a.Title(), b.Modes(), b.Title())
	}
	n := a.ScrollbackLen()
	if n != b.ScrollbackLen() {
		t.Fatalf("%s: scroll-back %d vs %d lines", what, n, b.ScrollbackLen())
	}
	sz := a.Size()
	area := uv.Rect(0, 0, sz.Cols+3, sz.Rows+2)
	for _, off := range []int{0, 1, 7, n} {
		ab, bb := uv.NewScreenBuffer(area.Dx(), area.Dy()), uv.NewScreenBuffer(area.Dx(), area.Dy())
		a.Draw(ab, area, off)
		b.Draw(bb, area, off)
		for y := range area.Dy() {
			for x := range area.Dx() {
				ac, bc := ab.CellAt(x, y), bb.CellAt(x, y)
				if !ac.Equal(bc) {
					t.Fatalf("%s: offset %d cell (%d,%d): %+v vs %+v", what, off, x, y, *ac, *bc)
				}
			}
		}
	}
}

// TestScreenCompactShowsTheSame compacts one of two screens fed the same
// output and checks that it keeps showing exactly what the emulator shows,
// through a series of resizes.
func TestScreenCompactShowsTheSame(t *testing.T) {
	for _, sc := range compactScenarios {
		t.Run(sc.name, func(t *testing.T) {
			live, comp := NewScreen(Size{80, 24}), NewScreen(Size{80, 24})
			defer live.Close()
			defer comp.Close()
			live.Write([]byte(sc.out))
			comp.Write([]byte(sc.out))
			comp.Compact()
			comp.Compact() // idempotent
			if comp.em != nil || comp.fz == nil {
				t.Fatal("Compact kept the emulator")
			}
			sameScreen(t, "compacted", live, comp)
			for _, sz := range compactResizes {
				live.Resize(sz)
				comp.Resize(sz)
				sameScreen(t, fmt.Sprintf("after resize to %v", sz), live, comp)
			}
			if comp.em != nil {
				t.Fatal("Resize rebuilt the emulator")
			}
		})
	}
}

// TestScreenWriteAfterCompact: output arriving after Compact is shown as if
// the screen had never been compacted (the pen and the scroll region were
// at their defaults).
func TestScreenWriteAfterCompact(t *testing.T) {
	for _, sc := range compactScenarios {
		t.Run(sc.name, func(t *testing.T) {
			live, comp := NewScreen(Size{30, 8}), NewScreen(Size{30, 8})
			defer live.Close()
			defer comp.Close()
			live.Write([]byte(sc.out))
			comp.Write([]byte(sc.out))
			comp.Compact()
			late := "\x1b[0m late \x1b[33myellow\x1b[0m 漢\r\n" + strings.ReplaceAll(lines(12, "more %d\n"), "\n", "\r\n") + "\x1b[6n"
			live.Write([]byte(late))
			comp.Write([]byte(late)) // a query must not block either
			if comp.em == nil {
				t.Fatal("Write did not rebuild the emulator")
			}
			sameScreen(t, "after late output", live, comp)
		})
	}
}

// TestScreenCompactAfterClose: a closed screen compacts, and a late Write
// (with a query, whose reply has no reader) does not block.
func TestScreenCompactAfterClose(t *testing.T) {
	s := NewScreen(Size{10, 3})
	s.Write([]byte("ab"))
	_ = s.Close()
	s.Compact()
	s.Write([]byte("\x1b[cc"))
	if got := s.Text(); got != "abc\n\n" {
		t.Fatalf("text %q", got)
	}
}

// TestScreenCompactConcurrent: Compact, Write, Resize and the readers may
// run at once (the race detector checks the locking); the last output wins.
func TestScreenCompactConcurrent(t *testing.T) {
	s := NewScreen(Size{20, 5})
	defer s.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := uv.NewScreenBuffer(22, 6)
			for i := range 200 {
				switch g {
				case 0:
					s.Write([]byte(fmt.Sprintf("line %d\x1b[6n\r\n", i)))
				case 1:
					s.Compact()
				case 2:
					s.Resize(Size{20 + i%3, 5 + i%2})
				case 3:
					s.Draw(buf, buf.Bounds(), i%4)
					_ = s.Text()
					_, _ = s.Cursor()
					_ = s.ScrollbackLen()
				}
			}
		}()
	}
	wg.Wait()
	s.Resize(Size{20, 5})
	s.Write([]byte("end"))
	s.Compact()
	if got := strings.Split(s.Text(), "\n"); got[len(got)-1] != "end" || !strings.HasPrefix(got[len(got)-2], "line 199") {
		t.Fatalf("text %q", got)
	}
}

// TestTerminalScreenCompactedAtEnd: once a terminal's output has ended its
// screen holds no emulator, still shows the final rows and scroll-back,
// resizes like a live one, and the transcript is unchanged.
func TestTerminalScreenCompactedAtEnd(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: "seq 1 100", Size: Size{80, 24}})
	waitExit(t, term)
	<-term.feederDone
	scr := term.Screen()
	scr.mu.Lock()
	em := scr.em
	scr.mu.Unlock()
	if em != nil {
		t.Fatal("the finished terminal kept its emulator")
	}
	if term.Backlog() != 0 || term.backlog != nil {
		t.Fatalf("backlog %d bytes, cap %d", term.Backlog(), cap(term.backlog))
	}
	if tr := term.tr; len(tr.done) != 292 || cap(tr.done) != len(tr.done) {
		t.Fatalf("transcript storage %d bytes, cap %d; want 292, no spare", len(tr.done), cap(tr.done))
	}
	want := NewScreen(Size{80, 24})
	want.Write([]byte(strings.ReplaceAll(lines(100, "%d\n"), "\n", "\r\n")))
	sameScreen(t, "exited", want, scr)
	if got := scr.ScrollbackLen(); got != 77 {
		t.Fatalf("scroll-back %d lines, want 77", got)
	}
	if got := strings.SplitN(scr.Text(), "\n", 2)[0]; got != "78" {
		t.Fatalf("top row %q, want 78", got)
	}
	buf := uv.NewScreenBuffer(3, 2)
	scr.Draw(buf, buf.Bounds(), 77)
	if got := cellRow(buf, 0, 3) + "|" + cellRow(buf, 1, 3); got != "1..|2.." {
		t.Fatalf("scrolled to the top: %q", got)
	}
	if err := term.Resize(Size{80, 10}); err != nil {
		t.Fatal(err)
	}
	want.Resize(Size{80, 10})
	sameScreen(t, "resized after exit", want, scr)
	if got := scr.ScrollbackLen(); got != 91 {
		t.Fatalf("scroll-back after shrinking to 10 rows: %d lines, want 91", got)
	}
	if err := term.Release(); err != nil {
		t.Fatal(err)
	}
	sameScreen(t, "released", want, scr)
	if out := term.Output(); out.Text != lines(100, "%d\n") || out.Truncated {
		t.Fatalf("transcript %d bytes, truncated %v", len(out.Text), out.Truncated)
	}
	_ = want.Close()
}

// TestRetainedHeapPerTerminal: a finished one-line terminal keeps less than
// 64 KiB of heap, exited and released (an 80x24 emulator alone is ~4.5 MB).
// BenchmarkRetainedTerminal reports the figures.
func TestRetainedHeapPerTerminal(t *testing.T) {
	exited, released := retainedPerTerminal(t, 20, Size{80, 24}, "echo hi", "hi\n")
	t.Logf("retained per terminal: %.0f B exited, %.0f B released", exited, released)
	if exited >= 64<<10 || released >= 64<<10 {
		t.Fatalf("retained per terminal: %.0f B exited, %.0f B released; want < 65536", exited, released)
	}
}
