package ui

// The headless renderer (acpterm --headless): the same client as the
// TUI, but the session is printed as plain, line-oriented text and nobody is asked anything.
//
// Output format (one record per line; agent-supplied text is sanitised, no escape sequences):
//
//	[session] demo-1 acpterm-demo 1.0.0 in /tmp/x    session started
//	[prompt] perm                                     a prompt turn began
//	plain lines                                        agent message text, as streamed
//	[thought] …                                        agent thought text
//	[plan] [x] Say hello; [>] Run commands; [ ] Wrap up
//	[mode] code   [commands] tour stream perm …
//	[tool] execute "Print colours" (in_progress)      first sight and every status change
//	[permission] delete "Delete the build cache" → reject-once (--approve deny)   tool kind, or command/write/read
//	[write] /tmp/x/demo.md (created, 93 bytes)
//	[terminal t1] started: printf …                    then at exit:
//	[terminal t1] exit 0                               followed by the output's last lines:
//	  | hello Ann
//	[elicitation] form "Pick one": color*  then  [elicitation] → accept: color (--answer)
//	[notice] warn: …   [cancel]   [stop] end_turn   [error] turn failed: …
//	[agent] exited: exit 3                             followed by its last stderr lines
//
// Invariants: events are read by one goroutine, in order; every PermissionAsked is answered at
// once by Approve (never blocks on a human); prompts are sent one at a time, each after the
// previous turn ended.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// HeadlessClient is the part of *acpclient.Client the headless renderer uses.
type HeadlessClient interface {
	Events() <-chan acpclient.Event
	Prompt(text string)
	Answer(requestID string, a acpclient.Answer)
	AnswerElicitation(id string, a acpclient.ElicitationAnswer) error
	Cancel()
}

// HeadlessOptions configures RunHeadless.
type HeadlessOptions struct {
	// Client is the started agent connection. Required.
	Client HeadlessClient
	// TerminalText returns a terminal's final output as plain text (client-owned: its
	// transcript; agent-owned: its screen). nil → no output tails are printed.
	TerminalText func(id string) (string, bool)
	// Prompts are sent in order, one turn each. At least one is required.
	Prompts []string
	// Approve answers every question: "allow" picks an allow_once option (or AllowOnce for
	// acpterm's own prompts), anything else ("deny", the default) a reject option (or Deny).
	// "always" options are never chosen: no lasting grant without a person.
	Approve string
	// Answers answer the agent's form elicitations: KEY=VALUE, repeatable (--answer). Without
	// any, every elicitation is declined.
	Answers []string
	// Out receives the transcript. Required.
	Out io.Writer
	// TailLines is how many final output lines are printed per terminal; 0 → 10.
	TailLines int
	// GracePeriod bounds how long RunHeadless waits for the running turn to end after ctx is
	// cancelled or the agent exited; 0 → 5 s.
	GracePeriod time.Duration
}

// ErrHeadlessIncomplete is returned when the event stream ended before every prompt's turn ended.
var ErrHeadlessIncomplete = errors.New("the agent connection ended before every prompt was answered")

// RunHeadless sends the prompts one turn at a time and prints the session until every turn ended,
// the agent went away, or ctx was cancelled (then the running turn is cancelled and given
// GracePeriod to end). It returns the exit status of the CLI contract — 0 when every prompt turn
// ended with a stop reason (including "cancelled"), 1 otherwise — and an error describing a
// failure (nil for 0). It does not close the client.
func RunHeadless(ctx context.Context, o HeadlessOptions) (int, error) {
	if o.Client == nil || o.Out == nil {
		return 2, errors.New("ui.RunHeadless: Client and Out are required")
	}
	if len(o.Prompts) == 0 {
		return 2, errors.New("ui.RunHeadless: no prompts")
	}
	if o.TailLines <= 0 {
		o.TailLines = 10
	}
	if o.GracePeriod <= 0 {
		o.GracePeriod = 5 * time.Second
	}
	h := &headless{o: o, w: o.Out, printed: map[string]string{}, unnamed: map[string]acpclient.TerminalStarted{}, deferred: map[string][]acpclient.TerminalExited{},
		asked: map[string]acpclient.PermissionAsked{}}
	return h.run(ctx)
}

type headless struct {
	o     HeadlessOptions
	w     io.Writer
	state acpclient.State

	stream  string // "agent" or "thought": the kind of the partial line being streamed
	partial bool   // a streamed line is open (no trailing newline yet)
	msgID   string // messageId of the message being streamed ("" when the agent sends none)
	mode    string // the last mode printed

	unnamed  map[string]acpclient.TerminalStarted  // agent-owned terminals whose command is not known yet
	printed  map[string]string                     // tool call id → last printed status
	deferred map[string][]acpclient.TerminalExited // tool call id → exits held until its next status line
	asked    map[string]acpclient.PermissionAsked

	sent        int   // prompts sent
	running     bool  // a turn is running
	failure     error // first turn failure or agent exit
	badAnswer   error // an --answer that did not fit a question (exit status 2)
	interrupted bool  // ctx ended: "[cancel] <cause>" is printed, not the client's "[cancel]"
}

func (h *headless) run(ctx context.Context) (int, error) {
	events := h.o.Client.Events()
	h.sendNext()
	var deadline <-chan time.Time // set once we are only waiting for the running turn to end
	done := ctx.Done()
	for {
		select {
		case <-done:
			done = nil
			why := "interrupted"
			if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
				why = c.Error() // e.g. "interrupted by SIGTERM" (the caller's cause)
			}
			h.line("[cancel] " + why)
			h.interrupted = true
			h.o.Client.Cancel()
			h.fail(ctx.Err())
			if !h.running {
				return h.finish()
			}
			deadline = time.After(h.o.GracePeriod)
		case <-deadline:
			h.line("[error] the running turn did not end within %s", h.o.GracePeriod)
			return h.finish()
		case ev, ok := <-events:
			if !ok {
				if h.running || h.sent < len(h.o.Prompts) {
					h.fail(ErrHeadlessIncomplete)
				}
				return h.finish()
			}
			h.handle(ev)
			if h.running {
				continue
			}
			if h.failure == nil && h.sendNext() {
				continue
			}
			return h.finish()
		}
	}
}

// sendNext sends the next prompt; false when none is left.
func (h *headless) sendNext() bool {
	if h.sent >= len(h.o.Prompts) {
		return false
	}
	h.o.Client.Prompt(h.o.Prompts[h.sent])
	h.sent++
	h.running = true
	return true
}

func (h *headless) fail(err error) {
	if h.failure == nil {
		h.failure = err
	}
}

func (h *headless) finish() (int, error) {
	h.flushExits()
	h.endStream()
	if h.failure != nil {
		return 1, h.failure
	}
	if h.badAnswer != nil {
		return 2, h.badAnswer
	}
	if h.sent < len(h.o.Prompts) {
		return 1, ErrHeadlessIncomplete
	}
	return 0, nil
}

// handle prints one event and updates the bookkeeping.
func (h *headless) handle(ev acpclient.Event) {
	h.state.Apply(ev)
	if _, cancel := ev.(acpclient.CancelRequested); !cancel {
		// Status changes the event caused (a new call, a turn end closing open calls) come
		// before the event's own line; a cancel's come after "[cancel]".
		h.toolChanges()
	}
	switch e := ev.(type) {
	case acpclient.SessionStarted:
		in := e.Info
		name := in.AgentName
		if in.AgentTitle != "" && name == "" {
			name = in.AgentTitle
		}
		h.line("[session] %s %s %s in %s", sanitizeLine(in.SessionID), headlessDash(sanitizeLine(name)), headlessDash(sanitizeLine(in.AgentVersion)), in.Cwd)
		h.modeChanged()
	case acpclient.TurnStarted:
		for _, l := range strings.Split(strings.TrimRight(sanitize(e.Prompt), "\n"), "\n") {
			h.line("[prompt] %s", l)
		}
	case acpclient.SessionUpdated:
		h.update(e.Update)
	case acpclient.PermissionAsked:
		h.asked[e.ID] = e
		h.answer(e)
	case acpclient.PermissionResolved:
		a, ok := h.asked[e.ID]
		delete(h.asked, e.ID)
		detail := e.By
		if e.By == headlessAnswerBy {
			// This renderer answered per the --approve flag: no person was asked.
			detail = "--approve " + h.approveWord()
		}
		if ok && a.Policy != nil && a.Policy.Rule != "" {
			detail += ": " + sanitizeLine(a.Policy.Rule)
		}
		if !ok && e.Rule != "" {
			detail += ": " + sanitizeLine(e.Rule)
		}
		switch {
		case ok:
			kind, title := h.askedWhat(a)
			h.line("[permission] %s %q → %s (%s)", kind, title, sanitizeLine(e.Outcome), detail)
		case e.ToolCall.ToolCallId != "" || e.ToolCall.Title != nil:
			// Answered without a question (the policy decided): the event names the tool call.
			kind, title := h.toolWhat(e.ToolCall)
			h.line("[permission] %s %q → %s (%s)", kind, title, sanitizeLine(e.Outcome), detail)
		default:
			h.line("[permission] %s → %s (%s)", sanitizeLine(e.ID), sanitizeLine(e.Outcome), detail)
		}
	case acpclient.FileWritten:
		how := "modified"
		if !e.Diff.Existed {
			how = "created"
		}
		really := ""
		if e.Diff.Real != "" {
			really = " (really " + sanitizeLine(e.Diff.Real) + ")"
		}
		h.line("[write] %s%s (%s, %d bytes)", sanitizeLine(e.Diff.Path), really, how, len(e.Diff.NewText))
		var old *string
		if e.Diff.Existed {
			old = &e.Diff.OldText
		}
		h.printDiff(e.Diff.Path, old, e.Diff.NewText)
	case acpclient.TerminalStarted:
		if e.AgentOwned && placeholderLabel(e.Label) {
			// claude-agent-acp announces its terminal as "Terminal" before it sends the
			// command: the started line waits for the command (TerminalRetitled).
			h.unnamed[e.ID] = e
			break
		}
		h.printStarted(e)
	case acpclient.TerminalRetitled:
		if st, ok := h.unnamed[e.ID]; ok && !placeholderLabel(e.Label) {
			delete(h.unnamed, e.ID)
			st.Label = e.Label
			h.printStarted(st)
		}
	case acpclient.TerminalExited:
		if st, ok := h.unnamed[e.ID]; ok {
			delete(h.unnamed, e.ID)
			h.printStarted(st)
		}
		if tc := h.toolOf(e.ID); tc != "" && h.printed[tc] == string(acp.ToolCallStatusPending) {
			// A fast command can exit before the agent reports its tool call in progress: the
			// exit is printed with the call's next status line, so the transcript reads in the
			// order things happened (started → in progress → exit → completed).
			h.deferred[tc] = append(h.deferred[tc], e)
			break
		}
		h.printExit(e)
	case acpclient.CancelRequested:
		if !h.interrupted { // the interruption's own line said it
			h.line("[cancel]")
		}
	case acpclient.TurnEnded:
		for id, st := range h.unnamed {
			delete(h.unnamed, id)
			h.printStarted(st)
		}
		h.flushExits()
		h.running = false
		switch {
		case e.Err != nil && e.StopReason == string(acp.StopReasonCancelled):
			h.line("[stop] cancelled")
		case e.Err != nil:
			h.line("[error] turn failed: %s", sanitizeLine(e.Err.Error()))
			h.fail(fmt.Errorf("prompt turn failed: %w", e.Err))
		default:
			h.line("[stop] %s", sanitizeLine(e.StopReason))
		}
	case acpclient.AgentExited:
		if e.Expected {
			return
		}
		h.line("[agent] exited: %s", e.String())
		for _, l := range headlessLastN(e.StderrTail, h.o.TailLines) {
			h.line("  | %s", sanitizeLine(l))
		}
		h.fail(fmt.Errorf("the agent exited (%s)", e.String()))
		h.running = false
	case acpclient.Notice:
		h.line("[notice] %s: %s", e.Level, sanitizeLine(e.Text))
	case acpclient.ElicitationAsked:
		h.elicit(e)
	case acpclient.ElicitationResolved:
		h.elicitResolved(e)
	case acpclient.ElicitationCompleted:
		h.line("[elicitation] %s completed", sanitizeLine(e.ElicitationID))
	case acpclient.ConnectionRefused:
		h.line("[network %s] refused %s (%s)", sanitizeLine(e.Terminal), sanitizeLine(permissions.HostPort(e.Host, e.Port)), sanitizeLine(e.Rule))
	case acpclient.ModelChanged:
		h.line("[model] %s", sanitizeLine(e.ModelID))
	case acpclient.ToolCallUnasked:
		h.line("[unasked] %s %q ran without asking (no permission request reached acpterm)", headlessDash(sanitizeLine(string(e.Kind))), sanitizeLine(e.Title))
	}
	h.toolChanges()
}

// modeChanged prints "[mode] ID" when the session's mode (modes API or mode config option)
// differs from the last one printed, saying whether the agent asks before acting in it when
// acpterm knows, and a warning line when it does not ask.
func (h *headless) modeChanged() {
	ms := h.state.Modes()
	if ms.Current == "" || ms.Current == h.mode {
		return
	}
	h.mode = ms.Current
	switch h.state.ModeAsks() {
	case acpclient.AsksYes:
		h.line("[mode] %s (asks before acting)", sanitizeLine(ms.Current))
	case acpclient.AsksNo:
		h.line("[mode] %s (does not ask before acting)", sanitizeLine(ms.Current))
		h.line("[warning] in mode %q the agent runs commands and edits files without asking acpterm: neither the policy nor --approve sees them", sanitizeLine(ms.Name(ms.Current)))
	default:
		h.line("[mode] %s", sanitizeLine(ms.Current))
	}
}

// placeholderLabel reports whether a terminal label is a stand-in for the command still to come.
func placeholderLabel(l string) bool {
	return l == "" || strings.EqualFold(strings.TrimSpace(l), "terminal")
}

// printStarted prints a terminal's started line.
func (h *headless) printStarted(e acpclient.TerminalStarted) {
	owner := ""
	if e.AgentOwned {
		owner = " (agent-owned)"
	}
	if e.Interactive {
		owner = " (agent-driven)"
	}
	h.line("[terminal %s] started%s: %s", sanitizeLine(e.ID), owner, sanitizeLine(e.Label))
}

// approveWord is the --approve value in effect ("deny" when unset).
func (h *headless) approveWord() string {
	if h.o.Approve == "allow" {
		return "allow"
	}
	return "deny"
}

// toolOf returns the tool call a terminal belongs to ("" when none is known yet).
func (h *headless) toolOf(termID string) string {
	for _, t := range h.state.ToolCalls {
		for _, id := range t.Terminals {
			if id == termID {
				return t.ID
			}
		}
	}
	return ""
}

// printExit prints a terminal's exit line and its output's last lines.
func (h *headless) printExit(e acpclient.TerminalExited) {
	status := e.Status.String()
	if e.Status.Code == nil && e.Status.Signal == "" {
		status = "ended (exit status unknown)" // an agent-owned terminal whose exit was not reported
	}
	h.line("[terminal %s] %s", sanitizeLine(e.ID), status)
	if h.o.TerminalText != nil {
		if text, ok := h.o.TerminalText(e.ID); ok {
			for _, l := range headlessTail(sanitize(text), h.o.TailLines) {
				h.line("  | %s", l)
			}
		}
	}
}

// flushExits prints every deferred terminal exit, in the order they happened.
func (h *headless) flushExits() {
	for _, t := range h.state.ToolCalls {
		for _, e := range h.deferred[t.ID] {
			h.printExit(e)
		}
		delete(h.deferred, t.ID)
	}
	for id, es := range h.deferred { // calls no longer in the state
		for _, e := range es {
			h.printExit(e)
		}
		delete(h.deferred, id)
	}
}

// update prints one session/update.
func (h *headless) update(u acp.SessionUpdate) {
	if _, known := acpclient.UpdateKind(u); !known {
		return
	}
	switch {
	case u.AgentMessageChunk != nil:
		h.newMessage(headlessDeref(u.AgentMessageChunk.MessageId))
		h.streamText("agent", u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		h.newMessage(headlessDeref(u.AgentThoughtChunk.MessageId))
		h.streamText("thought", u.AgentThoughtChunk.Content)
	case u.Plan != nil:
		parts := make([]string, len(u.Plan.Entries))
		for i, e := range u.Plan.Entries {
			mark := "[ ]"
			switch e.Status {
			case acp.PlanEntryStatusCompleted:
				mark = "[x]"
			case acp.PlanEntryStatusInProgress:
				mark = "[>]"
			}
			parts[i] = mark + " " + sanitizeLine(e.Content)
		}
		h.line("[plan] %s", strings.Join(parts, "; "))
	case u.CurrentModeUpdate != nil, u.ConfigOptionUpdate != nil:
		h.modeChanged()
	case u.AvailableCommandsUpdate != nil:
		names := make([]string, len(u.AvailableCommandsUpdate.AvailableCommands))
		for i, c := range u.AvailableCommandsUpdate.AvailableCommands {
			names[i] = sanitizeLine(c.Name)
		}
		h.line("[commands] %s", strings.Join(names, " "))
	}
}

// streamText prints streamed text, keeping lines whole: a thought line is prefixed "[thought] ".
func (h *headless) streamText(kind string, b acp.ContentBlock) {
	var text string
	switch {
	case b.Text != nil:
		text = sanitize(b.Text.Text)
	case b.ResourceLink != nil:
		text = "[link " + sanitizeLine(b.ResourceLink.Uri) + "]"
	case b.Image != nil:
		text = "[image]"
	default:
		return
	}
	if text == "" {
		return
	}
	if h.partial && h.stream != kind {
		h.endStream()
	}
	h.stream = kind
	for text != "" {
		if !h.partial && kind == "thought" {
			io.WriteString(h.w, "[thought] ")
		}
		line, rest, nl := strings.Cut(text, "\n")
		io.WriteString(h.w, line)
		if nl {
			io.WriteString(h.w, "\n")
			h.partial = false
		} else {
			h.partial = true
		}
		text = rest
	}
}

// newMessage ends the streamed line when a chunk starts another message (ACP messageId): two
// messages never run together on one line.
func (h *headless) newMessage(id string) {
	if id != "" && h.msgID != "" && id != h.msgID {
		h.endStream()
	}
	if id != "" {
		h.msgID = id
	}
}

// endStream closes a partial streamed line.
func (h *headless) endStream() {
	if h.partial {
		io.WriteString(h.w, "\n")
		h.partial = false
	}
}

// line prints one record line (closing any partial streamed line first).
func (h *headless) line(format string, a ...any) {
	h.endStream()
	fmt.Fprintf(h.w, format+"\n", a...)
}

// toolChanges prints every tool call whose status differs from what was last printed.
func (h *headless) toolChanges() {
	for _, t := range h.state.ToolCalls {
		st := string(t.Status)
		if st == "" {
			st = string(acp.ToolCallStatusPending)
		}
		if prev, ok := h.printed[t.ID]; ok && prev == st {
			continue
		}
		h.printed[t.ID] = st
		kind := string(t.Kind)
		if kind == "" {
			kind = string(acp.ToolKindOther)
		}
		exits := h.deferred[t.ID]
		delete(h.deferred, t.ID)
		if st != string(acp.ToolCallStatusInProgress) {
			// Finished (or back to pending): its terminals' exits come first.
			for _, e := range exits {
				h.printExit(e)
			}
			exits = nil
		}
		h.line("[tool] %s %q (%s)", sanitizeLine(kind), sanitizeLine(t.Title), st)
		for _, e := range exits {
			h.printExit(e)
		}
		if st == string(acp.ToolCallStatusCompleted) || st == string(acp.ToolCallStatusFailed) {
			h.printToolResult(t)
		}
	}
}

// printDiff prints the unified diff of a file change as "  | " lines (at most headlessDiffMax).
func (h *headless) printDiff(path string, old *string, new string) {
	lines := splitNL(strings.TrimRight(unifiedDiff(path, old, new), "\n"))
	for i, l := range lines {
		if i == headlessDiffMax {
			h.line("  | … %d more lines", len(lines)-i)
			break
		}
		h.line("  | %s", sanitizeLine(l))
	}
}

// headlessDiffMax is how many lines of a tool call's diff are printed.
const headlessDiffMax = 40

// printToolResult prints what a finished tool call reported: its diffs, and its output when no
// terminal of the call shows it (content text, else rawOutput; ToolCall.Output), last lines
// only.
func (h *headless) printToolResult(t *acpclient.ToolCall) {
	for _, ct := range t.Content {
		if d := ct.Diff; d != nil {
			h.line("[diff] %s", sanitizeLine(d.Path))
			h.printDiff(d.Path, d.OldText, d.NewText)
		}
	}
	if len(t.Terminals) > 0 {
		return
	}
	for _, l := range headlessTail(sanitize(t.Output()), h.o.TailLines) {
		h.line("  | %s", l)
	}
}

// askedWhat names what a question was about: the tool kind (execute, edit, …; for acpterm's own
// prompts without a tool call: command, write or read) and the title (the command or file).
func (h *headless) askedWhat(a acpclient.PermissionAsked) (kind, title string) {
	kind, title = h.toolFields(a.ToolCall)
	if kind == "" {
		kind = a.Kind
	}
	return headlessDash(sanitizeLine(kind)), sanitizeLine(title)
}

// toolWhat names the tool call a policy-answered request was about: its kind ("-" when unknown)
// and title, filled from the tool call's earlier updates when the request left them out.
func (h *headless) toolWhat(tc acp.ToolCallUpdate) (kind, title string) {
	kind, title = h.toolFields(tc)
	return headlessDash(sanitizeLine(kind)), sanitizeLine(title)
}

// toolFields returns a tool call's kind and title (unsanitised), from tc or else from the
// session state's record of the same tool call.
func (h *headless) toolFields(tc acp.ToolCallUpdate) (kind, title string) {
	if tc.Kind != nil {
		kind = string(*tc.Kind)
	}
	title = headlessDeref(tc.Title)
	if t, ok := h.state.ToolCall(string(tc.ToolCallId)); ok && tc.ToolCallId != "" {
		if kind == "" {
			kind = string(t.Kind)
		}
		if title == "" {
			title = t.Title
		}
	}
	return kind, title
}

// headlessAnswerBy is the Answer.By of every answer the headless renderer gives (recorded in
// PermissionResolved.By and the audit log's "by"): nobody was asked, the --approve flag decided.
const headlessAnswerBy = "approve-flag"

// answer answers a question according to Approve, at once. acpterm's own prompts get AllowOnce
// or Deny. An agent's request gets its allow_once option (allow) or reject_once option (deny);
// when the wanted one is missing, its reject_once option, else no option at all ("cancelled"):
// a headless run never picks an "always" option, which the agent may remember beyond the run.
func (h *headless) answer(e acpclient.PermissionAsked) {
	allow := h.o.Approve == "allow"
	if e.Kind != "agent" {
		c := acpclient.Deny
		if allow {
			c = acpclient.AllowOnce
		}
		h.o.Client.Answer(e.ID, acpclient.Answer{Choice: c, By: headlessAnswerBy})
		return
	}
	kinds := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce}
	if allow {
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindRejectOnce}
	}
	for _, k := range kinds {
		for _, opt := range e.Options {
			if opt.Kind == k {
				h.o.Client.Answer(e.ID, acpclient.Answer{OptionID: string(opt.OptionId), By: headlessAnswerBy})
				return
			}
		}
	}
	// No one-time option: answer "cancelled" (an empty Answer selects no option).
	h.o.Client.Answer(e.ID, acpclient.Answer{By: headlessAnswerBy})
}

// headlessTail returns the last n lines of text, trailing blank lines dropped.
func headlessTail(text string, n int) []string {
	text = strings.TrimRight(text, "\n ")
	if text == "" {
		return nil
	}
	return headlessLastN(strings.Split(text, "\n"), n)
}

// headlessLastN returns the last n elements of lines.
func headlessLastN(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

func headlessDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func headlessDeref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TerminalText returns a HeadlessOptions.TerminalText for the manager's client-owned terminals
// (their transcript, ACP terminal/output text) falling back to screens (agent-owned terminals:
// the visible rows).
func TerminalText(m *terminals.Manager, screen func(id string) (*terminals.Screen, bool)) func(string) (string, bool) {
	return func(id string) (string, bool) {
		if m != nil {
			if t, ok := m.Get(id); ok {
				return t.Output().Text, true
			}
		}
		if screen != nil {
			if s, ok := screen(id); ok && s != nil {
				return s.Text(), true
			}
		}
		return "", false
	}
}
