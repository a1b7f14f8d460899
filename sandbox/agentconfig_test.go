package sandbox

import (
	"slices"
	"testing"
)

// AgentConfigFiles follows each agent's own variables for where its config lives, and
// chooses by the agent program's name.
func TestAgentConfigFiles(t *testing.T) {
	env := map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g", "XDG_CONFIG_HOME": "/xdg", "COPILOT_HOME": "relative"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		argv []string
		want []string
	}{
		{[]string{"npx", "-y", "@agentclientprotocol/claude-agent-acp"}, []string{"/c/settings.json", "/c/settings.local.json"}},
		{[]string{"/usr/bin/codex-acp"}, []string{"/x/config.toml", "/x/hooks.json", "/x/rules"}},
		{[]string{"gemini", "--experimental-acp"}, []string{"/g/.gemini/settings.json", "/g/.gemini/.env", "/g/.gemini/extensions", "/g/.gemini/policies", "/g/.gemini/trustedFolders.json"}},
		{[]string{"copilot", "--acp"}, []string{"/h/.copilot/mcp-config.json"}}, // a relative COPILOT_HOME is not used
		{[]string{"my-agent"}, nil},
	}
	for _, c := range cases {
		if got := AgentConfigFiles(c.argv, "/h", getenv); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.argv, got, c.want)
		}
	}
	got := AgentConfigFiles([]string{"opencode", "acp"}, "/h", getenv)
	for _, p := range []string{"/h/.config/opencode/opencode.json", "/xdg/opencode/opencode.jsonc", "/xdg/opencode/plugin", "/h/.config/opencode/tools", "/xdg/opencode/package.json"} {
		if !slices.Contains(got, p) {
			t.Errorf("opencode: %s missing from %q", p, got)
		}
	}
	if len(got) != 18 {
		t.Errorf("opencode: %d paths, want 18 (9 names in 2 dirs): %q", len(got), got)
	}
	if got := AgentConfigFiles([]string{"claude"}, "", getenv); got != nil {
		t.Errorf("no home: %q", got)
	}
}
