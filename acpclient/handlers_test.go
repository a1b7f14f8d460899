package acpclient

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/config"
)

func isAsked(e Event) bool { _, ok := e.(PermissionAsked); return ok }

func countEvents[T Event](evs []Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(T); ok {
			n++
		}
	}
	return n
}

func TestLegacyTerminalAllowedByPolicy(t *testing.T) {
	h := start(t, setup{})
	end := h.turn("term echo hi && echo there")
	if end.StopReason != "end_turn" {
		t.Fatalf("TurnEnded = %+v", end)
	}
	if got, want := h.lastAgentText(), `exit=0 truncated=false output="hi\nthere\n"`; got != want {
		t.Errorf("agent saw %q, want %q", got, want)
	}
	evs := h.snapshot()
	if n := countEvents[PermissionAsked](evs); n != 0 {
		t.Errorf("%d questions asked for an allowed command", n)
	}
	var started TerminalStarted
	for _, e := range evs {
		if ts, ok := e.(TerminalStarted); ok {
			started = ts
		}
		if pr, ok := e.(PermissionResolved); ok && (pr.By != "policy" || pr.Outcome != "allow") {
			t.Errorf("permission resolved %+v, want policy/allow (the allow_once option, not options[0])", pr)
		}
	}
	if started.ID == "" || started.AgentOwned || started.Label != "echo hi && echo there" || started.Cwd != h.cfg.Policy.Roots[0] ||
		started.ToolCallID != "toolu_legacy" {
		t.Errorf("TerminalStarted = %+v", started)
	}
	// The released terminal's final screen stays visible.
	scr, ok := h.c.Screen(started.ID)
	if !ok || strings.TrimRight(scr.Text(), "\n") != "hi\nthere" {
		t.Errorf("final screen ok=%v text=%q", ok, scr.Text())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	tc, _ := h.state.ToolCall("toolu_legacy")
	if tc == nil || tc.Title != "echo hi && echo there" || len(tc.Terminals) != 1 || tc.Terminals[0] != started.ID {
		t.Errorf("tool call = %+v", tc)
	}
	ts := h.state.Terminals[started.ID]
	if ts == nil || ts.Exit == nil || ts.Exit.String() != "exit 0" {
		t.Errorf("terminal state = %+v", ts)
	}
}

func TestLegacyTerminalApprovedOnceCoversCreate(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("term touch made.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "agent" || len(ask.Options) != 3 || ask.Policy == nil || ask.Policy.Verdict != "ask" {
		t.Fatalf("asked = %+v", ask)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "allow"})
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.StopReason != "end_turn" || !strings.HasPrefix(h.lastAgentText(), "exit=0 ") {
		t.Fatalf("end %+v, agent %q", end, h.lastAgentText())
	}
	if _, err := os.Stat(filepath.Join(h.dir, "made.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Errorf("asked %d times, want once (the approval covers terminal/create)", n)
	}
	// The approval is per turn: the next turn's same command asks again.
	h.c.Prompt("term touch made.txt")
	ask2 := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask2.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); got != "permission selected reject" {
		t.Errorf("after deny: %q", got)
	}
}

func TestTerminalCreateDeniedNamesRuleAndLeaf(t *testing.T) {
	h := start(t, setup{})
	h.turn("termnoperm sudo ls")
	got := h.lastAgentText()
	for _, want := range []string{"create error code=-32603", "acpterm policy denied command", "rule: deny: sudo", "command: sudo ls"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if n := countEvents[TerminalStarted](h.snapshot()); n != 0 {
		t.Errorf("%d terminals started for a denied command", n)
	}
}

// A refusal by headless --approve is named as such in the error the agent gets.
func TestTerminalCreateDeniedByApproveFlag(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("termnoperm touch nope.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: Deny, By: "approve-flag"})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.Contains(got, "acpterm headless --approve denied command") {
		t.Errorf("agent saw %q", got)
	}
}

func TestTerminalCreateAskDeniedByUser(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("termnoperm touch nope.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "command" || ask.Policy == nil || len(ask.Options) != 0 || *ask.ToolCall.Title != "touch nope.txt" {
		t.Fatalf("asked = %+v", ask)
	}
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.Contains(got, "acpterm user denied command") {
		t.Errorf("agent saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "nope.txt")); !os.IsNotExist(err) {
		t.Errorf("denied command ran: %v", err)
	}
}

func TestTerminalReleaseWithoutKillOnTimeout(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.Commands.Allow = append(p.Commands.Allow, "sleep") }})
	h.turn("termtimeout sleep 30")
	got := h.lastAgentText()
	want := `output "" exited=false; release err=<nil>; wait exit=nil signal=SIGTERM; after release: code=-32002 message=terminal/output: terminal "term-1" was released`
	if got != want {
		t.Errorf("agent saw\n%q\nwant\n%q", got, want)
	}
}

func TestTerminalTwoWaitersAndDoubleRelease(t *testing.T) {
	h := start(t, setup{})
	h.turn("termtwice echo done")
	want := `waits [exit=0] [exit=0]; kill err=<nil>; output "done\n"; release1 err=<nil>; release2 err=<nil>`
	if got := h.lastAgentText(); got != want {
		t.Errorf("agent saw\n%q\nwant\n%q", got, want)
	}
}

func TestTerminalBadRequests(t *testing.T) {
	h := start(t, setup{})
	h.turn("termcwd")
	if got := h.lastAgentText(); got != `create error code=-32602 message=terminal/create: cwd "rel/dir" is not absolute` {
		t.Errorf("relative cwd: %q", got)
	}
	h.turn("termbad")
	if got := h.lastAgentText(); got != `output error code=-32002 message=terminal/output: unknown terminal "nope"` {
		t.Errorf("unknown id: %q", got)
	}
}

func TestAgentOwnedTerminal(t *testing.T) {
	h := start(t, setup{})
	h.turn("meta")
	var started TerminalStarted
	var exited TerminalExited
	for _, e := range h.snapshot() {
		switch e := e.(type) {
		case TerminalStarted:
			started = e
		case TerminalExited:
			exited = e
		}
	}
	if started != (TerminalStarted{ID: "agent:toolu_1", ToolCallID: "toolu_1", Label: "printf hi", AgentOwned: true}) {
		t.Errorf("TerminalStarted = %+v", started)
	}
	if exited.ID != "agent:toolu_1" || exited.Status.String() != "exit 2" {
		t.Errorf("TerminalExited = %+v", exited)
	}
	scr, ok := h.c.Screen("agent:toolu_1")
	if !ok || strings.TrimRight(scr.Text(), "\n") != "hello\nred world" {
		t.Errorf("screen ok=%v text=%q", ok, scr.Text())
	}
	text, trunc, ok := h.c.AgentTerminalOutput("agent:toolu_1")
	if !ok || text != "hello\nred world\n" || trunc {
		t.Errorf("transcript %q %v %v", text, trunc, ok)
	}
	if _, ok := h.c.Screen("toolu_nope"); ok {
		t.Error("unknown terminal id has a screen")
	}
}

// claude-agent-acp 0.23.1 announces its terminal on a tool call titled "Terminal" and names the
// command only in later updates: the terminal's label follows (TerminalRetitled, State).
func TestAgentTerminalLabelFollowsToolCall(t *testing.T) {
	h := start(t, setup{})
	h.turn("metaretitle")
	var got []string
	for _, e := range h.snapshot() {
		switch e := e.(type) {
		case TerminalStarted:
			got = append(got, fmt.Sprintf("started %s tc=%s %q owned=%v", e.ID, e.ToolCallID, e.Label, e.AgentOwned))
		case TerminalRetitled:
			got = append(got, fmt.Sprintf("retitled %s %q", e.ID, e.Label))
		case TerminalExited:
			got = append(got, fmt.Sprintf("exited %s %s", e.ID, e.Status))
		}
	}
	want := []string{
		`started agent:toolu_2 tc=toolu_2 "Terminal" owned=true`,
		`retitled agent:toolu_2 "List files"`,
		`retitled agent:toolu_2 "ls -la"`, // the command wins over the later title; repeats emit nothing
		`exited agent:toolu_2 exit 0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ts := h.state.Terminals["agent:toolu_2"]; ts == nil || ts.Label != "ls -la" || !ts.AgentOwned || ts.ToolCallID != "toolu_2" {
		t.Errorf("terminal state = %+v", ts)
	}
}

// codex-acp loses the first `_meta.terminal_output` chunk: a terminal that got no data at all is
// filled from the completed tool call's rawOutput, and its exit code taken from it when no
// terminal_exit came; a terminal that got data is not repeated.
func TestAgentTerminalFilledFromRawOutput(t *testing.T) {
	h := start(t, setup{})
	h.turn("metaraw")
	exits := map[string][]string{}
	for _, e := range h.snapshot() {
		if e, ok := e.(TerminalExited); ok {
			exits[e.ID] = append(exits[e.ID], e.Status.String())
		}
	}
	for _, c := range []struct{ id, screen, transcript, exit string }{
		{"call_agg", "one\ntwo", "one\ntwo\n", "exit 3"},
		{"call_std", "out\nerr", "out\nerr\n", "exit 1"},
		{"call_live", "live", "live\n", "exit 0"},
	} {
		scr, ok := h.c.Screen(AgentTerminalID(c.id))
		if !ok || strings.TrimRight(scr.Text(), "\n") != c.screen {
			t.Errorf("%s: screen ok=%v text=%q, want %q", c.id, ok, scr.Text(), c.screen)
		}
		text, trunc, ok := h.c.AgentTerminalOutput(AgentTerminalID(c.id))
		if !ok || text != c.transcript || trunc {
			t.Errorf("%s: transcript %q %v %v, want %q", c.id, text, trunc, ok, c.transcript)
		}
		if got := strings.Join(exits[AgentTerminalID(c.id)], ","); got != c.exit {
			t.Errorf("%s: exits %q, want %q", c.id, got, c.exit)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ts := h.state.Terminals["agent:call_agg"]; ts == nil || ts.Exit == nil || ts.Exit.String() != "exit 3" || ts.Label != "printf 'one\\ntwo\\n'; exit 3" {
		t.Errorf("terminal state = %+v", ts)
	}
}

func TestPolicyAnswersAgentPermission(t *testing.T) {
	t.Run("deny", func(t *testing.T) {
		h := start(t, setup{policy: func(p *config.Policy) { p.Commands.Deny = append(p.Commands.Deny, "rm") }})
		h.turn("perm")
		if got := h.lastAgentText(); got != "permission selected reject" {
			t.Errorf("agent saw %q", got)
		}
		if n := countEvents[PermissionAsked](h.snapshot()); n != 0 {
			t.Errorf("asked %d times", n)
		}
	})
	t.Run("allow", func(t *testing.T) {
		h := start(t, setup{policy: func(p *config.Policy) { p.Commands.Allow = append(p.Commands.Allow, "rm -rf build") }})
		h.turn("perm")
		if got := h.lastAgentText(); got != "permission selected allow" {
			t.Errorf("agent saw %q (must be the allow_once option, never options[0])", got)
		}
	})
}

// A request the policy answers by itself is reported with what was decided: the tool call, the
// deciding rule and reason, and the chosen option's kind (so `[permission] perm-1 → allow
// (policy)` can say what it allowed).
func TestPolicyResolvedNamesToolCallAndRule(t *testing.T) {
	for _, c := range []struct {
		name                        string
		policy                      func(p *config.Policy)
		outcome, kind, rule, reason string
	}{
		{"allow", func(p *config.Policy) { p.Commands.Allow = append(p.Commands.Allow, "rm -rf build") },
			"allow", "allow_once", "allow: rm -rf build", "leaf 1 `rm -rf build`: matches allow rule \"rm -rf build\""},
		{"deny", func(p *config.Policy) { p.Commands.Deny = append(p.Commands.Deny, "rm") },
			"reject", "reject_once", "deny: rm", "leaf 1 `rm -rf build`: matches deny rule \"rm\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, setup{policy: c.policy})
			h.turn("perm")
			var res []PermissionResolved
			for _, e := range h.snapshot() {
				if pr, ok := e.(PermissionResolved); ok {
					res = append(res, pr)
				}
			}
			if len(res) != 1 {
				t.Fatalf("PermissionResolved = %+v", res)
			}
			r := res[0]
			if r.ID != "perm-1" || r.By != "policy" || r.Outcome != c.outcome || r.OptionKind != c.kind ||
				r.Rule != c.rule || r.Reason != c.reason {
				t.Errorf("resolved = %+v, want outcome %q kind %q rule %q reason %q", r, c.outcome, c.kind, c.rule, c.reason)
			}
			tc := r.ToolCall
			if tc.ToolCallId != "call-perm" || tc.Title == nil || *tc.Title != "rm -rf build" || tc.Kind == nil ||
				*tc.Kind != acp.ToolKindExecute || fmt.Sprint(tc.RawInput) != "map[command:rm -rf build]" {
				t.Errorf("tool call = %+v", tc)
			}
		})
	}
}

// An agent that goes on after session/cancel (it ignores it) and asks for permission or runs a
// command the policy would ask about gets "cancelled" at once: nobody is asked to approve work
// they stopped, and the command does not run.
func TestNoQuestionsAfterCancel(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("goeson")
	from := 0
	h.waitFor(&from, "the agent's first words", func(e Event) bool {
		su, ok := e.(SessionUpdated)
		return ok && su.Update.AgentMessageChunk != nil
	})
	h.c.Cancel()
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.Err != nil {
		t.Fatalf("TurnEnded = %+v", end)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 0 {
		t.Fatalf("%d questions asked after the cancel, want 0", n)
	}
	if got := h.lastAgentText(); !strings.HasSuffix(got, "permission cancelled; create code=-32800 message=Request cancelled: command \"touch stubborn.txt\" was not run because the turn was cancelled") {
		t.Errorf("agent saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "stubborn.txt")); err == nil {
		t.Error("the command ran after the cancel")
	}
	notices := 0
	for _, e := range h.snapshot() {
		if n, ok := e.(Notice); ok && strings.HasPrefix(n.Text, "answered cancelled without asking (the turn was cancelled): ") {
			notices++
		}
	}
	if notices != 2 {
		t.Errorf("%d notices of answers given without asking, want 2", notices)
	}
}

func TestCancelAnswersPendingPermissionOnce(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("permask")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Policy != nil || len(ask.Options) != 3 || ask.ToolCall.ToolCallId != "call-fetch" {
		t.Fatalf("asked = %+v", ask)
	}
	h.c.Cancel()
	h.c.Cancel() // a second cancel is a no-op
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.StopReason != "cancelled" || end.Err != nil {
		t.Errorf("TurnEnded = %+v", end)
	}
	if got := h.lastAgentText(); got != "permission cancelled" {
		t.Errorf("agent saw %q", got)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "allow"}) // too late: ignored
	h.turn("echo after")
	resolved := 0
	for _, e := range h.snapshot() {
		if pr, ok := e.(PermissionResolved); ok && pr.ID == ask.ID {
			resolved++
			if pr.Outcome != "cancelled" || pr.By != "cancel" {
				t.Errorf("resolved = %+v", pr)
			}
		}
	}
	if resolved != 1 || countEvents[CancelRequested](h.snapshot()) != 1 {
		t.Errorf("resolved %d times, %d CancelRequested", resolved, countEvents[CancelRequested](h.snapshot()))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.state.Pending) != 0 {
		t.Errorf("state still has pending %+v", h.state.Pending)
	}
}

func TestCancelRunningTurn(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("slow")
	from := 0
	h.waitFor(&from, "tool call", func(e Event) bool {
		su, ok := e.(SessionUpdated)
		return ok && su.Update.ToolCall != nil
	})
	h.c.Cancel()
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.StopReason != "cancelled" {
		t.Errorf("TurnEnded = %+v", end)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if tc, _ := h.state.ToolCall("call-slow"); tc == nil || tc.Status != StatusCancelled {
		t.Errorf("tool call = %+v", tc)
	}
}

func TestCodexPermissionBeforeToolCallWithStringID(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("codexperm touch x.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.ToolCall.ToolCallId != "call-codex" || ask.Policy == nil || ask.Policy.Verdict != "ask" {
		t.Fatalf("asked = %+v policy %+v", ask, ask.Policy)
	}
	h.mu.Lock()
	tc, ok := h.state.ToolCall("call-codex")
	h.mu.Unlock()
	if !ok || tc.PermissionID != ask.ID {
		t.Errorf("state has no tool call for the early permission: %+v", tc)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "bogus"}) // not offered: ignored with a notice
	h.c.Answer(ask.ID, Answer{Choice: AllowOnce})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	got := h.lastAgentText()
	if !strings.Contains(got, `"result":{"outcome":{"optionId":"approved","outcome":"selected"}}`) ||
		!strings.Contains(got, `"id":"raw-1-4f1c2d"`) {
		t.Errorf("raw response = %s", got)
	}
	if countEvents[Notice](h.snapshot()) < 1 {
		t.Error("no notice for the bogus option")
	}
}

func TestFileReadAndErrors(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "r.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.turn("read " + p)
	if got := h.lastAgentText(); got != "read one\ntwo\n" {
		t.Errorf("read: %q", got)
	}
	h.turn("read " + filepath.Join(h.dir, "missing.txt"))
	if got := h.lastAgentText(); !strings.HasPrefix(got, "read error code=-32002 ") {
		t.Errorf("missing: %q", got)
	}
	h.turn("read relative.txt")
	if got := h.lastAgentText(); got != `read error code=-32602 message=fs/read_text_file: path "relative.txt" is not absolute` {
		t.Errorf("relative: %q", got)
	}
	h.turn("read /etc/hostname")
	if got := h.lastAgentText(); !strings.HasPrefix(got, "read error code=-32603 message=acpterm policy denied read of /etc/hostname") {
		t.Errorf("outside: %q", got)
	}
}

func TestFileWriteAskShowsDiff(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "w.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.c.Prompt("write " + p + " 3")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "write" || ask.Diff == nil || *ask.Diff != (FileDiff{Path: p, OldText: "old", NewText: "www", Existed: true}) {
		t.Fatalf("asked = %+v diff %+v", ask, ask.Diff)
	}
	h.c.Answer(ask.ID, Answer{Choice: AllowOnce})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); got != "wrote 3" {
		t.Errorf("agent saw %q", got)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "www" {
		t.Errorf("file = %q", b)
	}
	var fw FileWritten
	for _, e := range h.snapshot() {
		if x, ok := e.(FileWritten); ok {
			fw = x
		}
	}
	if fw.Diff != (FileDiff{Path: p, OldText: "old", NewText: "www", Existed: true}) {
		t.Errorf("FileWritten = %+v", fw)
	}
}

// "Allow for this session" on a write prompt grants writes of exactly that file: the next write
// of it is not asked again; another file still is.
func TestFileWriteAllowSessionGrantsThatFile(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "w.txt")
	other := filepath.Join(h.dir, "other.txt")
	h.c.Prompt("write " + p + " 3")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: AllowSession})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if te := h.turn("write " + p + " 5"); te.Err != nil {
		t.Fatalf("second write: %v", te.Err)
	}
	if b, _ := os.ReadFile(p); string(b) != "wwwww" {
		t.Fatalf("file = %q after the granted write", b)
	}
	asks := 0
	for _, e := range h.snapshot() {
		if a, ok := e.(PermissionAsked); ok {
			asks++
			if a.Kind != "write" {
				t.Errorf("unexpected ask %+v", a)
			}
		}
		if n, ok := e.(Notice); ok && strings.Contains(n.Text, "could not remember") {
			t.Errorf("grant refused: %s", n.Text)
		}
	}
	if asks != 1 {
		t.Fatalf("%d write prompts, want 1 (the second write is granted)", asks)
	}
	h.c.Prompt("write " + other + " 2")
	a := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if a.Diff == nil || a.Diff.Path != other {
		t.Fatalf("write of another file: asked %+v, want a prompt for %s", a, other)
	}
	h.c.Answer(a.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
}

func TestEightMiBFileWrite(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.FS.Write = "allow" }})
	p := filepath.Join(h.dir, "big.txt")
	const size = 8 << 20
	h.turn("write " + p + " 8388608")
	if got := h.lastAgentText(); got != "wrote 8388608" {
		t.Fatalf("agent saw %q", clip(got, 300))
	}
	st, err := os.Stat(p)
	if err != nil || st.Size() != size {
		t.Fatalf("file: %v size %d", err, st.Size())
	}
	for _, e := range h.snapshot() {
		if fw, ok := e.(FileWritten); ok && (len(fw.Diff.NewText) != size || fw.Diff.Existed) {
			t.Errorf("FileWritten: %d bytes existed=%v", len(fw.Diff.NewText), fw.Diff.Existed)
		}
	}
}

// When the agent dies, the terminals it started are killed.
func TestAgentDeathKillsItsTerminals(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.Commands.Allow = append(p.Commands.Allow, "sleep") }})
	h.c.Prompt("termcrash")
	from := 0
	st := h.waitFor(&from, "TerminalStarted", func(e Event) bool { _, ok := e.(TerminalStarted); return ok }).(TerminalStarted)
	term, ok := h.mgr.Get(st.ID)
	if !ok {
		t.Fatalf("terminal %s unknown to the manager", st.ID)
	}
	all := 0
	ex := h.waitFor(&all, "TerminalExited", func(e Event) bool { x, ok := e.(TerminalExited); return ok && x.ID == st.ID }).(TerminalExited)
	if ex.Status.Signal != "SIGTERM" && ex.Status.Signal != "SIGKILL" {
		t.Errorf("terminal exit = %v", ex.Status)
	}
	ae := h.waitFor(&from, "AgentExited", func(e Event) bool { _, ok := e.(AgentExited); return ok }).(AgentExited)
	if ae.Code == nil || *ae.Code != 5 {
		t.Errorf("AgentExited = %+v", ae)
	}
	if !term.Released() {
		t.Error("terminal not released after the agent died")
	}
}

// "Always allow" on the agent's question becomes a session grant: the same command's later
// terminal/create (next turn) is not asked again.
func TestAllowAlwaysBecomesSessionGrant(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("term touch g.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{OptionID: "allow_always"})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.HasPrefix(got, "exit=0 ") {
		t.Fatalf("first turn: %q", got)
	}
	if g := h.eng.Grants(); len(g) != 1 {
		t.Fatalf("grants = %+v", g)
	}
	h.turn("termnoperm touch g.txt")
	if got := h.lastAgentText(); !strings.HasPrefix(got, "exit=0 ") {
		t.Errorf("second turn: %q", got)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
}

// claude-agent-acp 0.17.1's Write: the question (no kind, rawInput file_path+content) shows the
// diff, and its approval covers the fs/write_text_file that follows in the same turn.
func TestLegacyWriteAskedOnceWithDiff(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "hello.txt")
	h.c.Prompt("legacywrite " + p + " hi there")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "agent" || ask.Policy == nil || ask.Policy.Verdict != "ask" ||
		ask.Diff == nil || *ask.Diff != (FileDiff{Path: filepath.Join(h.cfg.Policy.Roots[0], "hello.txt"), NewText: "hi there"}) && *ask.Diff != (FileDiff{Path: p, NewText: "hi there"}) {
		t.Fatalf("asked = %+v diff %+v", ask, ask.Diff)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "allow"})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); got != "wrote hi there" {
		t.Errorf("agent saw %q", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "hi there" {
		t.Errorf("file = %q", b)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
}

// Allow once on the agent's edit request covers one fs/write_text_file of that path: a second
// write in the same turn is asked again (here denied, and the file keeps the first content).
func TestLegacyWriteAllowOnceCoversOneWrite(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "hello.txt")
	h.c.Prompt("legacywrite2 " + p + " hi")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "agent" {
		t.Fatalf("first ask = %+v", ask)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "allow"})
	second := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if second.Kind != "write" || second.Diff == nil || second.Diff.NewText != "hi and more" || second.Diff.OldText != "hi" {
		t.Fatalf("second ask = %+v diff %+v", second, second.Diff)
	}
	h.c.Answer(second.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.HasPrefix(got, "wrote 1; write 2 error ") {
		t.Errorf("agent saw %q", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "hi" {
		t.Errorf("file = %q, want the first write only", b)
	}
}

// AllowSession on acpterm's own command prompt grants the narrowest rule for the session.
func TestOwnPromptAllowSessionGrants(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("termnoperm touch s.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: AllowSession})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	h.turn("termnoperm touch s.txt")
	if got := h.lastAgentText(); !strings.HasPrefix(got, "exit=0 ") {
		t.Errorf("second run: %q", got)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
	if g := h.eng.Grants(); len(g) != 1 {
		t.Errorf("grants = %+v", g)
	}
}

// Cancelling the turn while acpterm's own command question is open answers the agent's
// terminal/create with -32800, and nothing runs.
func TestCancelDuringOwnCommandPrompt(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("termnoperm touch c.txt")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Cancel()
	res := h.waitFor(&from, "PermissionResolved", func(e Event) bool { _, ok := e.(PermissionResolved); return ok }).(PermissionResolved)
	if res.ID != ask.ID || res.Outcome != "cancelled" || res.By != "cancel" || res.OptionKind != "" ||
		res.ToolCall.Title == nil || *res.ToolCall.Title != *ask.ToolCall.Title || res.Rule != ask.Policy.Rule || res.Reason != ask.Policy.Reason {
		t.Errorf("resolved = %+v (asked %+v, policy %+v)", res, ask, ask.Policy)
	}
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	want := `create error code=-32800 message=Request cancelled: command "touch c.txt" was not run because the turn was cancelled`
	if got := h.lastAgentText(); got != want {
		t.Errorf("agent saw %q\nwant %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("cancelled command ran: %v", err)
	}
}

// auditLines reads the audit log at path as one map per line.
func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read audit log: %v", err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestAnswerByIsRecorded(t *testing.T) {
	for _, c := range []struct{ by, want string }{{"approve-flag", "approve-flag"}, {"", "user"}} {
		t.Run(c.want, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "audit.jsonl")
			h := start(t, setup{opts: withAudit(t, logPath)})
			// acpterm's own prompt (terminal/create of a command the policy asks about).
			h.c.Prompt("termnoperm touch nope.txt")
			from := 0
			ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
			h.c.Answer(ask.ID, Answer{Choice: Deny, By: c.by})
			res := h.waitFor(&from, "PermissionResolved", func(e Event) bool { _, ok := e.(PermissionResolved); return ok }).(PermissionResolved)
			if res.ID != ask.ID || res.Outcome != "deny" || res.By != c.want {
				t.Errorf("resolved = %+v, want deny by %q", res, c.want)
			}
			h.waitFor(&from, "TurnEnded", isTurnEnded)
			// An agent's session/request_permission.
			h.c.Prompt("permask")
			ask = h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
			h.c.Answer(ask.ID, Answer{OptionID: string(ask.Options[0].OptionId), By: c.by})
			res = h.waitFor(&from, "PermissionResolved", func(e Event) bool { _, ok := e.(PermissionResolved); return ok }).(PermissionResolved)
			if res.ID != ask.ID || res.By != c.want {
				t.Errorf("resolved = %+v, want by %q", res, c.want)
			}
			h.waitFor(&from, "TurnEnded", isTurnEnded)

			// An agent's permission request for a command, then its terminal/create of the
			// same command: the approval covers it, and the audit names who approved.
			h.c.Prompt("term touch made.txt")
			ask = h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
			h.c.Answer(ask.ID, Answer{OptionID: "allow", By: c.by})
			h.waitFor(&from, "TurnEnded", isTurnEnded)

			var got []string
			for _, m := range auditLines(t, logPath) {
				got = append(got, fmt.Sprintf("%v %v %v", m["kind"], m["verdict"], m["by"]))
			}
			want := []string{"exec deny " + c.want, "permission allow " + c.want, "permission allow " + c.want, "exec allow " + c.want}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("audit events (kind verdict by):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// gemini-cli sends an execute permission request whose command is only the tool call's title
// ("CMD [in DIR] (DESCRIPTION)", the description repeated as text content). The policy judges
// that text like any other line: a deny rule still refuses it, an allow rule allows it, and the
// decision says which text was judged and where it came from.
func TestPermissionCommandFromTitleWithDescription(t *testing.T) {
	for _, c := range []struct {
		name, turn, rule, judged string
		policy                   func(p *config.Policy)
		agentSaw                 string
	}{
		{"deny", "geminiperm", "deny: rm", "rm -rf build", func(p *config.Policy) { p.Commands.Deny = append(p.Commands.Deny, "rm") }, "permission selected reject"},
		{"allow", "geminiperm git status (Remove the build directory)", "allow: git status", "git status", nil, "permission selected allow"},
		{"deny-inside-line", "geminiperm git status && curl x.invalid", "deny: curl", "git status && curl x.invalid", func(p *config.Policy) { p.Commands.Deny = append(p.Commands.Deny, "curl") }, "permission selected reject"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, setup{policy: c.policy})
			if c.name == "deny" {
				if err := os.MkdirAll(filepath.Join(h.dir, "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			h.turn(c.turn)
			if got := h.lastAgentText(); got != c.agentSaw {
				t.Errorf("agent saw %q, want %q", got, c.agentSaw)
			}
			var res []PermissionResolved
			for _, e := range h.snapshot() {
				if pr, ok := e.(PermissionResolved); ok {
					res = append(res, pr)
				}
			}
			if len(res) != 1 || res[0].Rule != c.rule || res[0].By != "policy" {
				t.Fatalf("PermissionResolved = %+v, want rule %q by policy", res, c.rule)
			}
		})
	}
}

func TestCommandFromTitle(t *testing.T) {
	desc := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("List files"))}
	for _, c := range []struct {
		title    string
		content  []acp.ToolCallContent
		cmd, dir string
	}{
		{"ls -la", nil, "ls -la", ""},
		{"ls -la (List files)", desc, "ls -la", ""},
		{"ls -la [in src] (List files)", desc, "ls -la", "src"},
		{"ls -la [in /abs/dir]", nil, "ls -la", "/abs/dir"},
		{"(cd x && ls) (Other)", desc, "(cd x && ls) (Other)", ""}, // not the description: judged whole
		{"echo (List files)", nil, "echo (List files)", ""},
		{"", nil, "", ""},
	} {
		cmd, dir := commandFromTitle(c.title, c.content)
		if cmd != c.cmd || dir != c.dir {
			t.Errorf("%q: cmd %q dir %q, want %q %q", c.title, cmd, dir, c.cmd, c.dir)
		}
	}
}
