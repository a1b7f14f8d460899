package realagents

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A real agent run in the sandbox ([sandbox] agent = true) reaches the network only through
// acpterm's proxy: its model API (the mock, on 127.0.0.1, under a test name the proxy's test
// resolver maps to it and [policy.network] agent_allow names) works, every connection the
// agent makes is an audit record, and it makes none elsewhere. acpterm's MCP server, out of
// reach on the host's loopback, is served on the agent's own proxy listener: the model's
// terminal_start and terminal_input go through it.
func TestHeadlessSandboxedClaudeThroughProxy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's namespaces need root here (CI runs as root)")
	}
	r := newRun(t, claudeCurrent)
	u, err := url.Parse(r.mock.URL())
	if err != nil {
		t.Fatal(err)
	}
	model := "model.acpterm.test:" + u.Port()
	r.extraEnv = []string{"ACPTERM_TEST_RESOLVE=*.acpterm.test=127.0.0.1", "ANTHROPIC_BASE_URL=http://" + model}
	config := r.writeConfig(policyOpts{})
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// The harness points CLAUDE_CODE_TMPDIR at its own tmp dir (the sandbox's TMPDIR is
	// another): the agent may write there.
	extra := fmt.Sprintf("\n[sandbox]\nmode = \"required\"\nagent = true\nagent_write = [%q]\n\n[policy.network]\nagent_allow = [\"model.acpterm.test\"]\n",
		filepath.Join(r.dir, "tmp"))
	if err := os.WriteFile(config, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	h := r.headless(t, config, "allow", "hi", "start a python repl")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^Hello! This is a plain reply from the mock model\.$`,
		`^\[terminal term-1\] started \(agent-driven\): python3 -q$`, `^\[stop\] end_turn$`)
	noLines(t, h, `MCP server "acpterm" failed`, `^\[permission\] fetch`)
	if !toolResultsContain(r.mock, `"screen":[">>> print(6*7)","42",">>>"`) {
		t.Errorf("the model never saw 42 on the screen; requests %+v", r.mock.Requests())
	}

	audit, err := os.ReadFile(filepath.Join(r.dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := 0
	var others []string
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		var ev struct {
			Kind, Verdict, By, Rule, Host, Terminal string
			Port                                    int
			Up                                      int64 `json:"bytes_up"`
			Down                                    int64 `json:"bytes_down"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if ev.Kind != "net" {
			continue
		}
		if ev.Terminal != "agent" {
			t.Errorf("a net record not of the agent: %s", line)
		}
		if ev.Verdict != "allow" {
			others = append(others, fmt.Sprintf("%s:%d %s by %s (%s)", ev.Host, ev.Port, ev.Verdict, ev.By, ev.Rule))
			continue
		}
		if fmt.Sprintf("%s:%d", ev.Host, ev.Port) != model || ev.By != "policy" ||
			ev.Rule != "agent model API: model.acpterm.test ([policy.network] agent_allow)" || ev.Up <= 0 || ev.Down <= 0 {
			t.Errorf("allowed connection other than the model API's: %s", line)
		}
		allowed++
	}
	if len(others) > 0 {
		t.Errorf("the agent tried other connections: %q", others)
	}
	if allowed == 0 {
		t.Fatalf("no audit record of the agent's model API connection:\n%s", audit)
	}
}
