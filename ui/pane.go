package ui

import (
	"fmt"
	"os"
	"strings"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/terminals"
)

// pane is the view of one terminal (client-owned or agent-owned). It is a plain struct owned by
// the Model; only Update touches it.
type pane struct {
	id         string
	label      string // the command as the user reads it (sanitised)
	cwd        string
	toolCallID string
	agentOwned bool // read-only: fed by the agent over ACP; no input, no resize of a PTY
	driven     bool // the agent types into it (acpterm's MCP terminal tools); the user may too
	turn       int  // Model.turn when the terminal started

	term       paneTerm          // nil for agent-owned terminals
	background bool              // term was put in the background (Model.syncBackground)
	screen     *terminals.Screen // nil until known (agent-owned terminals whose screen is not registered yet)

	awaiting  bool // its tool call waits for a permission answer (Model.syncAwaiting)
	started   time.Time
	exit      *terminals.ExitStatus
	exitedAt  time.Time
	truncated bool

	scroll  int            // lines scrolled back into history (0 = live)
	sbLen   int            // scroll-back length when last drawn (keeps a scrolled view still)
	size    terminals.Size // size last applied to the terminal (cells)
	drawnAt uint64         // screen version last drawn

	preview   []string // last lines for the tool-call card, as of screen version previewAt
	previewAt uint64

	refused string // the last connection the network proxy refused, shown on the bottom border
}

// state describes the process state for the title: "awaiting approval" (its tool call waits for
// a permission answer), "running", "exit 0", "SIGKILL", or "ended"
// for an agent-owned terminal that ended without an exit status (acpclient.TerminalExited with
// the zero status: its tool call finished or the turn ended, and the agent never said how).
func (p *pane) state() string {
	if p.exit == nil && p.awaiting {
		return "awaiting approval"
	}
	if p.exit == nil {
		return "running"
	}
	if p.exit.Code == nil && p.exit.Signal == "" {
		return "ended"
	}
	return p.exit.String()
}

// elapsed is how long the command ran (so far), rounded to seconds.
func (p *pane) elapsed(now time.Time) time.Duration {
	if p.started.IsZero() {
		return 0
	}
	end := now
	if p.exit != nil && !p.exitedAt.IsZero() {
		end = p.exitedAt
	}
	return end.Sub(p.started).Truncate(time.Second)
}

// formatElapsed prints a duration compactly: "0s", "42s", "3m05s", "1h02m".
func formatElapsed(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}

// title builds the pane's title text: "$ LABEL · CWD · STATE · ELAPSED[ · output truncated]"
// plus "read-only" for agent-owned terminals and "scrolled N" when scrolled back. When it is
// wider than maxW cells (maxW > 0) the command and cwd are shortened first, so the state stays
// visible.
func (p *pane) title(now time.Time, maxW int) string {
	head := "$ " + p.label
	if p.cwd != "" {
		head += " · " + shortenPath(p.cwd)
	}
	tail := []string{p.state(), formatElapsed(p.elapsed(now))}
	if p.truncated {
		tail = append(tail, "output truncated")
	}
	if p.agentOwned {
		tail = append(tail, "read-only")
	}
	if p.driven {
		tail = append(tail, "agent-driven")
	}
	if p.scroll > 0 {
		tail = append(tail, fmt.Sprintf("scrolled %d", p.scroll))
	}
	rest := " · " + strings.Join(tail, " · ")
	full := head + rest
	if maxW <= 0 || ansi.StringWidth(full) <= maxW {
		return full
	}
	if room := maxW - ansi.StringWidth(rest); room >= 6 {
		return truncate(head, room) + rest
	}
	return truncate(full, maxW)
}

// paneDrawOpts are the per-frame facts drawPane needs besides the pane itself.
type paneDrawOpts struct {
	focused, selected bool
	only              bool   // the pane is the selected one, and the only one (so not highlighted)
	leaveKey          string // help text of the leave key, shown while focused
	killKey           string // help text of the kill key, shown on a selected running pane
	number            int    // the pane's number for the jump keys, shown first in the title (0: not shown)
	prefixKey         string // help text of the prefix key, shown while it waits for a command
	prefixPending     bool   // the prefix key was pressed: the title lists the pane commands
	now               time.Time
}

// drawPane paints the pane (border, title, screen) into outer on scr. focused means keys go to
// the program; selected means it is the target of pane commands. It returns the screen cursor
// position in scr coordinates when the pane is focused, live and the program shows a cursor.
func drawPane(scr uv.Screen, st *Styles, p *pane, outer uv.Rectangle, o paneDrawOpts) (cur uv.Position, showCursor bool) {
	focused, selected, now := o.focused, o.selected, o.now
	if p.screen != nil {
		if n := p.screen.ScrollbackLen(); p.scroll > 0 && n > p.sbLen {
			// Scrolled back: keep the same lines in view while output keeps arriving.
			p.scroll = min(p.scroll+n-p.sbLen, n)
			p.sbLen = n
		} else {
			p.sbLen = n
		}
	}
	if outer.Dx() < 3 || outer.Dy() < 3 {
		fillRect(scr, outer)
		return cur, false
	}
	col := st.BorderColor
	if focused || selected {
		col = st.BorderFocusColor
	}
	drawBox(scr, outer, col, focused)
	titleStyle := st.PaneTitle
	if focused || selected {
		titleStyle = st.PaneTitleFocus
	}
	prefix := ""
	if o.number > 0 {
		prefix = fmt.Sprintf("%d ", o.number)
	}
	switch {
	case focused && o.prefixPending:
		prefix += "[" + o.prefixKey + " …] " // the separator line lists the commands
	case focused:
		prefix += "[typing · " + o.leaveKey + " leaves] "
	}
	suffix := ""
	if !focused && o.killKey != "" && p.term != nil && p.exit == nil && (selected || o.only) {
		suffix = " · " + o.killKey + " kills"
	}
	room := outer.Dx() - 6 - ansi.StringWidth(prefix)
	t := p.title(now, room)
	if suffix != "" && ansi.StringWidth(t)+ansi.StringWidth(suffix) <= room {
		t += suffix
	}
	title := " " + prefix + t + " "
	drawLabel(scr, outer.Min.X+2, outer.Min.Y, outer.Dx()-4, titleStyle.Render(title))
	in := interior(outer)
	if p.screen == nil {
		fillRect(scr, in)
		drawLabel(scr, in.Min.X, in.Min.Y, in.Dx(), st.Dim.Render("(no output yet)"))
		return cur, false
	}
	// The version is read before drawing: output arriving during the draw then still counts
	// as not drawn, and its wake redraws (read after, that output would be lost until the next).
	v := p.screen.Version()
	p.screen.Draw(scr, in, p.scroll)
	p.drawnAt = v
	if p.refused != "" {
		// Programs often say only "403" or "connection not allowed": the border says what.
		drawLabel(scr, outer.Min.X+2, outer.Max.Y-1, outer.Dx()-4, st.Warn.Render(" ⚠ "+truncate(sanitizeLine(p.refused), max(outer.Dx()-8, 1))+" "))
	}
	if focused && p.scroll == 0 {
		pos, vis := p.screen.Cursor()
		if vis && pos.X < in.Dx() && pos.Y < in.Dy() {
			return uv.Pos(in.Min.X+pos.X, in.Min.Y+pos.Y), true
		}
	}
	return cur, false
}

// shortenPath replaces the home directory prefix with "~" (display only).
func shortenPath(p string) string {
	if home := homeDir; home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}

// homeDir is the user's home directory, for shortenPath ("" when unknown).
var homeDir, _ = os.UserHomeDir()
