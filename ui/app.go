// Package ui is acpterm's interactive Bubble Tea v2 program: the conversation with the agent,
// tool-call cards, one pane per terminal, the approval modal, the prompt editor and the status bar.
// (The headless renderer in headless*.go shares the package but not the program.)
//
// Invariants a change must not break:
//   - Model is the only tea.Model. Children (panes, conversation, modal, editor) are plain structs
//     with methods; Update dispatches by message family (update_*.go).
//   - Update never blocks: every acpclient call runs inside a tea.Cmd. Terminal input (SendKey,
//     Paste, SendMouse) and Resize are called from Update directly because they are ordered and
//     the terminals package guarantees they return promptly (its single writer goroutine).
//   - Nothing but the screen (screen.go) writes to the real terminal; Bubble Tea runs without its
//     renderer and only reads input. Agent text is sanitised (sanitize.go) before it is rendered,
//     so no escape sequence from the agent reaches the tty.
//   - Frames are built only on redrawMsg (≈ one per frameInterval, in bursts of frameBurst;
//     output in panes the user is not typing into at most one per bgFrameInterval) and written by
//     Update at once, diffed against the terminal, so an idle program writes nothing. No timer
//     runs when idle: the spinner ticks only during a turn, pane clocks only while a terminal
//     runs.
//
// Background delivery: acpclient events are forwarded in order by one goroutine (never dropped);
// terminal screen changes arrive as a non-blocking wake (Wake) and are coalesced into redrawMsg.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// Options is what Run needs. Client, Config and Terminals are required; the rest may be zero.
type Options struct {
	// Client is the started agent connection (acpclient.Start). Run reads its Events until they close.
	Client *acpclient.Client
	// Config supplies [ui] keys and theme, and the policy source shown in the status bar.
	Config *config.Config
	// Engine lists and revokes "always" grants (grants view); nil hides the grants view.
	Engine *permissions.Engine
	// Terminals is the manager of client-owned terminals; its panes are looked up here by id.
	Terminals *terminals.Manager
	// AgentName is shown in the status bar when the agent did not report a name.
	AgentName string
	// Input and Output are the terminal streams; nil means os.Stdin / os.Stdout.
	Input  io.Reader
	Output io.Writer

	// Wake, when set, must also be passed as terminals.ManagerOptions.OnChange (Wake.Notify) so
	// pane changes trigger redraws without polling. When nil, Run polls pane versions every
	// pollInterval while any pane is live (and not at all when none is).
	Wake *Wake
	// Prompts are sent in order as if typed, one turn each (the --prompt flag).
	Prompts []string
	// PickSession opens the session picker first (acpterm --resume without an id; the client
	// was started with acpclient.Options.DeferSession): closing it opens a new session.
	PickSession bool
	// Warnings are shown as banners when the program starts (e.g. saved grants that were
	// skipped: permissions.Engine.GrantWarnings).
	Warnings []string
	// Sandbox is the status bar's account of the OS sandbox ("sandbox: landlock 7 · ns · net
	// off", "sandbox: off"); "" shows "policy only".
	Sandbox string
	// SandboxScope says in the approval dialog of a command how it will run ("writes only in
	// ~/src/proj, network off"); "" shows nothing.
	SandboxScope string
	// Restart, when set, is offered once the agent exited on its own (the restart_agent key):
	// it starts the agent again and Run goes on with the client it returns (which Run then
	// closes at the end instead of Client). nil: the user can only quit.
	Restart RestartFunc
}

// ErrAgentExited is returned by Run when the user quit after the agent process had exited on its
// own (the session could not continue); the error wraps the exit status text.
var ErrAgentExited = errors.New("agent exited")

// ErrTurnFailed is returned by Run when the user quit after a prompt turn had failed (the agent
// answered session/prompt with an error): exit status 1, as in headless mode.
var ErrTurnFailed = errors.New("a prompt turn failed")

// frameInterval is the average time between frames under continuous change (≈60 frames/s);
// frameBurst frames may follow each other at once after a quiet spell (redrawLoop).
const (
	frameInterval = 16 * time.Millisecond
	frameBurst    = 3
	// frameSettle is how long a change after a quiet spell waits for the rest of its burst.
	frameSettle = 1 * time.Millisecond
)

// pollInterval is how often pane versions are checked when no Wake is wired (ms-scale; only
// while a pane is live).
const pollInterval = 50 * time.Millisecond

// Wake is a coalescing, non-blocking redraw signal. Notify may be called from any goroutine at any
// rate; it never blocks. Its signature matches terminals.ManagerOptions.OnChange.
type Wake struct {
	ch chan struct{}
}

// NewWake returns a Wake ready to be passed to terminals.ManagerOptions.OnChange and Options.Wake.
func NewWake() *Wake { return &Wake{ch: make(chan struct{}, 1)} }

// Notify records that something changed (id is the terminal id; unused, every change redraws).
func (w *Wake) Notify(id string) {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// Run runs the interactive program until the user quits, ctx is cancelled, or the terminal
// closes. On a normal quit it returns nil; after the agent died it returns an error wrapping
// ErrAgentExited, and after a prompt turn failed one wrapping ErrTurnFailed (the first failure); when ctx is cancelled it returns ctx.Err(). Before returning it restores the
// user's terminal and performs the orderly shutdown by calling
// Client.Close (pending prompts answered cancelled, terminals killed, agent stopped) and
// Terminals.Close; both are expected to be idempotent, so the caller may call them again.
func Run(ctx context.Context, o Options) error {
	if o.Client == nil || o.Config == nil || o.Terminals == nil {
		return fmt.Errorf("ui.Run: Client, Config and Terminals are required")
	}
	d := deps{
		agent:     clientAgent{o.Client},
		terms:     managerTerms{o.Terminals},
		cfg:       o.Config,
		grants:    engineGrants(o.Engine),
		agentName: o.AgentName,
		polling:   o.Wake == nil,
		sandbox:   o.Sandbox, sandboxScope: o.SandboxScope,
	}
	var rs *restarter
	if o.Restart != nil {
		rctx, stopRestarts := context.WithCancel(ctx)
		defer stopRestarts()
		rs = &restarter{ctx: rctx, fn: o.Restart, src: newEventSource(), stop: stopRestarts}
		rs.cur.Store(o.Client)
		d.restart = rs.restart
	}
	m := newModel(d)
	if rs != nil {
		m.events = rs.src
	}
	m.queue = append(m.queue, o.Prompts...)
	m.pickAtStart = o.PickSession
	for _, w := range o.Warnings {
		m.addBanner("warn", sanitizeLine(w))
	}
	final, err := runProgram(ctx, m, o.Client.Events(), o.Wake, o.Input, o.Output)

	client := o.Client
	if rs != nil {
		client = rs.finish() // a restart under way is stopped (its agent is not left running)
	}
	closeErr := client.Close()
	_ = o.Terminals.Close()

	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("ui: %w", err)
	}
	if final != nil && final.agentGone != "" {
		return fmt.Errorf("%w: %s", ErrAgentExited, final.agentGone)
	}
	if final != nil && final.turnFailed != "" {
		return fmt.Errorf("%w: %s", ErrTurnFailed, final.turnFailed)
	}
	_ = closeErr // shutdown errors are logged by acpclient; a normal quit stays a success
	return nil
}

// runProgram runs m as a Bubble Tea program on in/out (nil: the process's stdin, or /dev/tty when
// stdin is no terminal, and stdout) with the event bridge, the redraw loop and acpterm's screen
// (screen.go; Bubble Tea's own renderer is off), and returns when the program ends; its
// goroutines have ended and the user's terminal is restored by then. extra options come last
// (tests pass tea.WithWindowSize when out is no tty).
func runProgram(ctx context.Context, m *Model, events <-chan acpclient.Event, wake *Wake, in io.Reader, out io.Writer, extra ...tea.ProgramOption) (*Model, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if in == nil {
		in = os.Stdin
		if !term.IsTerminal(os.Stdin.Fd()) {
			tty, _, err := tea.OpenTTY()
			if err != nil {
				return nil, fmt.Errorf("opening the terminal: %w", err)
			}
			defer tty.Close()
			in = tty
		}
	}
	if out == nil {
		out = os.Stdout
	}
	env := os.Environ()
	scr := newScreen(in, out, env)
	scr.ctx = runCtx
	scr.noMouse = m.d.cfg != nil && !m.d.cfg.UI.Mouse
	m.scr = scr
	// Signals are the caller's (main ends ctx on SIGTERM/SIGHUP/SIGINT/SIGQUIT, ignoring those
	// typed into $PAGER): Bubble Tea's own handler would quit on a ctrl+c meant for the pager.
	opts := []tea.ProgramOption{tea.WithContext(runCtx), tea.WithoutRenderer(), tea.WithFPS(idleFPS),
		tea.WithoutSignalHandler(), tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env)}
	if w, h := scr.size(); w > 0 && h > 0 {
		opts = append(opts, tea.WithWindowSize(w, h))
		// The agent may start a command before the first frame: size it for its pane already.
		m.width, m.height = w, h
		m.predictNewPaneSize()
	}
	opts = append(opts, extra...)
	var queries []string
	if shouldQuerySyncOutput(env) {
		queries = append(queries, ansi.RequestModeSynchronizedOutput)
	}
	if m.theme == "auto" && !m.noColor {
		queries = append(queries, ansi.RequestBackgroundColor)
	}
	if err := scr.start(queries...); err != nil {
		return nil, err
	}
	defer scr.close()
	p := tea.NewProgram(m, opts...)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); m.events.forward(runCtx, events, p.Send) }()
	var wakeCh <-chan struct{}
	if wake != nil {
		wakeCh = wake.ch
	}
	go func() { defer wg.Done(); redrawLoop(runCtx, wakeCh, m.dirty, p.Send) }()
	go func() { defer wg.Done(); watchResize(runCtx, scr, p.Send) }()
	final, err := p.Run()
	cancel()
	wg.Wait()
	fm, _ := final.(*Model)
	return fm, err
}

// idleFPS is the rate of Bubble Tea's renderer ticker, which runs even without a renderer (it
// flushes Bubble Tea's queued terminal queries, of which acpterm sends none): once a second.
const idleFPS = 1

// watchResize reports the terminal's new size as a tea.WindowSizeMsg on every SIGWINCH until ctx
// ends (Bubble Tea does this only with its own renderer). Nothing happens when out is no tty.
func watchResize(ctx context.Context, scr *screen, send func(tea.Msg)) {
	if !scr.outTTY {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			if w, h := scr.size(); w > 0 && h > 0 {
				send(tea.WindowSizeMsg{Width: w, Height: h})
			}
		}
	}
}

// shouldQuerySyncOutput reports whether to ask the terminal about synchronized output (mode
// 2026): not over SSH and not in Apple's Terminal, which answers slowly or wrongly (the same
// rule as Bubble Tea's).
func shouldQuerySyncOutput(env []string) bool {
	e := uv.Environ(env)
	termType := e.Getenv("TERM")
	prog, okProg := e.LookupEnv("TERM_PROGRAM")
	_, okSSH := e.LookupEnv("SSH_TTY")
	_, okWT := e.LookupEnv("WT_SESSION")
	return (!okProg && !okSSH) || okWT || (okProg && !strings.Contains(prog, "Apple") && !okSSH) ||
		strings.Contains(termType, "ghostty") || strings.Contains(termType, "wezterm") ||
		strings.Contains(termType, "alacritty") || strings.Contains(termType, "kitty") ||
		strings.Contains(termType, "rio")
}

// forwardEvents delivers every acpclient event to the program, in order, until the channel closes
// or ctx ends. Events are never dropped (ACP session/update ordering matters).
func forwardEvents(ctx context.Context, ch <-chan acpclient.Event, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ch:
			if !ok {
				send(eventsClosedMsg{})
				return
			}
			send(acpEventMsg{ev})
		}
	}
}

// redrawLoop turns wakes (pane changes) and model-side dirty signals into redrawMsgs. A change
// after a quiet spell waits frameSettle, so the rest of a burst that is already on its way (the
// other keys of one terminal read, a word the PTY echoes a byte at a time) lands in the same
// frame; then frames are spent from a token bucket: at most frameBurst back to back, one per
// frameInterval on average, so a flood gets ≤ 1/frameInterval frames. With wake == nil only
// model-side signals arrive here.
func redrawLoop(ctx context.Context, wake <-chan struct{}, dirty <-chan struct{}, send func(tea.Msg)) {
	budget := newFrameBudget(time.Now())
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := false // a frame is on its way: settling, or waiting for the budget
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-wake:
			if !pending {
				pending = true
				timer.Reset(frameSettle)
			}
			continue
		case <-dirty:
			if !pending {
				pending = true
				timer.Reset(frameSettle)
			}
			continue
		case <-timer.C:
		}
		if wait := budget.take(time.Now()); wait > 0 {
			timer.Reset(wait)
			continue
		}
		pending = false
		send(redrawMsg{})
	}
}

// frameBudget is redrawLoop's token bucket: frameBurst frames, refilled at one per
// frameInterval.
type frameBudget struct {
	tokens float64
	last   time.Time
}

func newFrameBudget(now time.Time) frameBudget { return frameBudget{tokens: frameBurst, last: now} }

// take spends a frame at now and returns 0, or returns how long to wait until one is available
// (spending nothing; call take again then).
func (b *frameBudget) take(now time.Time) time.Duration {
	b.tokens = min(b.tokens+float64(now.Sub(b.last))/float64(frameInterval), frameBurst)
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) * float64(frameInterval))
	}
	b.tokens--
	return 0
}
