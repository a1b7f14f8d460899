package main

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/acpterm/acpterm/sandbox"
)

// protectAgentConfig makes the agent's host-run configuration (sandbox.AgentConfigFiles)
// read-only in a, the agent's spec: every one that exists is bound read-only (symbolic
// links resolved, so the file they lead to is what is bound). The ones that do not exist are
// watched instead (agentWatchExtra).
func protectAgentConfig(a *sandbox.Spec, agent []string, getenv func(string) string) {
	ro := slices.Clip(a.ReadOnly) // never append into the commands' spec's array
	for _, p := range sandbox.AgentConfigFiles(agent, getenv("HOME"), getenv) {
		if r, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(ro, r) {
			ro = append(ro, r)
		}
	}
	a.ReadOnly = ro
}

// agentWatchExtra are the paths a sandboxed agent must not create besides the protected
// paths of its spec: acpterm's own (watchExtra) and the agent's host-run configuration files
// that do not exist yet (sandbox.AgentConfigFiles; WatchCandidates keeps those that are
// absent when the agent starts).
func agentWatchExtra(agent []string, getenv func(string) string) []string {
	extra := watchExtra(getenv)
	for _, p := range sandbox.AgentConfigFiles(agent, getenv("HOME"), getenv) {
		if _, err := os.Lstat(p); err != nil {
			extra = append(extra, p)
		}
	}
	return extra
}

// agentCacheEnv is the sandboxed agent's environment (env; nil: acpterm's own) with its
// caches in its own cache directory (sandbox.AgentCacheEnv), which spec, the agent's spec,
// lets it write; env unchanged when the agent is not sandboxed or there is no home.
func agentCacheEnv(spec *sandbox.Spec, env []string, getenv func(string) string) []string {
	if spec == nil {
		return env
	}
	dir := sandbox.AgentCacheDir(getenv("HOME"), getenv)
	if dir == "" {
		return env
	}
	if env == nil {
		env = os.Environ()
	}
	return sandbox.AgentCacheEnv(env, dir)
}

// agentRestore is what runs once the sandboxed agent is gone (acpclient.Options.AgentRestore):
// the symbolic links among its config files (sandbox.ConfigLinks) and Claude Code's global
// config (claudeConfigRestore), both recorded now, before the agent starts.
func agentRestore(agent []string, getenv func(string) string, quarantine string) func() []sandbox.Swept {
	links := sandbox.NewConfigLinks(sandbox.AgentConfigFiles(agent, getenv("HOME"), getenv))
	claude := claudeConfigRestore(agent, getenv, quarantine)
	return func() []sandbox.Swept {
		found := links.Check(quarantine)
		if claude != nil {
			found = append(found, claude()...)
		}
		return found
	}
}

// claudeConfigRestore guards Claude Code's global config file for a sandboxed claude agent
// (sandbox.ClaudeConfigGuard: its MCP servers, allowed tools and trusted projects, which the
// agent must be able to write with the rest of the file): it records them now, before the
// agent starts, and returns the function that puts back what the agent changed, moving
// changed backup copies into quarantine. Nil for another agent.
func claudeConfigRestore(agent []string, getenv func(string) string, quarantine string) func() []sandbox.Swept {
	path := sandbox.ClaudeGlobalConfig(agent, getenv("HOME"), getenv)
	if path == "" {
		return nil
	}
	g := sandbox.NewClaudeConfigGuard(path, sandbox.ClaudeBackupsDir(getenv("HOME"), getenv))
	return func() []sandbox.Swept { return g.Restore(quarantine) }
}
