package realagents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// newOpenAIMock starts a fake OpenAI Responses API (POST /v1/responses, SSE)
// for codex with a custom model provider. Call ids are minted as
// call_t<turn>_<rand>; the next turn is 1 + the highest <turn> among the call
// items after the latest human message.
func newOpenAIMock(sc *script, cwd string) *mockLLM {
	m := &mockLLM{script: sc, cwd: cwd}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
			writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
			m.responses(w, r)
		default:
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "mock: unknown path " + p, "type": "not_found"}})
		}
	})
	m.srv = httptest.NewServer(mux)
	return m
}

type oaItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

func (it oaItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var bs []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &bs)
	var out []string
	for _, b := range bs {
		out = append(out, b.Text)
	}
	return strings.Join(out, "\n")
}

var callTurn = regexp.MustCompile(`^call_t(\d+)_`)
var cwdTag = regexp.MustCompile(`<cwd>([^<]+)</cwd>`)

func (m *mockLLM) responses(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		m.fail("openai: bad request body: %v", err)
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "mock: " + err.Error(), "type": "invalid_request_error"}})
		return
	}
	var items []oaItem
	var s string
	if json.Unmarshal(body.Input, &s) == nil {
		items = []oaItem{{Type: "message", Role: "user", Content: body.Input}}
	} else if err := json.Unmarshal(body.Input, &items); err != nil {
		m.fail("openai: bad input: %v", err)
	}
	last := -1
	for i, it := range items {
		if (it.Type == "" || it.Type == "message") && it.Role == "user" && humanText(it.text()) != "" {
			last = i
		}
	}
	req := llmRequest{}
	if last >= 0 {
		req.Prompt = humanText(items[last].text())
		for _, it := range items[:last] {
			if p := humanText(it.text()); (it.Type == "" || it.Type == "message") && it.Role == "user" && p != "" {
				req.Earlier = append(req.Earlier, p)
			}
		}
	}
	n := 0
	for _, it := range items[last+1:] {
		switch it.Type {
		case "function_call", "local_shell_call", "custom_tool_call":
			if sm := callTurn.FindStringSubmatch(it.CallID); sm != nil {
				k, _ := strconv.Atoi(sm[1])
				n = max(n, k+1)
			}
		case "function_call_output", "custom_tool_call_output":
			var o string
			if json.Unmarshal(it.Output, &o) != nil {
				o = string(it.Output)
			}
			req.ToolResults = append(req.ToolResults, o)
		}
	}
	name, turns := m.script.pick(req.Prompt)
	req.Scenario, req.Turn = name, n
	m.record(req)
	t := turn{Text: "(mock) script finished."}
	if n < len(turns) {
		t = turns[n]
	}
	cwd := m.cwd
	if sm := cwdTag.FindStringSubmatch(string(body.Input)); sm != nil {
		cwd = sm[1]
	}
	offered := map[string]bool{}
	for _, tl := range body.Tools {
		offered[tl.Name] = true
		offered[tl.Type] = true
	}

	var out []map[string]any
	if t.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": newID("msg_"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}})
	}
	callID := fmt.Sprintf("call_t%d_%s", n, newID(""))
	switch {
	case t.Shell != "":
		cmd := strings.ReplaceAll(t.Shell, "__CWD__", cwd)
		timeout := t.TimeoutMS
		if timeout == 0 {
			timeout = 60000
		}
		var tool string
		var args map[string]any
		switch {
		case offered["shell_command"]:
			tool, args = "shell_command", map[string]any{"command": cmd, "workdir": cwd, "timeout_ms": timeout}
		case offered["exec_command"] && !offered["shell"]:
			tool, args = "exec_command", map[string]any{"cmd": cmd, "workdir": cwd, "yield_time_ms": timeout}
		default:
			tool, args = "shell", map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": cwd, "timeout_ms": timeout}
		}
		for k, v := range t.ShellArgs {
			args[k] = v
		}
		a, _ := json.Marshal(args)
		out = append(out, map[string]any{"type": "function_call", "id": newID("fc_"), "status": "completed",
			"call_id": callID, "name": tool, "arguments": string(a)})
	case t.Call != nil:
		a := strings.ReplaceAll(t.Call.Arguments, "__CWD__", cwd)
		if t.Call.Custom {
			out = append(out, map[string]any{"type": "custom_tool_call", "id": newID("ctc_"), "status": "completed",
				"call_id": callID, "name": t.Call.Name, "input": a})
		} else {
			out = append(out, map[string]any{"type": "function_call", "id": newID("fc_"), "status": "completed",
				"call_id": callID, "name": t.Call.Name, "arguments": a})
		}
	}
	if t.DelayMS > 0 {
		select {
		case <-time.After(time.Duration(t.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 120}
	resp := map[string]any{"id": newID("resp_"), "object": "response", "created_at": time.Now().Unix(),
		"model": body.Model, "status": "in_progress", "output": []any{}}
	if !body.Stream {
		resp["status"], resp["output"], resp["usage"] = "completed", out, usage
		writeJSON(w, 200, resp)
		return
	}
	s2 := startSSE(w)
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		s2.event(name, data)
	}
	ev("response.created", map[string]any{"response": resp})
	if t.DropTimes > 0 {
		key := fmt.Sprintf("%s/%d", name, n)
		m.mu.Lock()
		if m.dropped == nil {
			m.dropped = map[string]int{}
		}
		drop := m.dropped[key] < t.DropTimes
		if drop {
			m.dropped[key]++
		}
		m.mu.Unlock()
		if drop {
			return // the stream ends before response.completed
		}
	}
	for i, it := range out {
		if it["type"] == "message" {
			txt := t.Text
			start := copyMap(it)
			start["status"], start["content"] = "in_progress", []any{}
			ev("response.output_item.added", map[string]any{"output_index": i, "item": start})
			ev("response.content_part.added", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, part := range chunks(txt, 40) {
				ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": part})
			}
			ev("response.output_text.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "text": txt})
			ev("response.content_part.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": txt, "annotations": []any{}}})
		} else {
			start := copyMap(it)
			start["status"] = "in_progress"
			if _, ok := start["arguments"]; ok {
				start["arguments"] = ""
			}
			ev("response.output_item.added", map[string]any{"output_index": i, "item": start})
			if a, ok := it["arguments"]; ok {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": it["id"], "output_index": i, "delta": a})
				ev("response.function_call_arguments.done", map[string]any{"item_id": it["id"], "output_index": i, "arguments": a})
			}
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	done := copyMap(resp)
	done["status"], done["output"], done["usage"] = "completed", out, usage
	ev("response.completed", map[string]any{"response": done})
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
