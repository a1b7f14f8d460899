package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// approvalChoice is one answer the modal offers.
type approvalChoice struct {
	role   string // "once", "always", "reject", "reject_always" (agent kinds), "save" (own prompts) or "dismiss"
	key    string // the key shown for it ("" none)
	label  string
	answer acpclient.Answer
}

func (c approvalChoice) reject() bool { return c.role == "reject" || c.role == "reject_always" }
func (c approvalChoice) always() bool {
	return c.role == "always" || c.role == "reject_always" || c.role == "save"
}

// kindRoles maps the agent's permission option kinds to choice roles.
var kindRoles = map[acp.PermissionOptionKind]string{
	acp.PermissionOptionKindAllowOnce:    "once",
	acp.PermissionOptionKindAllowAlways:  "always",
	acp.PermissionOptionKindRejectOnce:   "reject",
	acp.PermissionOptionKindRejectAlways: "reject_always",
}

// roleBinding is the key binding that picks a role (the [ui] keys approve_once, approve_always,
// reject_once, reject_always; defaults a, A, r, R).
func roleBinding(km *KeyMap, role string) key.Binding {
	switch role {
	case "once":
		return km.ApproveOnce
	case "always":
		return km.ApproveAlways
	case "reject":
		return km.RejectOnce
	case "reject_always":
		return km.RejectAlways
	}
	return key.NewBinding()
}

// ownPrompt reports whether p is acpterm's own policy prompt (terminal/create, fs) rather than
// the agent's session/request_permission.
func ownPrompt(p acpclient.PermissionAsked) bool { return p.Kind != "agent" }

// dismissChoice answers an agent's request "cancelled" (ACP: the outcome that selects no
// option). It is offered when the agent's options include no one-time choice, so that nothing
// "always" is ever picked by default or by Esc, and it is the only choice when the agent sent no
// options at all.
var dismissChoice = approvalChoice{role: "dismiss", key: "d", label: "Dismiss (answer cancelled, pick nothing)"}

// choicesFor lists the answers for a request: the agent's own options in its order (each keyed
// by its kind's binding; the first option of a kind gets the key) followed by Dismiss when none
// of them is a one-time choice, or acpterm's choices for its own prompts (a allow once, s allow
// for this session, S save as rule, d deny; s and S only when grantErr is nil, that is, when the
// policy can turn the decision into a grant).
func choicesFor(p acpclient.PermissionAsked, km *KeyMap, grantErr error) []approvalChoice {
	if ownPrompt(p) {
		once := approvalChoice{role: "once", key: "a", label: "Allow once", answer: acpclient.Answer{Choice: acpclient.AllowOnce}}
		deny := approvalChoice{role: "reject", key: "d", label: "Deny", answer: acpclient.Answer{Choice: acpclient.Deny}}
		if grantErr != nil {
			return []approvalChoice{once, deny}
		}
		return []approvalChoice{
			once,
			{role: "always", key: "s", label: "Allow for this session", answer: acpclient.Answer{Choice: acpclient.AllowSession}},
			{role: "save", key: "S", label: "Save as rule", answer: acpclient.Answer{Choice: acpclient.SaveRule}},
			deny,
		}
	}
	used := map[string]bool{}
	out := make([]approvalChoice, 0, len(p.Options))
	for _, o := range p.Options {
		c := approvalChoice{role: kindRoles[o.Kind], label: revealLine(o.Name), answer: acpclient.Answer{OptionID: string(o.OptionId)}}
		if c.label == "" {
			c.label = revealLine(string(o.OptionId))
		}
		if c.role != "" && !used[c.role] {
			used[c.role] = true
			c.key = roleBinding(km, c.role).Help().Key
		}
		out = append(out, c)
	}
	if grantErr == nil && p.Policy != nil {
		// acpterm remembers the agent's "always" as its own grant for the session; this
		// choice saves it as a rule for every session (the agent gets the same option).
		for i, c := range out {
			if c.role == "always" {
				save := approvalChoice{role: "save", label: "Always allow, and save as a rule (every session)",
					answer: acpclient.Answer{OptionID: c.answer.OptionID, Choice: acpclient.SaveRule}}
				out = append(out[:i+1], append([]approvalChoice{save}, out[i+1:]...)...)
				break
			}
		}
	}
	for _, c := range out {
		if !c.always() {
			return out
		}
	}
	return append(out, dismissChoice)
}

// defaultChoice is the highlighted choice when the modal opens: the first allow-once choice,
// else the first choice that is neither "always" nor a rejection, else the first non-always one
// (choicesFor adds Dismiss when every option is "always", so there is one).
func defaultChoice(cs []approvalChoice) int {
	for i, c := range cs {
		if c.role == "once" {
			return i
		}
	}
	for i, c := range cs {
		if !c.always() && !c.reject() {
			return i
		}
	}
	for i, c := range cs {
		if !c.always() {
			return i
		}
	}
	return 0
}

// escAnswer is what Esc answers: reject once (the first reject_once option or the own prompt's
// deny), else Dismiss ("cancelled"): Esc never picks an "always" option.
func escAnswer(cs []approvalChoice) acpclient.Answer {
	for _, c := range cs {
		if c.role == "reject" {
			return c.answer
		}
	}
	return dismissChoice.answer
}

// approvals is the overlay for pending permission requests (State.Pending, oldest first). The
// queue itself is State.Pending minus what was answered and not yet resolved; the overlay holds
// the highlight and scroll position per request and whether the user is answering.
//
// Keys: a request that arrives while the user is typing a prompt (the editor holds text, or a
// key reached it within typingRecent) does not take keys: it shows "tab answers" and every key
// but that one goes on to the editor. Otherwise, or once the user moves to it, it takes its
// keys; a printable key that is no choice goes to the editor and hands the keys back to it, so
// typed text always lands in the prompt. A choice that lasts (allow always, reject always,
// allow for this session, save as rule) is never picked by one key: its key selects it, and
// enter confirms. No key is ever dropped: keys that are not the overlay's go on to the root.
type approvals struct {
	scope  string         // how commands run in the sandbox ("writes only in ~/p, network off"); "" unconfined
	focus  bool           // the user is answering: the overlay takes keys
	typed  string         // printable keys that only selected a lasting choice since the user last navigated
	front  string         // id of the request in front at the last sync
	done   int            // requests answered since the queue was last empty ("2 of 3")
	sel    map[string]int // highlighted choice index per request id
	scroll map[string]int // first body line shown per request id (the body scrolls; never cut)
	room   int            // body lines that fit at the last render (the PgUp/PgDn step)
	// diffs caches the rendered diffs of one request at one width: a request does not change,
	// and a large diff costs milliseconds to render, once per frame otherwise.
	diffs struct {
		id    string
		width int
		st    *Styles // the styles they were drawn with (light/dark detection may change them)
		lines []string
	}
}

// typingRecent is how recently a key must have reached the prompt editor for a new request to
// count as arriving while the user types (it then waits for the answer key). It only chooses
// how the overlay opens; no key is ever held back or dropped by time.
const typingRecent = 2 * time.Second

func newApprovals(scope string) *approvals {
	return &approvals{scope: scope, sel: map[string]int{}, scroll: map[string]int{}, room: 1}
}

func (a *approvals) overlayID() string { return "approval" }

// hasKeys implements keyWaiter: the overlay takes keys while the user is answering.
func (a *approvals) hasKeys() bool { return a.focus }

// giveKeys implements keyWaiter.
func (a *approvals) giveKeys() { a.focus = true }

// waitHint implements keyWaiter.
func (a *approvals) waitHint(m *Model) string {
	if _, ok := m.frontApproval(); !ok {
		return ""
	}
	return fmt.Sprintf(" Permission waiting (%d) · %s leaves the pane to answer ", m.pendingApprovals(), m.keys.LeavePane.Help().Key)
}

// typing reports whether the user is typing a prompt: the editor holds text, or a key reached
// it less than typingRecent ago.
func (m *Model) typing() bool {
	if !m.ed.empty() {
		return true
	}
	return !m.lastEditorKey.IsZero() && m.now().Sub(m.lastEditorKey) < typingRecent
}

// syncApprovals keeps the approval overlay on the stack while a request waits (opened at the
// bottom, under views the user opened, taking keys unless the user is typing or in a pane) and
// closes it when none does; the "N of M" count restarts then.
func (m *Model) syncApprovals() {
	p, ok := m.frontApproval()
	o := m.findOverlay("approval")
	if !ok {
		if o != nil {
			m.removeOverlay("approval")
		}
		return
	}
	if o == nil {
		m.appr.focus = !m.typing() && !m.focused && m.nav.copy == nil
		m.appr.done = 0
		m.pushOverlayBottom(m.appr)
	}
	if m.appr.front != p.ID {
		m.appr.front, m.appr.typed = p.ID, ""
		m.markDirty()
	}
}

// typingKey reports whether k edits the prompt: printable text (no ctrl or alt), or backspace.
func typingKey(k tea.KeyPressMsg) bool {
	if k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) != 0 {
		return false
	}
	return k.Text != "" || k.Code == tea.KeyBackspace
}

func (a *approvals) handleKey(m *Model, k tea.KeyPressMsg) action {
	p, ok := m.frontApproval()
	if !ok {
		return passAction
	}
	if !a.focus {
		if key.Matches(k, m.keys.Answer) {
			a.focus, a.typed = true, ""
			return keptAction
		}
		return passAction
	}
	if key.Matches(k, m.keys.Pager) {
		// The whole request, unwrapped and unscrolled, in $PAGER.
		return doAction(false, func(m *Model) tea.Cmd { return m.pageText("request", requestText(p)) })
	}
	ans, known := a.choose(p, k, &m.keys, m.grantErr(p))
	if ans != nil {
		id, answer := p.ID, *ans
		return doAction(false, func(m *Model) tea.Cmd { return m.answer(id, answer) })
	}
	if known {
		return keptAction
	}
	if typingKey(k) {
		// The user is typing, not answering (they may not have noticed the request): the key
		// goes to the editor, and the request waits for the answer key again. Letters that
		// only selected a lasting choice just before ("S" of "Sure") were typing too: they go
		// to the editor first, and the highlight returns to the default.
		a.focus = false
		if pre := a.typed; pre != "" {
			a.typed = ""
			delete(a.sel, p.ID)
			return doAction(false, func(m *Model) tea.Cmd {
				m.ed.insert(pre)
				return m.handleKey(k)
			})
		}
	}
	return passAction
}

// selected is the highlighted choice of p among cs.
func (a *approvals) selected(p acpclient.PermissionAsked, cs []approvalChoice) int {
	if sel, ok := a.sel[p.ID]; ok && sel < len(cs) {
		return sel
	}
	return defaultChoice(cs)
}

// choose answers or navigates the front request p. It returns the answer to send (nil when the
// key only moved the highlight or was not an answer) and whether the key was one of the
// overlay's (false: it goes on to the root model).
func (a *approvals) choose(p acpclient.PermissionAsked, k tea.KeyPressMsg, km *KeyMap, grantErr error) (*acpclient.Answer, bool) {
	cs := choicesFor(p, km, grantErr)
	sel := a.selected(p, cs)
	answer := func(i int) (*acpclient.Answer, bool) {
		ans := cs[i].answer
		delete(a.sel, p.ID)
		delete(a.scroll, p.ID)
		a.typed = ""
		return &ans, true
	}
	// pick is a choice's own key: it answers at once, except a lasting choice, which it only
	// selects (enter confirms).
	pick := func(i int) (*acpclient.Answer, bool) {
		if cs[i].always() {
			a.sel[p.ID] = i
			a.typed += k.Text
			return nil, true
		}
		return answer(i)
	}
	own := ownPrompt(p)
	if own {
		// The fixed letters shown first (a, s, S, d): a [ui.keys] binding of one of them to
		// another action must not make the shown "d Deny" allow.
		for i, c := range cs {
			if c.key != "" && k.Text == c.key {
				return pick(i)
			}
		}
	}
	for i, c := range cs {
		if own {
			// Own prompts: the approve/reject bindings by meaning.
			if (c.role == "once" && key.Matches(k, km.ApproveOnce)) ||
				(c.role == "always" && key.Matches(k, km.ApproveAlways)) ||
				(c.role == "reject" && key.Matches(k, km.RejectOnce, km.RejectAlways)) {
				return pick(i)
			}
			continue
		}
		if c.key != "" && key.Matches(k, roleBinding(km, c.role)) {
			return pick(i)
		}
		if c.role == "dismiss" && k.Text == c.key {
			return pick(i)
		}
	}
	s := k.String()
	switch s {
	case "esc":
		ans := escAnswer(cs)
		delete(a.sel, p.ID)
		delete(a.scroll, p.ID)
		a.typed = ""
		return &ans, true
	case "pgdown", "ctrl+d":
		// render clamps the offset to the body's end.
		a.scroll[p.ID] += max(a.room-1, 1)
		return nil, true
	case "pgup", "ctrl+u":
		a.scroll[p.ID] = max(a.scroll[p.ID]-max(a.room-1, 1), 0)
		return nil, true
	case "home":
		a.scroll[p.ID] = 0
		return nil, true
	case "end":
		a.scroll[p.ID] = 1 << 30
		return nil, true
	case "enter":
		return answer(sel)
	case "up", "shift+tab":
		a.sel[p.ID] = (sel - 1 + len(cs)) % len(cs)
		a.typed = "" // navigating: the user is answering
		return nil, true
	case "down", "tab":
		a.sel[p.ID] = (sel + 1) % len(cs)
		a.typed = ""
		return nil, true
	}
	if len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
		if i := int(s[0] - '1'); i < len(cs) {
			return pick(i)
		}
	}
	return nil, false // not one of the overlay's keys
}

// draw renders the front request, or nothing while a pane has the keyboard (the pane's title
// row says a request waits instead).
func (a *approvals) draw(m *Model, area uv.Rectangle) string {
	p, ok := m.frontApproval()
	if !ok || m.focused {
		return ""
	}
	n, total := a.done+1, a.done+m.pendingApprovals()
	width := min(max(area.Dx()-4, 20), 100)
	if hasDiff(p) && area.Dx() >= 160 {
		width = area.Dx() - 4 // wide enough for the diff side by side (diffSideBySideMin)
	}
	return a.render(m.st, &m.keys, p, n, total, m.grantErr(p), width, area.Dy())
}

// render draws the front request as the overlay's text (width cells wide, at most maxH lines).
// The hint under the choices says how to answer: "tab answers" while the request does not take
// keys, "enter confirms …" while a lasting choice is selected, "enter choose …" otherwise.
// grantErr (Model.grantErr) is why the own prompt offers no "always" choice, shown under the
// policy lines; nil when it does.
func (a *approvals) render(st *Styles, km *KeyMap, p acpclient.PermissionAsked, n, total int, grantErr error, width, maxH int) string {
	cs := choicesFor(p, km, grantErr)
	sel := a.selected(p, cs)
	inner := max(width-4, 10)
	var head []string
	what := "Agent asks"
	switch p.Kind {
	case "command":
		what = "Run command?"
	case "write":
		what = "Write file?"
	case "read":
		what = "Read file?"
	case "network":
		what = "Connect?"
	}
	head = append(head, st.ModalTitle.Render(fmt.Sprintf("Permission %d of %d", n, total))+st.Dim.Render(" · "+what))
	title := revealLine(derefStr(p.ToolCall.Title))
	var body []string
	if title != "" {
		// The title (often the command itself) is wrapped, never cut: one line stays in the
		// header; a longer title opens the scrollable body instead.
		tl := wrapWords(title, inner)
		for _, l := range tl {
			if len(tl) == 1 {
				head = append(head, st.Bold.Render(l))
			} else {
				body = append(body, st.Bold.Render(l))
			}
		}
	}
	if d := p.Policy; d != nil {
		body = append(body, policyLines(st, d, inner)...)
		if a.scope != "" && len(d.Argv) > 0 {
			body = append(body, wrapLabeledProse(st.Dim.Render("sandbox:")+" ", revealLine(a.scope), inner)...)
		}
		if grantErr != nil && ownPrompt(p) {
			body = append(body, wrapLabeledProse(st.Dim.Render("no \"always\": "), st.Dim.Render(revealLine(grantErr.Error())), inner)...)
		}
	}
	if !ownPrompt(p) && hasAlwaysOption(p) {
		if grantErr == nil {
			body = append(body, wrapWords(st.Dim.Render("\"always\" is also remembered by acpterm as a grant for this session ("+km.Grants.Help().Key+" lists it)"), inner)...)
		} else {
			body = append(body, wrapLabeledProse(st.Dim.Render("acpterm will not remember \"always\": "), st.Dim.Render(revealLine(grantErr.Error())+" (the agent may)"), inner)...)
		}
	}
	body = append(body, a.diffLines(st, p, inner)...)
	var opts []string
	for i, c := range cs {
		keys := fmt.Sprintf("%d", i+1)
		if i >= 9 {
			keys = "" // only 1–9 are keys; the rest are picked with ↑/↓ and enter
		}
		if c.key != "" {
			keys = strings.TrimSuffix(c.key+"/"+keys, "/")
		}
		line := fmt.Sprintf("%-5s %s", keys, c.label)
		line = truncate(line, inner)
		if i == sel {
			opts = append(opts, st.ModalSelected.Render("› "+line))
		} else {
			opts = append(opts, "  "+st.ModalOption.Render(line))
		}
	}
	// Fit: header, options and hint always show; the body scrolls (PgUp/PgDn) inside what is
	// left, with a marker on each side that has hidden lines, so nothing is ever cut silently.
	hintFor := func(hidden bool) []string {
		text := "enter choose · ↑/↓ move · " + escLabel(ownPrompt(p), cs)
		if cs[sel].always() {
			text = "enter confirms “" + cs[sel].label + "” · ↑/↓ move · " + escLabel(ownPrompt(p), cs)
		}
		if hidden {
			text = "pgup/pgdn scroll · " + km.Pager.Help().Key + " all · " + text
		}
		style := st.Dim
		if !a.focus {
			text = km.Answer.Help().Key + " answers · typing stays in the prompt"
			style = st.Warn
		}
		var out []string
		for _, l := range wrapWords(text, inner) {
			out = append(out, style.Render(l))
		}
		return out
	}
	room := maxH - 2 - len(head) - len(opts) - 2 - len(hintFor(true))
	off := a.scroll[p.ID]
	var hidden bool
	if room < len(body) {
		hidden = true
		room = max(room, 3)
		// Lines shown: room minus one row for each marker present.
		show := func(off int) (int, bool, bool) {
			up := off > 0
			n := room - 1
			if up {
				n--
			}
			down := off+n < len(body)
			if !down {
				n++
			}
			return max(n, 1), up, down
		}
		maxOff := 0
		for o := 0; o < len(body); o++ {
			if _, _, down := show(o); !down {
				maxOff = o
				break
			}
		}
		off = min(max(off, 0), maxOff)
		a.scroll[p.ID] = off
		n, up, down := show(off)
		var vis []string
		if up {
			vis = append(vis, st.Warn.Render(fmt.Sprintf("↑ %d more above (PgUp)", off)))
		}
		vis = append(vis, body[off:min(off+n, len(body))]...)
		if down {
			vis = append(vis, st.Warn.Render(fmt.Sprintf("↓ %d more below (PgDn)", len(body)-off-n)))
		}
		body = vis
		a.room = n
	} else {
		a.scroll[p.ID] = 0
	}
	hint := hintFor(hidden)
	lines := append(head, "")
	if len(body) > 0 {
		lines = append(lines, body...)
		lines = append(lines, "")
	}
	lines = append(lines, opts...)
	lines = append(lines, hint...)
	return st.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

// diffLines renders the diffs of request p (its tool call's diff content, then the file write's
// diff) at width cells, cached for the front request.
func (a *approvals) diffLines(st *Styles, p acpclient.PermissionAsked, width int) []string {
	if a.diffs.id == p.ID && a.diffs.width == width && a.diffs.st == st && a.diffs.id != "" {
		return a.diffs.lines
	}
	var lines []string
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			lines = append(lines, splitNL(renderDiff(st, c.Diff.Path, c.Diff.OldText, c.Diff.NewText, width, diffMaxLines))...)
		}
	}
	if p.Diff != nil {
		var old *string
		if p.Diff.Existed {
			o := p.Diff.OldText
			old = &o
		}
		lines = append(lines, splitNL(renderDiff(st, p.Diff.Path, old, p.Diff.NewText, width, diffMaxLines))...)
	}
	a.diffs.id, a.diffs.width, a.diffs.st, a.diffs.lines = p.ID, width, st, lines
	return lines
}

// policyLines shows acpterm's own decision: what will run (resolved program, argv, cwd, added
// environment), why it asks, and each leaf's verdict.
func policyLines(st *Styles, d *permissions.Decision, w int) []string {
	var out []string
	add := func(label, v string) {
		if v == "" {
			return
		}
		out = append(out, wrapLabeled(st.Dim.Render(label)+" ", revealLine(v), w)...)
	}
	prose := func(label, v string) {
		if v == "" {
			return
		}
		out = append(out, wrapLabeledProse(st.Dim.Render(label)+" ", revealLine(v), w)...)
	}
	if d.Path != "" {
		add("path:", d.Path)
	}
	if d.JudgedFrom == "title" {
		// The agent sent no command, only a title: say which text the policy judged.
		add("judged:", d.Judged+" (taken from the tool call's title)")
	}
	if d.Host != "" {
		add("host:", permissions.HostPort(d.Host, d.Port))
		add("from:", d.From)
		add("addr:", strings.Join(d.Addrs, ", "))
	}
	if len(d.Argv) > 0 {
		add("argv:", quoteArgv(d.Argv))
	}
	add("cwd: ", d.Cwd)
	if len(d.EnvAdded) > 0 {
		add("env+:", strings.Join(d.EnvAdded, " "))
	}
	reason := d.Reason
	if d.Rule != "" {
		reason += " (" + d.Rule + ")"
	}
	prose("asks:", reason)
	for _, c := range d.Constructs {
		prose("  ⚠", c)
	}
	for _, g := range groupLeaves(riskyFirst(d.Leaves)) {
		l := g.Leaf
		prog := leafProgram(l)
		v := verdictStyle(st, l.Verdict).Render(fmt.Sprintf("%-5s", l.Verdict))
		line := v + " " + revealLine(quoteArgv(l.Argv)) + st.Dim.Render(" → "+revealLine(prog))
		if len(l.Via) > 0 {
			line += st.Dim.Render(" via " + revealLine(strings.Join(l.Via, " › ")))
		}
		if g.N > 1 {
			line += st.Dim.Render(fmt.Sprintf(" (×%d)", g.N))
		}
		out = append(out, wrapLabeled("", line, w)...)
		why := l.Rule
		if l.Reason != "" {
			why += ": " + l.Reason
		}
		if why != "" {
			out = append(out, wrapLabeledProse("      ", st.Dim.Render(revealLine(why)), w)...)
		}
	}
	return out
}

// leafProgram names what runs a leaf: the program's resolved path, "(shell builtin)", or
// "(not found on PATH)" when the policy could not resolve it.
func leafProgram(l permissions.Leaf) string {
	switch {
	case l.Program != "":
		return l.Program
	case l.Builtin:
		return "(shell builtin)"
	}
	return "(not found on PATH)"
}

// requestText is the whole request as plain text for $PAGER: what is asked, acpterm's decision
// (program, argv, cwd, added environment names, shell constructs, every leaf), diffs, and the
// answers offered. Agent text is sanitised; nothing is cut.
func requestText(p acpclient.PermissionAsked) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("Permission request %s (%s)", revealLine(p.ID), revealLine(p.Kind))
	if t := derefStr(p.ToolCall.Title); t != "" {
		line("title:   %s", revealLine(t))
	}
	if p.ToolCall.ToolCallId != "" {
		line("tool call: %s", revealLine(string(p.ToolCall.ToolCallId)))
	}
	if d := p.Policy; d != nil {
		line("verdict: %s", d.Verdict)
		reason := d.Reason
		if d.Rule != "" {
			reason += " (" + d.Rule + ")"
		}
		line("reason:  %s", revealLine(reason))
		if d.Path != "" {
			line("path:    %s", revealLine(d.Path))
		}
		if len(d.Argv) > 0 {
			line("argv:    %s", revealLine(quoteArgv(d.Argv)))
			for i, a := range d.Argv {
				line("  [%d] %s", i, revealLine(a))
			}
		}
		if d.Cwd != "" {
			line("cwd:     %s", revealLine(d.Cwd))
		}
		if len(d.EnvAdded) > 0 {
			line("env added: %s", revealLine(strings.Join(d.EnvAdded, " ")))
		}
		for _, c := range d.Constructs {
			line("construct: %s", revealLine(c))
		}
		if len(d.Leaves) > 0 {
			line("")
			line("commands (%d; asking or denied first):", len(d.Leaves))
		}
		for _, g := range groupLeaves(riskyFirst(d.Leaves)) {
			l := g.Leaf
			prog := leafProgram(l)
			times := ""
			if g.N > 1 {
				times = fmt.Sprintf(" (×%d)", g.N)
			}
			line("  %-5s %s → %s%s", l.Verdict, revealLine(quoteArgv(l.Argv)), revealLine(prog), times)
			if len(l.Via) > 0 {
				line("        via %s", revealLine(strings.Join(l.Via, " › ")))
			}
			if why := strings.TrimPrefix(l.Rule+": "+l.Reason, ": "); l.Rule != "" || l.Reason != "" {
				line("        %s", revealLine(strings.TrimSuffix(why, ": ")))
			}
		}
	}
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			line("")
			line("diff %s:", revealLine(c.Diff.Path))
			line("%s", sanitize(c.Diff.NewText))
		}
	}
	if p.Diff != nil {
		line("")
		line("new content of %s:", revealLine(p.Diff.Path))
		line("%s", sanitize(p.Diff.NewText))
	}
	if len(p.Options) > 0 {
		line("")
		line("options:")
		for _, o := range p.Options {
			line("  %s (%s) %s", revealLine(string(o.OptionId)), o.Kind, revealLine(o.Name))
		}
	}
	return b.String()
}

// riskyFirst orders leaves so those that ask or are denied come first (each group in command
// order): the reason for asking is then at the top of the modal, never below the fold.
func riskyFirst(ls []permissions.Leaf) []permissions.Leaf {
	out := make([]permissions.Leaf, 0, len(ls))
	for _, l := range ls {
		if l.Verdict != permissions.Allow {
			out = append(out, l)
		}
	}
	for _, l := range ls {
		if l.Verdict == permissions.Allow {
			out = append(out, l)
		}
	}
	return out
}

// leafGroup is one leaf of a decision standing for N identical ones (same words, program,
// wrappers, verdict, rule and reason).
type leafGroup struct {
	Leaf permissions.Leaf
	N    int
}

// groupLeaves folds identical leaves into one group each, in the order each first appears, so
// a loop running the same command twenty times is one line "(×20)", not twenty.
func groupLeaves(ls []permissions.Leaf) []leafGroup {
	var out []leafGroup
	seen := map[string]int{}
	for _, l := range ls {
		key := strings.Join([]string{string(l.Verdict), strings.Join(l.Argv, "\x00"), l.Program,
			strings.Join(l.Via, "\x00"), l.Rule, l.Reason, fmt.Sprint(l.Builtin)}, "\x01")
		if i, ok := seen[key]; ok {
			out[i].N++
			continue
		}
		seen[key] = len(out)
		out = append(out, leafGroup{Leaf: l, N: 1})
	}
	return out
}

// wrapCells hard-wraps s (may hold SGR styling) into lines of at most w cells; nothing is cut.
func wrapCells(s string, w int) []string {
	w = max(w, 1)
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return splitNL(ansi.Hardwrap(s, w, true))
}

// wrapWords wraps s (may hold SGR styling) into lines of at most w cells at word boundaries
// (spaces and hyphens); a word longer than a line is broken. The spaces a line ends at are
// dropped, so it is for prose (titles, reasons, hints), not for command lines.
func wrapWords(s string, w int) []string {
	w = max(w, 1)
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return splitNL(ansi.Wrap(s, w, ""))
}

// wrapLabeled wraps prefix+v into lines of at most w cells, cell by cell, so that every
// character of v stays on screen (command lines, paths); continuation lines are indented by the
// prefix's width so the value reads as one block. Nothing is cut.
func wrapLabeled(prefix, v string, w int) []string {
	return wrapLabeledWith(wrapCells, prefix, v, w)
}

// wrapLabeledProse is wrapLabeled at word boundaries (wrapWords), for prose values.
func wrapLabeledProse(prefix, v string, w int) []string {
	return wrapLabeledWith(wrapWords, prefix, v, w)
}

func wrapLabeledWith(wrap func(string, int) []string, prefix, v string, w int) []string {
	pw := ansi.StringWidth(prefix)
	if pw+ansi.StringWidth(v) <= w {
		return []string{prefix + v}
	}
	if pw > w/2 {
		return wrap(prefix+v, w)
	}
	parts := wrap(v, w-pw)
	out := make([]string, len(parts))
	pad := strings.Repeat(" ", pw)
	for i, p := range parts {
		if i == 0 {
			out[i] = prefix + p
		} else {
			out[i] = pad + p
		}
	}
	return out
}

// escLabel is the footer's word for what Esc answers: "esc deny" for acpterm's own prompts
// (own; their Esc answer is Deny), "esc reject once" for the agent's options when one rejects
// once, else "esc dismiss".
func escLabel(own bool, cs []approvalChoice) string {
	if own {
		return "esc deny"
	}
	for _, c := range cs {
		if c.role == "reject" {
			return "esc reject once"
		}
	}
	return "esc dismiss"
}

func verdictStyle(st *Styles, v permissions.Verdict) interface{ Render(...string) string } {
	switch v {
	case permissions.Allow:
		return st.Success
	case permissions.Deny:
		return st.Error
	}
	return st.Warn
}

// quoteArgv joins words, quoting those with spaces or quotes so the line reads like a command.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// frontApproval is the oldest pending request not answered yet.
func (m *Model) frontApproval() (acpclient.PermissionAsked, bool) {
	for _, p := range m.state.Pending {
		if !m.answered[p.ID] {
			return p, true
		}
	}
	return acpclient.PermissionAsked{}, false
}

// errNoGrants: without a grant store (tests, a headless-like setup) nothing can be remembered.
var errNoGrants = errors.New("grants are not available in this session")

// grantErr is why acpterm cannot remember an "always" answer to p as its own grant
// (permissions.Engine.CanGrant: a build runner, a shell, a program-launching option, an ask
// rule, a protected path …), or nil when it can. For acpterm's own prompt it decides whether
// "allow for this session" / "save as rule" are offered; for an agent request with an
// allow_always option, whether "always allow, and save as a rule" is, and what the dialog says
// about the agent's own "always" (the agent may still remember it by itself).
func (m *Model) grantErr(p acpclient.PermissionAsked) error {
	if !ownPrompt(p) && !hasAlwaysOption(p) {
		return nil // nothing "always" to remember
	}
	if m.d.grants == nil {
		return errNoGrants
	}
	if p.Policy == nil {
		if !ownPrompt(p) {
			return errors.New("acpterm's policy cannot judge this kind of request")
		}
		return errors.New("no policy decision to remember")
	}
	if !ownPrompt(p) && p.Policy.Verdict != permissions.Ask {
		return errors.New("the policy does not ask about it")
	}
	return m.d.grants.CanGrant(*p.Policy)
}

// hasAlwaysOption reports whether the agent offered an allow_always option.
func hasAlwaysOption(p acpclient.PermissionAsked) bool {
	for _, o := range p.Options {
		if o.Kind == acp.PermissionOptionKindAllowAlways {
			return true
		}
	}
	return false
}

// pendingApprovals counts requests waiting for the user.
func (m *Model) pendingApprovals() int {
	n := 0
	for _, p := range m.state.Pending {
		if !m.answered[p.ID] {
			n++
		}
	}
	return n
}

// answer sends the user's answer from a Cmd and hides the request until it is resolved.
func (m *Model) answer(id string, a acpclient.Answer) tea.Cmd {
	m.answered[id] = true
	m.appr.done++
	agent := m.d.agent
	return func() tea.Msg { agent.Answer(id, a); return nil }
}
