package terminals

import (
	"fmt"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"golang.org/x/sys/unix"
)

// The input: everything for the program (keys, pastes, mouse reports, the screen's replies to
// its queries) goes through one queue to one writer goroutine, in order, and never blocks the
// caller; resizes go to the PTY directly.

// maxInputQueue is how many bytes of input may wait for the program; more is refused
// (ErrInputBacklog).
const maxInputQueue = 1 << 20

// inputQueue is a Terminal's input waiting for the writer goroutine.
type inputQueue struct {
	inMu       sync.Mutex
	inQ        [][]byte
	inBytes    int
	inClosed   bool
	inWake     chan struct{}
	writerDone chan struct{}
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

// InputPending returns the number of input bytes (Write, SendKey, Paste, replies) queued for
// the program that the writer has not handed to the PTY yet.
func (t *Terminal) InputPending() int {
	t.inMu.Lock()
	defer t.inMu.Unlock()
	return t.inBytes
}

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
