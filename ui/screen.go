package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// screen is acpterm's renderer: it owns the user's terminal while the program runs and writes
// each frame the moment Update built it, diffed against what is on the terminal (ultraviolet's
// TerminalRenderer, the same cell differ Bubble Tea's own renderer uses).
//
// Why not Bubble Tea's renderer: it flushes on a fixed ticker (tea.WithFPS), so a frame waits
// up to 1/fps for the next tick (≈8 ms on average at 60 fps, most of acpterm's key-to-screen
// latency in a focused pane) and the ticker wakes the process 60 times a second even when
// nothing changed (most of its idle CPU). The program therefore runs with tea.WithoutRenderer
// and a 1 frame/s ticker that has nothing to flush; frames are already coalesced to about one
// per frameInterval by redrawLoop, and nothing is written when nothing changed.
//
// What it sets up on start and undoes on close, around an external program ($PAGER) and
// around a suspension (ctrl+z): raw mode on the input tty, the alternate screen, a hidden
// cursor (shown where the frame puts it), bracketed paste, mouse cell motion with SGR encoding,
// modifyOtherKeys 2 and the kitty keyboard protocol (flags 1: disambiguate), the window title
// (the user's is pushed on the terminal's title stack and popped back). It queries synchronized
// output (mode 2026) and uses it when the terminal reports it. All methods run on Bubble Tea's
// event loop goroutine (Update, and p.exec for the pager) or after the program ended; none
// blocks except on the terminal write itself.
type screen struct {
	ctx     context.Context // the program's; ending it stops a running pager
	out     io.Writer
	env     []string
	inFd    uintptr
	inTTY   bool // the input is a terminal: raw mode is ours to set and restore
	outFd   uintptr
	outTTY  bool
	noInput bool // no input stream: keyboard protocol changes would leak query answers
	noMouse bool // [ui] mouse = false: the mouse stays the terminal's (no tracking modes)

	saved      *term.State // termios of the input before raw mode; nil when not in raw mode
	r          *uv.TerminalRenderer
	pending    bytes.Buffer // what r renders, wrapped before it is written
	cells      uv.ScreenBuffer
	width      int
	height     int
	profile    colorprofile.Profile
	syncd      bool // the terminal supports synchronized output (mode 2026)
	active     bool // started and not closed or suspended
	shown      *tea.Cursor
	title      string
	titleSaved bool  // the user's window title was pushed (start) and is popped by stop
	err        error // first write error; nothing more is written after it
}

// XTWINOPS: save the window title on the terminal's title stack, and restore it.
const (
	pushTitle = "\x1b[22;2t"
	popTitle  = "\x1b[23;2t"
)

// newScreen prepares a screen for in/out (nil in: no input). env is the program's environment
// (TERM selects the renderer's capabilities; colour is detected from out and env).
func newScreen(in io.Reader, out io.Writer, env []string) *screen {
	s := &screen{ctx: context.Background(), out: out, env: env, noInput: in == nil, profile: colorprofile.Detect(out, env)}
	if f, ok := in.(term.File); ok && term.IsTerminal(f.Fd()) {
		s.inFd, s.inTTY = f.Fd(), true
	}
	if f, ok := out.(term.File); ok && term.IsTerminal(f.Fd()) {
		s.outFd, s.outTTY = f.Fd(), true
	}
	if s.outTTY {
		if w, h, err := term.GetSize(s.outFd); err == nil {
			s.width, s.height = w, h
		}
	}
	return s
}

// size returns the terminal's size in cells, or 0, 0 when out is not a terminal.
func (s *screen) size() (int, int) {
	if !s.outTTY {
		return 0, 0
	}
	w, h, err := term.GetSize(s.outFd)
	if err != nil {
		return 0, 0
	}
	return w, h
}

// write sends b to the terminal; after the first error it writes nothing more.
func (s *screen) write(b []byte) {
	if s.err != nil || len(b) == 0 {
		return
	}
	if _, err := s.out.Write(b); err != nil {
		s.err = err
	}
}

// newRenderer returns a cell differ that assumes nothing about the screen (the first frame is
// drawn whole).
func (s *screen) newRenderer() {
	s.pending.Reset()
	r := uv.NewTerminalRenderer(&s.pending, s.env)
	r.SetColorProfile(s.profile)
	r.SetTabStops(-1)
	r.SetBackspace(false)
	// In raw mode the tty does not map \n to \r\n; on a pipe (tests) it is taken as if it did.
	r.SetMapNewline(!s.inTTY)
	// The scroll optimisation (moving rows with the terminal's scrolling instead of repainting
	// them) is set per frame by draw: hashing the changed rows costs about a sixth of a frame
	// (BenchmarkFrame), and with panes beside the conversation whole-width rows rarely move
	// together, so it is only worth it when many rows changed (the conversation scrolled).
	r.SetScrollOptim(false)
	r.SetFullscreen(true)
	r.SetRelativeCursor(false)
	if s.width > 0 && s.height > 0 {
		r.Resize(s.width, s.height)
	}
	r.Erase()
	s.r = r
	s.shown = nil
}

// start enters raw mode and the alternate screen and enables the input modes. queries are
// terminal queries to send with it (their answers arrive as messages through Bubble Tea's input
// reader). It returns an error only when raw mode cannot be entered.
func (s *screen) start(queries ...string) error {
	if s.inTTY && s.saved == nil {
		st, err := term.MakeRaw(s.inFd)
		if err != nil {
			return fmt.Errorf("entering raw mode on the terminal: %w", err)
		}
		s.saved = st
	}
	s.newRenderer()
	var b bytes.Buffer
	if !s.titleSaved {
		b.WriteString(pushTitle) // the user's title comes back on close (XTWINOPS 22/23)
		s.titleSaved = true
	}
	b.WriteString(ansi.SetModeAltScreenSaveCursor)
	b.WriteString(ansi.ResetModeTextCursorEnable)
	b.WriteString(ansi.SetModeBracketedPaste)
	if !s.noMouse {
		b.WriteString(ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr)
	}
	if !s.noInput {
		b.WriteString(ansi.SetModifyOtherKeys2)
		b.WriteString(ansi.PushKittyKeyboard(1))
	}
	if s.title != "" {
		b.WriteString(ansi.SetWindowTitle(s.title))
	}
	if !s.noInput {
		for _, q := range queries {
			b.WriteString(q)
		}
	}
	s.write(b.Bytes())
	s.active = true
	return nil
}

// stop undoes start: modes off, cursor shown, main screen back, the user's window title popped,
// termios restored. With final our title is also cleared first (for terminals without a title
// stack).
func (s *screen) stop(final bool) {
	if s.active {
		s.active = false
		var b bytes.Buffer
		if !s.noInput {
			b.WriteString(ansi.ResetModifyOtherKeys)
			b.WriteString(ansi.PopKittyKeyboard(1))
		}
		b.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
		b.WriteString(ansi.ResetModeBracketedPaste)
		if s.syncd {
			b.WriteString(ansi.ResetModeSynchronizedOutput)
		}
		// The alternate screen is emptied before it is left: a terminal resized while it was
		// shown may carry some of its rows over into the main screen when restoring it (tmux
		// 3.3a keeps the rows below the old height, after a grow from 80×24 to 120×36, above the
		// shell's lines). Blank rows carry nothing; the shell's screen comes back as it was.
		b.WriteString(ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen)
		b.WriteString(ansi.SetModeTextCursorEnable)
		b.WriteString(ansi.ResetModeAltScreenSaveCursor)
		if s.titleSaved {
			// The user's title back, also while suspended or in the pager (start pushes again).
			if final && s.title != "" {
				b.WriteString(ansi.SetWindowTitle("")) // where the title stack is not supported
			}
			b.WriteString(popTitle)
			s.titleSaved = false
		}
		s.write(b.Bytes())
	}
	if s.saved != nil {
		_ = term.Restore(s.inFd, s.saved)
		s.saved = nil
	}
}

// close restores the user's terminal for good (idempotent).
func (s *screen) close() { s.stop(true) }

// suspend gives the terminal to another program (the pager); resume takes it back and makes the
// next frame repaint the whole screen.
func (s *screen) suspend() { s.stop(false) }

func (s *screen) resume() error { return s.start() }

// setSize records a new terminal size (cells); the next frame repaints the whole screen.
func (s *screen) setSize(w, h int) {
	if w == s.width && h == s.height {
		return
	}
	s.width, s.height = w, h
	if s.r != nil {
		s.r.Resize(w, h)
		s.r.Erase()
	}
}

// setProfile sets the colour profile frames are downsampled to (Bubble Tea's detection).
func (s *screen) setProfile(p colorprofile.Profile) {
	s.profile = p
	if s.r != nil {
		s.r.SetColorProfile(p)
		s.r.Erase()
	}
}

// setTitle sets the window title (OSC 2), written at once when it changed.
func (s *screen) setTitle(t string) {
	if t == s.title {
		return
	}
	s.title = t
	if s.active {
		s.write([]byte(ansi.SetWindowTitle(t)))
	}
}

// writeNotice writes a notification (BEL, OSC 9, OSC 777: notify.go) at once; nothing while
// the terminal is given to another program or suspended.
func (s *screen) writeNotice(seq string) {
	if s.active {
		s.write([]byte(seq))
	}
}

// draw shows src (a whole frame, drawn from cell (0,0)) with the cursor at cur (nil: hidden),
// writing only the cells that differ from what the terminal shows, in one write.
func (s *screen) draw(src uv.Drawable, cur *tea.Cursor) {
	if !s.active || s.width <= 0 || s.height <= 0 {
		return
	}
	if s.cells.RenderBuffer == nil {
		s.cells = uv.NewScreenBuffer(s.width, s.height)
	} else if s.cells.Width() != s.width || s.cells.Height() != s.height {
		s.cells.Resize(s.width, s.height)
		s.cells.Clear()
	}
	if cv, ok := src.(*lipgloss.Canvas); ok && cv.Width() == s.width && cv.Height() == s.height {
		s.copyChangedRows(cv)
	} else {
		src.Draw(s.cells, s.cells.Bounds())
	}
	// A frame that changed many rows has probably scrolled them: let the renderer look for rows
	// that moved (ultraviolet repaints every row of a moved range that differs, so a wrong
	// guess costs bytes, not cells).
	s.r.SetScrollOptim(s.cells.TouchedLines() >= scrollOptimRows)
	s.r.Render(s.cells.RenderBuffer)
	if cur != nil {
		s.r.MoveTo(cur.X, cur.Y)
	}
	_ = s.r.Flush() // into s.pending; cannot fail

	hasUpdates := s.pending.Len() > 0
	wasShown := s.shown != nil
	show := cur != nil
	moved := show && wasShown && (cur.X != s.shown.X || cur.Y != s.shown.Y)
	if !hasUpdates && show == wasShown && !moved {
		return
	}
	var b bytes.Buffer
	if s.syncd && hasUpdates {
		b.WriteString(ansi.SetModeSynchronizedOutput)
	}
	// Hide the cursor while cells are painted so it does not flicker across the screen.
	if wasShown && (hasUpdates || !show) {
		b.WriteString(ansi.ResetModeTextCursorEnable)
	}
	b.Write(s.pending.Bytes())
	s.pending.Reset()
	if show && (hasUpdates || !wasShown || moved) {
		b.WriteString(ansi.SetModeTextCursorEnable)
	}
	if s.syncd && hasUpdates {
		b.WriteString(ansi.ResetModeSynchronizedOutput)
	}
	s.write(b.Bytes())
	if show {
		c := *cur
		s.shown = &c
	} else {
		s.shown = nil
	}
}

// scrollOptimRows is how many changed rows make a frame look for moved rows (draw; tests
// raise it to compare with the frame that repaints them).
var scrollOptimRows = 8

// copyChangedRows gives s.cells the cells of cv (of the same size) as cv.Draw would, skipping
// the rows whose cells are all equal already: most rows of a frame are the rows of the last one,
// and comparing cells as values is much cheaper than setting them one by one (which compares
// their styles colour by colour to track what changed).
func (s *screen) copyChangedRows(cv *lipgloss.Canvas) {
	for y := 0; y < s.height; y++ {
		if sameRow(cv, &s.cells, y, s.width) {
			continue
		}
		// As uv.Buffer.Draw, for this row.
		for x := 0; x < s.width; {
			c := cv.CellAt(x, y)
			if c == nil || c.IsZero() {
				x++
				continue
			}
			s.cells.SetCell(x, y, c)
			x += max(c.Width, 1)
		}
	}
}

// sameRow reports whether row y of cv and of b hold equal cells (as values) in columns
// [0, width). Colours whose type cannot be compared as values (none of x/ansi's or image/color's)
// make it report false.
func sameRow(cv *lipgloss.Canvas, b *uv.ScreenBuffer, y, width int) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	if c, p := canvasRow(cv, y), b.Line(y); len(c) >= width && len(p) >= width {
		c, p = c[:width], p[:width]
		if sameBytes(c, p) {
			return true
		}
		for x := range c {
			if c[x] != p[x] {
				return false
			}
		}
		return true
	}
	for x := 0; x < width; x++ {
		c, p := cv.CellAt(x, y), b.CellAt(x, y)
		if c == nil || p == nil || *c != *p {
			return false
		}
	}
	return true
}

// sameBytes reports whether the cells of a and b (of the same length) are the same bytes: a row
// copied from the same cached cells as before (most rows of a frame) holds the same string and
// colour pointers, and comparing its memory is several times cheaper than comparing its cells
// field by field. Equal cells built apart differ in their pointers: false tells nothing then.
func sameBytes(a, b uv.Line) bool {
	n := len(a) * int(unsafe.Sizeof(uv.Cell{}))
	return string(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n))
}

// pagerRunning is set while an external program ($PAGER) has the terminal (screenExec.Run);
// pagerEnded is when it last gave it back (UnixNano).
var (
	pagerRunning atomic.Bool
	pagerEnded   atomic.Int64
)

// pagerGrace is how long after the pager ended a signal still counts as typed into it: the tty
// sends ctrl+c's SIGINT to the pager and to acpterm at once, and the pager may exit and be
// waited for before acpterm's signal handler has looked at its copy.
const pagerGrace = 500 * time.Millisecond

// PagerRunning reports whether acpterm has handed the terminal to $PAGER (or got it back less
// than half a second ago). The pager runs in acpterm's process group on a cooked tty, so a
// SIGINT or SIGQUIT that arrives meanwhile was typed into the pager (ctrl+c, ctrl+\) and is the
// pager's business: the caller's signal handling should ignore it, as system(3) does.
func PagerRunning() bool {
	return pagerRunning.Load() || time.Since(time.Unix(0, pagerEnded.Load())) < pagerGrace
}

// jobControl reports whether a shell with job control can resume acpterm after SIGTSTP, that
// is, whether acpterm's process group is not orphaned: the first ancestor outside the group is
// in the same session (the shell that started the job). Started as `tmux new-window acpterm`,
// `exec acpterm` or `ssh -t host acpterm` it is not: the kernel discards SIGTSTP then, and a
// suspended acpterm would wait for a SIGCONT nobody sends. Linux /proc; false when unreadable.
func jobControl() bool {
	self, ok := procStat(os.Getpid())
	if !ok {
		return false
	}
	pid := self.ppid
	for i := 0; i < 64 && pid > 1; i++ {
		st, ok := procStat(pid)
		if !ok {
			return false
		}
		if st.pgrp != self.pgrp {
			return st.sid == self.sid
		}
		pid = st.ppid
	}
	return false
}

// signalTree sends sig to pid and to every descendant of it (Linux /proc children lists), the
// descendants first: a wrapper script's own children do not get its signals.
func signalTree(pid int, sig syscall.Signal) {
	tree := descendants(pid, nil)
	for i := len(tree) - 1; i >= 0; i-- {
		_ = syscall.Kill(tree[i], sig)
	}
	_ = syscall.Kill(pid, sig)
}

// descendants appends pid's descendants to acc, parents before their children (at most 256),
// from a scan of /proc (the per-task children lists need CONFIG_PROC_CHILDREN, often absent).
func descendants(pid int, acc []int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return acc
	}
	kids := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := procStat(p); ok {
			kids[st.ppid] = append(kids[st.ppid], p)
		}
	}
	queue := []int{pid}
	for len(queue) > 0 && len(acc) < 256 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range kids[p] {
			if !slices.Contains(acc, c) {
				acc = append(acc, c)
				queue = append(queue, c)
			}
		}
	}
	return acc
}

type pstat struct{ ppid, pgrp, sid int }

// procStat reads a process's parent, process group and session from /proc/PID/stat.
func procStat(pid int) (pstat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return pstat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return pstat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 5 {
		return pstat{}, false
	}
	var st pstat
	var err1, err2, err3 error
	st.ppid, err1 = strconv.Atoi(f[1])
	st.pgrp, err2 = strconv.Atoi(f[2])
	st.sid, err3 = strconv.Atoi(f[3])
	return st, err1 == nil && err2 == nil && err3 == nil
}

// screenExec runs an external program (the pager) on the user's terminal: the screen is
// suspended around it. It implements tea.ExecCommand (Bubble Tea stops its input reader
// before Run and restarts it after).
type screenExec struct {
	*exec.Cmd
	scr *screen
}

// pagerGraceKill is how long a pager told to stop (SIGTERM) has before SIGKILL.
const pagerGraceKill = 2 * time.Second

// Run suspends the screen, runs the command and takes the terminal back. When the screen's
// context ends meanwhile (acpterm is told to stop), the command and every process it started
// (a PAGER script's less) get SIGTERM, and SIGKILL pagerGraceKill later if still there: none
// may keep reading the terminal after acpterm is gone.
func (c *screenExec) Run() error {
	c.scr.suspend()
	pagerRunning.Store(true)
	err := c.Cmd.Start()
	if err == nil {
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			select {
			case <-c.scr.ctx.Done():
			case <-done:
				return
			}
			pid := c.Process.Pid
			signalTree(pid, syscall.SIGTERM)
			select {
			case <-time.After(pagerGraceKill):
				signalTree(pid, syscall.SIGKILL)
			case <-done:
			}
		}()
		err = c.Cmd.Wait()
		close(done)
		<-stopped
	}
	pagerEnded.Store(time.Now().UnixNano())
	pagerRunning.Store(false)
	if rerr := c.scr.resume(); err == nil {
		err = rerr
	}
	return err
}

// SetStdin, SetStdout and SetStderr give the command the program's streams unless it has its own.
func (c *screenExec) SetStdin(r io.Reader) {
	if c.Stdin == nil {
		c.Stdin = r
	}
}

func (c *screenExec) SetStdout(w io.Writer) {
	if c.Stdout == nil {
		c.Stdout = w
	}
}

func (c *screenExec) SetStderr(w io.Writer) {
	if c.Stderr == nil {
		c.Stderr = w
	}
}

// execCmd returns the command that runs cmd on the terminal, then delivers done's message.
func (m *Model) execCmd(cmd *exec.Cmd, done tea.ExecCallback) tea.Cmd {
	if m.scr == nil {
		return tea.ExecProcess(cmd, done)
	}
	return tea.Exec(&screenExec{Cmd: cmd, scr: m.scr}, done)
}
