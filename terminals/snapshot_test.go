package terminals

import (
	"reflect"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

func TestSnapshotStylesAndText(t *testing.T) {
	s := NewScreen(Size{Cols: 12, Rows: 3})
	defer s.Close()
	// "READY" bold green, two plain blanks, "x" on blue background, then a styled blank cell
	// (red background) and trailing unstyled blanks; row 2 has leading blanks and a wide
	// character; row 3 has concealed text.
	s.Write([]byte("\x1b[1;32mREADY\x1b[0m  \x1b[44mx\x1b[41m \x1b[0m   \r\n  界a\r\n\x1b[8msecret\x1b[0m"))
	snap := s.Snapshot(0)
	want := []string{"READY  x ", "  界a", "      "}
	if !reflect.DeepEqual(snap.Lines, want) {
		t.Fatalf("lines %q, want %q", snap.Lines, want)
	}
	if len(snap.Spans) != 4 {
		t.Fatalf("spans %+v", snap.Spans)
	}
	s0, s1, s2, s3 := snap.Spans[0], snap.Spans[1], snap.Spans[2], snap.Spans[3]
	if s0.Row != 0 || s0.Start != 0 || s0.End != 4 || s0.Style.Attrs != uv.AttrBold || s0.Style.Fg != ansi.Green {
		t.Fatalf("span 0 %+v", s0)
	}
	if s1.Start != 7 || s1.End != 7 || s1.Style.Bg != ansi.Blue || s2.Start != 8 || s2.End != 8 || s2.Style.Bg != ansi.Red {
		t.Fatalf("spans 1, 2: %+v %+v", s1, s2)
	}
	if s3.Row != 2 || s3.Start != 0 || s3.End != 5 || s3.Style.Attrs != uv.AttrConceal {
		t.Fatalf("span 3 %+v", s3)
	}
	if snap.Cursor != uv.Pos(6, 2) || !snap.CursorVisible || snap.Alt {
		t.Fatalf("cursor %v visible %v alt %v", snap.Cursor, snap.CursorVisible, snap.Alt)
	}
}

func TestSnapshotHistoryAndAltScreen(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 2})
	defer s.Close()
	s.Write([]byte(lines(5, "l%d\r\n")))
	snap := s.Snapshot(2)
	if snap.HistoryAvail != 4 || !reflect.DeepEqual(snap.History, []string{"l3", "l4"}) {
		t.Fatalf("history %q of %d", snap.History, snap.HistoryAvail)
	}
	if !reflect.DeepEqual(snap.Lines, []string{"l5", ""}) {
		t.Fatalf("lines %q", snap.Lines)
	}
	s.Write([]byte("\x1b[?1049h\x1b[Halt"))
	snap = s.Snapshot(10)
	if !snap.Alt || snap.Lines[0] != "alt" || snap.HistoryAvail != 4 || len(snap.History) != 4 {
		t.Fatalf("alt %v lines %q history %q (%d)", snap.Alt, snap.Lines, snap.History, snap.HistoryAvail)
	}
	s.Write([]byte("\x1b[?1049l"))
	if snap = s.Snapshot(0); snap.Alt || snap.Lines[0] != "l5" || snap.History != nil {
		t.Fatalf("back: alt %v lines %q history %q", snap.Alt, snap.Lines, snap.History)
	}
}

func TestSnapshotMouseAndSyncModes(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 2})
	defer s.Close()
	m := s.Modes()
	if m.Tracking != MouseTrackingNone || m.MouseEncoding() != "legacy" || m.SyncOutput {
		t.Fatalf("initial modes %+v", m)
	}
	for _, c := range []struct {
		seq      string
		tracking string
		enc      string
	}{
		{"\x1b[?9h", "x10", "legacy"},
		{"\x1b[?1000h", "vt200", "legacy"},
		{"\x1b[?1006h", "vt200", "sgr"},
		{"\x1b[?1002h", "drag", "sgr"},
		{"\x1b[?1003h", "any", "sgr"},
		{"\x1b[?1016h", "any", "sgr-pixels"},
		{"\x1b[?1003l\x1b[?1002l\x1b[?1016l", "vt200", "sgr"},
		{"\x1b[?1000l\x1b[?9l\x1b[?1006l", "none", "legacy"},
	} {
		s.Write([]byte(c.seq))
		m := s.Modes()
		if m.Tracking.String() != c.tracking || m.MouseEncoding() != c.enc {
			t.Fatalf("after %q: tracking %s encoding %s, want %s %s", c.seq, m.Tracking, m.MouseEncoding(), c.tracking, c.enc)
		}
	}
	s.Write([]byte("\x1b[?2026h"))
	if !s.Modes().SyncOutput {
		t.Fatal("?2026h did not set SyncOutput")
	}
	s.Write([]byte("\x1b[?2026l"))
	if s.Modes().SyncOutput {
		t.Fatal("?2026l did not clear SyncOutput")
	}
}

func TestFingerprintIgnoresIdenticalRepaints(t *testing.T) {
	s := NewScreen(Size{Cols: 10, Rows: 3})
	defer s.Close()
	s.Write([]byte("\x1b[Hhello"))
	a := s.Fingerprint()
	v := s.Version()
	s.Write([]byte("\x1b[Hhello")) // the same repaint
	if s.Version() == v {
		t.Fatal("version did not move on output")
	}
	if b := s.Fingerprint(); b != a {
		t.Fatalf("identical repaint changed the fingerprint: %x → %x", a, b)
	}
	s.Write([]byte("\x1b[H\x1b[1mhello")) // same text, bold
	b := s.Fingerprint()
	if b == a {
		t.Fatal("a style change left the fingerprint")
	}
	s.Write([]byte("\x1b[2;1H")) // cursor move only
	if c := s.Fingerprint(); c == b {
		t.Fatal("a cursor move left the fingerprint")
	}
	c := s.Fingerprint()
	s.Compact() // a compacted screen hashes the same content the same way
	if d := s.Fingerprint(); d != c {
		t.Fatalf("compacting changed the fingerprint: %x → %x", c, d)
	}
}

func TestTerminalPendingDrains(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{Argv: []string{"/bin/sh", "-c", "printf 'abc\\n'; sleep 30"}})
	h.waitFor(t, "abc on screen", func() bool { return term.Screen().Snapshot(0).Lines[0] == "abc" })
	if n := term.Pending(); n != 0 {
		t.Fatalf("pending %d after the output is shown", n)
	}
	_ = term.Release()
}
