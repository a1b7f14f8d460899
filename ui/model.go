package ui

import (
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// Messages delivered to the model from outside Update.
type (
	// acpEventMsg carries one acpclient event, in order.
	acpEventMsg struct{ ev acpclient.Event }
	// eventsClosedMsg reports that the client's event channel closed (Client.Close ran).
	eventsClosedMsg struct{}
	// redrawMsg asks the model to rebuild its frame (coalesced by redrawLoop: ≈ 1 per frameInterval).
	redrawMsg struct{}
	// bgRedrawMsg is the deferred redraw for changes only in unfocused panes (bgFrameInterval).
	bgRedrawMsg struct{}
	// tickMsg animates the spinner and pane elapsed times; it runs only while a turn or a
	// terminal is live (never when idle).
	tickMsg struct{ gen int }
	// cmdErrMsg reports a failed background call (SetMode, SetConfigOption, pager, revoke).
	cmdErrMsg struct {
		what string
		err  error
	}
	// grantsMsg is the grant list after a revoke (err: the revoke failed).
	grantsMsg struct {
		list []permissions.Grant
		id   string
		err  error
	}
	// killDoneMsg reports a finished Terminal.Kill of the pane labelled label.
	killDoneMsg struct {
		label string
		err   error
	}
	// pagerDoneMsg ends a $PAGER run (its temp file is already removed); err is its failure.
	pagerDoneMsg struct {
		err error
	}
)

// Model is the root (and only) tea.Model of the interactive program. Its state comes in named
// parts: the components it is built of (editor, conversation, overlays …) are fields of their
// own types, and the rest is grouped in embedded structs whose fields read as the model's own
// (m.busy is m.turnState.busy): look, frameState, paneSet, turnState and lifecycle.
type Model struct {
	d    deps
	now  func() time.Time
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd // tea.Tick; tests stub it

	// The components, each drawing one area or dialog.
	keys    KeyMap
	st      *Styles
	md      *markdown
	conv    *conversation
	ed      *editor
	comp    completion
	help    help.Model
	banners []banner // messages shown in the conversation (addBanner)

	// overlays is the stack of modal parts drawn over the main area (overlay.go); the top one
	// gets keys first. appr is the approval overlay, on the stack while a request waits.
	overlays []overlay
	appr     *approvals
	elicits  []acpclient.ElicitationAsked // pending elicitations, oldest first (elicitation.go)
	elicit   *elicitForm                  // the dialog of elicits[0], on the overlay stack

	state acpclient.State // the session as the client last reported it (acpEventMsg)

	look
	frameState
	paneSet
	turnState
	lifecycle
	notifyState
}

// look is the colour theme the styles are built for (applyTheme).
type look struct {
	theme         string // "auto", "dark", "light"
	dark, noColor bool
}

// frameState is the window, the frame drawn for it and what decides when the next one is
// drawn (redraw, present, the tick).
type frameState struct {
	dirty             chan struct{} // model-side "please redraw" signal, read by redrawLoop
	width, height     int
	canvas            *lipgloss.Canvas
	frame             string // the last frame as text; built only without a screen (tests)
	frameGen          uint64 // counts frames built
	drawnGen          uint64 // the frame the screen shows
	scr               *screen
	cursor            *tea.Cursor
	needFrame         bool
	lay               layout
	tabHits           []tabHit // where the tab bar's tabs were last drawn (tabAt)
	lastPaneVersions  uint64   // sum of pane screen versions at the last frame
	predictedFor      [3]int   // width, height, pane count of the last predictNewPaneSize
	lastFrameAt       time.Time
	bgRedrawArmed     bool
	windowTitle       string
	pendingBellFor    string // request id the user was last notified of
	tickArmed         bool
	tickGen           int
	spin              int
	lastElapsedRedraw time.Time
}

// paneSet is the terminal panes, in the order they opened, and which one the pane keys act on
// (update_panes.go).
type paneSet struct {
	panes    []*pane
	paneByID map[string]*pane
	selected int     // index into panes; -1 none
	focused  bool    // the selected pane has the keyboard
	zoomed   bool    // the selected pane fills the main area
	nav      paneNav // last pane, prefix key (panekeys.go)
}

// turnState is the prompt turn, the prompts queued behind it, the answers given during it and
// the typing of the next prompt.
type turnState struct {
	busy                bool     // a prompt turn is running (or was just sent)
	queue               []string // prompts typed during a turn, sent in order when it ends
	cancelPending       bool
	turn                int             // counts TurnStarted events; panes remember the turn that started them
	killing             int             // terminals of the turn killed by a second cancel (shown while cancelling)
	answered            map[string]bool // permission requests answered, not yet resolved
	turnFailed          string          // the first failed prompt turn's error (Run: ErrTurnFailed)
	lastInterruptCancel time.Time       // when ctrl+c last cancelled a turn (interruptQuitGuard)
	lastEditorKey       time.Time       // last key handled by the editor, Enter included (syncBackground, typing)
	typingTickArmed     bool            // a typingIdleMsg is on its way
}

// lifecycle is how the program starts and ends: the session picker at start, the agent's exit,
// the event channel and quitting.
type lifecycle struct {
	pickAtStart bool   // open the session picker first (acpterm --resume without an id)
	agentGone   string // non-empty once the agent process exited on its own: the status text
	closed      bool   // the event channel closed
	quitting    bool
	// restarting: a restart of the exited agent is under way (restart.go); restarted: its
	// session has not started yet; restartResume is the session it reopens ("" a new one).
	restarting, restarted bool
	restartResume         string
	events                *eventSource // switches the program to a restarted client's events; nil: none
}

func newModel(d deps) *Model {
	m := &Model{
		d:          d,
		now:        time.Now,
		tick:       tea.Tick,
		keys:       DefaultKeyMap(),
		ed:         newEditor(),
		appr:       newApprovals(d.sandboxScope),
		help:       help.New(),
		look:       look{theme: "auto", dark: true},
		frameState: frameState{dirty: make(chan struct{}, 1)},
		paneSet:    paneSet{paneByID: map[string]*pane{}, selected: -1},
		turnState:  turnState{answered: map[string]bool{}},
	}
	m.notif = newNotifier(d.cfg, os.Environ())
	if d.cfg != nil {
		if err := m.keys.applyKeys(d.cfg.UI.Keys); err != nil {
			m.banners = append(m.banners, banner{level: "error", text: err.Error()})
		}
		if d.cfg.UI.Theme != "" {
			m.theme = d.cfg.UI.Theme
		}
	}
	m.noColor = os.Getenv("NO_COLOR") != ""
	if m.theme == "light" {
		m.dark = false
	}
	m.applyTheme()
	m.markDirty()
	return m
}

// applyTheme (re)builds styles and renderers for m.dark / m.noColor.
func (m *Model) applyTheme() {
	m.st = newStyles(m.dark, m.noColor)
	m.md = newMarkdown(m.dark, m.noColor)
	if m.conv == nil {
		m.conv = newConversation(m.st, m.md)
	} else {
		m.conv.setTheme(m.st, m.md)
	}
	m.help.Styles = help.DefaultStyles(m.dark)
}

// markDirty asks for a new frame soon (coalesced by redrawLoop); never blocks.
func (m *Model) markDirty() {
	m.needFrame = true
	select {
	case m.dirty <- struct{}{}:
	default:
	}
}

// suspend gives the terminal back to the shell and stops acpterm's process group (SIGTSTP, as
// ctrl+z does in a cooked terminal); the agent and the terminals, in their own process groups,
// keep running. The shell's fg resumes it (tea.ResumeMsg).
func (m *Model) suspend() tea.Cmd {
	if m.scr != nil {
		if !jobControl() {
			m.addBanner("warn", "cannot suspend: acpterm was not started by a shell with job control, so nothing could resume it")
			return nil
		}
		m.scr.suspend()
	}
	return tea.Suspend
}

// quit ends the program; Run then performs the shutdown (Client.Close, Terminals.Close).
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	m.tickArmed = false // ticks armed before the program ran were never scheduled
	cmds := []tea.Cmd{m.nextPrompt(), m.armTick()}
	if m.pickAtStart {
		m.pickAtStart = false
		cmds = append(cmds, m.openSessions(true))
	}
	if m.theme == "auto" && !m.noColor && m.scr == nil {
		cmds = append(cmds, tea.RequestBackgroundColor) // with a screen, its start asks
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model: it dispatches msg by message family, then shows the frame if a
// new one was built (present).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseClickMsg:
		m.turnNote = "" // the user is back: the title no longer says the turn ended
	}
	cmd := m.update(msg)
	m.syncApprovals()
	m.updateTitle()
	if bg := m.syncBackground(); bg != nil {
		cmd = tea.Batch(cmd, bg)
	}
	m.present()
	return m, cmd
}

// typingHold is how long after the last key typed into the prompt editor the panes stay in the
// background (syncBackground).
const typingHold = time.Second

// typingIdleMsg re-checks, typingHold after a key, whether the user is still typing a prompt.
type typingIdleMsg struct{}

// syncBackground puts the terminal of every pane but the focused one in the background while a
// pane has the keyboard, and every pane's while the user types a prompt (until typingHold after
// the last key), and none otherwise (terminals.Terminal.SetBackground):
// a flood in a pane is then read at a bounded rate and leaves the CPU to what the user types
// into (issue goal: keypress-to-screen in a focused pane while three others flood). It returns
// the one-shot tick that ends the typing spell, when one is needed.
func (m *Model) syncBackground() tea.Cmd {
	typing := false
	var left time.Duration
	if !m.focused && !m.lastEditorKey.IsZero() {
		left = typingHold - m.now().Sub(m.lastEditorKey)
		typing = left > 0
	}
	for i, p := range m.panes {
		bg := (m.focused && i != m.selected) || typing
		if p.term != nil && p.background != bg {
			p.term.SetBackground(bg)
			p.background = bg
		}
	}
	if !typing || m.typingTickArmed || len(m.panes) == 0 {
		return nil
	}
	m.typingTickArmed = true
	return m.tick(left, func(time.Time) tea.Msg { return typingIdleMsg{} })
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.scr != nil {
			m.scr.setSize(msg.Width, msg.Height)
		}
		m.predictNewPaneSize() // now, not at the next frame: a command may start before it
		m.markDirty()
		return nil
	case tea.ColorProfileMsg:
		if m.scr != nil {
			m.scr.setProfile(msg.Profile)
			m.markDirty()
		}
		return nil
	case typingIdleMsg:
		m.typingTickArmed = false // syncBackground re-arms it while the user still types
		return nil
	case tea.ResumeMsg:
		if m.scr != nil {
			if err := m.scr.resume(); err != nil {
				m.addBanner("error", "resume: "+err.Error())
			}
			if w, h := m.scr.size(); w > 0 && h > 0 && (w != m.width || h != m.height) {
				m.width, m.height = w, h // resized while stopped: no SIGWINCH reached us
				m.scr.setSize(w, h)
			}
		}
		m.markDirty()
		return nil
	case tea.ModeReportMsg:
		if m.scr != nil && msg.Mode == ansi.ModeSynchronizedOutput && msg.Value == ansi.ModeReset {
			m.scr.syncd = true // supported and off: frames are wrapped in it from now on
		}
		return nil
	case tea.BackgroundColorMsg:
		if m.theme == "auto" && msg.IsDark() != m.dark {
			m.dark = msg.IsDark()
			m.applyTheme()
			m.markDirty()
		}
		return nil
	case redrawMsg:
		return m.redraw()
	case bgRedrawMsg:
		m.bgRedrawArmed = false
		return m.redraw()
	case tickMsg:
		return m.onTick(msg)
	case acpEventMsg:
		return m.handleEvent(msg.ev)
	case eventsClosedMsg:
		m.closed = true
		m.busy = false
		m.markDirty()
		return nil
	case tea.KeyPressMsg:
		return m.handleKey(normKey(msg))
	case tea.PasteMsg:
		return m.handlePaste(msg.Content)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case cmdErrMsg:
		m.addBanner("error", msg.what+": "+msg.err.Error())
		return nil
	case grantsMsg:
		if msg.err != nil {
			m.addBanner("error", "revoke "+msg.id+": "+msg.err.Error())
		}
		if g, ok := m.findOverlay("grants").(*grantsView); ok {
			g.setList(msg.list)
		}
		m.markDirty()
		return nil
	case killDoneMsg:
		if msg.err != nil {
			m.addBanner("error", "kill "+msg.label+": "+msg.err.Error())
		}
		return nil
	case sessionListMsg:
		m.onSessionList(msg)
		return nil
	case sessionDoneMsg:
		return m.onSessionDone(msg)
	case elicitAnsweredMsg:
		m.onElicitAnswered(msg)
		return nil
	case urlOpenedMsg:
		m.onURLOpened(msg)
		return nil
	case restartedMsg:
		return m.onRestarted(msg)
	case pagerDoneMsg:
		if msg.err != nil {
			m.addBanner("error", "pager: "+msg.err.Error())
		}
		m.markDirty()
		return nil
	}
	return nil
}

// addBanner shows a message in the conversation after the current last item.
func (m *Model) addBanner(level, text string) {
	if n := len(m.banners); n > 0 && m.banners[n-1].text == text && m.banners[n-1].after == len(m.state.Timeline) {
		return // the same message again, with nothing in between: once is enough
	}
	m.banners = append(m.banners, banner{after: len(m.state.Timeline), level: level, text: text})
	m.markDirty()
}

// View implements tea.Model; it returns the last frame as text (built only without a screen, for
// tests). The program runs without Bubble Tea's renderer, so this view is not what is shown:
// Update writes frames through the screen (present).
func (m *Model) View() tea.View {
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.Cursor = m.cursor
	v.WindowTitle = m.windowTitle
	return v
}
