package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// ownAsk is acpterm's own command prompt c1 (s, S and d choices).
func ownAsk() acpclient.PermissionAsked {
	title := "make"
	return acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched"},
		ToolCall: acp.ToolCallUpdate{Title: &title}}
}

// typeAt sends each rune of s as a key, step apart on the harness clock.
func (h *harness) typeAt(s string, step time.Duration) {
	for _, r := range s {
		h.clock = h.clock.Add(step)
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// Typed prose never answers a request, whatever the pauses: a request that arrives while the
// user types waits for tab, and every key (enter included) stays the editor's.
func TestTypedProseNeverAnswers(t *testing.T) {
	for _, c := range []struct {
		name   string
		req    acpclient.PermissionAsked
		before string        // typed before the request arrives
		after  string        // typed after it
		pause  time.Duration // between keys
	}{
		{"agent request, quick typing", ask("p1"), "Sure", ", go ahead", 50 * time.Millisecond},
		{"agent request, slow typing", ask("p1"), "please", " also", 900 * time.Millisecond},
		{"own prompt, long pauses", ownAsk(), "S", "ure, go ahead", 5 * time.Second},
		{"own prompt, draft kept for minutes", ownAsk(), "draft", " saved as", 3 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			h.typeAt(c.before, c.pause)
			h.clock = h.clock.Add(c.pause)
			h.ev(c.req)
			h.typeAt(c.after, c.pause)
			wantCalls(t, h.agent.take())
			if got, want := h.m.ed.value(), c.before+c.after; got != want {
				t.Fatalf("editor = %q, want %q", got, want)
			}
			scr := h.screenText()
			if !strings.Contains(scr, "tab answers · typing stays in the prompt") || !strings.Contains(scr, "approval waiting · tab answers") {
				t.Fatalf("the waiting request does not say how to answer:\n%s", scr)
			}
			h.clock = h.clock.Add(time.Minute)
			h.key("enter") // sends the prompt (queued behind the turn), never answers
			wantCalls(t, h.agent.take())
			if len(h.m.queue) != 1 || h.m.queue[0] != c.before+c.after || h.m.pendingApprovals() != 1 {
				t.Fatalf("queue %q, pending %d", h.m.queue, h.m.pendingApprovals())
			}
			h.key("tab")
			if scr := h.screenText(); !strings.Contains(scr, "enter choose") {
				t.Fatalf("after tab the request does not take keys:\n%s", scr)
			}
			h.key("esc")
			wantCalls(t, h.agent.take(), map[bool]string{true: `answer c1 option="" choice="deny"`, false: `answer p1 option="reject-once" choice=""`}[c.req.Kind != "agent"])
		})
	}
}

// A request that arrives while the user is idle takes keys at once (no key is dropped, however
// soon it comes); a key that is no choice goes to the editor, and so do the letters before it
// that only selected a lasting choice.
func TestIdleRequestTakesKeysAndHandsTypingBack(t *testing.T) {
	for _, c := range []struct {
		name   string
		req    acpclient.PermissionAsked
		keys   string
		calls  []string
		editor string
	}{
		{"first key answers once", ask("p1"), "a", []string{`answer p1 option="allow-once" choice=""`}, ""},
		{"prose that starts with a choice letter that lasts", ownAsk(), "Sure", nil, "Sure"},
		{"lasting choice then prose", ask("p1"), "Also do x", nil, "Also do x"},
		{"no choice letter", ownAsk(), "please also", nil, "please also"},
		{"digit of a lasting choice then prose", ownAsk(), "3x", nil, "3x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			h.ev(c.req)
			h.agent.take()
			h.typeText(c.keys)
			wantCalls(t, h.agent.take(), c.calls...)
			if h.m.ed.value() != c.editor {
				t.Fatalf("editor = %q, want %q", h.m.ed.value(), c.editor)
			}
			if c.calls == nil {
				// The request waits with its default highlighted, never the lasting choice.
				h.keys("tab", "enter")
				if got := h.agent.take(); len(got) != 1 || strings.Contains(got[0], "always") || strings.Contains(got[0], "save_rule") || strings.Contains(got[0], "session") {
					t.Fatalf("tab enter answered %v", got)
				}
			}
		})
	}
}

// A lasting choice ("always", "for this session", "save as rule") is selected by its key and
// picked only by enter; the hint says so.
func TestLastingChoiceNeedsEnter(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(ownAsk())
	h.key("S")
	wantCalls(t, h.agent.take())
	scr := h.screenText()
	if !strings.Contains(scr, "› S/3   Save as rule") || !strings.Contains(scr, "enter confirms “Save as rule”") {
		t.Fatalf("S does not select save as rule with a confirm hint:\n%s", scr)
	}
	h.key("S") // again: still only selected
	wantCalls(t, h.agent.take())
	h.key("enter")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="save_rule"`)
}

// Leaving a pane while a request waits gives the request the keys (the pane's title row said
// "leaves the pane to answer").
func TestLeavingPaneToAnswer(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	startPane(h, "t1")
	h.key("ctrl+g")
	if !h.m.focused {
		t.Fatal("pane not focused")
	}
	h.ev(ask("p1"))
	if scr := h.screenText(); !strings.Contains(scr, "Permission waiting (1) · ctrl+] leaves the pane to answer") {
		t.Fatalf("no waiting hint in the focused pane:\n%s", scr)
	}
	h.key("a") // the pane's
	wantCalls(t, h.agent.take())
	h.key("ctrl+]")
	h.key("a")
	wantCalls(t, h.agent.take(), `answer p1 option="allow-once" choice=""`)
}

// A paste is the prompt's, never an answer, and hands the keys back to the editor.
func TestPasteNeverAnswers(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(ownAsk())
	h.send(tea.PasteMsg{Content: "a"})
	h.key("d")
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "ad" {
		t.Fatalf("editor = %q", h.m.ed.value())
	}
	h.keys("tab", "d")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="deny"`)
}

// The footer names what esc answers: the agent's reject-once option (also when acpterm adds its
// "save as a rule" choice), acpterm's deny, or dismiss.
func TestEscLabel(t *testing.T) {
	withPolicy := ask("p1")
	withPolicy.Policy = &permissions.Decision{Verdict: permissions.Ask, Rule: "fs.write", Path: "/w/build"}
	onlyAlways := ask("p1")
	onlyAlways.Options = onlyAlways.Options[1:2]
	for _, c := range []struct {
		name string
		req  acpclient.PermissionAsked
		want string
	}{
		{"agent options", ask("p1"), "esc reject once"},
		{"agent options with acpterm's save choice", withPolicy, "esc reject once"},
		{"only always", onlyAlways, "esc dismiss"},
		{"own prompt", ownAsk(), "esc deny"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(c.req)
			if r := rowWith(h.screenText(), "enter choose"); !strings.Contains(r, "· "+c.want+" ") {
				t.Fatalf("footer = %q, want %q", r, c.want)
			}
		})
	}
}

// At 80 columns the dialog wraps prose (the title, the reason) at word boundaries: every word
// of it is whole on one row.
func TestDialogWrapsAtWords(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	title := "Run the whole integration test suite against the staging databases and then report every failure you find"
	reason := "no rule covers psql, which connects to remote databases and runs whatever statements it is given on the command line"
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", ToolCall: acp.ToolCallUpdate{Title: &title},
		Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched", Reason: reason}})
	scr := h.screenText()
	var rows []string
	for _, r := range rowsOf(scr) {
		if i := strings.Index(r, "│"); i >= 0 {
			rows = append(rows, strings.Trim(r[i:], "│ "))
		}
	}
	// Rows joined by one space give the prose back only if every break fell between words.
	joined := strings.Join(rows, " ")
	for _, prose := range []string{title, reason} {
		if !strings.Contains(joined, prose) {
			t.Fatalf("%q is not wrapped at word boundaries:\n%s", prose, strings.Join(rows, "\n"))
		}
	}
}
