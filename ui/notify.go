package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/config"
)

// notifyState is what the model keeps to notify the user (notify.go).
type notifyState struct {
	notif         notifier
	notices       []string  // notification sequences sent without a screen (tests)
	turnStartedAt time.Time // when the running prompt turn started (notify_after)
	turnNote      string    // "turn finished" etc. for the title, until the next key
}

// notifier decides how the user is told that the agent needs them ([ui] notify): the bell, a
// desktop notification (OSC 9, as iTerm2 defined it, or OSC 777 "notify", as rxvt-unicode's
// extension did) and the window title's state word. The sequences go out through the screen,
// the program's only writer to the terminal.
type notifier struct {
	bell, title, osc9, osc777 bool
	// after is how long a prompt turn must have run for its end to notify.
	after time.Duration
}

// newNotifier builds the notifier for cfg's [ui] notify list (nil cfg: the built-in default);
// env is the program's environment, from which "desktop" picks the escape the terminal is
// known to show (none when it is not known: an unknown OSC is at best ignored).
func newNotifier(cfg *config.Config, env []string) notifier {
	ch, after := []string{"bell", "title", "desktop"}, config.DefaultNotifyAfter
	if cfg != nil {
		ch, after = cfg.UI.Notify, cfg.UI.NotifyAfter
	}
	n := notifier{after: after}
	for _, c := range ch {
		switch c {
		case "bell":
			n.bell = true
		case "title":
			n.title = true
		case "osc9":
			n.osc9 = true
		case "osc777":
			n.osc777 = true
		case "desktop":
			switch desktopEscape(env) {
			case "osc9":
				n.osc9 = true
			case "osc777":
				n.osc777 = true
			}
		}
	}
	return n
}

// desktopEscape names the desktop-notification escape the terminal described by env shows:
// "osc9" for iTerm2, WezTerm, Ghostty and kitty, "osc777" for foot and rxvt-unicode, "" for any
// other (tmux and screen included: they drop OSCs they do not know).
func desktopEscape(env []string) string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	if get("TMUX") != "" || strings.HasPrefix(get("TERM"), "screen") || strings.HasPrefix(get("TERM"), "tmux") {
		return ""
	}
	prog, term := get("TERM_PROGRAM"), get("TERM")
	switch {
	case slices.Contains([]string{"iTerm.app", "WezTerm", "ghostty"}, prog),
		strings.Contains(term, "kitty"), strings.Contains(term, "ghostty"), strings.Contains(term, "wezterm"):
		return "osc9"
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt"):
		return "osc777"
	}
	return ""
}

// notifyText makes s safe inside an OSC string: one line of printable text without the
// separator ";" where sep is set, at most 200 runes.
func notifyText(s string, sep bool) string {
	s = sanitizeLine(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (sep && r == ';') {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// sequences returns what the terminal is sent to notify the user of body: BEL, OSC 9 and OSC
// 777, each as configured ("" when none is).
func (n notifier) sequences(body string) string {
	var b strings.Builder
	if n.bell {
		b.WriteByte('\a')
	}
	if n.osc9 {
		b.WriteString(ansi.Notify("acpterm: " + notifyText(body, false)))
	}
	if n.osc777 {
		b.WriteString("\x1b]777;notify;acpterm;" + notifyText(body, true) + "\a")
	}
	return b.String()
}

// notify tells the user body now (bell and desktop notification, as configured).
func (m *Model) notify(body string) {
	seq := m.notif.sequences(body)
	if seq == "" {
		return
	}
	if m.scr != nil {
		m.scr.writeNotice(seq)
	} else {
		m.notices = append(m.notices, seq)
	}
}

// noteTurnStart records when a prompt turn began (for notify_after).
func (m *Model) noteTurnStart() { m.turnStartedAt = m.now() }

// noteTurnEnd notifies the end of a prompt turn that ran at least notify_after; the title then
// says so until the user next presses a key.
func (m *Model) noteTurnEnd(stopReason string, failed bool) {
	if m.turnStartedAt.IsZero() {
		return
	}
	took := m.now().Sub(m.turnStartedAt)
	m.turnStartedAt = time.Time{}
	if took < m.notif.after {
		return
	}
	what := "finished"
	switch {
	case failed:
		what = "failed"
	case stopReason != "" && stopReason != "end_turn":
		what = "ended (" + stopReason + ")"
	}
	m.turnNote = "turn " + what
	m.notify(fmt.Sprintf("prompt turn %s after %s", what, took.Round(time.Second)))
}

// titleState is the window title's state word for what waits for the user ("" when nothing
// does): approvals first, then questions, then an exited agent, then a finished turn.
func (m *Model) titleState() string {
	switch n := m.pendingApprovals(); {
	case n == 1:
		return "needs approval"
	case n > 1:
		return fmt.Sprintf("needs approval (%d)", n)
	}
	if len(m.elicits) > 0 {
		return "question"
	}
	if m.agentGone != "" {
		return "agent exited"
	}
	return m.turnNote
}

// updateTitle sets the window title: "acpterm", and "acpterm · needs approval" (and so on,
// titleState) while something waits for the user. Without "title" in [ui] notify the title is
// left alone.
func (m *Model) updateTitle() {
	if !m.notif.title {
		m.windowTitle = ""
		return
	}
	m.windowTitle = "acpterm"
	if s := m.titleState(); s != "" {
		m.windowTitle += " · " + s
	}
}
