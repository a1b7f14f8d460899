package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// newGeminiMock starts a fake Gemini API (POST /v1beta/models/M:generateContent and
// :streamGenerateContent?alt=sse, :countTokens, GET models) for gemini-cli pointed at it with
// GOOGLE_GEMINI_BASE_URL. The turn played is the number of model contents after the latest
// user text; a request without tools (gemini-cli's internal checks) gets a plain JSON answer.
func newGeminiMock(sc *script, cwd string) *mockLLM {
	m := &mockLLM{script: sc, cwd: cwd}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method == http.MethodGet && strings.Contains(p, "/models"):
			writeJSON(w, 200, map[string]any{"models": []any{}})
		case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
			_, _ = io.Copy(io.Discard, r.Body)
			writeJSON(w, 200, map[string]any{"totalTokens": 100})
		case r.Method == http.MethodPost && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
			m.geminiGenerate(w, r, strings.HasSuffix(p, ":streamGenerateContent"))
		default:
			m.fail("gemini: unknown path %s %s", r.Method, p)
			writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "mock: unknown path " + p, "status": "NOT_FOUND"}})
		}
	})
	m.srv = httptest.NewServer(mux)
	return m
}

type gemPart struct {
	Text             string          `json:"text"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type gemContent struct {
	Role  string    `json:"role"`
	Parts []gemPart `json:"parts"`
}

func (m *mockLLM) geminiGenerate(w http.ResponseWriter, r *http.Request, stream bool) {
	var body struct {
		Contents []gemContent `json:"contents"`
		Tools    []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		m.fail("gemini: bad request body: %v", err)
		writeJSON(w, 400, map[string]any{"error": map[string]any{"code": 400, "message": "mock: " + err.Error(), "status": "INVALID_ARGUMENT"}})
		return
	}
	offered := map[string]bool{}
	for _, t := range body.Tools {
		for _, f := range t.FunctionDeclarations {
			offered[f.Name] = true
		}
	}
	last := -1
	for i, c := range body.Contents {
		if c.Role != "user" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if humanText(strings.Join(texts, "\n")) != "" {
			last = i
		}
	}
	req := llmRequest{}
	if last >= 0 {
		var texts []string
		for _, p := range body.Contents[last].Parts {
			texts = append(texts, p.Text)
		}
		req.Prompt = humanText(strings.Join(texts, "\n"))
		for _, c := range body.Contents[:last] {
			var texts []string
			for _, p := range c.Parts {
				if p.Text != "" {
					texts = append(texts, p.Text)
				}
			}
			if p := humanText(strings.Join(texts, "\n")); c.Role == "user" && p != "" {
				req.Earlier = append(req.Earlier, p)
			}
		}
	}
	n := 0
	for _, c := range body.Contents[last+1:] {
		if c.Role == "model" {
			n++
		}
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				req.ToolResults = append(req.ToolResults, string(p.FunctionResponse.Response))
			}
		}
	}
	var parts []map[string]any
	if len(offered) == 0 {
		// An internal request (next-speaker check, routing, title): JSON when asked for JSON.
		req.Side, req.Scenario = true, "side"
		m.record(req)
		txt := "ok"
		if body.GenerationConfig.ResponseMimeType == "application/json" {
			txt = `{"reasoning": "mock", "next_speaker": "user", "model_choice": "flash", "complexity_reasoning": "mock", "complexity_score": 1}`
		}
		parts = append(parts, map[string]any{"text": txt})
	} else {
		name, turns := m.script.pick(req.Prompt)
		req.Scenario, req.Turn = name, n
		m.record(req)
		t := turn{Text: "(mock) script finished."}
		if n < len(turns) {
			t = turns[n]
		}
		if t.Text != "" {
			parts = append(parts, map[string]any{"text": t.Text})
		}
		switch {
		case t.Shell != "":
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": strings.ReplaceAll(t.Shell, "__CWD__", m.cwd), "description": "mock command"}}})
		case t.Call != nil:
			var args map[string]any
			if err := json.Unmarshal([]byte(strings.ReplaceAll(t.Call.Arguments, "__CWD__", m.cwd)), &args); err != nil {
				m.fail("gemini: script call arguments: %v", err)
			}
			if !offered[t.Call.Name] {
				m.fail("gemini: tool %q not offered", t.Call.Name)
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": t.Call.Name, "args": args}})
		}
	}
	resp := func(ps []map[string]any, finish bool) map[string]any {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		if finish {
			c["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{c}, "modelVersion": "gemini-mock",
			"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}}
	}
	if !stream {
		writeJSON(w, 200, resp(parts, true))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for i, p := range parts {
		b, _ := json.Marshal(resp([]map[string]any{p}, i == len(parts)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f != nil {
			f.Flush()
		}
	}
}
