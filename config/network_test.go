package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/permissions/policy"
)

func TestNetworkRules(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, `[policy.network]
allow = ["proxy.golang.org", "*.NPMJS.org.", "example.com:8443", "[::1]:8080", "10.0.0.5", "proxy.golang.org"]
deny  = ["*.evil.example"]
unmatched = "deny"
`)
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.Policy.Network
	if want := []string{"proxy.golang.org", "*.npmjs.org", "example.com:8443", "[::1]:8080", "10.0.0.5"}; !slices.Equal(n.Allow, want) {
		t.Errorf("allow %q, want %q", n.Allow, want)
	}
	if !slices.Equal(n.Deny, []string{"*.evil.example"}) || n.Unmatched != "deny" {
		t.Errorf("deny %q unmatched %q", n.Deny, n.Unmatched)
	}
	if d := Default(cwd).Policy.Network; d.Unmatched != "ask" || d.Allow != nil || d.Deny != nil {
		t.Errorf("default network %+v", d)
	}
}

func TestNetworkRuleErrors(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	cases := []struct{ doc, want string }{
		{"[policy.network]\nallow = [\"*\"]\n", `:2:10: policy.network.allow: host rule "*" matches every host; say that with unmatched = "allow"`},
		{"[policy.network]\nallow = [\"ok.com\", \"a*.com\"]\n", `:2:20: policy.network.allow: host rule "a*.com": a wildcard may only be a leading "*."`},
		{"[policy.network]\ndeny = [\"x.com:0\"]\n", `:2:9: policy.network.deny: host rule "x.com:0": port "0" is not between 1 and 65535`},
		{"[policy.network]\nallow = [\"bücher.de\"]\n", `:2:10: policy.network.allow: host rule "bücher.de": write internationalised names as punycode (xn--…)`},
		{"[policy.network]\nallow = [\"*.com\"]\n", `:2:10: policy.network.allow: host rule "*.com" covers a whole top-level domain; name the domain ("*.example.com")`},
		{"[policy.network]\nallow = [\"http://x.com\"]\n", `:2:10: policy.network.allow: host rule "http://x.com": write the host name (and :port) only, not a URL or path`},
		{"[policy.network]\nallow = [\"\"]\n", `:2:10: policy.network.allow: empty host rule`},
		{"[policy.network]\ndeny = [\"*.corp.example\"]\nallow = [\"git.corp.example:443\"]\n", `:3:10: policy.network.allow: allow rule "git.corp.example:443" has no effect: deny rule "*.corp.example" covers it (deny > allow); remove it`},
		{"[policy.network]\nunmatched = \"maybe\"\n", `:2:13: policy.network.unmatched: must be "allow", "ask" or "deny", not "maybe"`},
		{"[policy.network]\nallowed = []\n", `:2:1: policy.network.allowed: unknown key`},
	}
	for _, c := range cases {
		writeFile(t, f, c.doc)
		_, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
		if err == nil || err.Error() != f+c.want {
			t.Errorf("%q:\n err = %v\nwant  %s", c.doc, err, f+c.want)
		}
	}
}

func TestNetworkProjectTightensOnly(t *testing.T) {
	_, cwd, e := sandbox(t)
	proj := filepath.Join(cwd, ProjectFileName)
	writeFile(t, proj, "[policy.network]\ndeny = [\"pastebin.com\"]\nunmatched = \"deny\"\n")
	cfg, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.Policy.Network; !slices.Equal(n.Deny, []string{"pastebin.com"}) || n.Unmatched != "deny" {
		t.Errorf("network %+v", n)
	}
	for doc, want := range map[string]string{
		"[policy.network]\nallow = [\"x.com\"]\n":   `:2:1: policy.network.allow: a project file (.acpterm.toml) may only tighten the policy; allow rules cannot be added`,
		"[policy.network]\nunmatched = \"allow\"\n": `:2:1: policy.network.unmatched: a project file (.acpterm.toml) may only tighten the policy; "allow" is looser than the current "ask"`,
	} {
		writeFile(t, proj, doc)
		if _, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get}); err == nil || err.Error() != proj+want {
			t.Errorf("err = %v\nwant  %s", err, proj+want)
		}
	}
}

func TestAgentHosts(t *testing.T) {
	for _, c := range []struct {
		argv          []string
		hosts, source string
	}{
		{[]string{"npx", "-y", "@zed-industries/claude-agent-acp@0.23.1"}, "api.anthropic.com", "built-in list for claude"},
		{[]string{"/home/u/.cache/acpterm-agents/codex/bin/codex-acp"}, "api.openai.com chatgpt.com auth.openai.com", "built-in list for codex"},
		{[]string{"gemini", "--acp"}, "generativelanguage.googleapis.com cloudcode-pa.googleapis.com oauth2.googleapis.com", "built-in list for gemini"},
		{[]string{"copilot", "--acp"}, "api.githubcopilot.com *.githubcopilot.com api.github.com copilot-proxy.githubusercontent.com", "built-in list for copilot"},
		{[]string{"node", "/h/.cache/acpterm-agents/gemini/node_modules/@google/gemini-cli/bundle/gemini.js", "--acp"},
			"generativelanguage.googleapis.com cloudcode-pa.googleapis.com oauth2.googleapis.com", "built-in list for gemini"},
		{[]string{"node", "/x/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"}, "api.anthropic.com", "built-in list for claude"},
		{[]string{"node", "/x/node_modules/codex/index.js"}, "api.openai.com chatgpt.com auth.openai.com", "built-in list for codex"},
		{[]string{"node", "/x/node_modules/@other/agent/claude.js"}, "", ""},
		{[]string{"my-agent"}, "", ""},
	} {
		hosts, src := AgentHosts(Default(t.TempDir()), c.argv)
		if strings.Join(hosts, " ") != c.hosts || src != c.source {
			t.Errorf("AgentHosts(%q) = %q %q, want %q %q", c.argv, hosts, src, c.hosts, c.source)
		}
	}
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, "[policy.network]\nagent_allow = [\"llm.corp.example\"]\n")
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if hosts, src := AgentHosts(cfg, []string{"claude-agent-acp"}); strings.Join(hosts, " ") != "llm.corp.example" || src != "[policy.network] agent_allow" {
		t.Errorf("override: %q %q", hosts, src)
	}
	writeFile(t, f, "[policy.network]\nagent_allow = []\n")
	cfg, _ = Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if hosts, src := AgentHosts(cfg, []string{"claude-agent-acp"}); len(hosts) != 0 || src != "[policy.network] agent_allow" {
		t.Errorf("empty override: %q %q", hosts, src)
	}
	writeFile(t, f, "[policy.network]\nagent_allow = [\"*\"]\n")
	if _, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get}); err == nil || !strings.Contains(err.Error(), `:2:16: policy.network.agent_allow: host rule "*" matches every host`) {
		t.Errorf("err %v", err)
	}
	for _, l := range BuiltinAgentHosts() {
		for _, h := range l.Hosts {
			if _, err := policy.ParseHostRule(h); err != nil {
				t.Errorf("built-in %s host %q: %v", l.Agent, h, err)
			}
		}
	}
}

func TestSandboxNetworkProxyValue(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, "[sandbox]\nnetwork = \"off\"\n")
	proj := filepath.Join(cwd, ProjectFileName)
	writeFile(t, proj, "[sandbox]\nnetwork = \"proxy\"\n")
	_, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if want := proj + `:2:1: sandbox.network: a project file (.acpterm.toml) may only tighten the policy; "proxy" is looser than the current "off"`; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	writeFile(t, f, "[sandbox]\nnetwork = \"proxy\"\n")
	writeFile(t, proj, "[sandbox]\nnetwork = \"off\"\n")
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil || cfg.Sandbox.Network != "off" {
		t.Fatalf("tightened to off: %v %+v", err, cfg)
	}
	writeFile(t, proj, "[sandbox]\nnetwork = \"maybe\"\n")
	if _, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get}); err == nil || !strings.Contains(err.Error(), `sandbox.network: must be "on", "proxy" or "off", not "maybe"`) {
		t.Errorf("err = %v", err)
	}
}
