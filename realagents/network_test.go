package realagents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A real agent run in the sandbox ([sandbox] agent = true) reaches the network only through
// acpterm's proxy: its model API (the mock, on 127.0.0.1, under a test name the proxy's test
// resolver maps to it and [policy.network] agent_allow names) works, every connection the
// agent makes is an audit record, and none elsewhere is let through (codex tries github.com
// and chatgpt.com: names the test resolver does not know, refused without a question). For claude-agent-acp, acpterm's
// MCP server (out of reach on the host's loopback) is served on the agent's own proxy
// listener: the model's terminal_start and terminal_input go through it.
func testSandboxedAgentThroughProxy(t *testing.T, agent string) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's namespaces need root here (CI runs as root)")
	}
	t.Parallel()
	r := newRun(t, agent)
	const modelHost = "model.acpterm.test"
	r.mock.useHost(modelHost)
	// The agents' own config files name the mock's URL: written again with the name.
	switch agent {
	case codexCurrent:
		if err := r.writeCodexConfig("gpt-5.5", "on-request", "read-only"); err != nil {
			t.Fatal(err)
		}
	case opencode:
		if err := r.writeOpencodeConfig(); err != nil {
			t.Fatal(err)
		}
	}
	r.extraEnv = []string{"ACPTERM_TEST_RESOLVE=*.acpterm.test=127.0.0.1"}
	config := r.writeConfig(policyOpts{})
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// The harness points the agents' own temp and state variables (CLAUDE_CODE_TMPDIR,
	// CODEX_HOME) into its run dir, not where the sandbox's defaults are: the agent may write
	// there.
	extra := fmt.Sprintf("\n[sandbox]\nmode = \"required\"\nagent = true\nagent_write = [%q, %q]\n\n[policy.network]\nagent_allow = [%q]\n",
		filepath.Join(r.dir, "tmp"), filepath.Join(r.dir, "codex-home"), modelHost)
	if err := os.WriteFile(config, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	prompts := []string{"hi"}
	if agent == claudeCurrent {
		prompts = append(prompts, "start a python repl")
	}
	h := r.headless(t, config, "allow", prompts...)
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^Hello! This is a plain reply from the mock model\.$`, `^\[stop\] end_turn$`)
	noLines(t, h, `MCP server "acpterm" failed`, `^\[permission\] fetch`)
	if agent == claudeCurrent {
		expectLines(t, h, `^\[terminal term-1\] started \(agent-driven\): python3 -q$`)
		if !toolResultsContain(r.mock, `"screen":[">>> print(6*7)","42",">>>"`) {
			t.Errorf("the model never saw 42 on the screen; requests %+v", r.mock.Requests())
		}
	}

	audit, err := os.ReadFile(filepath.Join(r.dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	model := strings.TrimPrefix(r.mock.URL(), "http://")
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
		if fmt.Sprintf("%s:%d", ev.Host, ev.Port) != model {
			if ev.Verdict != "deny" {
				others = append(others, fmt.Sprintf("%s:%d %s by %s (%s)", ev.Host, ev.Port, ev.Verdict, ev.By, ev.Rule))
			}
			continue
		}
		if ev.Verdict != "allow" || ev.By != "policy" || ev.Rule != "agent model API: "+modelHost+" ([policy.network] agent_allow)" {
			t.Errorf("the model API connection's record: %s", line)
		}
		// An agent may abandon a request (a side request at the end of the turn): only the
		// connections that got an answer count.
		if ev.Up > 0 && ev.Down > 0 {
			allowed++
		}
	}
	if len(others) > 0 {
		t.Errorf("connections other than the model API's were let through: %q", others)
	}
	if allowed == 0 {
		t.Fatalf("no audit record of a model API connection with bytes both ways:\n%s", audit)
	}
}

func TestHeadlessSandboxedClaudeThroughProxy(t *testing.T) {
	testSandboxedAgentThroughProxy(t, claudeCurrent)
}
func TestHeadlessSandboxedCodexThroughProxy(t *testing.T) {
	testSandboxedAgentThroughProxy(t, codexCurrent)
}
func TestHeadlessSandboxedGeminiThroughProxy(t *testing.T) { testSandboxedAgentThroughProxy(t, gemini) }
func TestHeadlessSandboxedOpencodeThroughProxy(t *testing.T) {
	testSandboxedAgentThroughProxy(t, opencode)
}
