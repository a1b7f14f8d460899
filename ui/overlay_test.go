package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
)

// A permission request or a question that arrives while the user types a prompt waits for the
// answer key: the typed keys stay in the editor, which keeps its cursor; once the answer key
// gives the dialog the keys, the cursor goes (the keys go to the dialog). A paste still goes
// into the question's text field, never into the prompt, while the question is on top.
func TestWaitingOverlayLeavesTheEditorItsCursor(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(h *harness)
	}{
		{"approval", func(h *harness) { h.ev(ask("p1")) }},
		{"question", func(h *harness) {
			h.ev(elicitAsk(t, "e1", `{"mode":"form","message":"Name?","requestedSchema":{"properties":{"name":{"type":"string","title":"Name"}}}}`))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			h.typeText("fix")
			c.open(h)
			h.typeText("es")
			h.screenText()
			if got := h.m.ed.value(); got != "fixes" {
				t.Fatalf("editor = %q, want the typed keys kept", got)
			}
			if h.m.cursor == nil {
				t.Fatal("the editor lost its cursor to a dialog waiting for the answer key")
			}
			h.key("tab")
			h.screenText()
			if h.m.cursor != nil {
				t.Fatalf("after the answer key the editor still shows its cursor at %v", h.m.cursor.Position)
			}
			h.m.handlePaste("pasted")
			if got := h.m.ed.value(); c.name == "question" && got != "fixes" {
				t.Fatalf("a paste into the question reached the editor: %q", got)
			}
			if c.name == "question" && !strings.Contains(h.screenText(), "pasted") {
				t.Fatalf("the paste is not in the question's field:\n%s", h.screenText())
			}
		})
	}
}

// A request that arrives while a pane has the keyboard says "leaves the pane to answer" on the
// pane's title row, and leaving the pane (with an empty prompt) gives the keys to it: the
// permission dialog and the question alike.
func TestLeavingThePaneGivesTheWaitingDialogTheKeys(t *testing.T) {
	for _, c := range []struct {
		name, hint string
		open       func(h *harness)
		keys       []string
		want       string
	}{
		{"approval", "Permission waiting (1) · ctrl+] leaves the pane to answer", func(h *harness) { h.ev(ask("p1")) },
			[]string{"a"}, `answer p1 option="allow-once" choice=""`},
		{"question", "The agent asks a question · ctrl+] leaves the pane to answer", func(h *harness) {
			h.ev(elicitAsk(t, "e1", `{"mode":"form","message":"Name?","requestedSchema":{"properties":{"name":{"type":"string","title":"Name"}}}}`))
		}, []string{"b", "o", "b", "enter"}, `elicit e1 accept {"name":"bob"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			startPane(h, "t1")
			h.key("ctrl+g")
			if !h.m.focused {
				t.Fatal("pane not focused")
			}
			c.open(h)
			if scr := h.screenText(); !strings.Contains(scr, c.hint) {
				t.Fatalf("no waiting hint %q in the focused pane:\n%s", c.hint, scr)
			}
			h.key("ctrl+]")
			h.keys(c.keys...)
			wantCalls(t, h.agent.take(), c.want)
			if got := h.m.ed.value(); got != "" {
				t.Fatalf("the answer's keys reached the prompt editor: %q", got)
			}
		})
	}
}
