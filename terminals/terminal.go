package terminals

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpterm/acpterm/sandbox"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// Flood handling: the emulator (about 1–2 MB/s for a 200x50 screen) may
// fall far behind the PTY (about 60 MB/s). Output waiting for the emulator
// is kept in a backlog; when the backlog passes backlogBound on the main
// screen, everything but the last skipTail bytes (cut at a line start) is
// dropped and the screen is reset before the tail is fed: the final visible
// rows still match what a full emulation shows, and the child is never
// slowed down by the emulator (only by SetBackground's flow control, which
// the UI asks for). On the alternate screen the backlog is not skipped until it
// reaches altBacklogBound (memory bound).
const (
	backlogBound    = 1 << 20
	skipTail        = 64 << 10
	altBacklogBound = 16 << 20
	feedTake        = 64 << 10 // bytes taken from the backlog per feeder round
	maxInputQueue   = 1 << 20  // bytes of input waiting for the program
	readMax         = 32 << 10 // largest PTY read buffer (it starts at 4 KiB)
)

// StartOptions describe the command a terminal runs.
type StartOptions struct {
	Argv        []string      // program and arguments (exec form); or:
	ShellLine   string        // run as /bin/sh -c ShellLine (exactly one of Argv/ShellLine)
	Dir         string        // absolute working directory
	Env         []string      // the whole environment, "K=V" (TERM=xterm-256color is forced)
	Size        Size          // initial PTY and screen size in cells; zero → Manager.DefaultSize (80x24 unless set)
	OutputLimit int           // transcript bytes kept for the agent; <= 0 → DefaultOutputLimit (1 MiB)
	KillGrace   time.Duration // SIGTERM→SIGKILL grace; 0 → manager default (2 s)
	Label       string        // display title (the command as the user should read it)
}

// Output is a terminal's agent-facing state: what ACP terminal/output returns.
type Output struct {
	Text      string      // plain text (see Transcript): no escapes, \n line ends, CR/BS applied, valid UTF-8
	Truncated bool        // something was dropped from the start
	Exit      *ExitStatus // nil until the terminal has exited (and its output is drained)
}

// Terminal is one command running in a PTY, with its screen and
// transcript. Create it with Manager.Start. All methods are safe for
// concurrent use.
type Terminal struct {
	m       *Manager
	id      string
	label   string
	dir     string
	started time.Time
	marker  string
	grace   time.Duration

	pid int
	sb  *sandbox.Process // nil: not sandboxed
	// spec is the sandbox spec the command runs under (nil: not sandboxed).
	spec *sandbox.Spec
	// denial is what the command's output says the sandbox refused (Spec.Denial), set at exit.
	denial atomic.Pointer[string]
	// netStop stops serving the sandbox's proxy listener (ManagerOptions.Network); nil: none.
	netStop func()
	ptmx    *os.File
	ptMu    sync.RWMutex // excludes ioctls on ptmx while it is being closed
	tr      *Transcript
	scr     *Screen

	// input → single writer goroutine
	inMu     sync.Mutex
	inQ      [][]byte
	inBytes  int
	inClosed bool
	inWake   chan struct{}

	background atomic.Bool // read at most backgroundRate (SetBackground)

	// output backlog → feeder goroutine
	blMu     sync.Mutex
	backlog  []byte
	skip     bool // reset the screen before feeding the backlog
	blEOF    bool // the reader has finished
	blWake   chan struct{}
	skipped  atomic.Int64 // bytes never shown because of skip-ahead
	lastSkip time.Time    // when the backlog last overflowed (flood mode); blMu
	inflight int          // bytes taken from the backlog that the feeder is still handing to the screen; blMu
	modeLog  []modeSet    // private modes set by skipped output, to replay; blMu

	leaderDone chan struct{} // leader reaped (sandboxed: the command's exit reported)
	// helperReaped is closed once the sandbox helper is reaped (nil when not sandboxed).
	helperReaped chan struct{}
	drained      chan struct{} // output written before exit has been read
	drainOnce    sync.Once
	readerDone   chan struct{}
	feederDone   chan struct{}
	writerDone   chan struct{}
	done         chan struct{} // exit reported
	exit         atomic.Pointer[ExitStatus]

	killMu      sync.Mutex
	releaseOnce sync.Once
	released    atomic.Bool
	releasedCh  chan struct{}
}

// start spawns the command; called by Manager.Start.
func start(m *Manager, id string, o StartOptions) (*Terminal, error) {
	argv, err := commandLine(o)
	if err != nil {
		return nil, err
	}
	if o.Dir == "" || !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("terminals: start %q: working directory %q is not absolute", argv[0], o.Dir)
	}
	if fi, err := os.Stat(o.Dir); err != nil {
		return nil, fmt.Errorf("terminals: start %q: working directory: %w", argv[0], err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("terminals: start %q: working directory %q is not a directory", argv[0], o.Dir)
	}
	if o.Size == (Size{}) {
		o.Size = m.DefaultSize()
	}
	size, err := o.Size.normalize()
	if err != nil {
		return nil, err
	}
	path, err := lookPath(argv[0], o.Env, o.Dir)
	if err != nil {
		return nil, fmt.Errorf("terminals: start %q: %w", argv[0], err)
	}
	grace := o.KillGrace
	if grace <= 0 {
		grace = m.grace
	}
	t := &Terminal{
		m: m, id: id, label: o.Label, dir: o.Dir, grace: grace,
		marker:     m.nonce + ":" + id,
		tr:         NewTranscript(o.OutputLimit),
		inWake:     make(chan struct{}, 1),
		blWake:     make(chan struct{}, 1),
		leaderDone: make(chan struct{}),
		drained:    make(chan struct{}),
		readerDone: make(chan struct{}),
		feederDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		done:       make(chan struct{}),
		releasedCh: make(chan struct{}),
	}
	if t.label == "" {
		t.label = strings.Join(argv, " ")
	}
	env := make([]string, 0, len(o.Env)+2)
	for _, kv := range o.Env {
		if strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, markerVar+"=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TERM=xterm-256color", markerVar+"="+t.marker)

	ptmx, tty, err := openPTY()
	if err != nil {
		return nil, fmt.Errorf("terminals: start %q: open pty: %w", argv[0], err)
	}
	t.ptmx = ptmx
	if err := t.setsize(size); err != nil {
		_ = ptmx.Close()
		_ = tty.Close()
		return nil, fmt.Errorf("terminals: start %q: set pty size: %w", argv[0], err)
	}
	cmd := &exec.Cmd{
		Path: path, Args: argv, Dir: o.Dir, Env: env,
		Stdin: tty, Stdout: tty, Stderr: tty,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	}
	if m.o.Sandbox != nil {
		spec := *m.o.Sandbox
		spec.TTY = tty.Name()
		t.spec = &spec
		t.helperReaped = make(chan struct{})
		t.sb, err = sandbox.Start(&spec, cmd)
	} else {
		err = cmd.Start()
	}
	_ = tty.Close()
	if err != nil {
		_ = ptmx.Close()
		return nil, fmt.Errorf("terminals: start %q: %w", argv[0], err)
	}
	if t.sb != nil {
		if ln := t.sb.Listener(); ln != nil {
			if m.o.Network != nil {
				t.netStop = m.o.Network(id, t.label, ln)
			} else {
				_ = ln.Close() // no proxy to serve it: no way out
			}
		}
	}
	t.pid = cmd.Process.Pid
	t.started = time.Now()
	t.scr = newScreen(size, t.reply)

	go t.reader()
	go t.feeder()
	go t.writer()
	go t.waiter(cmd) // the only user of cmd: not kept once the leader is reaped
	return t, nil
}

// commandLine validates the Argv/ShellLine choice and returns the argv.
func commandLine(o StartOptions) ([]string, error) {
	switch {
	case len(o.Argv) > 0 && o.ShellLine != "":
		return nil, errors.New("terminals: start: both Argv and ShellLine given (exactly one is allowed)")
	case o.ShellLine != "":
		return []string{"/bin/sh", "-c", o.ShellLine}, nil
	case len(o.Argv) == 0 || o.Argv[0] == "":
		return nil, errors.New("terminals: start: no command (Argv and ShellLine are empty)")
	}
	for _, a := range o.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("terminals: start %q: argument contains a NUL byte", o.Argv[0])
		}
	}
	return append([]string(nil), o.Argv...), nil
}

// lookPath resolves name like a shell would, but on the PATH of the child's
// environment env (not acpterm's own); relative paths are taken from dir.
func lookPath(name string, env []string, dir string) (string, error) {
	check := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", p)
		}
		return nil
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := check(p); err != nil {
			return "", err
		}
		return p, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	if pathEnv == "" {
		pathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); check(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("executable file not found in PATH %q", pathEnv)
}

// openPTY opens a PTY pair and returns the master as a pollable,
// non-blocking file (so reads honour deadlines and Close unblocks them;
// creack/pty's helpers call Fd(), which switches a file to blocking mode).
func openPTY() (*os.File, *os.File, error) {
	p, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fd, err := unix.FcntlInt(p.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = p.Close()
	if err != nil {
		_ = tty.Close()
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		_ = tty.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), tty, nil
}

// setsize sets the PTY window size (the kernel sends SIGWINCH).
func (t *Terminal) setsize(s Size) error {
	t.ptMu.RLock()
	defer t.ptMu.RUnlock()
	rc, err := t.ptmx.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	err = rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(s.Rows), Col: uint16(s.Cols)})
	})
	if err != nil {
		return err
	}
	return ierr
}

// reader drains the PTY whatever the screen does: transcript first, then
// the emulator backlog.
func (t *Terminal) reader() {
	defer func() {
		t.blMu.Lock()
		t.blEOF = true
		t.blMu.Unlock()
		t.drainOnce.Do(func() { close(t.drained) })
		close(t.readerDone)
		wake(t.blWake)
	}()
	buf := make([]byte, 4<<10) // doubles (to readMax) while reads fill it
	var pace pacer
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.consume(buf[:n])
			if t.background.Load() {
				rate := t.m.o.BackgroundRate
				pace.take(n, rate, rate/16)
			} else {
				pace.reset()
			}
			if n == len(buf) && n < readMax {
				buf = make([]byte, 2*n) // consume copied the bytes
			}
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The leader is gone but something still holds the PTY: take what
			// is buffered now, report the drain, and keep reading.
			_ = t.ptmx.SetReadDeadline(time.Time{})
			t.drainNow(buf)
			t.drainOnce.Do(func() { close(t.drained) })
			continue
		}
		return // EIO: every holder of the slave closed it; or ptmx closed
	}
}

// drainNow reads what the PTY has buffered without blocking (bounded, in
// case a background process keeps writing).
func (t *Terminal) drainNow(buf []byte) {
	rc, err := t.ptmx.SyscallConn()
	if err != nil {
		return
	}
	for total := 0; total < 4<<20; {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = unix.Read(int(fd), buf)
			return true
		}); err != nil {
			return
		}
		if n <= 0 || rerr != nil {
			return
		}
		t.consume(buf[:n])
		total += n
	}
}

// consume records bytes read from the PTY.
func (t *Terminal) consume(p []byte) {
	_, _ = t.tr.Write(p)
	t.blMu.Lock()
	t.backlog = append(t.backlog, p...)
	bound := backlogBound
	if t.scr.alt.Load() {
		bound = altBacklogBound
	}
	if len(t.backlog) > bound {
		t.skipAhead()
	}
	t.blMu.Unlock()
	wake(t.blWake)
}

// skipAhead keeps only the last skipTail bytes of the backlog, starting at a
// line start when there is one; blMu held.
func (t *Terminal) skipAhead() {
	if len(t.backlog) <= skipTail {
		return
	}
	cut := len(t.backlog) - skipTail
	if i := bytes.IndexByte(t.backlog[cut:], '\n'); i >= 0 && cut+i+1 < len(t.backlog) {
		cut += i + 1
	} else {
		for cut < len(t.backlog) && t.backlog[cut]&0xC0 == 0x80 {
			cut++
		}
	}
	t.cutBacklog(cut)
	t.lastSkip = time.Now()
}

// cutBacklog drops the first cut bytes of the backlog, remembering the
// private modes they set (to replay after the reset); blMu held.
func (t *Terminal) cutBacklog(cut int) {
	if cut <= 0 {
		return
	}
	t.modeLog = scanModes(t.backlog[:cut], t.modeLog)
	t.skipped.Add(int64(cut))
	t.backlog = append(t.backlog[:0], t.backlog[cut:]...)
	t.skip = true
}

// screenTail returns where the last rows+1 lines of the backlog begin (0
// when there are fewer), but keeps no more than maxTail bytes (then cut at
// a character boundary); blMu held. Fed after a screen reset, these lines
// rebuild the visible rows of streaming output exactly.
func (t *Terminal) screenTail(rows, maxTail int) int { return tailStart(t.backlog, rows, maxTail) }

// tailStart is screenTail for any byte slice.
func tailStart(b []byte, rows, maxTail int) int {
	end := len(b)
	cut := 0
	for range rows + 1 {
		i := bytes.LastIndexByte(b[:end], '\n')
		if i < 0 {
			end = -1
			break
		}
		end = i
	}
	if end >= 0 {
		cut = end + 1
	}
	if min := len(b) - maxTail; cut < min {
		cut = min
		for cut < len(b) && b[cut]&0xC0 == 0x80 {
			cut++
		}
	}
	return cut
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// floodFrame is how often the screen is rebuilt while the output floods
// (flood mode lasts floodHold after the backlog last overflowed).
const (
	finalHistory = 200       // lines of scroll-back rebuilt when a flood ends
	floodEnter   = 256 << 10 // backlog bytes that start flood mode
	floodRefresh = 16 << 10  // bytes skipped in one frame that keep flood mode on
	floodFrame   = 100 * time.Millisecond
	floodHold    = 500 * time.Millisecond
)

// feeder hands the backlog to the screen in small slices. In flood mode it
// only rebuilds the visible rows from the newest output once per
// floodFrame, so the emulator's cost stays small and the reader (and the
// child) run at full speed.
//
// When the output has ended (the PTY's EOF) it frees the backlog, trims the
// transcript's storage and compacts the screen: a finished terminal keeps
// only what it shows and what Output returns.
func (t *Terminal) feeder() {
	defer close(t.feederDone)
	defer func() {
		t.blMu.Lock()
		t.backlog, t.modeLog = nil, nil // capacity left by a flood
		t.blMu.Unlock()
		t.tr.shrink()
		t.scr.compact()
	}()
	var chunk []byte // grows to at most feedTake
	frame := time.NewTimer(0)
	defer frame.Stop()
	for {
		t.blMu.Lock()
		for len(t.backlog) == 0 && !t.blEOF {
			t.blMu.Unlock()
			<-t.blWake
			t.blMu.Lock()
		}
		if len(t.backlog) == 0 {
			t.blMu.Unlock()
			return
		}
		alt := t.scr.alt.Load()
		if !alt && len(t.backlog) > floodEnter {
			t.lastSkip = time.Now() // the screen is falling behind: flood mode
		}
		if !alt && !t.blEOF && time.Since(t.lastSkip) < floodHold {
			// Flood mode: wait for the next frame, then show only the newest rows.
			t.blMu.Unlock()
			select {
			case <-frame.C:
			case <-t.readerDone:
			}
			frame.Reset(floodFrame)
			t.blMu.Lock()
			rows := t.scr.Size().Rows
			if t.blEOF {
				rows += finalHistory // the flood is over: rebuild some history too
			}
			cut := t.screenTail(rows, skipTail)
			if cut >= floodRefresh {
				t.lastSkip = time.Now() // still flooding
			}
			t.cutBacklog(cut)
		} else if t.blEOF && !alt && len(t.backlog) > skipTail {
			// Nothing more will come: show the end of a long backlog, with
			// some lines of scroll-back above it.
			t.cutBacklog(t.screenTail(t.scr.Size().Rows+finalHistory, skipTail))
		}
		n := min(len(t.backlog), feedTake)
		chunk = append(chunk[:0], t.backlog[:n]...)
		rest := copy(t.backlog, t.backlog[n:])
		t.backlog = t.backlog[:rest]
		t.inflight = n
		skip := t.skip
		t.skip = false
		replay := replayModes(t.modeLog)
		t.modeLog = t.modeLog[:0]
		t.blMu.Unlock()

		if skip {
			t.scr.reset()
			t.scr.feed(replay) // modes (alt screen, DECCKM, paste, mouse) the skipped output set
		}
		for p := chunk; len(p) > 0; {
			k := min(len(p), feedSlice)
			t.scr.feed(p[:k])
			p = p[k:]
			runtime.Gosched()
		}
		t.scr.version.Add(1)
		t.blMu.Lock()
		t.inflight = 0
		t.blMu.Unlock()
		t.m.changed(t.id)
	}
}

// InputPending returns the number of input bytes (Write, SendKey, Paste, replies) queued for
// the program that the writer has not handed to the PTY yet.
func (t *Terminal) InputPending() int {
	t.inMu.Lock()
	defer t.inMu.Unlock()
	return t.inBytes
}

// Pending returns the number of output bytes read from the PTY that the screen does not show
// yet: the backlog plus what the feeder is handing to the emulator right now. Zero means the
// screen reflects everything read so far (bytes still in the kernel's PTY buffer are not
// counted).
func (t *Terminal) Pending() int {
	t.blMu.Lock()
	defer t.blMu.Unlock()
	return len(t.backlog) + t.inflight
}

// Backlog returns the number of output bytes read from the PTY but not yet
// shown on the screen.
func (t *Terminal) Backlog() int {
	t.blMu.Lock()
	defer t.blMu.Unlock()
	return len(t.backlog)
}

// Skipped returns the number of output bytes the screen never showed
// because of flood skip-ahead (the transcript has them all).
func (t *Terminal) Skipped() int64 { return t.skipped.Load() }

// reply queues an emulator reply (DA, DSR, CPR, encoded mouse) for the
// PTY; it never blocks. Replies beyond the input bound are dropped.
func (t *Terminal) reply(p []byte) { _ = t.enqueue(p) }

// enqueue adds input for the writer goroutine.
func (t *Terminal) enqueue(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	t.inMu.Lock()
	if t.inClosed {
		t.inMu.Unlock()
		return ErrReleased
	}
	if t.inBytes+len(p) > maxInputQueue {
		t.inMu.Unlock()
		return ErrInputBacklog
	}
	t.inQ = append(t.inQ, p)
	t.inBytes += len(p)
	t.inMu.Unlock()
	wake(t.inWake)
	return nil
}

// writer is the only goroutine writing to the PTY; it holds no lock while
// writing, so a program that does not read its input blocks nobody else.
func (t *Terminal) writer() {
	defer close(t.writerDone)
	for {
		t.inMu.Lock()
		for len(t.inQ) == 0 && !t.inClosed {
			t.inMu.Unlock()
			<-t.inWake
			t.inMu.Lock()
		}
		if t.inClosed {
			t.inQ, t.inBytes = nil, 0
			t.inMu.Unlock()
			return
		}
		p := t.inQ[0]
		t.inQ[0] = nil
		t.inQ = t.inQ[1:]
		t.inMu.Unlock()
		_, _ = t.ptmx.Write(p) // fails only once the PTY is closed or hung up
		t.inMu.Lock()
		t.inBytes -= len(p)
		t.inMu.Unlock()
	}
}

// waiter reaps the leader and reports exit once its output is drained.
func (t *Terminal) waiter(cmd *exec.Cmd) {
	var st ExitStatus
	if t.sb != nil {
		// The helper is the PID namespace's init, which no signal can end: the command's own
		// status comes over the helper's status pipe, which closes as the helper exits. The
		// kernel then still tears the namespaces down before the helper can be reaped (up to
		// tens of ms on a loaded machine): that happens in the background (Release waits).
		go func() {
			_ = cmd.Wait()
			if t.netStop != nil {
				// Nothing is left in the network namespace to connect, and the listener
				// would keep it alive.
				t.netStop()
			}
			close(t.helperReaped)
		}()
		select {
		case <-t.sb.Done():
		case <-t.helperReaped:
		}
		if es, ok := t.sb.Exit(time.Second); ok {
			st = ExitStatus{Code: es.Code, Signal: es.Signal}
		} else {
			// No report: the helper was killed (SIGKILL), and the kernel killed the
			// command with it.
			<-t.helperReaped
			st = statusOf(cmd.ProcessState)
		}
	} else {
		_ = cmd.Wait()
		st = statusOf(cmd.ProcessState)
	}
	close(t.leaderDone)
	timer := time.NewTimer(DrainBound)
	select {
	case <-t.drained:
	case <-timer.C:
		// A background process holds the PTY open: stop waiting for EOF.
		_ = t.ptmx.SetReadDeadline(time.Now())
		<-t.drained
	}
	timer.Stop()
	t.tr.Flush()
	if t.spec != nil {
		text, _ := t.tr.Snapshot()
		if d := t.spec.Denial(text); d != "" {
			t.denial.Store(&d)
		}
	}
	t.exit.Store(&st)
	close(t.done)
	t.m.changed(t.id)
}

// ID returns the terminal's id, unique within its Manager ("term-1", …).
func (t *Terminal) ID() string { return t.id }

// Label returns the display title given at start (default: the argv joined by spaces).
func (t *Terminal) Label() string { return t.label }

// Dir returns the working directory the command started in.
func (t *Terminal) Dir() string { return t.dir }

// StartedAt returns when the command was started.
func (t *Terminal) StartedAt() time.Time { return t.started }

// Pid returns the leader's process id (also its process group and session id); for a
// sandboxed terminal the leader is the sandbox helper, the init of the command's PID
// namespace.
func (t *Terminal) Pid() int { return t.pid }

// SandboxDenial returns, once the terminal has exited, what its output says the sandbox
// refused ("sandbox refused a write to /p/.git/hooks/x (protected, read-only)"; see
// sandbox.Spec.Denial), or "".
func (t *Terminal) SandboxDenial() string {
	if d := t.denial.Load(); d != nil {
		return *d
	}
	return ""
}

// Sandbox returns the sandbox layers confirmed in force for the command, or nil when the
// terminal is not sandboxed (ManagerOptions.Sandbox nil).
func (t *Terminal) Sandbox() *sandbox.Report {
	if t.sb == nil {
		return nil
	}
	r := t.sb.Report()
	return &r
}

// Output returns the transcript and, once the terminal has exited and its
// output was drained, the exit status.
func (t *Terminal) Output() Output {
	ex := t.exit.Load()
	text, trunc := t.tr.Snapshot()
	return Output{Text: text, Truncated: trunc, Exit: ex}
}

// Done returns a channel closed when the terminal has exited and the output
// it wrote before exiting has been read.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Exit returns the exit status and true once Done is closed.
func (t *Terminal) Exit() (ExitStatus, bool) {
	if ex := t.exit.Load(); ex != nil {
		return *ex, true
	}
	return ExitStatus{}, false
}

// Wait blocks until the terminal has exited (output drained) and returns
// its status, or returns ctx's error if ctx ends first; it never kills.
// Any number of goroutines may wait at once.
func (t *Terminal) Wait(ctx context.Context) (ExitStatus, error) {
	select {
	case <-t.done:
		return *t.exit.Load(), nil
	case <-ctx.Done():
		return ExitStatus{}, ctx.Err()
	}
}

// DefaultBackgroundRate is how fast a background terminal's output is read when
// ManagerOptions.BackgroundRate is 0, in bytes per second (4 MiB/s).
//
// Background flow control: while a terminal is in the background (SetBackground), its output
// is read at most BackgroundRate bytes/s on average, after a burst of BackgroundRate/16 bytes.
// The rest waits in the kernel's PTY buffer, so a program that writes faster blocks in
// write(2), as on a slow terminal: nothing is lost, the program only runs slower. Measured on
// 2 vCPUs (docs/benchmarks.md, ui): three `cat` floods read at full speed take both cores and
// a keystroke echoed in a fourth pane needs ~48 ms to reach the screen; at 4 MiB/s each, 22 ms.
const DefaultBackgroundRate = 4 << 20

// SetBackground marks the terminal as one the user is not interacting with (true) or lifts
// that (false). A background terminal's output is read at most ManagerOptions.BackgroundRate
// (default 4 MiB/s) after a burst of a sixteenth of that: under a flood, its program and the
// reader then leave the CPU to the terminal the user types into (the UI sets this for every
// pane but the focused one while a pane has the keyboard). Output slower than that is not
// affected. Reading at full speed resumes at the next read after SetBackground(false). Safe to
// call at any time, any number of times, also after exit.
func (t *Terminal) SetBackground(on bool) { t.background.Store(on) }

// pacer is a token bucket for the reader: take sleeps while more than burst bytes beyond rate
// bytes/s were read. Only the reader goroutine uses it.
type pacer struct {
	tokens float64 // bytes that may still be read without sleeping
	last   time.Time
}

// minPaceSleep keeps the reader's sleeps long enough to be worth a timer.
const minPaceSleep = 2 * time.Millisecond

func (p *pacer) take(n, rate, burst int) {
	now := time.Now()
	if p.last.IsZero() {
		p.tokens = float64(burst)
	} else {
		p.tokens = min(p.tokens+now.Sub(p.last).Seconds()*float64(rate), float64(burst))
	}
	p.last = now
	p.tokens -= float64(n)
	if p.tokens >= 0 {
		return
	}
	if d := time.Duration(-p.tokens / float64(rate) * float64(time.Second)); d >= minPaceSleep {
		time.Sleep(d)
	}
}

// reset forgets the bucket (the terminal left the background).
func (p *pacer) reset() { p.last = time.Time{} }

// Kill ends the command: SIGTERM to its process group, then SIGKILL once
// the group is still alive after the grace period (StartOptions.KillGrace or
// the manager's). It returns when the leader is gone and its output
// drained; the terminal stays readable. Killing an exited terminal only
// sends SIGKILL to what is left of its group. Errors: none in practice (a
// vanished group is not an error).
func (t *Terminal) Kill() error {
	t.killMu.Lock()
	defer t.killMu.Unlock()
	select {
	case <-t.done:
		// The leader is long reaped and its pid may be reused: kill only
		// processes that are provably this terminal's.
		if pids := t.ownProcs(); len(pids) > 0 {
			killAndReap(pids)
		}
		return nil
	default:
	}
	// The other members of the session, so the ones re-parented to us
	// (subreaper) when their parent dies can be reaped.
	var members []int // the group's other members (they get the signals)
	for _, pid := range t.ownProcs() {
		if st, ok := proctree.ReadStat(pid); ok && st.Pgrp == t.pid {
			members = append(members, pid)
		}
	}
	deadline := time.Now().Add(t.grace)
	_ = syscall.Kill(-t.pid, syscall.SIGTERM)
	_ = syscall.Kill(-t.pid, syscall.SIGCONT) // a stopped process only sees TERM once continued
	timer := time.NewTimer(t.grace)
	defer timer.Stop()
	select {
	case <-t.leaderDone:
		// The leader went; give the rest of the group what remains of the grace.
		for time.Now().Before(deadline) && proctree.Alive(members) {
			proctree.Reap(members, 0)
			time.Sleep(10 * time.Millisecond)
		}
	case <-timer.C:
	}
	_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	<-t.done
	proctree.Reap(members, reapBound)
	return nil
}

// Release ends the terminal for good: it kills the command if it is still
// running (see Kill), ends every process started from it that left its
// process group (setsid, double fork; found by the ACPTERM_TERMINAL
// environment marker or the session id), resolves every waiter, and frees
// the PTY, file descriptors and goroutines. The final screen and the
// output stay available. Idempotent; returns nil.
func (t *Terminal) Release() error {
	t.releaseOnce.Do(func() {
		_ = t.Kill()
		t.reapEscapees()
		t.released.Store(true)
		t.inMu.Lock()
		t.inClosed = true
		t.inMu.Unlock()
		wake(t.inWake)
		t.ptMu.Lock()
		_ = t.ptmx.Close() // ends the reader (and unblocks the writer)
		t.ptMu.Unlock()
		<-t.readerDone
		<-t.writerDone
		<-t.feederDone
		if t.helperReaped != nil {
			<-t.helperReaped
		}
		_ = t.scr.Close()
		close(t.releasedCh)
		t.m.releasedTerm(t)
		t.m.changed(t.id)
	})
	<-t.releasedCh
	return nil
}

// reapEscapees kills and reaps processes started from this terminal that
// are still alive.
func (t *Terminal) reapEscapees() {
	if pids := t.ownProcs(); len(pids) > 0 {
		killAndReap(pids)
	}
}

// ownProcs lists the processes started from this terminal that remain
// (see findProcs), the leader excluded.
func (t *Terminal) ownProcs() []int {
	return findProcs(func(v string) bool { return v == t.marker }, t.pid, t.pid)
}

// Released reports whether Release has completed.
func (t *Terminal) Released() bool { return t.released.Load() }

// Resize sets the PTY and the screen to s together (screen first; the
// program gets SIGWINCH). On a released terminal only the final screen is
// resized. Errors: an invalid size.
func (t *Terminal) Resize(s Size) error {
	s, err := s.normalize()
	if err != nil {
		return err
	}
	t.scr.Resize(s)
	if t.released.Load() {
		return nil
	}
	if err := t.setsize(s); err != nil && !t.released.Load() {
		return fmt.Errorf("terminals: resize %s: %w", t.id, err)
	}
	return nil
}

// Write sends raw input bytes to the program through the single PTY
// writer. It does not wait for the program to read them. Errors:
// ErrReleased, ErrInputBacklog (1 MiB already waiting).
func (t *Terminal) Write(p []byte) error {
	return t.enqueue(append([]byte(nil), p...))
}

// SendKey sends a key press encoded as xterm would for the program's
// current modes (see EncodeKey). Keys without an encoding are ignored.
// Errors as for Write.
func (t *Terminal) SendKey(k uv.KeyPressEvent) error {
	return t.enqueue(EncodeKey(k, t.scr.Modes()))
}

// Paste sends pasted text, sanitised and bracketed when the program enabled
// bracketed paste (see SanitizePaste). Errors as for Write.
func (t *Terminal) Paste(s string) error {
	return t.enqueue(SanitizePaste(s, t.scr.Modes().BracketedPaste))
}

// SendMouse forwards a mouse event (pane-local cell coordinates, 0-based)
// when the program enabled mouse tracking; otherwise it is ignored.
// Errors: ErrReleased.
func (t *Terminal) SendMouse(m uv.MouseEvent) error {
	if t.released.Load() {
		return ErrReleased
	}
	t.scr.sendMouse(m)
	return nil
}

// Screen returns the terminal's screen (for drawing; do not Write to it).
func (t *Terminal) Screen() *Screen { return t.scr }

// modeSet is a DEC private mode change (CSI ? n h / l).
type modeSet struct {
	mode int
	on   bool
}

// scanModes appends the DEC private mode changes found in p to log,
// keeping only the last change per mode, in order of last change.
func scanModes(p []byte, log []modeSet) []modeSet {
	for {
		i := bytes.Index(p, []byte("\x1b[?"))
		if i < 0 {
			return log
		}
		p = p[i+3:]
		var params [8]int
		np, cur, has, j := 0, 0, false, 0
		for ; j < len(p); j++ {
			c := p[j]
			if c >= '0' && c <= '9' {
				if cur < 100000 {
					cur = cur*10 + int(c-'0')
				}
				has = true
			} else if c == ';' && np < len(params)-1 {
				params[np] = cur
				np++
				cur, has = 0, false
			} else {
				break
			}
		}
		if j < len(p) && (p[j] == 'h' || p[j] == 'l') {
			if has {
				params[np] = cur
				np++
			}
			for _, m := range params[:np] {
				log = slices.DeleteFunc(log, func(x modeSet) bool { return x.mode == m })
				if len(log) < 64 {
					log = append(log, modeSet{m, p[j] == 'h'})
				}
			}
		}
		p = p[j:]
	}
}

// replayModes encodes log as CSI ? n h / l sequences.
func replayModes(log []modeSet) []byte {
	var b []byte
	for _, m := range log {
		b = append(b, "\x1b[?"...)
		b = strconv.AppendInt(b, int64(m.mode), 10)
		if m.on {
			b = append(b, 'h')
		} else {
			b = append(b, 'l')
		}
	}
	return b
}
