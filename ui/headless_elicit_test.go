package ui

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
)

// AnswerElicitation records "ID=action content" and emits the ElicitationResolved acpclient
// would, then a TurnEnded.
func (c *scriptClient) AnswerElicitation(id string, a acpclient.ElicitationAnswer) error {
	b, _ := json.Marshal(a.Content)
	c.mu.Lock()
	c.answers = append(c.answers, id+"="+a.Action+" "+string(b))
	c.mu.Unlock()
	var fields []string
	for k := range a.Content {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	c.events <- acpclient.ElicitationResolved{ID: id, Action: a.Action, By: a.By, Fields: fields}
	c.events <- acpclient.TurnEnded{StopReason: "end_turn"}
	return nil
}

func askEvent(t *testing.T) acpclient.ElicitationAsked {
	t.Helper()
	e, err := acpclient.ParseElicitation(json.RawMessage(`{"sessionId":"demo-1","mode":"form","message":"Which color?",
		"requestedSchema":{"properties":{"color":{"type":"string","enum":["Red","Blue"]},"n":{"type":"integer","default":3}},"required":["color"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	return acpclient.ElicitationAsked{ID: "elicit-1", Elicitation: e}
}

func TestHeadlessElicitation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string
		code    int
		answer  string
		out     string
	}{
		{"declined without answers", nil, 0, `elicit-1=decline null`, `[session] demo-1 acpterm-demo 1.0.0 in /proj
[mode] ask
[prompt] ask
[elicitation] form "Which color?": color*, n
[elicitation] → decline (headless: no --answer)
[stop] end_turn
`},
		{"answered", []string{"color=blue"}, 0, `elicit-1=accept {"color":"Blue","n":3}`, `[session] demo-1 acpterm-demo 1.0.0 in /proj
[mode] ask
[prompt] ask
[elicitation] form "Which color?": color*, n
[elicitation] → accept: color, n (--answer)
[stop] end_turn
`},
		{"bad answer", []string{"color=green"}, 2, `elicit-1=decline null`, `[session] demo-1 acpterm-demo 1.0.0 in /proj
[mode] ask
[prompt] ask
[elicitation] form "Which color?": color*, n
[error] invalid answer: color: --answer color=green: "green" is not one of: Red, Blue
[elicitation] → decline (--answer)
[stop] end_turn
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newScriptClient(hlStarted(), map[string][]acpclient.Event{"ask": {askEvent(t)}})
			out, code, err := runScript(t, c, HeadlessOptions{Prompts: []string{"ask"}, Answers: tc.answers})
			if code != tc.code || (code == 2) != errors.Is(err, ErrBadAnswer) {
				t.Fatalf("RunHeadless = %d, %v; want %d", code, err, tc.code)
			}
			if out != tc.out {
				t.Fatalf("output:\n%s\nwant:\n%s", out, tc.out)
			}
			if len(c.answers) != 1 || c.answers[0] != tc.answer {
				t.Fatalf("answers = %q, want %q", c.answers, tc.answer)
			}
		})
	}
}
