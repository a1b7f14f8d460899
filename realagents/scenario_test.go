package realagents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A script is what a mock model plays: the first scenario whose Match regexp
// (case-insensitive) finds the latest human prompt is used, else Turns.
// Files: testdata/claude.json (Anthropic mock) and testdata/codex.json (OpenAI mock).
type script struct {
	SideText  string     `json:"side_text"` // reply to Anthropic requests without tools (titles)
	Scenarios []scenario `json:"scenarios"`
	Turns     []turn     `json:"turns"`
}

type scenario struct {
	Name  string `json:"name"`
	Match string `json:"match"`
	Turns []turn `json:"turns"`
	re    *regexp.Regexp
}

// A turn is one model reply. Anthropic: Text and ToolUses. OpenAI: Text and
// one of Shell (a command line, sent as whichever shell tool codex offers) or Call.
type turn struct {
	Text      string         `json:"text,omitempty"`
	ToolUses  []toolUse      `json:"tool_uses,omitempty"`
	Shell     string         `json:"shell,omitempty"`
	ShellArgs map[string]any `json:"shell_args,omitempty"` // merged into the shell tool's arguments (codex: sandbox_permissions)
	TimeoutMS int            `json:"timeout_ms,omitempty"`
	Call      *call          `json:"call,omitempty"`
	DelayMS   int            `json:"delay_ms,omitempty"`
	// DropTimes: the first DropTimes requests for this turn get a stream that ends before the
	// response is complete (a dropped connection; OpenAI mock only), the next ones the turn.
	DropTimes int `json:"drop_times,omitempty"`
}

// toolUse names the tool by a list of candidates: the first one the agent
// offers is used (0.17.1 offers mcp__acp__Bash, 0.23.1 offers Bash).
type toolUse struct {
	Name  []string       `json:"name"`
	Input map[string]any `json:"input"`
}

type call struct {
	Name      string `json:"name"`
	Custom    bool   `json:"custom"`    // a custom_tool_call (freeform input, e.g. apply_patch)
	Arguments string `json:"arguments"` // custom: the input text; else JSON arguments
}

// loadScript reads and validates a scenario file from testdata.
func loadScript(name string) (*script, error) {
	path := filepath.Join("testdata", name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s script
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range s.Scenarios {
		re, err := regexp.Compile("(?is)" + s.Scenarios[i].Match)
		if err != nil {
			return nil, fmt.Errorf("%s: scenario %d: %w", path, i, err)
		}
		s.Scenarios[i].re = re
	}
	return &s, nil
}

// pick returns the scenario name and its turns for a prompt.
func (s *script) pick(prompt string) (string, []turn) {
	for _, sc := range s.Scenarios {
		if sc.re.MatchString(prompt) {
			return sc.Name, sc.Turns
		}
	}
	return "default", s.Turns
}

// injected matches blocks agents add to user messages (<system-reminder>…</system-reminder>,
// <environment_context>…, …): they are not what the human typed.
var injected = regexp.MustCompile(`(?s)<([a-z_-]+)>.*?</([a-z_-]+)>`)

func humanText(t string) string {
	return strings.TrimSpace(injected.ReplaceAllStringFunc(t, func(m string) string {
		sub := injected.FindStringSubmatch(m)
		if sub[1] == sub[2] {
			return ""
		}
		return m
	}))
}

// substCwd replaces __CWD__ in every string of v.
func substCwd(v any, cwd string) any { return substVar(v, "__CWD__", cwd) }

// substVar replaces name by value in every string of v.
func substVar(v any, name, value string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, name, value)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substVar(e, name, value)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substVar(e, name, value)
		}
		return out
	}
	return v
}
