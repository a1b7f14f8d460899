package demo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Commands the demo runs in client terminals. They are plain POSIX sh lines sent as `command`
// with no args (acpterm runs such lines with /bin/sh -c). Each is built only from constructs
// the policy can allow without asking (literal words, ";", "|", redirects to /dev/null): no
// loops, variables or builtins that set variables, so a config that allows the programs named
// here runs them without a question.
const (
	// ReadCommand asks for a name on the pane and greets it.
	ReadCommand = `printf 'Your name? '; head -n 1 | sed 's/^/hello /'`
	// ColorCommand prints the eight basic SGR colours and bold/underline text.
	ColorCommand = `printf '\033[31mred\033[0m \033[32mgreen\033[0m \033[33myellow\033[0m \033[34mblue\033[0m \033[35mmagenta\033[0m \033[36mcyan\033[0m \033[1mbold\033[0m \033[4munderline\033[0m\n'`
	// SizeCommand prints the pane size, waits for Enter, and prints it again.
	SizeCommand = `printf 'size '; stty size; head -n 1 >/dev/null; printf 'size '; stty size`
)

// LongCommand returns the shell line that ticks once a second for n seconds: the ticks written
// out one by one ("echo tick 1; sleep 1; …"), not a loop, so a policy sees every command it
// runs as a literal word list.
func LongCommand(n int) string {
	steps := make([]string, n)
	for i := range steps {
		steps[i] = "echo tick " + strconv.Itoa(i+1) + "; sleep 1"
	}
	return strings.Join(steps, "; ")
}

// DemoFile is the file the "write" scenario reads and rewrites, relative to the session cwd.
const DemoFile = "demo.md"

// turn is one prompt turn. ctx is the prompt's context (cancelled by session/cancel).
type turn struct {
	a   *agent
	s   *session
	ctx context.Context
}

func (t *turn) cancelled() bool { return t.ctx.Err() != nil }

// pause waits one pace (or n paces); false when the turn was cancelled.
func (t *turn) pause(n int) bool {
	tm := time.NewTimer(time.Duration(n) * t.a.opts.Pace)
	defer tm.Stop()
	select {
	case <-t.ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// say streams text as agent_message_chunk updates, a few words per chunk.
func (t *turn) say(text string) {
	for _, c := range chunks(text, 3) {
		if t.cancelled() {
			return
		}
		t.a.update(t.s, acp.UpdateAgentMessageText(c))
		t.pause(1)
	}
}

// sayNow sends text as a single chunk, even after cancellation (used for reports).
func (t *turn) sayNow(text string) { t.a.update(t.s, acp.UpdateAgentMessageText(text)) }

// think streams a thought.
func (t *turn) think(text string) {
	for _, c := range chunks(text, 4) {
		if t.cancelled() {
			return
		}
		t.a.update(t.s, acp.UpdateAgentThoughtText(c))
		t.pause(1)
	}
}

// chunks splits s after every n spaces, keeping all bytes (concatenation == s).
func chunks(s string, n int) []string {
	var out []string
	start, spaces := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' {
			spaces++
			if spaces == n {
				out = append(out, s[start:i+1])
				start, spaces = i+1, 0
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func (t *turn) toolID() acp.ToolCallId {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	t.s.next++
	return acp.ToolCallId(fmt.Sprintf("call-%d", t.s.next))
}

func (t *turn) run(word, rest string) error {
	switch word {
	case "", "tour":
		return t.tour()
	case "stream":
		t.say(streamText)
	case "perm":
		t.perm()
	case "read":
		if t.a.opts.Headless {
			t.sayNow("The read demo needs a person to type into its pane; this is a headless run.\n\n")
			return nil
		}
		t.terminal("Ask for your name", ReadCommand)
	case "color", "colour":
		t.terminal("Print colours", ColorCommand)
	case "long":
		n := t.a.opts.LongSeconds
		if v, err := strconv.Atoi(rest); err == nil && v > 0 && v <= 3600 {
			n = v
		}
		t.terminal(fmt.Sprintf("Tick for %d seconds", n), LongCommand(n))
	case "size":
		t.terminal("Show the pane size", SizeCommand)
	case "write":
		t.write()
	case "plan":
		t.plan(2)
		t.think("Thinking about what a plan looks like. ")
		t.say("Plan sent.")
	case "repl":
		return t.repl()
	case "echo":
		t.sayNow(rest)
	case "fail":
		return acp.NewInternalError(map[string]any{"error": "the demo agent failed this prompt on purpose"})
	case "crash":
		t.say("Crashing now, on purpose (exit status 3).\n")
		t.a.record("crash", map[string]any{"status": 3})
		t.a.opts.Exit(3)
		return errCrashed
	default:
		t.say(fmt.Sprintf("I am the demo agent and have no model, so I only know these prompts: %s. (You said %q.)\n", scenarioNames(), strings.TrimSpace(word+" "+rest)))
	}
	return nil
}

func scenarioNames() string {
	names := make([]string, len(Scenarios))
	for i, s := range Scenarios {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

const streamText = "## Streaming\n\nThis reply arrives in **small chunks**, the way a model streams tokens:\n\n- one\n- two\n- three\n\nEnd of stream.\n"

// plan sends the tour plan with the first `done` entries completed and the next in progress.
func (t *turn) plan(done int) {
	steps := []string{"Say hello", "Run commands in panes", "Ask for permission", "Edit a file", "Wrap up"}
	entries := make([]acp.PlanEntry, len(steps))
	for i, s := range steps {
		st := acp.PlanEntryStatusPending
		switch {
		case i < done:
			st = acp.PlanEntryStatusCompleted
		case i == done:
			st = acp.PlanEntryStatusInProgress
		}
		pr := acp.PlanEntryPriorityMedium
		if i == 2 || i == 3 {
			pr = acp.PlanEntryPriorityHigh
		}
		entries[i] = acp.PlanEntry{Content: s, Priority: pr, Status: st}
	}
	t.a.update(t.s, acp.UpdatePlan(entries...))
}

// setMode switches the session's mode from the agent side (current_mode_update).
func (t *turn) setMode(id acp.SessionModeId) {
	t.a.mu.Lock()
	t.s.mode = id
	t.a.mu.Unlock()
	t.a.update(t.s, acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: id}})
}

// PermissionOptions are the options the demo offers in every session/request_permission; the
// optionIds are what the agent reports back ("permission outcome: selected allow-once").
var PermissionOptions = []acp.PermissionOption{
	{OptionId: "allow-once", Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce},
	{OptionId: "allow-always", Name: "Always allow", Kind: acp.PermissionOptionKindAllowAlways},
	{OptionId: "reject-once", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	{OptionId: "reject-always", Name: "Always reject", Kind: acp.PermissionOptionKindRejectAlways},
}

// perm asks for permission to "clean the build cache" and reports the outcome it received as
// "permission outcome: selected OPTION_ID" or "permission outcome: cancelled". Nothing is deleted.
func (t *turn) perm() {
	id := t.toolID()
	title := "Delete the build cache (./build)"
	t.a.update(t.s, acp.StartToolCall(id, title,
		acp.WithStartKind(acp.ToolKindDelete), acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartLocations([]acp.ToolCallLocation{{Path: filepath.Join(t.s.cwd, "build")}}),
		acp.WithStartRawInput(map[string]any{"path": filepath.Join(t.s.cwd, "build")})))
	resp, err := t.a.peer().RequestPermission(t.a.base, acp.RequestPermissionRequest{
		SessionId: t.s.id,
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: id, Title: acp.Ptr(title), Kind: acp.Ptr(acp.ToolKindDelete),
			Status:  acp.Ptr(acp.ToolCallStatusPending),
			Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("The demo only pretends: nothing is deleted."))},
		},
		Options: PermissionOptions,
	})
	var outcome string
	switch {
	case err != nil:
		outcome = "error: " + err.Error()
	case resp.Outcome.Selected != nil:
		outcome = "selected " + string(resp.Outcome.Selected.OptionId)
	case resp.Outcome.Cancelled != nil:
		outcome = "cancelled"
	default:
		outcome = "empty"
	}
	t.a.record("permission", map[string]any{"toolCallId": string(id), "outcome": outcome})
	status := acp.ToolCallStatusFailed
	if strings.HasPrefix(outcome, "selected allow") {
		status = acp.ToolCallStatusCompleted
	}
	t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(status)))
	t.sayNow("permission outcome: " + outcome + "\n\n")
}

// terminalResult is what the agent learned about one terminal.
type terminalResult struct {
	id     string
	output string
	exit   string // "exit 0", "SIGTERM", "" when unknown
	err    error
}

// startTerminal announces a tool call and creates the terminal; the tool call embeds it.
func (t *turn) startTerminal(title, command string) (acp.ToolCallId, terminalResult) {
	id := t.toolID()
	t.a.update(t.s, acp.StartToolCall(id, title,
		acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartRawInput(map[string]any{"command": command})))
	resp, err := t.a.peer().CreateTerminal(t.a.base, acp.CreateTerminalRequest{
		SessionId: t.s.id, Command: command, Cwd: acp.Ptr(t.s.cwd),
	})
	if err != nil {
		t.a.record("terminal", map[string]any{"command": command, "error": err.Error()})
		t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("refused: " + errText(err)))})))
		return id, terminalResult{err: err}
	}
	t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolTerminalRef(resp.TerminalId)})))
	return id, terminalResult{id: resp.TerminalId}
}

// finishTerminal waits for exit (or kills on cancel), reads the output, releases the terminal
// and completes the tool call.
func (t *turn) finishTerminal(id acp.ToolCallId, r terminalResult, command string) terminalResult {
	if r.err != nil {
		return r
	}
	// The wait uses the prompt context: on session/cancel the SDK sends $/cancel_request, which
	// aborts only the wait; the agent then kills the command itself. It is also bounded by
	// Options.WaitLimit so a command nobody answers does not hold the turn forever.
	wctx, cancel := context.WithTimeout(t.ctx, t.a.opts.WaitLimit)
	defer cancel()
	_, werr := t.a.peer().WaitForTerminalExit(wctx, acp.WaitForTerminalExitRequest{SessionId: t.s.id, TerminalId: r.id})
	if werr != nil {
		if _, err := t.a.peer().KillTerminal(t.a.base, acp.KillTerminalRequest{SessionId: t.s.id, TerminalId: r.id}); err != nil {
			t.a.opts.Log.Debug("demo: terminal/kill failed", "err", err)
		}
	}
	out, err := t.a.peer().TerminalOutput(t.a.base, acp.TerminalOutputRequest{SessionId: t.s.id, TerminalId: r.id})
	if err != nil {
		r.err = err
	} else {
		r.output = out.Output
		if es := out.ExitStatus; es != nil {
			switch {
			case es.ExitCode != nil:
				r.exit = fmt.Sprintf("exit %d", *es.ExitCode)
			case es.Signal != nil:
				r.exit = *es.Signal
			}
		}
	}
	if _, err := t.a.peer().ReleaseTerminal(t.a.base, acp.ReleaseTerminalRequest{SessionId: t.s.id, TerminalId: r.id}); err != nil {
		t.a.opts.Log.Debug("demo: terminal/release failed", "err", err)
	}
	status := acp.ToolCallStatusFailed
	if r.exit == "exit 0" {
		status = acp.ToolCallStatusCompleted
	}
	t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolTerminalRef(r.id)}),
		acp.WithUpdateRawOutput(map[string]any{"output": r.output, "exit": r.exit})))
	fields := map[string]any{"command": command, "terminalId": r.id, "output": r.output, "exit": r.exit}
	if r.err != nil {
		fields["error"] = r.err.Error()
	}
	t.a.record("terminal", fields)
	return r
}

// terminal runs one command to completion and reports its last output line and exit status:
// "terminal t1 exit 0: hello Ann".
func (t *turn) terminal(title, command string) terminalResult {
	id, r := t.startTerminal(title, command)
	r = t.finishTerminal(id, r, command)
	t.report(r)
	return r
}

func (t *turn) report(r terminalResult) {
	if r.err != nil {
		t.sayNow(fmt.Sprintf("terminal failed: %s\n\n", errText(r.err)))
		return
	}
	t.sayNow(fmt.Sprintf("terminal %s %s: %s\n\n", r.id, orUnknown(r.exit), lastLine(r.output)))
}

func orUnknown(s string) string {
	if s == "" {
		return "(no exit status)"
	}
	return s
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// writeHeader starts the file the "write" scenario writes; each run appends "- edit N".
const writeHeader = "# acpterm demo\n\nThis file was written by the demo agent through fs/write_text_file.\n"

// write reads demo.md (absent is fine), appends a line and writes it back, showing a diff.
func (t *turn) write() {
	path := filepath.Join(t.s.cwd, DemoFile)
	id := t.toolID()
	t.a.update(t.s, acp.StartToolCall(id, "Edit "+DemoFile,
		acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartLocations([]acp.ToolCallLocation{{Path: path, Line: acp.Ptr(1)}})))
	old, existed := "", true
	rd, err := t.a.peer().ReadTextFile(t.a.base, acp.ReadTextFileRequest{SessionId: t.s.id, Path: path})
	if err != nil {
		existed = false
		t.a.record("read_file", map[string]any{"path": path, "error": err.Error()})
	} else {
		old = rd.Content
		t.a.record("read_file", map[string]any{"path": path, "bytes": len(old)})
	}
	n := strings.Count(old, "\n- edit ") + 1
	content := old
	if !strings.HasPrefix(content, writeHeader) {
		content = writeHeader
	}
	content += fmt.Sprintf("- edit %d\n", n)
	diff := acp.ToolDiffContent(path, content)
	if existed {
		diff = acp.ToolDiffContent(path, content, old)
	}
	t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
		acp.WithUpdateContent([]acp.ToolCallContent{diff}),
		acp.WithUpdateLocations([]acp.ToolCallLocation{{Path: path, Line: acp.Ptr(strings.Count(content, "\n"))}})))
	_, err = t.a.peer().WriteTextFile(t.a.base, acp.WriteTextFileRequest{SessionId: t.s.id, Path: path, Content: content})
	if err != nil {
		t.a.record("write_file", map[string]any{"path": path, "error": err.Error()})
		t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
		t.sayNow(fmt.Sprintf("write refused: %s\n\n", errText(err)))
		return
	}
	t.a.record("write_file", map[string]any{"path": path, "bytes": len(content)})
	t.a.update(t.s, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
	t.sayNow(fmt.Sprintf("wrote %s (%d bytes, edit %d)\n\n", path, len(content), n))
}

// tour shows every feature once; it takes about a minute with the default pace.
func (t *turn) tour() error {
	t.think("The user wants the tour. I will plan it first, then show terminals, a permission request and a file edit. ")
	t.plan(0)
	t.say(fmt.Sprintf("# Welcome to acpterm\n\nI am the **built-in demo agent**: a script, no model, no network. "+
		"I work in `%s`, a scratch directory, so nothing of yours is touched.\n\n", t.s.cwd))
	if !t.pause(3) {
		return nil
	}
	t.plan(1)
	t.say("First, commands. I ask acpterm to run them in **real terminals**; each one appears as a pane. " +
		"acpterm's policy decides before anything runs, and may ask you first.\n\n")
	t.terminal("Print colours", ColorCommand)
	longID, long := t.startTerminal(fmt.Sprintf("Tick for %d seconds", t.a.opts.LongSeconds), LongCommand(t.a.opts.LongSeconds))
	if t.a.opts.Headless {
		t.say("A long command is ticking in another pane while we go on. (The interactive command is skipped: nobody can type in a headless run.)\n\n")
	} else {
		t.say("A long command is ticking in another pane while we go on. Now an **interactive** one: " +
			"focus its pane and type your name, then press Enter.\n\n")
		t.terminal("Ask for your name", ReadCommand)
	}
	if t.cancelled() {
		t.finishTerminal(longID, long, LongCommand(t.a.opts.LongSeconds))
		return nil
	}
	t.plan(2)
	t.say("Next I ask for **permission** the way real agents do, with four options. Pick any; I will tell you what I received.\n\n")
	t.perm()
	if t.cancelled() {
		t.finishTerminal(longID, long, LongCommand(t.a.opts.LongSeconds))
		return nil
	}
	t.plan(3)
	t.setMode("code")
	t.say(fmt.Sprintf("I switched myself to **Code** mode (see the status bar). Now a **file edit** through `fs/write_text_file`: `%s`, shown as a diff.\n\n", DemoFile))
	t.write()
	t.say("Waiting for the ticker to finish…\n\n")
	t.report(t.finishTerminal(longID, long, LongCommand(t.a.opts.LongSeconds)))
	t.plan(4)
	t.say("That was the tour. Type one of these prompts to see a single feature: " + scenarioNames() + ".\n")
	t.plan(5)
	return nil
}

// errText is the message of a JSON-RPC error from the client (without code and data), else the
// error's text.
func errText(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) && re.Message != "" {
		return re.Message
	}
	return err.Error()
}
