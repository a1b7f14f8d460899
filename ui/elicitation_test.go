package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
)

func (f *fakeAgent) AnswerElicitation(id string, a acpclient.ElicitationAnswer) error {
	b, _ := json.Marshal(a.Content)
	f.rec("elicit " + id + " " + a.Action + " " + string(b))
	return nil
}

func elicitAsk(t *testing.T, id, params string) acpclient.ElicitationAsked {
	t.Helper()
	e, err := acpclient.ParseElicitation(json.RawMessage(params))
	if err != nil {
		t.Fatalf("ParseElicitation: %v", err)
	}
	return acpclient.ElicitationAsked{ID: id, Elicitation: e}
}

const uiForm = `{"mode":"form","message":"Set up the project","requestedSchema":{"properties":{
	"name":{"type":"string","title":"Project name","minLength":2},
	"n":{"type":"integer","title":"Replicas","minimum":1,"maximum":5,"default":2},
	"color":{"type":"string","title":"Color","oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}]},
	"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["fast","safe"]}},
	"ok":{"type":"boolean","title":"Agree"},
	"token":{"type":"string","title":"API token"}},"required":["name","color"]}}`

func space() tea.KeyPressMsg { return tea.KeyPressMsg{Code: ' ', Text: " "} }

func TestElicitationFormDialog(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(elicitAsk(t, "elicit-1", uiForm))
	scr := h.screenText()
	for _, want := range []string{"Question from the agent", "Set up the project", "› Project name *  ≥ 2 chars",
		"Replicas  1–5, whole number", "[2", "( ) Red  ( ) Blue", "[ ] fast  [ ] safe", "[ ] no", "API token  hidden",
		"enter submit · tab/↑↓ field"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	// Invalid: a one-letter name and no color. Nothing is sent; each field says why.
	h.typeText("x")
	h.key("enter")
	wantCalls(t, h.agent.take())
	scr = h.screenText()
	for _, want := range []string{"✗ at least 2 characters (has 1)", "✗ required"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	h.typeText("y")         // name "xy"
	h.key("tab")            // replicas
	h.key("backspace")      // ""
	h.typeText("9")         // out of range
	h.key("tab")            // color
	h.send(keyMsg("right")) // Red
	h.send(keyMsg("right")) // Blue
	h.key("tab")            // tags
	h.send(space())         // fast
	h.send(keyMsg("right"))
	h.send(space()) // safe
	h.key("tab")    // ok
	h.send(space())
	h.key("tab") // token
	h.typeText("s3cret")
	if scr = h.screenText(); strings.Contains(scr, "s3cret") || !strings.Contains(scr, "••••••") {
		t.Fatalf("the secret is not masked:\n%s", scr)
	}
	h.key("enter")
	wantCalls(t, h.agent.take())
	if scr = h.screenText(); !strings.Contains(scr, "✗ must be at most 5") {
		t.Fatalf("no range error:\n%s", scr)
	}
	// The focus went to the first field with a problem.
	h.key("backspace")
	h.typeText("3")
	h.key("enter")
	wantCalls(t, h.agent.take(), `elicit elicit-1 accept {"color":"blue","n":3,"name":"xy","ok":true,"tags":["fast","safe"],"token":"s3cret"}`)
	if scr = h.screenText(); strings.Contains(scr, "Question from the agent") {
		t.Fatalf("dialog still shown after the answer:\n%s", scr)
	}
	h.ev(acpclient.ElicitationResolved{ID: "elicit-1", Action: "accept", By: "user", Fields: []string{"name", "n"}})
	if scr = h.screenText(); !strings.Contains(scr, "Set up the project — question accept: name, n") {
		t.Fatalf("no banner:\n%s", scr)
	}
}

func TestElicitationDeclineCancelAndURL(t *testing.T) {
	for _, tc := range []struct {
		name, params, key, want string
		screen                  []string
	}{
		{"decline", uiForm, "ctrl+d", "elicit e1 decline null", nil},
		{"cancel", uiForm, "esc", "elicit e1 cancel null", nil},
		{"url decline", `{"mode":"url","message":"Sign in","url":"https://login.example.com/a?b=1","elicitationId":"x"}`, "d",
			"elicit e1 decline null", []string{"Site: login.example.com", "URL:  https://login.example.com/a?b=1", "o open in browser"}},
		{"url done", `{"mode":"url","message":"Sign in","url":"https://login.example.com/","elicitationId":"x"}`, "enter",
			"elicit e1 accept null", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(elicitAsk(t, "e1", tc.params))
			scr := h.screenText()
			for _, want := range tc.screen {
				if !strings.Contains(scr, want) {
					t.Fatalf("screen lacks %q:\n%s", want, scr)
				}
			}
			h.key(tc.key)
			wantCalls(t, h.agent.take(), tc.want)
		})
	}
}

func TestElicitationURLOnlyHTTP(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(elicitAsk(t, "e1", `{"mode":"url","message":"Open","url":"file:///etc/passwd","elicitationId":"x"}`))
	h.key("o")
	wantCalls(t, h.agent.take())
	if scr := h.screenText(); !strings.Contains(scr, "acpterm opens only http and https URLs") {
		t.Fatalf("no refusal:\n%s", scr)
	}
}

func TestElicitationWaitsWhileTyping(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("draft")
	h.ev(elicitAsk(t, "e1", `{"mode":"form","message":"Pick","requestedSchema":{"properties":{"c":{"type":"string","enum":["A","B"],"default":"A"}}}}`))
	if scr := h.screenText(); !strings.Contains(scr, "tab answers · what you type goes to the prompt") {
		t.Fatalf("no hint:\n%s", scr)
	}
	h.typeText(" more")
	h.key("enter") // sends the prompt, never the form
	wantCalls(t, h.agent.take(), "prompt draft more")
	h.key("tab")
	h.key("enter")
	wantCalls(t, h.agent.take(), `elicit e1 accept {"c":"A"}`)
}

func TestElicitationOptionDescriptions(t *testing.T) {
	h := newHarness(t, nil)
	// claude-agent-acp's AskUserQuestion: options with descriptions, and an "Other" text field.
	h.ev(elicitAsk(t, "e1", `{"mode":"form","message":"Which color should the file be?","requestedSchema":{"type":"object","properties":{
		"question_0":{"type":"string","title":"Color","oneOf":[{"const":"Red","title":"Red","description":"A warm color."},{"const":"Blue","title":"Blue","description":"A cool color."}]},
		"question_0_custom":{"type":"string","title":"Other","description":"Type your own answer (optional)."}}}}`))
	h.send(keyMsg("right"))
	h.send(keyMsg("right"))
	if scr := h.screenText(); !strings.Contains(scr, "( ) Red  (•) Blue") || !strings.Contains(scr, "Blue: A cool color.") || !strings.Contains(scr, "Type your own answer (optional).") {
		t.Fatalf("dialog:\n%s", scr)
	}
	h.key("enter")
	wantCalls(t, h.agent.take(), `elicit e1 accept {"question_0":"Blue"}`)
}
