package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// AgentConfigFiles returns the paths inside an agent's own state directories (see
// AgentStateDirs) that configure programs the agent runs on the host the next time it starts
// outside the sandbox, chosen like AgentStateDirs by the agent program's name in argv:
//
//   - claude (Claude Code; its config dir is CLAUDE_CONFIG_DIR or ~/.claude): settings.json
//     (hooks, statusLine and apiKeyHelper commands, env, enabledPlugins) and
//     settings.local.json.
//   - codex (CODEX_HOME or ~/.codex): config.toml (notify program, mcp_servers, profiles),
//     hooks.json (hook commands) and rules/ (exec-policy rules that let commands run without
//     asking).
//   - gemini (GEMINI_CLI_HOME or home, then .gemini): settings.json (mcpServers, hooks,
//     tool discovery and call commands), .env (loaded into its environment, which its tool
//     shells inherit), extensions/ (each with MCP servers), policies/ and trustedFolders.json
//     (a trusted folder's own .gemini/settings.json, MCP servers included, takes effect).
//   - opencode (XDG_CONFIG_HOME/opencode and ~/.config/opencode): opencode.json,
//     opencode.jsonc, config.json and config (its config file names: mcp servers, formatter
//     and LSP commands, plugins), package.json (the plugins' dependencies it installs),
//     and the plugin/, plugins/, tool/ and tools/ directories, whose JavaScript it loads.
//   - copilot (COPILOT_HOME or ~/.copilot): mcp-config.json.
//
// These are the files the user writes and the agent only reads; what the agent itself writes
// while it runs (sessions, logs, credentials, Claude Code's .claude.json) is not among them.
// The caller binds the existing ones read-only and watches the others (WatchCandidates'
// extra), so that a sandboxed agent can neither change nor create them. Paths are absolute
// and cleaned, returned whether or not they exist; nil without a home.
func AgentConfigFiles(argv []string, home string, getenv func(string) string) []string {
	if home == "" {
		return nil
	}
	env := func(k string) string {
		if getenv == nil {
			return ""
		}
		if d := getenv(k); filepath.IsAbs(d) && filepath.Clean(d) != "/" {
			return filepath.Clean(d)
		}
		return ""
	}
	dirOr := func(k string, def ...string) string {
		if d := env(k); d != "" {
			return d
		}
		return filepath.Join(append([]string{home}, def...)...)
	}
	var out []string
	in := func(dir string, names ...string) {
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
	}
	words := strings.ToLower(strings.Join(argv, " "))
	if strings.Contains(words, "claude") {
		in(dirOr("CLAUDE_CONFIG_DIR", ".claude"), "settings.json", "settings.local.json")
	}
	if strings.Contains(words, "codex") {
		in(dirOr("CODEX_HOME", ".codex"), "config.toml", "hooks.json", "rules")
	}
	if strings.Contains(words, "gemini") {
		in(filepath.Join(dirOr("GEMINI_CLI_HOME"), ".gemini"), "settings.json", ".env", "extensions", "policies", "trustedFolders.json")
	}
	if strings.Contains(words, "opencode") {
		dirs := []string{filepath.Join(home, ".config", "opencode")}
		if d := env("XDG_CONFIG_HOME"); d != "" && filepath.Join(d, "opencode") != dirs[0] {
			dirs = append(dirs, filepath.Join(d, "opencode"))
		}
		for _, d := range dirs {
			in(d, "opencode.json", "opencode.jsonc", "config.json", "config", "package.json",
				"plugin", "plugins", "tool", "tools")
		}
	}
	if strings.Contains(words, "copilot") {
		in(dirOr("COPILOT_HOME", ".copilot"), "mcp-config.json")
	}
	return out
}

// AgentCacheDir is the cache directory a sandboxed agent gets instead of the user's:
// $XDG_CACHE_HOME/acpterm/agent-cache (~/.cache/acpterm/agent-cache without XDG_CACHE_HOME).
// What is cached there (npx's packages, Go's build cache, pip's wheels …) is used only by
// sandboxed agents, never by a program outside the sandbox, so what a sandboxed agent plants
// in it stays inside the sandbox. It persists across sessions, so that an agent started by
// npx downloads its packages once, not at every start. "" without a home.
func AgentCacheDir(home string, getenv func(string) string) string {
	base := ""
	if getenv != nil {
		if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) && filepath.Clean(d) != "/" {
			base = filepath.Clean(d)
		}
	}
	if base == "" {
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "acpterm", "agent-cache")
}

// AgentCacheEnv returns env ("K=V" entries) with the caches pointed into dir (see
// AgentCacheDir): XDG_CACHE_HOME=dir (the XDG cache of every tool that follows it),
// npm_config_cache=dir/npm (npm and npx: npm reads its config variables case-insensitively,
// so an upper-case NPM_CONFIG_CACHE is dropped), GOCACHE=dir/go-build, each replacing what env
// had: a cache the user pointed elsewhere is still one that programs outside the sandbox use.
func AgentCacheEnv(env []string, dir string) []string {
	set := []string{"XDG_CACHE_HOME=" + dir, "npm_config_cache=" + filepath.Join(dir, "npm"), "GOCACHE=" + filepath.Join(dir, "go-build")}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "XDG_CACHE_HOME" || name == "GOCACHE" || strings.EqualFold(name, "npm_config_cache") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, set...)
}

// ConfigLinks records which of paths (see AgentConfigFiles) are symbolic links, and where
// they lead, when a sandboxed agent starts. The file a link leads to is what a read-only bind
// protects; the link itself lies in a directory the agent may write, so it could be replaced
// by a file of the agent's. Check, once the agent is gone, finds each replaced one.
type ConfigLinks map[string]string

// NewConfigLinks returns the symbolic links among paths with their targets.
func NewConfigLinks(paths []string) ConfigLinks {
	l := ConfigLinks{}
	for _, p := range paths {
		if t, err := os.Readlink(p); err == nil {
			l[p] = t
		}
	}
	return l
}

// Check moves into quarantine whatever replaced one of the links (a file or another link)
// and puts the link back as it was; one Swept per link it found replaced or removed, sorted
// by path.
func (l ConfigLinks) Check(quarantine string) []Swept {
	var msgs []Swept
	paths := make([]string, 0, len(l))
	for p := range l {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	for _, p := range paths {
		target := l[p]
		now, err := os.Readlink(p)
		if err == nil && now == target {
			continue
		}
		if _, lerr := os.Lstat(p); lerr == nil {
			msgs = append(msgs, quarantineOne(p, quarantine, stamp, ""))
		}
		if _, lerr := os.Lstat(p); lerr == nil {
			continue // could not be moved: said above
		}
		if err := os.Symlink(target, p); err != nil {
			msgs = append(msgs, swept(p, "sandbox: the symbolic link %s (to %s) was replaced by the sandboxed agent and could NOT be made again (%v)", p, target, err))
			continue
		}
		msgs = append(msgs, swept(p, "sandbox: the symbolic link %s (to %s), replaced or removed by the sandboxed agent, is back", p, target))
	}
	return msgs
}
