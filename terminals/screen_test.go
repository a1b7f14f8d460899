package terminals

import (
	"fmt"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"go.uber.org/goleak"
)

func lines(n int, f string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, f, i)
	}
	return b.String()
}

func TestScreenStandaloneQueriesDoNotBlock(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 3})
	defer s.Close()
	v := s.Version()
	s.Write([]byte("ab\x1b[6n\x1b[c\x1b[5ncd\x1b]0;my title\x07"))
	if got := s.Text(); got != "abcd\n\n" {
		t.Fatalf("text %q", got)
	}
	if s.Title() != "my title" || s.Version() == v {
		t.Fatalf("title %q version %d", s.Title(), s.Version())
	}
	if pos, vis := s.Cursor(); pos != uv.Pos(4, 0) || !vis {
		t.Fatalf("cursor %v %v", pos, vis)
	}
	s.Write([]byte("\x1b[?25l"))
	if _, vis := s.Cursor(); vis {
		t.Fatal("cursor still visible")
	}
}

func TestScreenWriteAfterClose(t *testing.T) {
	s := NewScreen(Size{})
	if s.Size() != (Size{80, 24}) {
		t.Fatalf("default size %v", s.Size())
	}
	_ = s.Close()
	_ = s.Close()
	s.Write([]byte("x\x1b[cy")) // a query after Close must not block either
	if got := strings.SplitN(s.Text(), "\n", 2)[0]; got != "xy" {
		t.Fatalf("got %q", got)
	}
}

func TestScreenModes(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 3})
	defer s.Close()
	s.Write([]byte("\x1b[?1h\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?1004h\x1b[?1049h"))
	want := Modes{AltScreen: true, CursorKeys: true, BracketedPaste: true, Mouse: true, MouseSGR: true, Focus: true, Tracking: MouseTrackingButton}
	if got := s.Modes(); got != want {
		t.Fatalf("modes %+v", got)
	}
	s.Write([]byte("\x1b[?1l\x1b[?2004l\x1b[?1002l\x1b[?1006l\x1b[?1004l\x1b[?1049l"))
	if got := s.Modes(); got != (Modes{}) {
		t.Fatalf("modes after reset %+v", got)
	}
}

func TestScreenResizeKeepsBottom(t *testing.T) {
	s := NewScreen(Size{Cols: 20, Rows: 10})
	defer s.Close()
	s.Write([]byte(strings.ReplaceAll(lines(30, "line-%02d\n"), "\n", "\r\n") + "$ "))
	s.Resize(Size{Cols: 20, Rows: 4})
	if got := s.Text(); got != "line-28\nline-29\nline-30\n$" {
		t.Fatalf("after shrink: %q", got)
	}
	if pos, _ := s.Cursor(); pos != uv.Pos(2, 3) {
		t.Fatalf("cursor %v", pos)
	}
	// Growing back brings the newest history lines back down (as tmux does); the cursor row
	// is intact and the lines leave the scroll-back.
	sb := s.ScrollbackLen()
	s.Resize(Size{Cols: 20, Rows: 6})
	if got := s.Text(); got != "line-26\nline-27\nline-28\nline-29\nline-30\n$" {
		t.Fatalf("after grow: %q", got)
	}
	if pos, _ := s.Cursor(); pos != uv.Pos(2, 5) {
		t.Fatalf("cursor after grow %v", pos)
	}
	if got := s.ScrollbackLen(); got != sb-2 {
		t.Fatalf("scroll-back %d lines after grow, want %d", got, sb-2)
	}
	// Shrinking again pushes them back: the same rows, the same history.
	s.Resize(Size{Cols: 20, Rows: 4})
	if got := s.Text(); got != "line-28\nline-29\nline-30\n$" || s.ScrollbackLen() != sb {
		t.Fatalf("after shrink again: %q, %d lines of scroll-back (want %d)", got, s.ScrollbackLen(), sb)
	}
	// Growing by more than the history holds uses all of it, then blank rows.
	s3 := NewScreen(Size{Cols: 10, Rows: 2})
	defer s3.Close()
	s3.Write([]byte("a\r\nb\r\nc\r\nd"))
	s3.Resize(Size{Cols: 10, Rows: 6})
	if got := s3.Text(); got != "a\nb\nc\nd\n\n" || s3.ScrollbackLen() != 0 {
		t.Fatalf("grow past the history: %q, %d lines left", got, s3.ScrollbackLen())
	}
	if pos, _ := s3.Cursor(); pos != uv.Pos(1, 3) {
		t.Fatalf("cursor %v", pos)
	}
	// Shrinking with the cursor near the top keeps the top.
	s2 := NewScreen(Size{Cols: 10, Rows: 5})
	defer s2.Close()
	s2.Write([]byte("a\r\nb"))
	s2.Resize(Size{Cols: 10, Rows: 3})
	if got := s2.Text(); got != "a\nb\n" {
		t.Fatalf("top kept: %q", got)
	}
}

func cellRow(buf uv.ScreenBuffer, y, w int) string {
	var b strings.Builder
	for x := 0; x < w; x++ {
		c := buf.CellAt(x, y)
		switch {
		case c == nil:
			b.WriteByte('?')
		case c.Width == 0:
		case c.Content == "" || c.Content == " ":
			b.WriteByte('.')
		default:
			b.WriteString(c.Content)
		}
	}
	return b.String()
}

func TestScreenDrawClipsAndScrollsBack(t *testing.T) {
	s := NewScreen(Size{Cols: 6, Rows: 3})
	defer s.Close()
	s.Write([]byte("one\r\ntwo\r\nthree\r\nab日本\r\nlast"))
	if s.ScrollbackLen() != 2 {
		t.Fatalf("scrollback %d", s.ScrollbackLen())
	}
	buf := uv.NewScreenBuffer(9, 5)
	for y := range 5 { // mark the target so untouched cells show
		for x := range 9 {
			buf.SetCell(x, y, &uv.Cell{Content: "#", Width: 1})
		}
	}
	// A 5-wide area at (1,1): 本 (columns 4-5) crosses the right edge.
	s.Draw(buf, uv.Rect(1, 1, 5, 3), 0)
	got := []string{cellRow(buf, 0, 9), cellRow(buf, 1, 9), cellRow(buf, 2, 9), cellRow(buf, 3, 9), cellRow(buf, 4, 9)}
	want := []string{"#########", "#three###", "#ab日.###", "#last.###", "#########"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("live draw:\n%q\nwant\n%q", got, want)
	}
	buf2 := uv.NewScreenBuffer(6, 4)
	s.Draw(buf2, uv.Rect(0, 0, 6, 4), 2) // two lines back; area taller than the screen
	got = []string{cellRow(buf2, 0, 6), cellRow(buf2, 1, 6), cellRow(buf2, 2, 6), cellRow(buf2, 3, 6)}
	want = []string{"one...", "two...", "three.", "ab日本"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("scrolled draw:\n%q\nwant\n%q", got, want)
	}
	s.Draw(buf2, uv.Rect(0, 0, 6, 4), 0) // rows below the screen are blank
	if r := cellRow(buf2, 3, 6); r != "......" {
		t.Fatalf("row below the screen = %q", r)
	}
	s.Draw(buf2, uv.Rect(0, 0, 6, 3), 99) // clamped to the scroll-back length
	if r := cellRow(buf2, 0, 6); r != "one..." {
		t.Fatalf("clamped offset row 0 = %q", r)
	}
	// No scroll-back on the alternate screen.
	s.Write([]byte("\x1b[?1049h\x1b[HALT"))
	if s.ScrollbackLen() != 0 {
		t.Fatal("scroll-back reported on alt screen")
	}
	s.Draw(buf2, uv.Rect(0, 0, 6, 3), 2)
	if r := cellRow(buf2, 0, 6); r != "ALT..." {
		t.Fatalf("alt row 0 = %q", r)
	}
}

func TestScreenWideCharAfterWidthShrink(t *testing.T) {
	s := NewScreen(Size{Cols: 6, Rows: 2})
	defer s.Close()
	s.Write([]byte("abcd日"))
	s.Resize(Size{Cols: 5, Rows: 2})
	buf := uv.NewScreenBuffer(7, 2)
	for x := range 7 {
		buf.SetCell(x, 0, &uv.Cell{Content: "#", Width: 1})
	}
	s.Draw(buf, uv.Rect(0, 0, 5, 2), 0)
	if r := cellRow(buf, 0, 7); r != "abcd.##" {
		t.Fatalf("row %q: the wide cell must not spill past the pane", r)
	}
}

func TestEncodeKey(t *testing.T) {
	k := func(code rune, mod uv.KeyMod, text string) uv.KeyPressEvent {
		return uv.KeyPressEvent{Code: code, Mod: mod, Text: text}
	}
	cases := []struct {
		key   uv.KeyPressEvent
		modes Modes
		want  string
	}{
		{k('a', 0, "a"), Modes{}, "a"},
		{k('a', uv.ModShift, "A"), Modes{}, "A"},
		{k('é', 0, "é"), Modes{}, "é"},
		{k('a', uv.ModCtrl, ""), Modes{}, "\x01"},
		{k('c', uv.ModCtrl|uv.ModCapsLock|uv.ModNumLock, ""), Modes{}, "\x03"},
		{k('a', uv.ModAlt, ""), Modes{}, "\x1ba"},
		{k('x', uv.ModCtrl|uv.ModAlt, ""), Modes{}, "\x1b\x18"},
		{k('@', uv.ModCtrl, ""), Modes{}, "\x00"},
		{k('/', uv.ModCtrl, ""), Modes{}, "\x1f"},
		{k(']', uv.ModCtrl, ""), Modes{}, "\x1d"},
		{k(uv.KeySpace, uv.ModCtrl, ""), Modes{}, "\x00"},
		{k(uv.KeySpace, 0, " "), Modes{}, " "},
		{k(uv.KeyEnter, 0, ""), Modes{}, "\r"},
		{k(uv.KeyEnter, uv.ModShift, ""), Modes{}, "\r"},
		{k(uv.KeyEnter, uv.ModAlt, ""), Modes{}, "\x1b\r"},
		{k(uv.KeyTab, 0, ""), Modes{}, "\t"},
		{k(uv.KeyTab, uv.ModShift, ""), Modes{}, "\x1b[Z"},
		{k(uv.KeyBackspace, 0, ""), Modes{}, "\x7f"},
		{k(uv.KeyBackspace, uv.ModCtrl, ""), Modes{}, "\x08"},
		{k(uv.KeyBackspace, uv.ModAlt, ""), Modes{}, "\x1b\x7f"},
		{k(uv.KeyEscape, 0, ""), Modes{}, "\x1b"},
		{k(uv.KeyUp, 0, ""), Modes{}, "\x1b[A"},
		{k(uv.KeyUp, 0, ""), Modes{CursorKeys: true}, "\x1bOA"},
		{k(uv.KeyUp, uv.ModShift, ""), Modes{CursorKeys: true}, "\x1b[1;2A"},
		{k(uv.KeyLeft, uv.ModCtrl, ""), Modes{}, "\x1b[1;5D"},
		{k(uv.KeyRight, uv.ModAlt, ""), Modes{}, "\x1b[1;3C"},
		{k(uv.KeyDown, uv.ModCtrl|uv.ModShift|uv.ModAlt, ""), Modes{}, "\x1b[1;8B"},
		{k(uv.KeyHome, 0, ""), Modes{}, "\x1b[H"},
		{k(uv.KeyHome, 0, ""), Modes{CursorKeys: true}, "\x1bOH"},
		{k(uv.KeyEnd, uv.ModCtrl, ""), Modes{}, "\x1b[1;5F"},
		{k(uv.KeyInsert, 0, ""), Modes{}, "\x1b[2~"},
		{k(uv.KeyDelete, 0, ""), Modes{}, "\x1b[3~"},
		{k(uv.KeyDelete, uv.ModCtrl, ""), Modes{}, "\x1b[3;5~"},
		{k(uv.KeyPgUp, 0, ""), Modes{}, "\x1b[5~"},
		{k(uv.KeyPgDown, uv.ModShift, ""), Modes{}, "\x1b[6;2~"},
		{k(uv.KeyF1, 0, ""), Modes{}, "\x1bOP"},
		{k(uv.KeyF4, uv.ModCtrl, ""), Modes{}, "\x1b[1;5S"},
		{k(uv.KeyF5, 0, ""), Modes{}, "\x1b[15~"},
		{k(uv.KeyF5, uv.ModShift, ""), Modes{}, "\x1b[15;2~"},
		{k(uv.KeyF12, 0, ""), Modes{}, "\x1b[24~"},
		{k(uv.KeyF13, 0, ""), Modes{}, "\x1b[1;2P"},
		{k(uv.KeyF17, 0, ""), Modes{}, "\x1b[15;2~"},
		{k(uv.KeyKp5, 0, ""), Modes{}, "5"},
		{k(uv.KeyKpEnter, 0, ""), Modes{}, "\r"},
		{k(uv.KeyLeftShift, uv.ModShift, ""), Modes{}, ""},
		{k(uv.KeyMediaPlay, 0, ""), Modes{}, ""},
	}
	for _, c := range cases {
		if got := string(EncodeKey(c.key, c.modes)); got != c.want {
			t.Errorf("%+v %+v: got %q want %q", c.key, c.modes, got, c.want)
		}
	}
}

func TestSanitizePaste(t *testing.T) {
	cases := []struct {
		in        string
		bracketed bool
		want      string
	}{
		{"hello", false, "hello"},
		{"a\nb\r\nc", false, "a\rb\rc"},
		{"x\x1b[201~rm -rf /\n", true, "\x1b[200~xrm -rf /\r\x1b[201~"},
		{"\x1b[31mred\x1b[0m\x07\x00\t", false, "[31mred[0m\t"},
		{"bad\xff", false, "bad\ufffd"},
	}
	for _, c := range cases {
		if got := string(SanitizePaste(c.in, c.bracketed)); got != c.want {
			t.Errorf("SanitizePaste(%q, %v) = %q, want %q", c.in, c.bracketed, got, c.want)
		}
	}
}

// A standalone screen answers nothing, blocks on nothing and leaves no
// goroutine behind even without Close.
func TestScreenStandaloneNoGoroutine(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 3})
	s.Write([]byte("\x1b[?2048h\x1b[c\x1b[6nok")) // in-band resize reports on
	s.Resize(Size{Cols: 12, Rows: 4})             // writes a report: must not block
	if got := s.Text(); got != "ok\n\n\n" {
		t.Fatalf("text %q", got)
	}
	goleak.VerifyNone(t)
}

func TestScreenHugeWriteSkipsAhead(t *testing.T) {
	s := NewScreen(Size{Cols: 20, Rows: 3})
	big := "\x1b[?2004h" + strings.ReplaceAll(lines(100000, "row %d\n"), "\n", "\r\n") // ~1.1 MB
	s.Write([]byte(big))
	if got := s.Text(); got != "row 99999\nrow 100000\n" {
		t.Fatalf("text %q", got)
	}
	if !s.Modes().BracketedPaste {
		t.Fatal("mode set in the skipped part was lost")
	}
}

func TestScreenHistory(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 3})
	defer s.Close()
	s.Write([]byte("one\r\ntwo\r\nthree\r\n日本\r\nfive"))
	text := func(ls []uv.Line) []string {
		var out []string
		for _, l := range ls {
			out = append(out, strings.TrimRight(l.String(), " "))
		}
		return out
	}
	h := s.History()
	if got := strings.Join(text(h), "|"); got != "one|two|three|日本|five" {
		t.Fatalf("history %q", got)
	}
	// A snapshot: later output does not change it.
	s.Write([]byte("\r\nsix\r\nseven"))
	if got := strings.Join(text(h), "|"); got != "one|two|three|日本|five" {
		t.Fatalf("history changed to %q", got)
	}
	if got := strings.Join(text(s.History()), "|"); got != "one|two|three|日本|five|six|seven" {
		t.Fatalf("history %q", got)
	}
	// Compacted: the same lines.
	s.Compact()
	if got := strings.Join(text(s.History()), "|"); got != "one|two|three|日本|five|six|seven" {
		t.Fatalf("compacted history %q", got)
	}
	// The alternate screen shows only its rows.
	s.Write([]byte("\x1b[?1049h\x1b[Halt"))
	if got := strings.Join(text(s.History()), "|"); got != "alt||" {
		t.Fatalf("alt history %q", got)
	}
}
