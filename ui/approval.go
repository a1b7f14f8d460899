package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// approvalChoice is one answer the modal offers.
type approvalChoice struct {
	key    string // kind key: "a", "A", "r", "R" (agent) or "a", "s", "S", "d" (own prompts); "" none
	label  string
	answer acpclient.Answer
	reject bool // a reject/deny choice (Esc picks the first reject-once one)
	always bool // an *_always / session / save choice (never the default highlight)
}

// kindKeys are the keys for the agent's permission option kinds.
var kindKeys = map[acp.PermissionOptionKind]string{
	acp.PermissionOptionKindAllowOnce:    "a",
	acp.PermissionOptionKindAllowAlways:  "A",
	acp.PermissionOptionKindRejectOnce:   "r",
	acp.PermissionOptionKindRejectAlways: "R",
}

// choicesFor lists the answers for a request: the agent's own options in its order (each keyed
// by kind, first of a kind wins the key), or acpterm's four choices for its own prompts.
func choicesFor(p acpclient.PermissionAsked) []approvalChoice {
	if len(p.Options) == 0 {
		return []approvalChoice{
			{key: "a", label: "Allow once", answer: acpclient.Answer{Choice: acpclient.AllowOnce}},
			{key: "s", label: "Allow for this session", answer: acpclient.Answer{Choice: acpclient.AllowSession}, always: true},
			{key: "S", label: "Save as rule", answer: acpclient.Answer{Choice: acpclient.SaveRule}, always: true},
			{key: "d", label: "Deny", answer: acpclient.Answer{Choice: acpclient.Deny}, reject: true},
		}
	}
	used := map[string]bool{}
	out := make([]approvalChoice, 0, len(p.Options))
	for _, o := range p.Options {
		c := approvalChoice{label: sanitizeLine(o.Name), answer: acpclient.Answer{OptionID: string(o.OptionId)}}
		if c.label == "" {
			c.label = sanitizeLine(string(o.OptionId))
		}
		if k, ok := kindKeys[o.Kind]; ok && !used[k] {
			c.key = k
			used[k] = true
		}
		c.reject = o.Kind == acp.PermissionOptionKindRejectOnce || o.Kind == acp.PermissionOptionKindRejectAlways
		c.always = o.Kind == acp.PermissionOptionKindAllowAlways || o.Kind == acp.PermissionOptionKindRejectAlways
		out = append(out, c)
	}
	return out
}

// defaultChoice is the highlighted choice when the modal opens: the first allow-once choice,
// else the first choice that is neither "always" nor a rejection, else the first non-always one.
func defaultChoice(cs []approvalChoice) int {
	for i, c := range cs {
		if c.key == "a" {
			return i
		}
	}
	for i, c := range cs {
		if !c.always && !c.reject {
			return i
		}
	}
	for i, c := range cs {
		if !c.always {
			return i
		}
	}
	return 0
}

// escAnswer is what Esc answers: reject once (the first reject_once option; else Deny, which
// acpclient maps to a reject option of the agent, or the own prompt's deny).
func escAnswer(cs []approvalChoice, own bool) acpclient.Answer {
	for _, c := range cs {
		if c.key == "r" || (own && c.key == "d") {
			return c.answer
		}
	}
	return acpclient.Answer{Choice: acpclient.Deny}
}

// approvals is the modal over the panes for pending permission requests (State.Pending, oldest
// first). It holds only the highlight per request; the queue itself is State.Pending minus what
// was answered and not yet resolved.
type approvals struct {
	sel map[string]int // highlighted choice index per request id
}

func newApprovals() *approvals { return &approvals{sel: map[string]int{}} }

// handleKey answers or navigates the front request p. It returns the answer to send (nil when
// the key only moved the highlight or was not for the modal) and whether the key was consumed.
func (a *approvals) handleKey(p acpclient.PermissionAsked, k tea.KeyPressMsg) (*acpclient.Answer, bool) {
	cs := choicesFor(p)
	sel, ok := a.sel[p.ID]
	if !ok {
		sel = defaultChoice(cs)
	}
	pick := func(i int) (*acpclient.Answer, bool) {
		ans := cs[i].answer
		delete(a.sel, p.ID)
		return &ans, true
	}
	s := k.String()
	switch s {
	case "esc":
		ans := escAnswer(cs, len(p.Options) == 0)
		delete(a.sel, p.ID)
		return &ans, true
	case "enter":
		return pick(sel)
	case "up", "shift+tab", "k":
		a.sel[p.ID] = (sel - 1 + len(cs)) % len(cs)
		return nil, true
	case "down", "tab", "j":
		a.sel[p.ID] = (sel + 1) % len(cs)
		return nil, true
	}
	if len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
		if i := int(s[0] - '1'); i < len(cs) {
			return pick(i)
		}
		return nil, true
	}
	if k.Text != "" {
		for i, c := range cs {
			if c.key != "" && c.key == k.Text {
				return pick(i)
			}
		}
		if len(p.Options) == 0 && (k.Text == "r" || k.Text == "A") {
			// Own prompts also accept the agent-style keys: r = deny, A = allow for the session.
			for i, c := range cs {
				if (k.Text == "r" && c.key == "d") || (k.Text == "A" && c.key == "s") {
					return pick(i)
				}
			}
		}
	}
	return nil, true // the modal swallows other keys
}

// render draws the front request as the modal's text (width cells wide, at most maxH lines).
func (a *approvals) render(st *Styles, p acpclient.PermissionAsked, n, total, width, maxH int) string {
	cs := choicesFor(p)
	sel, ok := a.sel[p.ID]
	if !ok {
		sel = defaultChoice(cs)
	}
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
	}
	head = append(head, st.ModalTitle.Render(fmt.Sprintf("Permission %d of %d", n, total))+st.Dim.Render(" · "+what))
	title := sanitizeLine(derefStr(p.ToolCall.Title))
	if title != "" {
		head = append(head, st.Bold.Render(truncate(title, inner)))
	}
	var body []string
	if d := p.Policy; d != nil {
		body = append(body, policyLines(st, d, inner)...)
	}
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			body = append(body, splitNL(renderDiff(st, c.Diff.Path, c.Diff.OldText, c.Diff.NewText, inner, diffMaxLines))...)
		}
	}
	if p.Diff != nil {
		var old *string
		if p.Diff.Existed {
			o := p.Diff.OldText
			old = &o
		}
		body = append(body, splitNL(renderDiff(st, p.Diff.Path, old, p.Diff.NewText, inner, diffMaxLines))...)
	}
	var opts []string
	for i, c := range cs {
		keys := fmt.Sprintf("%d", i+1)
		if c.key != "" {
			keys = c.key + "/" + keys
		}
		line := fmt.Sprintf("%-5s %s", keys, c.label)
		line = truncate(line, inner)
		if i == sel {
			opts = append(opts, st.ModalSelected.Render("› "+line))
		} else {
			opts = append(opts, "  "+st.ModalOption.Render(line))
		}
	}
	hint := st.Dim.Render(truncate("enter choose · ↑/↓ move · esc reject once", inner))
	// Fit: header, options and hint always show; the body is cut to what is left.
	room := maxH - 2 - len(head) - len(opts) - 3
	if room < len(body) {
		if room < 1 {
			body = nil
		} else {
			cut := len(body) - room + 1
			body = append(body[:room-1], st.Dim.Render(fmt.Sprintf("… %d more lines", cut)))
		}
	}
	lines := append(head, "")
	if len(body) > 0 {
		lines = append(lines, body...)
		lines = append(lines, "")
	}
	lines = append(lines, opts...)
	lines = append(lines, hint)
	return st.Modal.Width(width).Render(strings.Join(lines, "\n"))
}

// policyLines shows acpterm's own decision: what will run (resolved program, argv, cwd, added
// environment), why it asks, and each leaf's verdict.
func policyLines(st *Styles, d *permissions.Decision, w int) []string {
	var out []string
	add := func(label, v string) {
		if v == "" {
			return
		}
		out = append(out, truncate(st.Dim.Render(label)+" "+sanitizeLine(v), w))
	}
	if d.Path != "" {
		add("path:", d.Path)
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
	add("asks:", reason)
	for _, c := range d.Constructs {
		add("  ⚠", c)
	}
	for _, l := range d.Leaves {
		prog := l.Program
		if prog == "" {
			prog = "(unresolved)"
		}
		v := verdictStyle(st, l.Verdict).Render(fmt.Sprintf("%-5s", l.Verdict))
		line := v + " " + sanitizeLine(quoteArgv(l.Argv)) + st.Dim.Render(" → "+sanitizeLine(prog))
		if len(l.Via) > 0 {
			line += st.Dim.Render(" via " + sanitizeLine(strings.Join(l.Via, " › ")))
		}
		out = append(out, truncate(line, w))
		why := l.Rule
		if l.Reason != "" {
			why += ": " + l.Reason
		}
		if why != "" {
			out = append(out, truncate("      "+st.Dim.Render(sanitizeLine(why)), w))
		}
	}
	return out
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
