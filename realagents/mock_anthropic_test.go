package realagents

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// mockLLM is an in-process fake model API on 127.0.0.1 (httptest). It records
// every model request so tests can check what the agent sent back (tool results).
type mockLLM struct {
	srv    *httptest.Server
	script *script
	cwd    string // replaces __CWD__ in scenario inputs
	host   string // when set, URL names this host instead of 127.0.0.1 (a name resolving to it)

	mu      sync.Mutex
	reqs    []llmRequest
	errs    []string
	dropped map[string]int // streams dropped so far per "scenario/turn" (turn.DropTimes)
}

// llmRequest is one model call as the mock understood it.
type llmRequest struct {
	Scenario    string
	Turn        int
	Prompt      string
	ToolResults []string // text of the tool results in the latest message (Anthropic) or input (OpenAI)
	Side        bool     // a side request (no tools: title generation)
	Earlier     []string // the human prompts before the latest one (the conversation the model was given)
}

// URL is the mock's base URL: http://127.0.0.1:PORT, or http://HOST:PORT after useHost.
func (m *mockLLM) URL() string {
	if m.host != "" {
		return "http://" + net.JoinHostPort(m.host, strconv.Itoa(m.srv.Listener.Addr().(*net.TCPAddr).Port))
	}
	return m.srv.URL
}

// useHost makes URL name host (which the agent's resolver, e.g. acpterm's proxy, maps to
// 127.0.0.1) instead of the address.
func (m *mockLLM) useHost(host string) { m.host = host }

func (m *mockLLM) Close() { m.srv.Close() }

func (m *mockLLM) record(r llmRequest) {
	m.mu.Lock()
	m.reqs = append(m.reqs, r)
	m.mu.Unlock()
}

func (m *mockLLM) fail(format string, a ...any) {
	m.mu.Lock()
	m.errs = append(m.errs, fmt.Sprintf(format, a...))
	m.mu.Unlock()
}

// Requests returns a copy of the model requests seen so far.
func (m *mockLLM) Requests() []llmRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llmRequest(nil), m.reqs...)
}

// Errors returns the protocol problems the mock saw (unparseable bodies, unknown paths).
func (m *mockLLM) Errors() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.errs...)
}

func newID(prefix string) string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", fmt.Sprint(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// sse writes Server-Sent Events and flushes after each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if s.f != nil {
		s.f.Flush()
	}
}

// newAnthropicMock starts a fake Anthropic Messages API (POST /v1/messages with
// streaming SSE, count_tokens, GET /v1/models) that plays sc. The turn played is
// the number of assistant messages after the latest human prompt, so a retried
// request gets the same answer and a new prompt restarts its scenario.
func newAnthropicMock(sc *script, cwd string) *mockLLM {
	m := &mockLLM{script: sc, cwd: cwd}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method == http.MethodHead:
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/models"):
			writeJSON(w, 200, map[string]any{"data": []any{map[string]any{
				"type": "model", "id": "claude-sonnet-4-5", "display_name": "Mock Sonnet",
				"created_at": "2025-01-01T00:00:00Z"}}, "has_more": false,
				"first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"})
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/v1/messages/count_tokens"):
			_, _ = io.Copy(io.Discard, r.Body)
			writeJSON(w, 200, map[string]any{"input_tokens": 100})
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/v1/messages"):
			m.messages(w, r)
		default:
			writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{
				"type": "not_found_error", "message": "mock: unknown path " + p}})
		}
	})
	m.srv = httptest.NewServer(mux)
	return m
}

type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // tool_result: string or blocks
}

func anthBlocks(raw json.RawMessage) []anthBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthBlock{{Type: "text", Text: s}}
	}
	var bs []anthBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func isToolResultMsg(m anthMessage) bool {
	for _, b := range anthBlocks(m.Content) {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func blocksText(bs []anthBlock) string {
	var out []string
	for _, b := range bs {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, "\n")
}

func (m *mockLLM) messages(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string        `json:"model"`
		Stream   bool          `json:"stream"`
		Messages []anthMessage `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		m.fail("anthropic: bad request body: %v", err)
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{
			"type": "invalid_request_error", "message": "mock: " + err.Error()}})
		return
	}
	offered := map[string]bool{}
	for _, t := range body.Tools {
		offered[t.Name] = true
	}
	var t turn
	req := llmRequest{Turn: -1}
	if len(body.Tools) == 0 {
		req.Side = true
		req.Scenario = "side"
		t = turn{Text: m.script.SideText}
		if t.Text == "" {
			t.Text = "Mock session"
		}
	} else {
		last := -1
		for i, msg := range body.Messages {
			if msg.Role == "user" && !isToolResultMsg(msg) {
				last = i
			}
		}
		if last >= 0 {
			req.Prompt = humanText(blocksText(anthBlocks(body.Messages[last].Content)))
			for _, msg := range body.Messages[:last] {
				if p := humanText(blocksText(anthBlocks(msg.Content))); msg.Role == "user" && !isToolResultMsg(msg) && p != "" {
					req.Earlier = append(req.Earlier, p)
				}
			}
		}
		n := 0
		for _, msg := range body.Messages[last+1:] {
			if msg.Role == "assistant" {
				n++
			}
		}
		name, turns := m.script.pick(req.Prompt)
		req.Scenario, req.Turn = name, n
		if n < len(turns) {
			t = turns[n]
		} else {
			t = turn{Text: "(mock) script finished."}
		}
		if k := len(body.Messages); k > 0 {
			for _, b := range anthBlocks(body.Messages[k-1].Content) {
				if b.Type == "tool_result" {
					req.ToolResults = append(req.ToolResults, blocksText(anthBlocks(b.Content)))
				}
			}
		}
	}
	m.record(req)

	// __LAST_BG__ is the id of the latest background command the agent reported
	// in a tool result ("Command started in background with id: X").
	lastBG := "unknown"
	for _, msg := range body.Messages {
		for _, b := range anthBlocks(msg.Content) {
			if b.Type == "tool_result" {
				if sm := bgID.FindStringSubmatch(blocksText(anthBlocks(b.Content))); sm != nil {
					lastBG = sm[1]
				}
			}
		}
	}

	type block map[string]any
	var content []block
	if t.Text != "" {
		content = append(content, block{"type": "text", "text": t.Text})
	}
	for _, tu := range t.ToolUses {
		name := tu.Name[0]
		for _, n := range tu.Name {
			if offered[n] {
				name = n
				break
			}
		}
		content = append(content, block{"type": "tool_use", "id": newID("toolu_mock"), "name": name,
			"input": substVar(substCwd(map[string]any(tu.Input), m.cwd), "__LAST_BG__", lastBG)})
	}
	if len(content) == 0 {
		content = append(content, block{"type": "text", "text": "(mock) empty turn"})
	}
	stop := "end_turn"
	if len(t.ToolUses) > 0 {
		stop = "tool_use"
	}
	if t.DelayMS > 0 {
		select {
		case <-time.After(time.Duration(t.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	msgID := newID("msg_mock")
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !body.Stream {
		writeJSON(w, 200, map[string]any{"id": msgID, "type": "message", "role": "assistant",
			"model": body.Model, "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := startSSE(w)
	startUsage := map[string]any{"input_tokens": 100, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": body.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	s.event("ping", map[string]any{"type": "ping"})
	for i, b := range content {
		if b["type"] == "text" {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(b["text"].(string), 40) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		} else {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			for _, part := range chunks(string(js), 40) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

var bgID = regexp.MustCompile(`(?i)in background with id:?\s*([A-Za-z0-9_-]+)`)

// chunks splits s into pieces of at most n bytes, never inside a UTF-8 sequence.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k > 0 && !utf8RuneStart(s[k]) {
			k--
		}
		if k == 0 {
			k = n
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
