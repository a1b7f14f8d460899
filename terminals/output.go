package terminals

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
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
	readMax         = 32 << 10 // largest PTY read buffer (it starts at 4 KiB)
)

// outputFeed is a Terminal's output on its way from the PTY: the reader appends it to the
// transcript and the backlog, the feeder hands the backlog to the screen.
type outputFeed struct {
	background atomic.Bool // read at most backgroundRate (SetBackground)

	blMu     sync.Mutex
	backlog  []byte
	skip     bool // reset the screen before feeding the backlog
	blEOF    bool // the reader has finished
	blWake   chan struct{}
	skipped  atomic.Int64 // bytes never shown because of skip-ahead
	lastSkip time.Time    // when the backlog last overflowed (flood mode); blMu
	inflight int          // bytes taken from the backlog that the feeder is still handing to the screen; blMu
	modeLog  []modeSet    // private modes set by skipped output, to replay; blMu

	drained    chan struct{} // output written before exit has been read
	drainOnce  sync.Once
	readerDone chan struct{}
	feederDone chan struct{}
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
