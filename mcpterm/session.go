package mcpterm

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/terminals"
)

// Error codes of the tools (stable; terminal-emulator-mcp's, plus POLICY_DENIED).
const (
	CodeSessionNotFound  = "SESSION_NOT_FOUND"
	CodeSessionExited    = "SESSION_EXITED"
	CodeSessionClosed    = "SESSION_CLOSED"
	CodeSessionLimit     = "SESSION_LIMIT"
	CodeSpawnFailed      = "SPAWN_FAILED"
	CodeInvalidInput     = "INVALID_INPUT"
	CodeUnsupportedInput = "UNSUPPORTED_INPUT"
	CodeNotSettled       = "SCREEN_NOT_SETTLED"
	CodeCancelled        = "REQUEST_CANCELLED"
	CodeIOError          = "IO_ERROR"
	CodeResultTooLarge   = "RESULT_TOO_LARGE"
	// CodePolicyDenied: acpterm's policy, or the user, refused to start the command.
	CodePolicyDenied = "POLICY_DENIED"
)

// toolError is a tool failure as the tools report it.
type toolError struct {
	code, msg string
	sessionID string
	latest    *snapshotOut
	progress  *progress
	rule      string // POLICY_DENIED: the deciding rule
}

func (e *toolError) Error() string { return e.code + ": " + e.msg }

func failf(code, msg string) *toolError { return &toolError{code: code, msg: msg} }

// progress is how far a terminal_input batch got.
type progress struct {
	ActionsCompleted  int  `json:"actionsCompleted"`
	InputSent         bool `json:"inputSent"`
	FailedActionIndex *int `json:"failedActionIndex,omitempty"`
}

// session is one terminal started by terminal_start on one MCP connection.
type session struct {
	id      string
	t       *terminals.Terminal
	command string
	cwd     string
	audit   func(id, kind string, n int, prefix string)

	queue  chan struct{} // one slot: input batches and resizes run one at a time, in order
	ctx    context.Context
	cancel context.CancelFunc // close: pending waits end with SESSION_CLOSED
}

// registry is the set of terminals of one MCP connection (at most MaxSessions, exited ones
// included, until closed).
type registry struct {
	svc      *Service
	mu       sync.Mutex
	sessions map[string]*session
	order    []string
	reserved int // starts under way
	closed   bool
}

func newRegistry(svc *Service) *registry {
	return &registry{svc: svc, sessions: map[string]*session{}}
}

// reserve takes a slot for a start; release with unreserve.
func (r *registry) reserve() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return failf(CodeSessionClosed, "the MCP connection is closing")
	}
	if len(r.sessions)+r.reserved >= MaxSessions {
		return failf(CodeSessionLimit, "this connection already holds 8 terminals (exited ones count until terminal_close); close one first")
	}
	r.reserved++
	return nil
}

func (r *registry) unreserve() {
	r.mu.Lock()
	r.reserved--
	r.mu.Unlock()
}

// add registers a started terminal; false when the registry closed meanwhile.
func (r *registry) add(s *session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved--
	if r.closed {
		return false
	}
	r.sessions[s.id] = s
	r.order = append(r.order, s.id)
	return true
}

func (r *registry) get(id string) (*session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil {
		return nil, &toolError{code: CodeSessionNotFound, msg: "no terminal " + quote(id) + " on this connection (closed, or never started)", sessionID: id}
	}
	return s, nil
}

func (r *registry) list() []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*session, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.sessions[id])
	}
	return out
}

// remove takes a session out of the registry; nil when it is not there.
func (r *registry) remove(id string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil {
		return nil
	}
	delete(r.sessions, id)
	for i, x := range r.order {
		if x == id {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	return s
}

// closeAll ends every terminal of the registry (connection gone, service closed), in parallel.
func (r *registry) closeAll() {
	r.mu.Lock()
	r.closed = true
	ss := slices.Collect(maps.Values(r.sessions))
	r.sessions, r.order = map[string]*session{}, nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(s.close)
	}
	wg.Wait()
}

// close cancels the session's pending work and releases its terminal (SIGTERM to the process
// group, SIGKILL after the grace, escaped descendants reaped: terminals.Terminal.Release).
func (s *session) close() {
	s.cancel()
	_ = s.t.Release()
}

// lock takes the session's input queue; errors when ctx or the session ends first.
func (s *session) lock(ctx context.Context) error {
	select {
	case s.queue <- struct{}{}:
		return nil
	case <-ctx.Done():
		return failf(CodeCancelled, "the request was cancelled while waiting for the terminal's earlier input")
	case <-s.ctx.Done():
		return failf(CodeSessionClosed, "terminal "+s.id+" was closed")
	}
}

func (s *session) unlock() { <-s.queue }

func (s *session) exit() *terminals.ExitStatus {
	if ex, ok := s.t.Exit(); ok {
		return &ex
	}
	return nil
}

// pollEvery is how often an observation looks at the screen.
const pollEvery = 4 * time.Millisecond

// observe waits until the screen has settled: no output waiting to be parsed, no synchronized
// redraw (?2026) in progress, and nothing visible (text, styles, cursor, buffer, size)
// changed for t.quiet, counted from the start of this observation. A terminal whose process
// exited and whose output is all shown is settled at once. At t.deadline it returns false.
// Errors: the request was cancelled, or the session closed.
func (s *session) observe(ctx context.Context, t timing) (bool, error) {
	start := time.Now()
	deadline := start.Add(t.deadline)
	quietFrom := start
	scr := s.t.Screen()
	// Fingerprints only matter for a quiet interval; the first is taken lazily.
	lastVer := scr.Version()
	var lastFP uint64
	haveFP := false
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		now := time.Now()
		// Input still on its way to the program, output not yet parsed, or a synchronized
		// redraw: the screen is not one to look at yet.
		pending := s.t.InputPending() > 0 || s.t.Pending() > 0 || scr.Modes().SyncOutput
		if !pending {
			select {
			case <-s.t.Done():
				if s.t.Pending() == 0 {
					return true, nil // nothing more can appear
				}
			default:
			}
		}
		if pending {
			quietFrom = now
		} else if t.quiet > 0 {
			if !haveFP {
				lastVer, lastFP, haveFP = scr.Version(), scr.Fingerprint(), true
			} else if v := scr.Version(); v != lastVer {
				lastVer = v
				if fp := scr.Fingerprint(); fp != lastFP {
					lastFP, quietFrom = fp, now
				}
			}
		}
		if !pending && now.Sub(quietFrom) >= t.quiet {
			return true, nil
		}
		if !now.Before(deadline) {
			return false, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return false, failf(CodeCancelled, "the request was cancelled")
		case <-s.ctx.Done():
			return false, failf(CodeSessionClosed, "terminal "+s.id+" was closed")
		}
	}
}

// snapshot observes (see observe) and renders the screen; history < 0: none asked. A strict
// timing that is not met is SCREEN_NOT_SETTLED with the latest screen.
func (s *session) snapshot(ctx context.Context, t timing, history int) (*snapshotOut, error) {
	settled, err := s.observe(ctx, t)
	if err != nil {
		var te *toolError
		if errors.As(err, &te) {
			te.sessionID = s.id
			te.latest = s.render(history, false)
		}
		return nil, err
	}
	o := s.render(history, settled)
	if !settled && t.strict {
		return nil, &toolError{code: CodeNotSettled, sessionID: s.id, latest: o,
			msg: "the screen did not settle within settleTimeoutMs (" + t.deadline.String() + "); the latest screen is in latestSnapshot, and any input or resize stays applied"}
	}
	return o, nil
}

func (s *session) render(history int, settled bool) *snapshotOut {
	return render(s.id, s.t.Screen().Snapshot(max(history, 0)), history, s.exit(), settled)
}

// running reports SESSION_EXITED for a terminal whose process has exited.
func (s *session) running() error {
	if s.exit() != nil || s.t.Released() {
		return &toolError{code: CodeSessionExited, sessionID: s.id, msg: "the process of terminal " + s.id + " has exited; input and resize need a running process (its final screen stays readable until terminal_close)"}
	}
	return nil
}

// write sends bytes to the program, auditing them.
func (s *session) write(kind string, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if err := s.t.Write(p); err != nil {
		if errors.Is(err, terminals.ErrReleased) {
			return failf(CodeSessionClosed, "terminal "+s.id+" was released")
		}
		return failf(CodeIOError, err.Error())
	}
	if s.audit != nil {
		s.audit(s.id, kind, len(p), auditPrefix(p))
	}
	return nil
}

// auditPrefixLen is how much of an input the audit log keeps, in bytes.
const auditPrefixLen = 16

// auditPrefix is the first bytes of an input, cut at a character boundary.
func auditPrefix(p []byte) string {
	if len(p) <= auditPrefixLen {
		return string(p)
	}
	n := auditPrefixLen
	for n > 0 && p[n]&0xC0 == 0x80 {
		n--
	}
	return string(p[:n])
}

// run performs a checked batch in order under the session's queue. It returns how far it got;
// an error carries the failed action's index.
func (s *session) run(ctx context.Context, acts []action) (progress, error) {
	var pr progress
	fail := func(i int, err error) (progress, error) {
		idx := i
		pr.FailedActionIndex = &idx
		return pr, err
	}
	for i, a := range acts {
		if err := s.running(); err != nil {
			return fail(i, err)
		}
		scr := s.t.Screen()
		var out []byte
		switch a.kind {
		case "text":
			out = []byte(a.text)
		case "paste":
			text := strings.ReplaceAll(a.text, "\r\n", "\r")
			text = strings.ReplaceAll(text, "\n", "\r")
			if scr.Modes().BracketedPaste {
				text = "\x1b[200~" + text + "\x1b[201~"
			}
			out = []byte(text)
		case "key":
			b, err := encodeKey(a.key, a.mods, scr.Modes().CursorKeys)
			if err != nil {
				return fail(i, &toolError{code: CodeUnsupportedInput, msg: err.Error()})
			}
			out = b
		case "mouse":
			b, err := encodeMouse(a, scr.Modes(), scr.Size())
			if err != nil {
				code := CodeUnsupportedInput
				var inv *errInvalid
				if errors.As(err, &inv) {
					code = CodeInvalidInput
				}
				return fail(i, &toolError{code: code, msg: err.Error()})
			}
			out = b
		case "focus":
			if scr.Modes().Focus {
				out = []byte("\x1b[O")
				if a.focus {
					out = []byte("\x1b[I")
				}
			}
		case "raw":
			out = a.raw
		case "wait":
			if a.observe {
				settled, err := s.observe(ctx, a.timing)
				if err != nil {
					return fail(i, err)
				}
				if !settled && a.timing.strict {
					return fail(i, &toolError{code: CodeNotSettled, msg: "the screen did not settle within the wait action's settleTimeoutMs (" + a.timing.deadline.String() + ")"})
				}
			} else if a.delay > 0 {
				tm := time.NewTimer(a.delay)
				select {
				case <-tm.C:
				case <-ctx.Done():
					tm.Stop()
					return fail(i, failf(CodeCancelled, "the request was cancelled during a wait"))
				case <-s.ctx.Done():
					tm.Stop()
					return fail(i, failf(CodeSessionClosed, "terminal "+s.id+" was closed"))
				}
			}
		}
		if err := s.write(a.kind, out); err != nil {
			return fail(i, err)
		}
		if len(out) > 0 {
			pr.InputSent = true
		}
		pr.ActionsCompleted++
	}
	return pr, nil
}

// signalNumber maps "SIGKILL" to 9; 0 when unknown.
func signalNumber(name string) int {
	return int(unix.SignalNum(name))
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
