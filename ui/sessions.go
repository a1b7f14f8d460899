package ui

// The session picker (the sessions key, alt+r, and `acpterm --resume` without an id): the
// earlier sessions of the session directory, from the agent (ACP session/list) or from
// acpterm's own records; enter opens one (load or resume), f forks it, d deletes it (twice),
// n starts a new session.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/acpclient"
)

const sessionsOverlayID = "sessions"

// sessionCallTimeout bounds one picker call (list, open, fork, delete).
const sessionCallTimeout = 60 * time.Second

type sessionPicker struct {
	// startup: opened by --resume with no session yet; closing it opens a new session.
	startup bool
	sup     acpclient.SessionSupport
	loading bool
	source  string
	list    []acpclient.SessionEntry
	sel     int
	err     string
	working string // "opening s1…" while a call runs
	confirm string // id waiting for the second d
}

type (
	sessionListMsg struct {
		list   []acpclient.SessionEntry
		source string
		err    error
	}
	sessionDoneMsg struct {
		what, id string
		err      error
	}
)

func (p *sessionPicker) overlayID() string { return sessionsOverlayID }

// openSessions opens the picker and starts loading the list.
func (m *Model) openSessions(startup bool) tea.Cmd {
	p := &sessionPicker{startup: startup, sup: m.d.agent.Info().Sessions(), loading: true}
	m.pushOverlay(p)
	return m.loadSessions()
}

func (m *Model) loadSessions() tea.Cmd {
	agent := m.d.agent
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
		defer cancel()
		list, source, err := agent.SessionList(ctx)
		return sessionListMsg{list: list, source: source, err: err}
	}
}

func (m *Model) picker() *sessionPicker {
	p, _ := m.findOverlay(sessionsOverlayID).(*sessionPicker)
	return p
}

func (m *Model) onSessionList(msg sessionListMsg) {
	p := m.picker()
	if p == nil {
		return
	}
	p.loading, p.list, p.source, p.err = false, msg.list, msg.source, ""
	if msg.err != nil {
		p.err = msg.err.Error()
		if errors.Is(msg.err, acpclient.ErrNotSupported) {
			p.err = "the agent cannot list its sessions (no session/list) and acpterm has no records of this agent here"
		}
	}
	p.sel = min(p.sel, max(len(p.list)-1, 0))
	m.markDirty()
}

func (m *Model) onSessionDone(msg sessionDoneMsg) tea.Cmd {
	p := m.picker()
	if msg.err != nil {
		text := msg.what + " " + msg.id + ": " + msg.err.Error()
		if p != nil {
			p.working, p.err = "", text
		} else {
			m.addBanner("error", text)
		}
		m.markDirty()
		return nil
	}
	if msg.what == "delete" {
		if p != nil {
			p.working = ""
			return m.loadSessions()
		}
		return nil
	}
	m.removeOverlay(sessionsOverlayID)
	return nil
}

// sessionCall runs what (open, fork, delete, new) on id from a Cmd.
func (m *Model) sessionCall(p *sessionPicker, what, id string) tea.Cmd {
	if m.busy && what != "delete" {
		p.err = "a prompt turn is running: wait for it to end or cancel it first"
		return nil
	}
	p.err, p.confirm = "", ""
	p.working = map[string]string{"open": "opening", "fork": "forking", "delete": "deleting", "new": "starting a new session"}[what]
	if id != "" {
		p.working += " " + sanitizeLine(id)
	}
	p.working += "…"
	agent := m.d.agent
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
		defer cancel()
		var err error
		switch what {
		case "open":
			err = agent.OpenSession(ctx, id)
		case "new":
			err = agent.OpenSession(ctx, "")
		case "fork":
			err = agent.ForkSession(ctx, id)
		case "delete":
			err = agent.DeleteSession(ctx, id)
		}
		return sessionDoneMsg{what: what, id: id, err: err}
	}
}

// handleKey: ↑/↓ select, enter opens, f forks, d deletes (press twice), n new session, esc
// closes (at startup: a new session).
func (p *sessionPicker) handleKey(m *Model, k tea.KeyPressMsg) action {
	if p.working != "" {
		return keptAction // one call at a time
	}
	var cur *acpclient.SessionEntry
	if p.sel < len(p.list) {
		cur = &p.list[p.sel]
	}
	switch k.String() {
	case "esc", "q":
		if p.startup {
			return doAction(false, func(m *Model) tea.Cmd { return m.sessionCall(p, "new", "") })
		}
		return closeAction
	case "up", "k":
		p.sel = max(p.sel-1, 0)
	case "down", "j":
		p.sel = min(p.sel+1, max(len(p.list)-1, 0))
	case "n":
		return doAction(false, func(m *Model) tea.Cmd { return m.sessionCall(p, "new", "") })
	case "enter":
		switch {
		case cur == nil:
		case !p.sup.Reopen():
			p.err = "the agent cannot open earlier sessions (it advertises neither session/load nor session/resume)"
		case cur.Current && !p.startup:
			return closeAction // already open
		default:
			id := cur.ID
			return doAction(false, func(m *Model) tea.Cmd { return m.sessionCall(p, "open", id) })
		}
	case "f":
		switch {
		case cur == nil:
		case !p.sup.Fork:
			p.err = "the agent cannot fork sessions (no session/fork)"
		default:
			id := cur.ID
			return doAction(false, func(m *Model) tea.Cmd { return m.sessionCall(p, "fork", id) })
		}
	case "d", "delete":
		switch {
		case cur == nil:
		case !p.sup.Delete:
			p.err = "the agent cannot delete sessions (no session/delete)"
		case cur.Current:
			p.err = "this is the open session: open another one first"
		case p.confirm != cur.ID:
			p.confirm, p.err = cur.ID, ""
		default:
			id := cur.ID
			return doAction(false, func(m *Model) tea.Cmd { return m.sessionCall(p, "delete", id) })
		}
	}
	return keptAction
}

func (p *sessionPicker) draw(m *Model, area uv.Rectangle) string {
	st := m.st
	w := min(max(area.Dx()-8, 30), 110)
	title := "Sessions"
	switch p.source {
	case acpclient.FromAgent:
		title += " · from the agent"
	case acpclient.FromAcpterm:
		title += " · from acpterm's records"
	}
	lines := []string{st.ModalTitle.Render(truncate(title, w)), st.Dim.Render(truncate("in "+sanitizeLine(m.sessionCwd()), w)), ""}
	switch {
	case p.loading:
		lines = append(lines, st.Dim.Render("loading…"))
	case len(p.list) == 0 && p.err == "":
		lines = append(lines, st.Dim.Render("No earlier sessions here."))
	}
	rows := max(area.Dy()-10, 3)
	first := max(0, min(p.sel-rows/2, len(p.list)-rows))
	for i := first; i < len(p.list) && i < first+rows; i++ {
		e := p.list[i]
		t := sanitizeLine(e.Title)
		if t == "" {
			t = "(untitled)"
		}
		when := sessionWhen(e, m.now())
		tw := min(44, max(w-44, 10))
		line := fmt.Sprintf("%-*s  %-16s  %s", tw, truncate(t, tw), when, sanitizeLine(e.ID))
		if e.Current {
			line += "  (open)"
		}
		if p.confirm == e.ID {
			line += "  — d again deletes it"
		}
		line = truncate(line, w-2)
		if i == p.sel {
			lines = append(lines, st.ModalSelected.Render("› "+line))
		} else {
			lines = append(lines, "  "+line)
		}
	}
	if p.err != "" {
		lines = append(lines, "")
		lines = append(lines, wrapCells(st.Error.Render(sanitizeLine(p.err)), w)...)
	}
	if p.working != "" {
		lines = append(lines, "", st.Warn.Render(truncate(p.working, w)))
	}
	var keys []string
	if p.sup.Reopen() {
		how := "resume"
		if p.sup.Load {
			how = "load"
		}
		keys = append(keys, "enter "+how)
	}
	if p.sup.Fork {
		keys = append(keys, "f fork")
	}
	if p.sup.Delete {
		keys = append(keys, "d delete")
	}
	keys = append(keys, "n new session")
	if p.startup {
		keys = append(keys, "esc new session")
	} else {
		keys = append(keys, "esc close")
	}
	lines = append(lines, "", st.Dim.Render(truncate(strings.Join(keys, " · "), w)))
	return st.Modal.Render(strings.Join(lines, "\n"))
}

// sessionWhen is when the session was last used: "5 min ago", "yesterday 14:02", "2026-01-02".
func sessionWhen(e acpclient.SessionEntry, now time.Time) string {
	if e.Updated.IsZero() {
		if e.UpdatedText != "" {
			return sanitizeLine(e.UpdatedText)
		}
		return "          "
	}
	t := e.Updated.Local()
	d := now.Sub(t)
	switch {
	case d < time.Minute && d > -time.Minute:
		return "just now"
	case d < time.Hour && d > 0:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour && d > 0:
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// onSessionStarted notes a session change: the conversation (already reset by State.Apply)
// drops its cached lines and banners, and a banner says which session is open and how.
func (m *Model) onSessionStarted(e acpclient.SessionStarted, prev string) {
	if prev == "" && e.Via != "session/load" && e.Via != "session/resume" && e.Via != "session/fork" {
		return // the first session, new: nothing to say
	}
	if prev != "" && (e.Via == "session/load" || e.Info.SessionID != prev && e.ForkedFrom != prev) {
		m.banners = nil
		m.conv.setTheme(m.st, m.md) // drops the cached lines of the old conversation
		m.conv.scroll = 0
	}
	id := sanitizeLine(e.Info.SessionID)
	switch e.Via {
	case "session/load":
		m.addBanner("info", "session "+id+" loaded; its history follows")
	case "session/resume":
		m.addBanner("info", "session "+id+" resumed (the agent does not replay its history)")
	case "session/fork":
		m.addBanner("info", "session "+id+": a fork of "+sanitizeLine(e.ForkedFrom))
	default:
		m.addBanner("info", "new session "+id)
	}
}
