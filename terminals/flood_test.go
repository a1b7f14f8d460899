package terminals

import (
	"fmt"
	"strings"
	"testing"
)

// TestFloodTranscriptExactScreenConverges floods a small terminal: the
// transcript stays exact whatever the emulator does, and the final screen
// shows the last lines (skip-ahead, when it happens, must not change it).
func TestFloodTranscriptExactScreenConverges(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: "seq 1 300000", OutputLimit: 4 << 20, Size: Size{Cols: 80, Rows: 24}})
	waitExit(t, term)
	_ = term.Release() // waits for the screen to catch up
	out := term.Output()
	// 9×2 + 90×3 + 900×4 + 9000×5 + 90000×6 + 200001×7 bytes.
	if len(out.Text) != 1988895 || out.Truncated || !strings.HasSuffix(out.Text, "\n299999\n300000\n") {
		t.Fatalf("transcript %d bytes, truncated %v", len(out.Text), out.Truncated)
	}
	var want strings.Builder
	for i := 299978; i <= 300000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got := term.Screen().Text(); got != want.String() {
		t.Fatalf("final screen:\n%s\nwant:\n%s", got, want.String())
	}
	t.Logf("skipped %d bytes of %d", term.Skipped(), len(out.Text)+300000)
	if term.Backlog() != 0 {
		t.Fatalf("backlog %d after release", term.Backlog())
	}
}

// TestSkipAheadCutsAtLineStart checks the backlog trimming directly.
func TestSkipAheadCutsAtLineStart(t *testing.T) {
	term := &Terminal{}
	var b strings.Builder
	for i := 0; b.Len() < backlogBound+skipTail; i++ {
		fmt.Fprintf(&b, "line %d €\r\n", i)
	}
	term.backlog = []byte(b.String())
	n := len(term.backlog)
	term.skipAhead()
	if !term.skip || len(term.backlog) > skipTail || len(term.backlog) < skipTail-32 {
		t.Fatalf("skip %v, kept %d bytes", term.skip, len(term.backlog))
	}
	if !strings.HasPrefix(string(term.backlog), "line ") || int(term.Skipped())+len(term.backlog) != n {
		t.Fatalf("kept tail starts %q, skipped %d", term.backlog[:12], term.Skipped())
	}
	// Without a newline in the tail it cuts at a character boundary.
	term.backlog = []byte(strings.Repeat("€", skipTail))
	term.skipAhead()
	if len(term.backlog)%3 != 0 || string(term.backlog[:3]) != "€" {
		t.Fatalf("cut inside a character: % x", term.backlog[:3])
	}
}

func TestScanModesKeepsLastChange(t *testing.T) {
	p := []byte("a\x1b[?1h\x1b[?2004hxx\x1b[?1049;1006h\r\n\x1b[?1l\x1b[?25l\x1b[?h\x1b[12;3H\x1b[?1000")
	got := string(replayModes(scanModes(p, nil)))
	if want := "\x1b[?2004h\x1b[?1049h\x1b[?1006h\x1b[?1l\x1b[?25l"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestFloodKeepsModes: modes set early in a flood survive skip-ahead.
func TestFloodKeepsModes(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: `seq 1 300000; printf '\033[?2004h\033[?1h'; seq 1 300000; printf '\033[?1l'`, Size: Size{Cols: 80, Rows: 24}})
	waitExit(t, term)
	_ = term.Release()
	if m := term.Screen().Modes(); !m.BracketedPaste || m.CursorKeys {
		t.Fatalf("modes after flood %+v (skipped %d bytes)", m, term.Skipped())
	}
	t.Logf("skipped %d bytes", term.Skipped())
}

func TestScreenTail(t *testing.T) {
	term := &Terminal{outputFeed: outputFeed{backlog: []byte("a\r\nb\r\nc\r\nd")}}
	if got := term.screenTail(2, 100); string(term.backlog[got:]) != "b\r\nc\r\nd" {
		t.Fatalf("rows 2: %q", term.backlog[got:])
	}
	if got := term.screenTail(5, 100); got != 0 {
		t.Fatalf("fewer lines than rows: cut %d", got)
	}
	term.backlog = []byte(strings.Repeat("€", 100)) // no newline at all
	if got := term.screenTail(2, 10); string(term.backlog[got:]) != "€€€" {
		t.Fatalf("capped tail %q", term.backlog[got:])
	}
}
