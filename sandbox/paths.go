package sandbox

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// secretDirs are the built-in masked paths below $HOME (directories and files): credentials
// no sandboxed command may read (README: security model). SSH, AWS, GnuPG and the GitHub CLI;
// git's and curl's stored passwords (.git-credentials, .netrc); the Docker, Kubernetes,
// Google Cloud, Azure, 1Password, pass and GNOME keyring stores; the registry tokens of
// cargo, PyPI (.pypirc: read only by upload tools, pip does not), RubyGems and Terraform, a
// Vault token; ~/.npmrc only when it holds credentials (see npmrcHoldsCredentials: its
// registry and proxy settings are what npm needs in the sandbox); and the agents' own
// credentials (agentSecretPaths), which only the agent they belong to gets (see UnmaskFor).
var secretDirs = append([]string{
	".ssh", ".aws", ".gnupg", ".config/gh",
	".git-credentials", ".netrc", ".docker/config.json", ".kube", ".config/gcloud", ".azure",
	".password-store", ".local/share/keyrings", ".config/op", ".cargo/credentials",
	".cargo/credentials.toml", ".pypirc", ".npmrc", ".gem/credentials",
	".terraform.d/credentials.tfrc.json", ".vault-token",
}, agentSecretPaths...)

// agentSecretPaths are the agents' credential files and token stores below $HOME (see
// agentSecrets). They are masked for commands; a sandboxed agent gets its own (AgentOwnSecrets).
var agentSecretPaths = func() []string {
	var out []string
	for _, a := range agentSecrets {
		out = append(out, a.paths...)
	}
	return out
}()

// agentSecrets are each agent's credentials, by a word of its command: Claude Code's
// .claude/.credentials.json, Codex's .codex/auth.json, Gemini CLI's OAuth tokens, opencode's
// auth.json and MCP tokens, Copilot CLI's config.json (its token when no keyring is found),
// MCP OAuth tokens and the Copilot token store .config/github-copilot.
var agentSecrets = []struct {
	agent string
	paths []string
}{
	{"claude", []string{".claude/.credentials.json"}},
	{"codex", []string{".codex/auth.json"}},
	{"gemini", []string{".gemini/oauth_creds.json", ".gemini/mcp-oauth-tokens.json"}},
	{"opencode", []string{".local/share/opencode/auth.json", ".local/share/opencode/mcp-auth.json"}},
	{"copilot", []string{".copilot/config.json", ".copilot/mcp-oauth-config", ".config/github-copilot"}},
}

// AgentOwnSecrets returns the credentials below home of the agent argv starts (chosen by the
// program's name, as AgentStateDirs does), which its sandbox does not mask.
func AgentOwnSecrets(argv []string, home string) []string {
	if home == "" {
		return nil
	}
	words := strings.ToLower(strings.Join(argv, " "))
	var out []string
	for _, a := range agentSecrets {
		if strings.Contains(words, a.agent) {
			for _, p := range a.paths {
				out = append(out, filepath.Join(home, p))
			}
		}
	}
	return out
}

// rcFiles are the shell and tool start-up files below $HOME that are bound read-only, so
// a sandboxed process cannot plant code the user's next shell runs.
var rcFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".inputrc", ".gitconfig", ".config/git", ".config/fish", ".npmrc",
}

// projectFiles are the files in a project directory that a tool on the host runs code from,
// or follows into running code, when the user merely opens or enters the directory: direnv's
// .envrc (run by the shell hook on cd), Mercurial's .hg/hgrc (its [hooks] run on any hg
// command, a prompt's status included), VS Code's .vscode/tasks.json (a task with
// "runOn": "folderOpen") and .vscode/settings.json (interpreter, terminal and formatter
// paths the editor runs), JetBrains' .idea/workspace.xml (run configurations and start-up
// tasks), Vim's and Neovim's local config (.exrc, .nvimrc, .nvim.lua: 'exrc'), and mise's
// config (mise.toml, .mise.toml: hooks and env run on cd), and the coding agents' project
// settings (.claude/settings.json: hooks — not settings.local.json, where Claude Code saves
// "always allow" answers itself; .mcp.json,
// .gemini/settings.json, .codex/config.toml, opencode.json(c): MCP servers and hooks the agent
// starts when it next runs in the project, perhaps without a sandbox). Each is protected in every root
// and every repository's working tree like .acpterm.toml: bound read-only when it exists,
// quarantined when a sandboxed command creates it (see WatchCandidates).
var projectFiles = []string{
	".envrc", ".hg/hgrc", ".vscode/tasks.json", ".vscode/settings.json", ".idea/workspace.xml",
	".exrc", ".nvimrc", ".nvim.lua", "mise.toml", ".mise.toml",
	".claude/settings.json", ".mcp.json", ".gemini/settings.json",
	".codex/config.toml", "opencode.json", "opencode.jsonc",
}

// projectFileDirs are the directories of the projectFiles below a project directory (".hg",
// ".vscode", ".idea"), and projectFileNames the projectFiles directly in it.
var projectFileDirs, projectFileNames = func() (map[string]bool, map[string]bool) {
	dirs, names := map[string]bool{}, map[string]bool{}
	for _, f := range projectFiles {
		if d, _, ok := strings.Cut(f, "/"); ok {
			dirs[d] = true
		} else {
			names[f] = true
		}
	}
	return dirs, names
}()

// walkLimit bounds the entries ProtectedPaths and MaskPaths visit per root.
const walkLimit = 50000

// SecretPaths returns the built-in masked paths for home (secretDirs, those that exist; ~/.npmrc
// only when it holds credentials).
func SecretPaths(home string) []string {
	var out []string
	if home == "" {
		return nil
	}
	for _, d := range secretDirs {
		p := filepath.Join(home, d)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if d == ".npmrc" && !npmrcHoldsCredentials(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// AgentSecretsFromEnv returns the agents' credential files (those that exist) in the
// directories their variables move them to: CLAUDE_CONFIG_DIR/.credentials.json,
// CODEX_HOME/auth.json, GEMINI_CLI_HOME/.gemini/oauth_creds.json and mcp-oauth-tokens.json,
// XDG_DATA_HOME/opencode/auth.json and mcp-auth.json, COPILOT_HOME/config.json and
// mcp-oauth-config. They are masked for commands like agentSecretPaths; a sandboxed agent's own
// lie in its writable state directories and are not masked for it (UnmaskFor).
func AgentSecretsFromEnv(getenv func(string) string) []string {
	if getenv == nil {
		return nil
	}
	var out []string
	for _, c := range []struct {
		env   string
		files []string
	}{
		{"CLAUDE_CONFIG_DIR", []string{".credentials.json"}},
		{"CODEX_HOME", []string{"auth.json"}},
		{"GEMINI_CLI_HOME", []string{".gemini/oauth_creds.json", ".gemini/mcp-oauth-tokens.json"}},
		{"XDG_DATA_HOME", []string{"opencode/auth.json", "opencode/mcp-auth.json"}},
		{"COPILOT_HOME", []string{"config.json", "mcp-oauth-config"}},
	} {
		d := getenv(c.env)
		if !filepath.IsAbs(d) || filepath.Clean(d) == "/" {
			continue
		}
		for _, f := range c.files {
			p := filepath.Join(d, f)
			if _, err := os.Lstat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// npmrcHoldsCredentials reports whether an npm config file sets an authentication key
// (_auth, _authToken, _password, username, certfile, keyfile; bare or scoped to a registry
// as "//host/:_authToken"), or cannot be read (masked then, fail-closed). A file with
// registry, proxy and cache settings only is left readable: npm in the sandbox needs them.
func npmrcHoldsCredentials(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, _, _ := strings.Cut(line, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if i := strings.LastIndex(k, ":"); i >= 0 {
			k = k[i+1:]
		}
		switch k {
		case "_auth", "_authtoken", "_password", "username", "certfile", "keyfile":
			return true
		}
	}
	return false
}

// UnmaskFor returns mask without the paths at or below one of own: for a sandboxed agent, its
// own credentials (AgentOwnSecrets), which it needs to reach its model, and what lies in its
// writable paths (its state directories, agent_write).
func UnmaskFor(mask, own []string) []string {
	var out []string
	for _, m := range mask {
		if !slices.ContainsFunc(own, func(w string) bool { return within(m, w) }) {
			out = append(out, m)
		}
	}
	return out
}

// Protected is what ProtectedPaths found to protect.
type Protected struct {
	// ReadOnly are bound read-only: the parts of a git directory git runs code from
	// (hooks/, config, config.worktree, a core.hooksPath directory), worktree and submodule
	// .git files, every .acpterm.toml and projectFiles file in the roots, home's rcFiles.
	ReadOnly []string
	// Pin are the git directories themselves, bound onto themselves (still writable, so
	// git commit works) so that they cannot be renamed or removed and replaced by one whose
	// config runs code.
	Pin []string
}

// ProtectedPaths returns the paths to protect for roots: every .git directory or .git file
// found in the roots (nested repositories too; node_modules is not searched), every
// .acpterm.toml and every one of projectFiles in them, the git
// directories they point to (gitdir:, commondir, modules/*), the enclosing repository of
// a root inside one, each root's .acpterm.toml and home's rcFiles. A git directory
// without a hooks/ directory gets an empty one (created here), so that no hook can be
// added. Only existing paths are returned, symlinks resolved, without duplicates.
func ProtectedPaths(roots []string, home string) Protected {
	seen := map[string]bool{}
	var pr Protected
	add := func(list *[]string, p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			return ""
		}
		if !seen[r] {
			seen[r] = true
			*list = append(*list, r)
		}
		return r
	}
	var addGitDir func(dir string, depth int)
	addGitDir = func(dir string, depth int) {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || seen[dir] || depth > 4 {
			return
		}
		if add(&pr.Pin, dir) == "" {
			return
		}
		hooks := filepath.Join(dir, "hooks")
		if _, err := os.Lstat(hooks); errors.Is(err, fs.ErrNotExist) {
			_ = os.Mkdir(hooks, 0o755)
		}
		for _, f := range []string{"hooks", "config", "config.worktree"} {
			add(&pr.ReadOnly, filepath.Join(dir, f))
		}
		if hp := hooksPath(filepath.Join(dir, "config")); hp != "" {
			if strings.HasPrefix(hp, "~/") && home != "" {
				hp = filepath.Join(home, hp[2:])
			}
			if !filepath.IsAbs(hp) {
				// relative to the working tree, which for a plain .git dir is its parent
				hp = filepath.Join(filepath.Dir(dir), hp)
			}
			add(&pr.ReadOnly, hp)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
			c := strings.TrimSpace(string(b))
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			addGitDir(filepath.Clean(c), depth+1)
		}
		for _, sub := range []string{"modules", "worktrees"} {
			ents, _ := os.ReadDir(filepath.Join(dir, sub))
			for _, e := range ents {
				if e.IsDir() {
					addGitDir(filepath.Join(dir, sub, e.Name()), depth+1)
				}
			}
		}
	}
	addGit := func(gitPath string) {
		fi, err := os.Stat(gitPath)
		if err != nil {
			return
		}
		if fi.IsDir() {
			addGitDir(gitPath, 0)
			return
		}
		add(&pr.ReadOnly, gitPath)
		if target := readGitdirFile(gitPath); target != "" {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(gitPath), target)
			}
			if r, err := filepath.EvalSymlinks(target); err == nil {
				addGitDir(r, 0)
			}
		}
	}
	for _, root := range roots {
		add(&pr.ReadOnly, filepath.Join(root, ".acpterm.toml"))
		n := 0
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > walkLimit {
				return fs.SkipAll
			}
			if d.Name() == ".acpterm.toml" || projectFileNames[d.Name()] && !d.IsDir() {
				add(&pr.ReadOnly, p)
			}
			if d.IsDir() && projectFileDirs[d.Name()] {
				// .vscode/tasks.json, .hg/hgrc …: the named files only (not a store to walk)
				dir := filepath.Dir(p)
				for _, f := range projectFiles {
					if strings.HasPrefix(f, d.Name()+"/") {
						add(&pr.ReadOnly, filepath.Join(dir, f))
					}
				}
				return fs.SkipDir
			}
			if d.Name() == ".git" {
				addGit(p)
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		})
		// A root inside a repository: protect the enclosing repository's .git too.
		for dir := filepath.Dir(root); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				addGit(filepath.Join(dir, ".git"))
				break
			}
		}
	}
	if home != "" {
		for _, f := range rcFiles {
			add(&pr.ReadOnly, filepath.Join(home, f))
		}
	}
	return pr
}

// readGitdirFile returns the target of a worktree or submodule .git file ("gitdir: X").
func readGitdirFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 4096 {
		return ""
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	return strings.TrimSpace(s)
}

// hooksPath returns core.hooksPath from a git config file ("" when unset); a simple
// reading of the [core] section, enough to find a hooks directory to protect.
func hooksPath(configFile string) string {
	f, err := os.Open(configFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inCore, val := false, ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.Trim(line, "[] \t"), "core")
			continue
		}
		if !inCore {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			val = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return val
}

// MaskPaths turns [policy.fs] deny_read globs into paths to mask: an absolute glob (after
// "~/" expansion with home) contributes its literal prefix when the rest is "/**" or
// nothing, and otherwise the existing paths it matches; a relative glob is matched
// against the files and directories below every root (node_modules not searched). Only
// existing paths are returned, without duplicates.
func MaskPaths(globs, roots []string, home string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if _, err := os.Lstat(p); err == nil && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var rel []string
	for _, g := range globs {
		if strings.HasPrefix(g, "~/") && home != "" {
			g = filepath.Join(home, g[2:])
		}
		if !filepath.IsAbs(g) {
			rel = append(rel, g)
			continue
		}
		if base, ok := strings.CutSuffix(g, "/**"); ok && !hasMeta(base) {
			add(base)
			continue
		}
		if !hasMeta(g) {
			add(g)
			continue
		}
		matches, _ := doublestar.FilepathGlob(g, doublestar.WithFailOnIOErrors())
		for _, m := range matches {
			add(m)
		}
	}
	if len(rel) == 0 {
		return out
	}
	for _, root := range roots {
		n := 0
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return nil
			}
			if n++; n > walkLimit {
				return fs.SkipAll
			}
			r, _ := filepath.Rel(root, p)
			if slices.ContainsFunc(rel, func(g string) bool { ok, _ := doublestar.Match(g, r); return ok }) {
				add(p)
				if d.IsDir() {
					return fs.SkipDir
				}
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		})
	}
	return out
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[{\\") }

// AgentStateDirs returns the state directories below home an agent needs to write
// (its sessions, credentials cache, logs), chosen by the agent program's name in argv
// (claude-agent-acp → ~/.claude and ~/.claude.json; codex → ~/.codex; gemini → ~/.gemini;
// opencode → ~/.local/share/opencode, ~/.local/state/opencode, ~/.config/opencode and the
// same below XDG_DATA_HOME, XDG_STATE_HOME, XDG_CONFIG_HOME; copilot → ~/.copilot), and the
// directories named by CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME and COPILOT_HOME when
// getenv has them. No cache is among them: the user's ~/.npm and ~/.cache hold code programs
// run outside the sandbox (npx's packages, build caches), so a sandboxed agent gets a cache
// directory of its own instead (AgentCacheDir). Paths are returned whether or not they exist
// (the caller creates the directories it wants).
func AgentStateDirs(argv []string, home string, getenv func(string) string) []string {
	if home == "" {
		return nil
	}
	j := func(p ...string) string { return filepath.Join(append([]string{home}, p...)...) }
	var out []string
	if getenv != nil {
		for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME"} {
			if d := getenv(v); filepath.IsAbs(d) && filepath.Clean(d) != "/" {
				out = append(out, filepath.Clean(d))
			}
		}
	}
	words := strings.ToLower(strings.Join(argv, " "))
	if strings.Contains(words, "claude") {
		out = append(out, j(".claude"), j(".claude.json"))
	}
	if strings.Contains(words, "codex") {
		out = append(out, j(".codex"))
	}
	if strings.Contains(words, "gemini") {
		out = append(out, j(".gemini"))
	}
	if strings.Contains(words, "opencode") {
		out = append(out, j(".local", "share", "opencode"), j(".local", "state", "opencode"), j(".config", "opencode"))
		if getenv != nil {
			for _, v := range []string{"XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
				if d := getenv(v); filepath.IsAbs(d) {
					out = append(out, filepath.Join(d, "opencode"))
				}
			}
		}
	}
	if strings.Contains(words, "copilot") {
		out = append(out, j(".copilot"))
	}
	return out
}
