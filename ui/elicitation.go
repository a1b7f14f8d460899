package ui

// The elicitation dialog: the agent's questions (ACP elicitation/create) as a form of fields
// (text, number, integer, single choice, multiple choice, yes/no) or a URL to visit.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/acpclient"
)

// lineInput is a one-line text field: runes and a cursor (in runes).
type lineInput struct {
	r   []rune
	pos int
}

func (in *lineInput) set(s string)  { in.r, in.pos = []rune(s), len([]rune(s)) }
func (in *lineInput) value() string { return string(in.r) }

// key edits the text; it reports whether the key was an editing key.
func (in *lineInput) key(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "left", "ctrl+b":
		in.pos = max(in.pos-1, 0)
	case "right", "ctrl+f":
		in.pos = min(in.pos+1, len(in.r))
	case "home", "ctrl+a":
		in.pos = 0
	case "end", "ctrl+e":
		in.pos = len(in.r)
	case "backspace", "ctrl+h":
		if in.pos > 0 {
			in.r = slices.Delete(in.r, in.pos-1, in.pos)
			in.pos--
		}
	case "delete":
		if in.pos < len(in.r) {
			in.r = slices.Delete(in.r, in.pos, in.pos+1)
		}
	case "ctrl+u":
		in.r, in.pos = in.r[in.pos:], 0
	case "ctrl+k":
		in.r = in.r[:in.pos]
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		in.insert(k.Text)
	}
	return true
}

func (in *lineInput) insert(s string) {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(sanitize(s))
	add := []rune(s)
	in.r = slices.Insert(in.r, in.pos, add...)
	in.pos += len(add)
}

// view renders the text (masked when secret) with a reverse-video cursor when focused, cut to
// w cells around the cursor.
func (in *lineInput) view(st *Styles, focused, secret bool, w int) string {
	r := in.r
	if secret {
		r = []rune(strings.Repeat("•", len(in.r)))
	}
	start := 0
	if in.pos >= w {
		start = in.pos - w + 1
	}
	end := min(len(r), start+w)
	if !focused {
		return string(r[start:end])
	}
	before := string(r[start:in.pos])
	at, after := " ", ""
	if in.pos < len(r) {
		at = string(r[in.pos])
		if in.pos+1 < end {
			after = string(r[in.pos+1 : end])
		}
	}
	return before + st.ModalSelected.Render(at) + after
}

// elicitField is the editing state of one field.
type elicitField struct {
	f      acpclient.ElicitationField
	in     lineInput // text, number, integer
	sel    int       // single choice: chosen option (-1 none); multi-select: option under the cursor
	on     []bool    // multi-select: chosen options
	yes    bool      // boolean
	edited bool
}

// elicitForm is the dialog for the front elicitation.
type elicitForm struct {
	ask    acpclient.ElicitationAsked
	fields []*elicitField
	focus  int
	errs   map[string]string // field name → problem ("" key: the whole answer)
	sent   bool              // answered; waiting for ElicitationResolved
	keys   bool              // the dialog takes keys (else the answer key gives them to it)
	note   string            // a line under the form (URL opened, how to open it)
}

func (ef *elicitField) kind() string {
	switch {
	case ef.f.Type == acpclient.FieldBoolean:
		return "bool"
	case ef.f.Type == acpclient.FieldArray:
		return "multi"
	case len(ef.f.Options) > 0:
		return "choice"
	}
	return "text"
}

func newElicitForm(a acpclient.ElicitationAsked) *elicitForm {
	form := &elicitForm{ask: a, errs: map[string]string{}}
	for _, f := range a.Elicitation.Fields {
		ef := &elicitField{f: f, sel: -1}
		switch ef.kind() {
		case "bool":
			ef.yes, _ = f.Default.(bool)
		case "multi":
			ef.on = make([]bool, len(f.Options))
			def, _ := f.Default.([]string)
			for i, o := range f.Options {
				ef.on[i] = slices.Contains(def, o.Value)
			}
			ef.sel = 0
		case "choice":
			for i, o := range f.Options {
				if o.Value == f.Default {
					ef.sel = i
				}
			}
		default:
			switch d := f.Default.(type) {
			case string:
				ef.in.set(d)
			case float64:
				ef.in.set(strconv.FormatFloat(d, 'f', -1, 64))
			case int64:
				ef.in.set(strconv.FormatInt(d, 10))
			}
		}
		form.fields = append(form.fields, ef)
	}
	return form
}

// content collects the answer; per-field parse errors go to errs (and content lacks them).
func (form *elicitForm) content() (map[string]any, map[string]string) {
	c := map[string]any{}
	errs := map[string]string{}
	for _, ef := range form.fields {
		name := ef.f.Name
		switch ef.kind() {
		case "bool":
			c[name] = ef.yes
		case "multi":
			var l []string
			for i, o := range ef.f.Options {
				if ef.on[i] {
					l = append(l, o.Value)
				}
			}
			if len(l) > 0 || ef.edited || ef.f.Required {
				if l == nil {
					l = []string{}
				}
				c[name] = l
			}
		case "choice":
			if ef.sel >= 0 {
				c[name] = ef.f.Options[ef.sel].Value
			}
		default:
			s := ef.in.value()
			if s == "" {
				continue
			}
			v, err := ef.f.ParseText(s)
			if err != nil {
				errs[name] = err.Error()
				continue
			}
			c[name] = v
		}
	}
	return c, errs
}

// validate returns the answer to send, or nil with form.errs filled and the focus on the first
// field with a problem.
func (form *elicitForm) validate() map[string]any {
	c, errs := form.content()
	if err := form.ask.Elicitation.Validate(c); err != nil {
		var ve *acpclient.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				if _, ok := errs[fe.Field]; !ok {
					errs[fe.Field] = fe.Msg
				}
			}
		} else {
			errs[""] = err.Error()
		}
	}
	form.errs = errs
	if len(errs) == 0 {
		return c
	}
	for i, ef := range form.fields {
		if _, bad := errs[ef.f.Name]; bad {
			form.focus = i
			break
		}
	}
	return nil
}

// elicitOverlayID names the dialog on the overlay stack.
const elicitOverlayID = "elicitation"

func (form *elicitForm) overlayID() string { return elicitOverlayID }

// handleKey implements overlay (see handleElicitKey). While the answer is on its way the dialog
// is hidden and passes every key on; the interrupt key (cancel the turn) and conversation
// scrolling always pass.
//
// Typing never answers it: a question that arrives while the user types a prompt (or a pane has
// the keyboard) leaves every key to the editor until the answer key (tab) is pressed.
func (form *elicitForm) handleKey(m *Model, k tea.KeyPressMsg) action {
	if form.sent || key.Matches(k, m.keys.Interrupt, m.keys.ScrollUp, m.keys.ScrollDown) {
		return passAction
	}
	if !form.keys {
		if key.Matches(k, m.keys.Answer) {
			form.keys = true
			return keptAction
		}
		return passAction
	}
	return doAction(false, func(m *Model) tea.Cmd { return m.handleElicitKey(form, k) })
}

// draw implements overlay.
func (form *elicitForm) draw(m *Model, area uv.Rectangle) string {
	if form.sent {
		return ""
	}
	return m.elicitOverlay(form, min(max(area.Dx()-4, 24), 100), area.Dy())
}

// showNextElicit opens the dialog of the oldest pending elicitation when none is open.
func (m *Model) showNextElicit() {
	if m.elicit != nil || len(m.elicits) == 0 {
		return
	}
	m.elicit = newElicitForm(m.elicits[0])
	m.elicit.keys = !m.typing() && !m.focused && m.nav.copy == nil
	// Under the views the user opened (help, grants): it shows once they close them.
	m.pushOverlayBottom(m.elicit)
}

// onElicitation handles the elicitation events.
func (m *Model) onElicitation(ev acpclient.Event) {
	switch e := ev.(type) {
	case acpclient.ElicitationAsked:
		m.elicits = append(m.elicits, e)
		m.showNextElicit()
		m.notify("the agent asks: " + e.Elicitation.Message) // a question waits, as an approval does
	case acpclient.ElicitationResolved:
		m.elicits = slices.DeleteFunc(m.elicits, func(a acpclient.ElicitationAsked) bool { return a.ID == e.ID })
		msg := ""
		if m.elicit != nil && m.elicit.ask.ID == e.ID {
			msg = m.elicit.ask.Elicitation.Message
			m.removeOverlay(elicitOverlayID)
			m.elicit = nil
		}
		m.showNextElicit()
		text := "question " + e.Action
		switch e.By {
		case "user":
		case "cancel":
			text += " (the turn ended)"
		default:
			text += " (" + e.By + ")"
		}
		if len(e.Fields) > 0 {
			text += ": " + strings.Join(e.Fields, ", ")
		}
		if msg != "" {
			text = sanitizeLine(clipText(msg, 80)) + " — " + text
		}
		m.addBanner("info", text)
	case acpclient.ElicitationCompleted:
		m.addBanner("info", "the agent reports that "+sanitizeLine(e.ElicitationID)+" is done")
	}
	m.markDirty()
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// elicitAnsweredMsg reports AnswerElicitation's error (nil: sent).
type elicitAnsweredMsg struct {
	id  string
	err error
}

// answerElicit sends the answer from a Cmd and hides the dialog until it is resolved.
func (m *Model) answerElicit(form *elicitForm, a acpclient.ElicitationAnswer) tea.Cmd {
	form.sent = true
	agent, id := m.d.agent, form.ask.ID
	return func() tea.Msg { return elicitAnsweredMsg{id: id, err: agent.AnswerElicitation(id, a)} }
}

func (m *Model) onElicitAnswered(msg elicitAnsweredMsg) {
	if msg.err == nil || m.elicit == nil || m.elicit.ask.ID != msg.id {
		return
	}
	if errors.Is(msg.err, acpclient.ErrNoElicitation) {
		return // withdrawn meanwhile; its ElicitationResolved closes the dialog
	}
	m.elicit.sent = false
	var ve *acpclient.ValidationError
	if errors.As(msg.err, &ve) {
		for _, fe := range ve.Errors {
			m.elicit.errs[fe.Field] = fe.Msg
		}
	} else {
		m.elicit.errs[""] = msg.err.Error()
	}
	m.markDirty()
}

// handleElicitKey drives the dialog. Form: tab/↓ and shift+tab/↑ move between fields, ←/→ and
// space choose, typing edits a text field, enter submits, ctrl+d declines, esc cancels. URL:
// o opens the URL (and accepts), enter accepts, d or ctrl+d declines, esc cancels.
func (m *Model) handleElicitKey(form *elicitForm, k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		return m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitCancel})
	case "ctrl+d":
		return m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitDecline})
	}
	if form.ask.Elicitation.Mode == acpclient.ElicitURL {
		switch k.String() {
		case "d":
			return m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitDecline})
		case "enter", "a":
			return m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitAccept})
		case "o":
			u := form.ask.Elicitation.URL
			if err := openableURL(u); err != nil {
				form.note = err.Error()
				return nil
			}
			return tea.Batch(openURLCmd(u), m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitAccept}))
		}
		return nil
	}
	if k.String() == "enter" {
		c := form.validate()
		if c == nil {
			return nil
		}
		return m.answerElicit(form, acpclient.ElicitationAnswer{Action: acpclient.ElicitAccept, Content: c})
	}
	if len(form.fields) == 0 {
		return nil
	}
	ef := form.fields[form.focus]
	switch k.String() {
	case "tab", "down":
		form.focus = (form.focus + 1) % len(form.fields)
		return nil
	case "shift+tab", "up":
		form.focus = (form.focus + len(form.fields) - 1) % len(form.fields)
		return nil
	}
	delete(form.errs, ef.f.Name)
	switch ef.kind() {
	case "bool":
		switch k.String() {
		case "space", "left", "right", "x":
			ef.yes = !ef.yes
		case "y":
			ef.yes = true
		case "n":
			ef.yes = false
		}
	case "choice":
		n := len(ef.f.Options)
		switch k.String() {
		case "right", "space":
			ef.sel = (ef.sel + 1) % n
		case "left":
			ef.sel = (max(ef.sel, 0) + n - 1) % n
		default:
			if d, err := strconv.Atoi(k.String()); err == nil && d >= 1 && d <= n {
				ef.sel = d - 1
			}
		}
	case "multi":
		n := len(ef.f.Options)
		switch k.String() {
		case "right":
			ef.sel = (ef.sel + 1) % n
		case "left":
			ef.sel = (ef.sel + n - 1) % n
		case "space", "x":
			ef.on[ef.sel] = !ef.on[ef.sel]
			ef.edited = true
		default:
			if d, err := strconv.Atoi(k.String()); err == nil && d >= 1 && d <= n {
				ef.sel = d - 1
				ef.on[ef.sel] = !ef.on[ef.sel]
				ef.edited = true
			}
		}
	default:
		if ef.in.key(k) {
			ef.edited = true
		}
	}
	return nil
}

// hasKeys implements keyWaiter: the dialog takes keys once given them, until it is answered.
func (form *elicitForm) hasKeys() bool { return form.keys && !form.sent }

// giveKeys implements keyWaiter.
func (form *elicitForm) giveKeys() { form.keys = true }

// waitHint implements keyWaiter.
func (form *elicitForm) waitHint(m *Model) string {
	if form.sent {
		return ""
	}
	return fmt.Sprintf(" The agent asks a question · %s leaves the pane to answer ", m.keys.LeavePane.Help().Key)
}

// takePaste implements pasteTaker: until the answer is sent, a paste goes into the question's
// focused text field (and is dropped when that field is not text), never into the prompt.
func (form *elicitForm) takePaste(s string) bool {
	if form.sent {
		return false
	}
	form.paste(s)
	return true
}

// paste inserts s into the focused field when it is a text field.
func (form *elicitForm) paste(s string) {
	if form.ask.Elicitation.Mode != acpclient.ElicitForm || len(form.fields) == 0 {
		return
	}
	if ef := form.fields[form.focus]; ef.kind() == "text" {
		ef.in.insert(s)
		ef.edited = true
		delete(form.errs, ef.f.Name)
	}
}

// openableURL accepts only http and https URLs with a host (no file:, javascript: or custom
// schemes reach the opener).
func openableURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("acpterm opens only http and https URLs; this one is not: copy it if you trust it")
	}
	return nil
}

// urlOpener returns the command that opens a URL in a browser: $BROWSER, else xdg-open or open
// when installed; nil when there is none.
func urlOpener(u string) []string {
	if b := strings.TrimSpace(os.Getenv("BROWSER")); b != "" {
		if f := strings.Fields(b); len(f) > 0 {
			return append(f, u)
		}
	}
	for _, p := range []string{"xdg-open", "open"} {
		if path, err := exec.LookPath(p); err == nil {
			return []string{path, u}
		}
	}
	return nil
}

// urlOpenedMsg reports the opener's result.
type urlOpenedMsg struct {
	url string
	err error
}

// openURLCmd runs the opener (its output discarded; bounded to 30 s so nothing is left behind).
func openURLCmd(u string) tea.Cmd {
	return func() tea.Msg {
		argv := urlOpener(u)
		if argv == nil {
			return urlOpenedMsg{url: u, err: errors.New("no browser opener: set $BROWSER or install xdg-open, then open the URL yourself")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		if err := cmd.Run(); err != nil {
			return urlOpenedMsg{url: u, err: fmt.Errorf("%s: %v", argv[0], err)}
		}
		return urlOpenedMsg{url: u}
	}
}

func (m *Model) onURLOpened(msg urlOpenedMsg) {
	if msg.err != nil {
		m.addBanner("warn", "could not open "+sanitizeLine(msg.url)+": "+msg.err.Error())
		return
	}
	m.addBanner("info", "opened "+sanitizeLine(msg.url)+" in the browser")
}

// elicitOverlay renders the dialog (w cells wide at most).
func (m *Model) elicitOverlay(form *elicitForm, w, maxH int) string {
	st := m.st
	e := form.ask.Elicitation
	w = max(w, 24)
	inner := w - 4
	var lines []string
	title := "Question from the agent"
	if e.Title != "" {
		title += ": " + sanitizeLine(e.Title)
	}
	if n := len(m.elicits); n > 1 {
		title += fmt.Sprintf(" (1 of %d)", n)
	}
	lines = append(lines, st.ModalTitle.Render(truncate(title, inner)))
	for _, l := range strings.Split(sanitize(e.Message), "\n") {
		lines = append(lines, wrapCells(l, inner)...)
	}
	if e.Description != "" {
		lines = append(lines, wrapCells(st.Dim.Render(sanitizeLine(e.Description)), inner)...)
	}
	lines = append(lines, "")
	if e.Mode == acpclient.ElicitURL {
		host := "?"
		if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
			host = u.Host
		}
		lines = append(lines, st.Bold.Render("Site: ")+sanitizeLine(host))
		lines = append(lines, wrapLabeled("URL:  ", sanitizeLine(e.URL), inner)...)
		if form.note != "" {
			lines = append(lines, st.Warn.Render(truncate(form.note, inner)))
		}
		lines = append(lines, "", m.elicitHint(form, "o open in browser · enter done (I opened it) · d decline · esc cancel", inner))
		return st.Modal.Render(strings.Join(clipLines(lines, maxH-2), "\n"))
	}
	for i, ef := range form.fields {
		focused := i == form.focus
		mark := "  "
		if focused {
			mark = st.Accent.Render("› ")
		}
		label := sanitizeLine(ef.f.Label())
		if ef.f.Required {
			label += st.Warn.Render(" *")
		}
		if hint := fieldHint(ef.f); hint != "" {
			label += st.Dim.Render("  " + hint)
		}
		lines = append(lines, truncate(mark+st.Bold.Render(label), inner))
		if ef.f.Description != "" {
			lines = append(lines, truncate("    "+st.Dim.Render(sanitizeLine(ef.f.Description)), inner))
		}
		lines = append(lines, "    "+ef.control(st, focused, inner-4))
		if k := ef.kind(); focused && (k == "choice" || k == "multi") && ef.sel >= 0 && ef.f.Options[ef.sel].Description != "" {
			lines = append(lines, truncate("    "+st.Dim.Render(sanitizeLine(ef.f.Options[ef.sel].Title+": "+ef.f.Options[ef.sel].Description)), inner))
		}
		if msg, bad := form.errs[ef.f.Name]; bad {
			lines = append(lines, wrapLabeled("    ✗ ", st.Error.Render(sanitizeLine(msg)), inner)...)
		}
	}
	if msg, bad := form.errs[""]; bad {
		lines = append(lines, wrapCells(st.Error.Render("✗ "+sanitizeLine(msg)), inner)...)
	}
	lines = append(lines, "", m.elicitHint(form, "enter submit · tab/↑↓ field · ←→/space choose · ctrl+d decline · esc cancel", inner))
	// Keep the focused field in view when the form is taller than the window.
	return st.Modal.Render(strings.Join(clipLines(lines, maxH-2), "\n"))
}

// elicitHint is the dialog's key line: its keys, or how to give it the keys.
func (m *Model) elicitHint(form *elicitForm, keys string, w int) string {
	if !form.keys {
		return m.st.Warn.Render(truncate(m.keys.Answer.Help().Key+" answers · what you type goes to the prompt", w))
	}
	return m.st.Dim.Render(truncate(keys, w))
}

// clipLines keeps at most n lines (the first ones: title, message, first fields).
func clipLines(lines []string, n int) []string {
	if n <= 0 || len(lines) <= n {
		return lines
	}
	return append(lines[:n-1:n-1], "…")
}

// fieldHint describes a field's constraints: "1–5", "email", "2–20 chars", "choose 1 or more".
func fieldHint(f acpclient.ElicitationField) string {
	var h []string
	num := func(p *float64) string { return strconv.FormatFloat(*p, 'f', -1, 64) }
	switch {
	case f.Minimum != nil && f.Maximum != nil:
		h = append(h, num(f.Minimum)+"–"+num(f.Maximum))
	case f.Minimum != nil:
		h = append(h, "≥ "+num(f.Minimum))
	case f.Maximum != nil:
		h = append(h, "≤ "+num(f.Maximum))
	}
	if f.Type == acpclient.FieldInteger {
		h = append(h, "whole number")
	}
	if f.Type == acpclient.FieldNumber {
		h = append(h, "number")
	}
	if f.Format != "" {
		h = append(h, f.Format)
	}
	switch {
	case f.MinLength != nil && f.MaxLength != nil:
		h = append(h, fmt.Sprintf("%d–%d chars", *f.MinLength, *f.MaxLength))
	case f.MinLength != nil:
		h = append(h, fmt.Sprintf("≥ %d chars", *f.MinLength))
	case f.MaxLength != nil:
		h = append(h, fmt.Sprintf("≤ %d chars", *f.MaxLength))
	}
	if f.Type == acpclient.FieldArray {
		switch {
		case f.MinItems != nil && f.MaxItems != nil:
			h = append(h, fmt.Sprintf("choose %d–%d", *f.MinItems, *f.MaxItems))
		case f.MinItems != nil:
			h = append(h, fmt.Sprintf("choose %d or more", *f.MinItems))
		case f.MaxItems != nil:
			h = append(h, fmt.Sprintf("choose up to %d", *f.MaxItems))
		default:
			h = append(h, "choose any")
		}
	}
	if f.Sensitive {
		h = append(h, "hidden")
	}
	return strings.Join(h, ", ")
}

// control renders the field's value: a text box, radio buttons, check boxes or a yes/no box.
func (ef *elicitField) control(st *Styles, focused bool, w int) string {
	switch ef.kind() {
	case "bool":
		box := "[ ] no"
		if ef.yes {
			box = "[x] yes"
		}
		if focused {
			return st.ModalSelected.Render(box)
		}
		return box
	case "choice", "multi":
		var parts []string
		for i, o := range ef.f.Options {
			var p string
			if ef.kind() == "choice" {
				p = "( ) "
				if i == ef.sel {
					p = "(•) "
				}
			} else {
				p = "[ ] "
				if ef.on[i] {
					p = "[x] "
				}
			}
			p += sanitizeLine(o.Title)
			if focused && ((ef.kind() == "multi" && i == ef.sel) || (ef.kind() == "choice" && i == ef.sel)) {
				p = st.ModalSelected.Render(p)
			}
			parts = append(parts, p)
		}
		s := strings.Join(parts, "  ")
		if ansi.StringWidth(s) > w {
			// Too wide for one line: the options around the cursor.
			s = truncate(s, w)
		}
		return s
	}
	return "[" + padCells(ef.in.view(st, focused, ef.f.Sensitive, max(w-2, 1)), max(w-2, 1)) + "]"
}

func padCells(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}
