package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// AgentHostList is the built-in list of model API hosts of one known agent: what a sandboxed
// agent (going through acpterm's network proxy) may reach without a question.
type AgentHostList struct {
	// Agent names the agent family ("claude", "codex", "gemini", "copilot").
	Agent string
	// Match lists the words that identify it in the agent's command line: a program's base
	// name or an npm package name, compared with each argv word (its base name, and without a
	// trailing @version).
	Match []string
	// Hosts are host rules (policy.ParseHostRule syntax) for its model API and sign-in endpoints.
	Hosts []string
}

// BuiltinAgentHosts returns (a fresh copy of) the model API hosts of the agents acpterm knows,
// checked in order. [policy.network] agent_allow replaces them.
func BuiltinAgentHosts() []AgentHostList {
	out := make([]AgentHostList, len(builtinAgentHosts))
	for i, l := range builtinAgentHosts {
		out[i] = AgentHostList{Agent: l.Agent, Match: slices.Clone(l.Match), Hosts: slices.Clone(l.Hosts)}
	}
	return out
}

// builtinAgentHosts holds the lists BuiltinAgentHosts returns.
var builtinAgentHosts = []AgentHostList{
	{Agent: "claude", Match: []string{"claude", "claude-agent-acp", "claude-code-acp", "@zed-industries/claude-agent-acp", "@zed-industries/claude-code-acp", "@agentclientprotocol/claude-agent-acp"},
		Hosts: []string{"api.anthropic.com"}},
	{Agent: "codex", Match: []string{"codex", "codex-acp", "@zed-industries/codex-acp", "@agentclientprotocol/codex-acp"},
		Hosts: []string{"api.openai.com", "chatgpt.com", "auth.openai.com"}},
	{Agent: "gemini", Match: []string{"gemini", "@google/gemini-cli"},
		Hosts: []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"}},
	{Agent: "copilot", Match: []string{"copilot", "copilot-language-server", "@github/copilot", "@github/copilot-language-server"},
		Hosts: []string{"api.githubcopilot.com", "*.githubcopilot.com", "api.github.com", "copilot-proxy.githubusercontent.com"}},
}

// nodePackage is the npm package a path inside node_modules belongs to ("@scope/name" or
// "name": the agent run as `node …/node_modules/@google/gemini-cli/bundle/gemini.js`), or "".
func nodePackage(path string) string {
	const nm = "/node_modules/"
	i := strings.LastIndex(path, nm)
	if i < 0 {
		return ""
	}
	parts := strings.SplitN(path[i+len(nm):], "/", 3)
	if strings.HasPrefix(parts[0], "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// AgentHosts returns the model API host rules a sandboxed agent started as argv may reach
// without asking, and what decided them: the [policy.network] agent_allow list when the
// config sets one ("[policy.network] agent_allow"), else the built-in list of the first known
// agent named in argv ("built-in list for claude": a word, its base name, or the npm package
// of a path inside node_modules), else none ("").
func AgentHosts(cfg *Config, argv []string) (hosts []string, source string) {
	if cfg != nil && cfg.Policy.Network.AgentAllow != nil {
		return slices.Clone(cfg.Policy.Network.AgentAllow), "[policy.network] agent_allow"
	}
	for _, l := range builtinAgentHosts {
		for _, w := range argv {
			for _, cand := range []string{w, filepath.Base(w), nodePackage(w)} {
				if i := strings.LastIndexByte(cand, '@'); i > 0 {
					cand = cand[:i] // "@zed-industries/claude-agent-acp@0.23.1"
				}
				if slices.Contains(l.Match, cand) {
					return slices.Clone(l.Hosts), "built-in list for " + l.Agent
				}
			}
		}
	}
	return nil, ""
}
