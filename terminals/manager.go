package terminals

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpterm/acpterm/internal/proctree"
	"github.com/acpterm/acpterm/sandbox"
)

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	MaxLive   int           // live (unreleased) terminals at once; 0 → 16
	KillGrace time.Duration // default SIGTERM→SIGKILL grace; 0 → 2 s
	// OnChange is called (from the engine's goroutines; it must not block)
	// when a screen changed, a terminal exited or was released; callers
	// coalesce. Nil: no notifications.
	OnChange func(id string)
	// BackgroundRate is how fast a background terminal's output is read (Terminal.SetBackground),
	// in bytes per second; bursts of BackgroundRate/16 are read at once. 0 → 4 MiB/s.
	BackgroundRate int
	// Subreaper makes the calling process a child subreaper (proctree.BecomeSubreaper) when the
	// Manager is created, so processes that escape a terminal's group (setsid, double fork)
	// are re-parented to it and can still be found and reaped on release. Without it such
	// processes go to init and only the environment marker finds them.
	Subreaper bool
	// Sandbox, when not nil, runs every terminal's command through the sandbox helper under
	// this spec (its TTY is set to each terminal's own pty). In sandbox.ModeRequired, Start
	// fails when a layer is missing. The helper is the program itself re-executed (package
	// sandbox handles that before main).
	Sandbox *sandbox.Spec
	// Network serves a sandboxed terminal's proxy listener (Sandbox.Network is
	// sandbox.NetworkProxy): it is called with the terminal's id and label and the listener
	// made in the command's network namespace right after the command started, and returns
	// the function that stops serving it, called once the command's process tree is gone.
	// Nil: the listener is closed at once, and the command has no way out at all.
	Network func(id, label string, ln net.Listener) (stop func())
	// Watch are protected paths a sandboxed command must not create (see
	// sandbox.WatchCandidates): those absent when a terminal starts and present once its
	// process tree is gone are moved into Quarantine, and SandboxDenial says so.
	Watch []string
	// Quarantine is the directory created protected paths are moved into (acpterm's state
	// dir, which nothing sandboxed can write). "" with Watch set: they are deleted.
	Quarantine string
	// Journal is the directory each terminal's watch is journaled in before its command
	// starts (sandbox.Watch.Journal; acpterm's state dir), so that what the command planted
	// is swept at the next start even when acpterm is killed first (sandbox.SweepJournal).
	// A journal that cannot be written refuses the start. "": not journaled.
	Journal string
}

// OnSwept sets the function called, from the watch's goroutine, each time a sandboxed
// terminal's command creates one of the watched paths while it runs and the path was moved
// into the quarantine at once (sandbox.Watch.Live; s.Live is set, and Terminal.Swept lists s
// again once the terminal exited). nil: none. It replaces the previous one; safe to call at
// any time. The OnChange function is called for the terminal as well.
func (m *Manager) OnSwept(f func(t *Terminal, s sandbox.Swept)) {
	if f == nil {
		m.onSwept.Store(nil)
		return
	}
	m.onSwept.Store(&f)
}

// sweptLive passes a live finding of t's watch on (OnSwept, OnChange).
func (m *Manager) sweptLive(t *Terminal, s sandbox.Swept) {
	if f := m.onSwept.Load(); f != nil {
		(*f)(t, s)
	}
	m.changed(t.id)
}

// Manager starts terminals and keeps track of them.
type Manager struct {
	o    ManagerOptions
	size atomic.Pointer[Size] // SetDefaultSize; nil → DefaultSize
	// onSwept is OnSwept's function; nil: none.
	onSwept atomic.Pointer[func(t *Terminal, s sandbox.Swept)]
	grace   time.Duration
	nonce   string

	mu     sync.Mutex
	terms  map[string]*Terminal
	live   int
	next   int
	closed bool
}

// NewManager returns a Manager; with o.Subreaper it also makes the calling process a child
// subreaper. A failed prctl is not an error: escapees are then still found by their marker.
func NewManager(o ManagerOptions) *Manager {
	if o.Subreaper {
		_ = proctree.BecomeSubreaper()
	}
	if o.MaxLive <= 0 {
		o.MaxLive = DefaultMaxLive
	}
	if o.BackgroundRate <= 0 {
		o.BackgroundRate = DefaultBackgroundRate
	}
	g := o.KillGrace
	if g <= 0 {
		g = DefaultKillGrace
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Manager{o: o, grace: g, nonce: hex.EncodeToString(b[:]), terms: map[string]*Terminal{}}
}

// SetDefaultSize sets the size, in cells, of terminals started from now on with a zero
// StartOptions.Size (the UI keeps it at the size the pane of a new terminal will have, so a
// program that reads its size once at start — ls, git log, a progress bar — formats for the
// pane it is shown in). A zero or invalid size restores DefaultSize (80x24). Safe to call at any
// time from any goroutine.
func (m *Manager) SetDefaultSize(s Size) {
	if _, err := s.normalize(); err != nil || s == (Size{}) {
		m.size.Store(nil)
		return
	}
	m.size.Store(&s)
}

// DefaultSize returns the size terminals started with a zero StartOptions.Size get.
func (m *Manager) DefaultSize() Size {
	if s := m.size.Load(); s != nil {
		return *s
	}
	return DefaultSize
}

// Start runs a command in a new terminal and returns at once. Errors:
// ErrClosed, ErrTooManyTerminals, bad options (both or neither of
// Argv/ShellLine, a relative or missing Dir, an invalid Size), a program
// not found on the PATH of o.Env, or an exec failure.
func (m *Manager) Start(o StartOptions) (*Terminal, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if m.live >= m.o.MaxLive {
		m.mu.Unlock()
		return nil, ErrTooManyTerminals
	}
	m.next++
	id := "term-" + strconv.Itoa(m.next)
	m.live++
	m.mu.Unlock()

	t, err := start(m, id, o)
	m.mu.Lock()
	if err != nil {
		m.live--
		m.mu.Unlock()
		return nil, err
	}
	m.terms[id] = t
	closed := m.closed
	m.mu.Unlock()
	if closed { // Close ran while this one was starting
		_ = t.Release()
		return nil, ErrClosed
	}
	return t, nil
}

// Get returns a terminal by id; released terminals stay gettable (their
// final screen and output remain readable).
func (m *Manager) Get(id string) (*Terminal, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	return t, ok
}

// Close releases every terminal (killing what runs), ends remaining
// processes started from any of them (setsid escapees included), and makes
// later Starts fail with ErrClosed. Idempotent; returns nil.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	ts := slices.Collect(maps.Values(m.terms))
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Go(func() { _ = t.Release() })
	}
	wg.Wait()
	pids := findProcs(func(v string) bool { return strings.HasPrefix(v, m.nonce+":") }, 0, 0)
	if len(pids) > 0 {
		killAndReap(pids)
	}
	return nil
}

func (m *Manager) releasedTerm(*Terminal) {
	m.mu.Lock()
	m.live--
	m.mu.Unlock()
}

func (m *Manager) changed(id string) {
	if m.o.OnChange != nil {
		m.o.OnChange(id)
	}
}
