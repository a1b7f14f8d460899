package realagents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// newChatMock starts a fake OpenAI-compatible Chat Completions API (POST /v1/chat/completions,
// streaming or not; GET /v1/models) for opencode with a custom provider. The turn played is the
// number of assistant messages after the latest user message; a request without tools (titles,
// summaries) gets the script's side text.
func newChatMock(sc *script, cwd string) *mockLLM {
	m := &mockLLM{script: sc, cwd: cwd}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
			writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mock"}}})
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
			m.chatCompletions(w, r)
		default:
			m.fail("chat: unknown path %s %s", r.Method, p)
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "mock: unknown path " + p, "type": "not_found"}})
		}
	})
	m.srv = httptest.NewServer(mux)
	return m
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

func (c chatMessage) text() string {
	var s string
	if json.Unmarshal(c.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c.Content, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

func (m *mockLLM) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string        `json:"model"`
		Stream   bool          `json:"stream"`
		Messages []chatMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		m.fail("chat: bad request body: %v", err)
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "mock: " + err.Error(), "type": "invalid_request_error"}})
		return
	}
	offered := map[string]bool{}
	for _, t := range body.Tools {
		offered[t.Function.Name] = true
	}
	last := -1
	for i, msg := range body.Messages {
		if msg.Role == "user" && humanText(msg.text()) != "" {
			last = i
		}
	}
	req := llmRequest{}
	if last >= 0 {
		req.Prompt = humanText(body.Messages[last].text())
		for _, msg := range body.Messages[:last] {
			if p := humanText(msg.text()); msg.Role == "user" && p != "" {
				req.Earlier = append(req.Earlier, p)
			}
		}
	}
	n := 0
	for _, msg := range body.Messages[last+1:] {
		switch msg.Role {
		case "assistant":
			n++
		case "tool":
			req.ToolResults = append(req.ToolResults, msg.text())
		}
	}
	var t turn
	if len(body.Tools) == 0 {
		req.Side, req.Scenario = true, "side"
		t = turn{Text: m.script.SideText}
		if t.Text == "" {
			t.Text = "Mock title"
		}
		m.record(req)
	} else {
		name, turns := m.script.pick(req.Prompt)
		req.Scenario, req.Turn = name, n
		m.record(req)
		t = turn{Text: "(mock) script finished."}
		if n < len(turns) {
			t = turns[n]
		}
	}
	var calls []map[string]any
	addCall := func(name string, args string) {
		if !offered[name] {
			m.fail("chat: tool %q not offered (offered %v)", name, offered)
		}
		calls = append(calls, map[string]any{"index": len(calls), "id": newID("call_"), "type": "function",
			"function": map[string]any{"name": name, "arguments": args}})
	}
	switch {
	case t.Shell != "":
		a, _ := json.Marshal(map[string]any{"command": strings.ReplaceAll(t.Shell, "__CWD__", m.cwd), "description": "Mock command"})
		addCall("bash", string(a))
	case t.Call != nil:
		addCall(t.Call.Name, strings.ReplaceAll(t.Call.Arguments, "__CWD__", m.cwd))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	if !body.Stream {
		msg := map[string]any{"role": "assistant", "content": t.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, fin any, u any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
		if u != nil {
			c["usage"] = u
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	for _, part := range chunks(t.Text, 40) {
		chunk(map[string]any{"content": part}, nil, nil)
	}
	if len(calls) > 0 {
		chunk(map[string]any{"tool_calls": calls}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}
