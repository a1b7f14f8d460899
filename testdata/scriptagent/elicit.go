package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/coder/acp-go-sdk"
)

// elicitSchemas are the forms of the elicit* prompts, as raw JSON: property order matters
// (a client shows the fields in the agent's order).
var elicitSchemas = map[string]string{
	// Every field type and constraint.
	"elicit": `{"type":"object","title":"Project setup","properties":{
		"name":{"type":"string","title":"Project name","minLength":2,"maxLength":20,"pattern":"^[a-z][a-z0-9-]*$"},
		"email":{"type":"string","title":"Contact email","format":"email"},
		"replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":5,"default":2},
		"ratio":{"type":"number","title":"Ratio","minimum":0,"maximum":1},
		"color":{"type":"string","title":"Color","oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}],"default":"blue"},
		"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["fast","safe","small"]},"minItems":1},
		"agree":{"type":"boolean","title":"Agree to terms","default":false},
		"api_token":{"type":"string","title":"API token"}},
		"required":["name","email","tags"]}`,
	// What claude-agent-acp's AskUserQuestion sends: one single-select question.
	"elicitask": `{"type":"object","properties":{
		"q1":{"type":"string","title":"Which color should the file be?","enum":["Red","Blue"]}},"required":["q1"]}`,
	// A malformed schema: a property of an unknown type.
	"elicitbad": `{"type":"object","properties":{"x":{"type":"object"}}}`,
}

// elicitForm sends elicitation/create (string request id, session scope with a tool call) and
// says the client's response: "elicitation accept {…content…}", "elicitation decline", or
// "elicitation error code=…".
func (a *agent) elicitForm(which string) {
	key := which
	if which == "elicittwice" {
		key = "elicitask"
	}
	var schema json.RawMessage = json.RawMessage(elicitSchemas[key])
	n := 1
	if which == "elicittwice" {
		n = 2
	}
	for i := 0; i < n; i++ {
		msg := rawCall("elicitation/create", map[string]any{"sessionId": sid, "toolCallId": "tc-elicit", "mode": "form",
			"message": "Please fill in the " + key + " form", "requestedSchema": schema})
		a.say(elicitResult(msg) + "\n")
	}
}

func elicitResult(msg json.RawMessage) string {
	var r struct {
		Result *struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		} `json:"result"`
		Error *acp.RequestError `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return "elicitation undecodable " + err.Error()
	}
	if r.Error != nil {
		return fmt.Sprintf("elicitation error code=%d", r.Error.Code)
	}
	if r.Result == nil {
		return "elicitation no result"
	}
	fmt.Fprintf(os.Stderr, "elicitation response: %s\n", bytes.TrimSpace(msg))
	out := "elicitation " + r.Result.Action
	if len(r.Result.Content) > 0 {
		// Re-encoded: keys sorted, so the text is stable.
		var m map[string]any
		_ = json.Unmarshal(r.Result.Content, &m)
		b, _ := json.Marshal(m)
		out += " " + string(b)
	}
	return out
}

// elicitURL sends a URL elicitation; after an accept it sends elicitation/complete.
func (a *agent) elicitURL(u string) {
	msg := rawCall("elicitation/create", map[string]any{"sessionId": sid, "mode": "url", "elicitationId": "el-1",
		"message": "Sign in to continue", "url": u})
	res := elicitResult(msg)
	a.say(res + "\n")
	if res == "elicitation accept" {
		raw(map[string]any{"jsonrpc": "2.0", "method": "elicitation/complete", "params": map[string]any{"elicitationId": "el-1"}})
	}
}
