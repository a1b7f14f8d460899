package terminals

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// feedSlice is the most output handed to the emulator per lock hold, in
// bytes (keeps a painting UI from waiting long).
const feedSlice = 1024

// Modes are the terminal modes a program has switched on, tracked from the
// emulator's mode callbacks (x/vt keeps its own private).
type Modes struct {
	AltScreen      bool // alternate screen (?47, ?1047, ?1049)
	CursorKeys     bool // DECCKM (?1): arrows send SS3 forms
	BracketedPaste bool // ?2004: pastes are wrapped in ESC[200~ … ESC[201~
	Mouse          bool // any mouse tracking (?9, ?1000, ?1002, ?1003)
	MouseSGR       bool // SGR mouse encoding (?1006)
	MouseSGRPixels bool // SGR mouse encoding in pixels (?1016)
	Focus          bool // ?1004: focus in/out reports wanted
	// SyncOutput is synchronized output (?2026): the program is in the middle of a redraw it
	// wants shown at once, so the screen is not in a state to be looked at.
	SyncOutput bool
	// Tracking is the mouse tracking mode in force: the highest of ?9, ?1000, ?1002, ?1003
	// that is set, as xterm picks it (MouseTrackingNone when Mouse is false).
	Tracking MouseTracking
}

// Screen is an x/vt emulator behind its own mutex: the visible screen of a
// terminal plus a small scroll-back (ScrollbackLines lines).
//
// A Terminal owns one and feeds it from its PTY; a Screen can also be used
// on its own (for example for an agent-owned, read-only terminal whose
// bytes arrive over ACP): create it with NewScreen, feed it with Write, and
// Close it when it is no longer fed. All methods are safe for concurrent
// use; Draw, Text and the getters keep working after Close.
//
// Once no more output is expected the emulator (about 4.5 MB for 80x24: a
// 4 MiB parser buffer and two full cell grids) can be replaced by what it
// shows (Compact): the visible rows and the scroll-back, trimmed of trailing
// blank cells. A Terminal does this itself when its output has ended.
type Screen struct {
	mu      sync.Mutex
	em      *vt.Emulator // nil once compacted (fz holds the content)
	fz      *frozen
	closed  bool // Close was called (mu)
	size    Size
	modes   Modes
	mouse   uint8 // bit set of enabled mouse tracking modes
	title   string
	alt     atomic.Bool
	version atomic.Uint64

	sink      func([]byte) // receives the emulator's replies (Terminal screens)
	replyDone chan struct{}
	closeOnce sync.Once
	callMu    sync.Mutex // standalone screens: one reply-draining call at a time
}

// NewScreen returns a blank, standalone screen of size s (a zero or invalid
// dimension is clamped to 1..4096 cells; zero Size means 80x24). It starts
// no goroutine: answers to queries in the output (DA, DSR, CPR), which a
// read-only screen discards, are drained during each Write or Resize call.
// Close is optional for it.
func NewScreen(s Size) *Screen {
	return newScreen(s, nil)
}

// newScreen with a non-nil sink starts a goroutine that hands every reply
// to sink until Close (a Terminal's screen: replies go to the PTY).
func newScreen(s Size, sink func([]byte)) *Screen {
	if s == (Size{}) {
		s = DefaultSize
	}
	s = s.clamp()
	sc := &Screen{size: s, sink: sink, replyDone: make(chan struct{})}
	sc.em = sc.newEmulator(s)
	if sink != nil {
		go sc.drainReplies(sc.em)
	} else {
		close(sc.replyDone)
	}
	return sc
}

// newEmulator returns an x/vt emulator of size sz wired to s's callbacks,
// with a scroll-back of ScrollbackLines lines that grows as lines arrive
// (vt.NewScrollback would preallocate room for 1000 lines).
func (s *Screen) newEmulator(sz Size) *vt.Emulator {
	em := vt.NewEmulator(sz.Cols, sz.Rows)
	freshScrollback(em)
	em.SetCallbacks(vt.Callbacks{
		Title:       func(t string) { s.title = t },
		AltScreen:   func(on bool) { s.modes.AltScreen = on; s.alt.Store(on) },
		EnableMode:  func(m ansi.Mode) { s.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { s.setMode(m, false) },
	})
	return em
}

// freshScrollback empties em's main scroll-back and limits it to
// ScrollbackLines lines, with no storage until lines are pushed.
func freshScrollback(em *vt.Emulator) {
	if sb := em.Scrollback(); sb != nil {
		*sb = vt.Scrollback{}
		sb.SetMaxLines(ScrollbackLines)
	}
}

// discardReplies runs f (which feeds the emulator) with a temporary
// goroutine draining and discarding the emulator's replies, so a
// standalone screen never blocks on them and leaves no goroutine behind.
// The goroutine ends when it reads the NUL sentinel written after f
// (replies never contain NUL) or when the pipe is closed. With thaw, a
// compacted screen gets an emulator back first (f is about to feed it);
// without, f must not need one (a compacted screen has no replies).
func (s *Screen) discardReplies(thaw bool, f func()) {
	if s.sink != nil {
		if thaw {
			s.mu.Lock()
			s.thawLocked()
			s.mu.Unlock()
		}
		f()
		return
	}
	s.callMu.Lock()
	defer s.callMu.Unlock()
	s.mu.Lock()
	if thaw {
		s.thawLocked()
	}
	em := s.em
	s.mu.Unlock()
	if em == nil {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 512)
		for {
			n, err := em.Read(buf)
			if err != nil || (n == 1 && buf[0] == 0) {
				return
			}
		}
	}()
	f()
	_, _ = em.InputPipe().Write([]byte{0})
	<-done
}

// setMode runs inside em.Write (under mu): it only stores flags.
func (s *Screen) setMode(m ansi.Mode, on bool) {
	dm, ok := m.(ansi.DECMode)
	if !ok {
		return
	}
	bit := func(i uint) {
		if on {
			s.mouse |= 1 << i
		} else {
			s.mouse &^= 1 << i
		}
		s.modes.Mouse = s.mouse != 0
		s.modes.Tracking = trackingOf(s.mouse)
	}
	switch dm {
	case ansi.ModeCursorKeys:
		s.modes.CursorKeys = on
	case ansi.ModeBracketedPaste:
		s.modes.BracketedPaste = on
	case ansi.ModeFocusEvent:
		s.modes.Focus = on
	case ansi.ModeMouseExtSgr:
		s.modes.MouseSGR = on
	case ansi.ModeMouseExtSgrPixel:
		s.modes.MouseSGRPixels = on
	case ansi.ModeSynchronizedOutput:
		s.modes.SyncOutput = on
	case ansi.ModeMouseX10:
		bit(0)
	case ansi.ModeMouseNormal:
		bit(1)
	case ansi.ModeMouseButtonEvent:
		bit(2)
	case ansi.ModeMouseAnyEvent:
		bit(3)
	}
}

// drainReplies copies the emulator's replies to the sink. It never takes
// the lock, so em.Write (which writes replies synchronously into an
// unbuffered pipe) cannot block on it for long.
func (s *Screen) drainReplies(em *vt.Emulator) {
	defer close(s.replyDone)
	buf := make([]byte, 4096)
	for {
		n, err := em.Read(buf)
		if n > 0 && s.sink != nil {
			s.sink(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

// Close stops reply handling and ends a Terminal screen's reply goroutine
// (a standalone screen has none). Later Writes still update the screen
// (queries go unanswered); Draw and the getters keep working. Idempotent;
// returns nil.
func (s *Screen) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		if s.em != nil {
			closeReplies(s.em)
		}
		s.mu.Unlock()
		<-s.replyDone
	})
	return nil
}

// closeReplies closes em's reply pipe: replies written later fail at once
// (and are lost), and a reader of them sees EOF. Only the pipe, not the
// emulator: Emulator.Close writes a field that Emulator.Read reads without
// synchronisation.
func closeReplies(em *vt.Emulator) {
	if pw, ok := em.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}

// writeSkipBound is the largest single Write a standalone main screen
// emulates in full; beyond it only the visible tail is (see Write).
const writeSkipBound = 256 << 10

// Write feeds program output to the emulator, at most 1 KiB per lock hold.
// Bytes may be split anywhere (mid-character, mid-sequence). A single
// Write of more than 256 KiB on the main screen is skipped ahead like a
// Terminal's flood: the screen is reset and only the last Rows+1 lines
// (at most 64 KiB) are emulated, with the private modes set by the
// skipped part replayed, so a huge chunk costs milliseconds rather than
// seconds and the visible rows come out the same.
//
// Writing to a compacted screen first rebuilds an emulator from what it
// shows (see Compact).
func (s *Screen) Write(p []byte) {
	s.discardReplies(true, func() {
		if len(p) > writeSkipBound && !s.alt.Load() {
			cut := tailStart(p, s.Size().Rows, skipTail)
			replay := replayModes(scanModes(p[:cut], nil))
			s.reset()
			s.feed(replay)
			p = p[cut:]
		}
		for len(p) > 0 {
			n := min(len(p), feedSlice)
			s.feed(p[:n])
			p = p[n:]
		}
	})
	s.version.Add(1)
}

// feed hands p to the emulator under the lock (one slice of output; an
// emulator is rebuilt first if the screen was compacted).
func (s *Screen) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	s.thawLocked()
	_, _ = s.em.Write(p)
	s.mu.Unlock()
}

// reset clears the screen, its scroll-back (which would otherwise hold
// discontinuous fragments), the pen and the scroll region after output was
// skipped (flood skip-ahead); CAN first aborts any half-parsed sequence.
func (s *Screen) reset() {
	s.mu.Lock()
	s.thawLocked()
	_, _ = s.em.Write([]byte("\x18\x1b[0m\x1b[r\x1b[H\x1b[J"))
	// A fresh scroll-back rather than ED 3: Scrollback.Clear only reslices,
	// keeping up to ScrollbackLines stale line clones reachable.
	freshScrollback(s.em)
	s.mu.Unlock()
	s.version.Add(1)
}

// Resize sets the screen size in cells (clamped to 1..4096). When the
// height shrinks on the main screen the rows at the bottom, with the cursor,
// are kept and the top rows go to scroll-back, as xterm and tmux do
// (x/vt alone keeps the top); when it grows, the newest scroll-back lines
// come back down onto the top rows, as in tmux (x/vt alone adds blank rows
// at the bottom). There is no reflow.
func (s *Screen) Resize(sz Size) {
	sz = sz.clamp()
	s.discardReplies(false, func() { s.resize(sz) }) // in-band resize reports are replies
	s.version.Add(1)
}

func (s *Screen) resize(sz Size) {
	s.mu.Lock()
	if s.em == nil {
		s.resizeFrozen(sz)
	} else if sz != s.size {
		if !s.em.IsAltScreen() && sz.Rows < s.size.Rows {
			if cy := s.em.CursorPosition().Y; cy >= sz.Rows {
				n := strconv.Itoa(cy - sz.Rows + 1)
				_, _ = s.em.Write([]byte("\x1b[" + n + "S\x1b[" + n + "A"))
			}
		}
		grow := sz.Rows - s.size.Rows
		s.em.Resize(sz.Cols, sz.Rows)
		s.size = sz
		if grow > 0 && !s.em.IsAltScreen() {
			s.pullHistoryLocked(grow)
		}
	}
	s.mu.Unlock()
}

// pullHistoryLocked brings up to n of the newest scroll-back lines back onto
// the top of the main screen after it grew by n rows, as tmux and xterm do:
// the rows on screen (and the cursor) move down, the new blank rows at the
// bottom are used up, and the lines leave the scroll-back. So a pane that is
// zoomed shows its history above the last screen instead of blank rows, and
// shrinking it again (which pushes the top rows back) restores both; mu held.
func (s *Screen) pullHistoryLocked(n int) {
	sb := s.em.Scrollback()
	if sb == nil {
		return
	}
	lines := sb.Lines()
	n = min(n, len(lines))
	if n == 0 {
		return
	}
	pulled := lines[len(lines)-n:]
	keep := lines[:len(lines)-n]
	// SD moves every row down n (the bottom n, new and blank, drop off) and
	// keeps the cursor; CUD then follows its row.
	k := strconv.Itoa(n)
	_, _ = s.em.Write([]byte("\x1b[" + k + "T\x1b[" + k + "B"))
	for y, line := range pulled {
		for x := 0; x < len(line) && x < s.size.Cols; x++ {
			if c := line[x]; c.Width > 0 && x+c.Width <= s.size.Cols {
				s.em.SetCell(x, y, &c)
			}
		}
	}
	// x/vt's Scrollback has no way to drop its newest lines: refill a fresh one
	// (the kept lines are already trimmed clones; Push clones them again).
	freshScrollback(s.em)
	nsb := s.em.Scrollback()
	for _, l := range keep {
		nsb.Push(l)
	}
}

// Size returns the screen size in cells.
func (s *Screen) Size() Size {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Draw paints the screen into area of scr, clipped to area: rows and
// columns beyond the screen are blank, and a wide character that would
// cross area's right edge is drawn as a blank. scrollOffset is the number of
// lines scrolled back into history (0 = live view); it is clamped to
// ScrollbackLen and ignored on the alternate screen. Cells are copied by
// scr.SetCell; nothing is allocated per cell.
func (s *Screen) Draw(scr uv.Screen, area uv.Rectangle, scrollOffset int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, h := s.size.Cols, s.size.Rows
	var sb []uv.Line
	switch {
	case s.fz != nil:
		if !s.fz.alt {
			sb = s.fz.sb
		}
	case !s.em.IsAltScreen() && s.em.Scrollback() != nil:
		sb = s.em.Scrollback().Lines()
	}
	sbLen := len(sb)
	off := min(max(scrollOffset, 0), sbLen)
	blank := uv.EmptyCell
	for y := 0; y < area.Dy(); y++ {
		src := y - off
		var line uv.Line
		switch {
		case src < 0:
			line = sb[sbLen+src]
		case s.fz != nil && src < h:
			line = s.fz.rows[src]
		}
		for x := 0; x < area.Dx(); {
			var c *uv.Cell
			switch {
			case src < 0 || s.fz != nil:
				if x < len(line) {
					c = &line[x]
				}
			case src < h && x < w:
				c = s.em.CellAt(x, src)
			}
			if c == nil || c.Width <= 0 || x+c.Width > area.Dx() {
				b := blank
				scr.SetCell(area.Min.X+x, area.Min.Y+y, &b)
				x++
				continue
			}
			scr.SetCell(area.Min.X+x, area.Min.Y+y, c)
			x += c.Width
		}
	}
}

// Cursor returns the cursor position (cells from the screen's top-left) and
// whether the program wants it visible.
func (s *Screen) Cursor() (pos uv.Position, visible bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fz != nil {
		return s.fz.cursor, !s.fz.hidden
	}
	return s.em.CursorPosition(), !s.em.CursorHidden()
}

// Modes returns the modes the program has set.
func (s *Screen) Modes() Modes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modes
}

// Title returns the window title the program set (OSC 0/2), or "".
func (s *Screen) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.title
}

// cellLocked returns the cell at column x, row y of the visible screen (0-based), from the
// emulator or, once compacted, from the frozen copy; nil for a compacted row's trailing blanks.
// s.mu must be held.
func (s *Screen) cellLocked(x, y int) *uv.Cell {
	if s.fz != nil {
		return s.fz.rows[y].At(x)
	}
	return s.em.CellAt(x, y)
}

// ScrollbackLen returns the number of lines in the main screen's
// scroll-back (0 on the alternate screen), at most ScrollbackLines.
func (s *Screen) ScrollbackLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fz != nil {
		if s.fz.alt {
			return 0
		}
		return len(s.fz.sb)
	}
	if s.em.IsAltScreen() || s.em.Scrollback() == nil {
		return 0
	}
	return s.em.Scrollback().Len()
}

// Text returns the visible rows as plain text: one line per row (Rows
// lines), trailing blanks trimmed, joined by "\n".
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, h := s.size.Cols, s.size.Rows
	var b strings.Builder
	var row strings.Builder
	for y := range h {
		row.Reset()
		for x := 0; x < w; x++ {
			c := s.cellLocked(x, y)
			switch {
			case c == nil:
				row.WriteByte(' ')
			case c.Width == 0:
			case c.Content == "":
				row.WriteByte(' ')
			default:
				row.WriteString(c.Content)
			}
		}
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
	}
	return b.String()
}

// Version returns a counter that increases on every change to the screen
// (output fed, resize), for dirty tracking.
func (s *Screen) Version() uint64 { return s.version.Load() }

// sendMouse forwards a mouse event if the program enabled mouse tracking;
// the encoded bytes come out as a reply (to the sink).
func (s *Screen) sendMouse(m uv.MouseEvent) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.modes.Mouse || s.em == nil { // compacted: nobody left to read it
		return false
	}
	s.em.SendMouse(m)
	return true
}

// History returns what the screen holds, oldest first, as cell lines: the main screen's
// scroll-back lines followed by the visible rows (on the alternate screen, only its rows; its
// scroll-back is the program's and hidden). Trailing blank cells are left out of each line; a
// wide cell is followed by its zero-width placeholder. The lines are a snapshot: later output
// never changes them (scroll-back lines are never modified in place; the rows are copied).
func (s *Screen) History() []uv.Line {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fz != nil {
		out := make([]uv.Line, 0, len(s.fz.sb)+len(s.fz.rows))
		if !s.fz.alt {
			out = append(out, s.fz.sb...)
		}
		return append(out, s.fz.rows...)
	}
	var sb []uv.Line
	if !s.em.IsAltScreen() && s.em.Scrollback() != nil {
		sb = s.em.Scrollback().Lines()
	}
	w, h := s.em.Width(), s.em.Height()
	out := make([]uv.Line, 0, len(sb)+h)
	out = append(out, sb...)
	for y := range h {
		last := -1
		for x := w - 1; x >= 0; x-- {
			if c := s.em.CellAt(x, y); c != nil && !isBlank(c) {
				last = x
				break
			}
		}
		var row uv.Line
		if last >= 0 {
			row = make(uv.Line, last+1)
			for x := range row {
				if c := s.em.CellAt(x, y); c != nil {
					row[x] = *c
				}
			}
		}
		out = append(out, row)
	}
	return out
}
