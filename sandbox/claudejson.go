package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Claude Code writes its global config file (~/.claude.json, or .claude.json in
// CLAUDE_CONFIG_DIR) all the time — start counts, tips, per-project session state — so a
// sandboxed claude-agent-acp must be able to write it, and it cannot be bound read-only. But
// the same file holds what Claude Code runs and allows on the host: the user's MCP servers
// (top-level "mcpServers", each a command it starts) and, per project, MCP servers, which of a
// project's .mcp.json servers are enabled, the tools allowed without asking and whether the
// project is trusted. A ClaudeConfigGuard records those values when the agent starts and,
// once it is gone, puts back every one the agent changed, keeping the rest of its writes.

// claudeGuardedKeys are the top-level keys of Claude Code's global config a guard keeps,
// and claudeGuardedProjectKeys the keys of each entry of its "projects" object.
var (
	claudeGuardedKeys        = []string{"mcpServers"}
	claudeGuardedProjectKeys = []string{"mcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers",
		"enableAllProjectMcpServers", "allowedTools", "hasTrustDialogAccepted"}
)

// ClaudeGlobalConfig returns Claude Code's global config file for an agent whose argv
// names claude (see AgentStateDirs): $CLAUDE_CONFIG_DIR/.claude.json, or ~/.claude.json;
// "" for another agent or without a home.
func ClaudeGlobalConfig(argv []string, home string, getenv func(string) string) string {
	if home == "" || !strings.Contains(strings.ToLower(strings.Join(argv, " ")), "claude") {
		return ""
	}
	if getenv != nil {
		if d := getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) && filepath.Clean(d) != "/" {
			return filepath.Join(filepath.Clean(d), ".claude.json")
		}
	}
	return filepath.Join(home, ".claude.json")
}

// ClaudeBackupsDir is where Claude Code keeps copies of its global config file (and restores
// a damaged one from): backups/ in its config dir, $CLAUDE_CONFIG_DIR or ~/.claude; "" without
// a home.
func ClaudeBackupsDir(home string, getenv func(string) string) string {
	if getenv != nil {
		if d := getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) && filepath.Clean(d) != "/" {
			return filepath.Join(filepath.Clean(d), "backups")
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude", "backups")
}

// ClaudeConfigGuard keeps the guarded values of one Claude Code global config file across
// a sandboxed agent's run (see NewClaudeConfigGuard).
type ClaudeConfigGuard struct {
	path    string
	backups string            // Claude Code's backups directory, whose copies it restores from
	started time.Time         // when the guard was made
	values  map[string]string // guarded key → its compact JSON (empty values left out)
	raw     map[string]string // the same with the empty values, as put back
	valid   bool              // the file was readable JSON (or absent) at the start
}

// NewClaudeConfigGuard records the guarded values of Claude Code's global config file path
// as they are now (an absent file has none). backups is the directory Claude Code keeps its
// copies of the file in (the config dir's backups/), "" for none. Call it before the agent
// starts.
func NewClaudeConfigGuard(path, backups string) *ClaudeConfigGuard {
	if backups != "" {
		backups = resolve(backups)
	}
	g := &ClaudeConfigGuard{path: resolve(path), backups: backups, started: time.Now()}
	b, err := os.ReadFile(g.path)
	switch {
	case os.IsNotExist(err):
		g.values, g.raw, g.valid = map[string]string{}, map[string]string{}, true
	case err == nil:
		g.values, g.valid = claudeGuarded(b)
		g.raw, _ = claudeValues(b, true)
	}
	return g
}

// claudeGuarded returns the guarded values of a config file's bytes, keyed
// "mcpServers" and "projects/<project>/<key>"; false when b is not a JSON object. An empty
// value ([], {}, false, null, "") counts as absent: it allows and starts nothing, and Claude
// Code writes such defaults into every project it opens.
func claudeGuarded(b []byte) (map[string]string, bool) { return claudeValues(b, false) }

// claudeValues is claudeGuarded, with the empty values too when withEmpty.
func claudeValues(b []byte, withEmpty bool) (map[string]string, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return nil, false
	}
	out := map[string]string{}
	for _, k := range claudeGuardedKeys {
		if v, ok := top[k]; ok && (withEmpty || !emptyJSON(v)) {
			out[k] = canonicalJSON(v)
		}
	}
	var projects map[string]map[string]json.RawMessage
	if raw, ok := top["projects"]; ok && json.Unmarshal(raw, &projects) == nil {
		for p, entry := range projects {
			for _, k := range claudeGuardedProjectKeys {
				if v, ok := entry[k]; ok && (withEmpty || !emptyJSON(v)) {
					out["projects/"+p+"/"+k] = canonicalJSON(v)
				}
			}
		}
	}
	return out, true
}

// emptyJSON reports whether v is [], {}, false, null or "".
func emptyJSON(v json.RawMessage) bool {
	switch canonicalJSON(v) {
	case "[]", "{}", "false", "null", `""`:
		return true
	}
	return false
}

// canonicalJSON is v with object keys sorted and no spaces, so that two spellings of one
// value compare equal.
func canonicalJSON(v json.RawMessage) string {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return string(v)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// Restore puts back, in the config file, every guarded value the agent changed, added or
// removed since NewClaudeConfigGuard (the file's other keys stay as the agent left them), and
// moves into quarantine every copy in the backups directory written since then whose guarded
// values differ from the recorded ones (Claude Code restores a damaged config file from the
// newest copy). It returns one Swept per change it undid or could not undo, nil when the agent
// changed none. Call it once the agent and everything it started are gone.
func (g *ClaudeConfigGuard) Restore(quarantine string) []Swept {
	if !g.valid {
		return nil // unreadable at the start: nothing recorded to compare with
	}
	var msgs []Swept
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	if g.backups != "" {
		ents, _ := os.ReadDir(g.backups)
		for _, e := range ents {
			p := filepath.Join(g.backups, e.Name())
			fi, err := os.Lstat(p)
			if err != nil || !strings.HasPrefix(e.Name(), ".claude.json.backup") || fi.ModTime().Before(g.started) {
				continue
			}
			if fi.Mode().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				if now, ok := claudeGuarded(b); !ok || equalGuarded(now, g.values) {
					continue // not a copy Claude Code could use, or one with nothing changed
				}
			}
			msgs = append(msgs, quarantineOne(p, quarantine, stamp, "a copy of Claude Code's config with MCP servers or allowed tools the sandboxed agent changed"))
		}
	}
	fi, err := os.Lstat(g.path)
	if os.IsNotExist(err) {
		if len(g.values) > 0 {
			msgs = append(msgs, swept(g.path, "sandbox: %s, with your MCP servers and allowed tools, was removed by the sandboxed agent", g.path))
		}
		return msgs
	}
	if err != nil {
		return append(msgs, swept(g.path, "sandbox: %s could not be checked after the sandboxed agent (%v): check its mcpServers and allowedTools before running Claude Code", g.path, err))
	}
	if !fi.Mode().IsRegular() {
		return append(msgs, quarantineOne(g.path, quarantine, stamp, "the sandboxed agent replaced Claude Code's config with something that is not a file"))
	}
	b, err := os.ReadFile(g.path)
	if err != nil {
		return append(msgs, swept(g.path, "sandbox: %s could not be read after the sandboxed agent (%v): check its mcpServers and allowedTools before running Claude Code", g.path, err))
	}
	now, ok := claudeGuarded(b)
	if !ok {
		return append(msgs, swept(g.path, "sandbox: %s is no longer valid JSON after the sandboxed agent; check it before running Claude Code", g.path))
	}
	changed := changedGuarded(now, g.values)
	if len(changed) == 0 {
		return msgs
	}
	fixed, err := g.putBack(b)
	if err == nil {
		err = writeBeside(g.path, fixed, fi.Mode().Perm())
	}
	if err != nil {
		return append(msgs, swept(g.path, "sandbox: the sandboxed agent changed %s in %s and it could NOT be put back (%v): check them before running Claude Code", strings.Join(changed, ", "), g.path, err))
	}
	return append(msgs, swept(g.path, "sandbox: the sandboxed agent changed %s in %s: put back as they were before it started", strings.Join(changed, ", "), g.path))
}

func equalGuarded(a, b map[string]string) bool { return len(changedGuarded(a, b)) == 0 }

// changedGuarded lists the guarded keys whose values differ between now and was, sorted.
func changedGuarded(now, was map[string]string) []string {
	var out []string
	for k, v := range now {
		if w, ok := was[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range was {
		if _, ok := now[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// putBack returns the config file's bytes b with every guarded value as recorded: changed
// ones reset, added ones removed, removed ones added again.
func (g *ClaudeConfigGuard) putBack(b []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	set := func(m map[string]json.RawMessage, k, key string) {
		if v, ok := g.raw[key]; ok {
			m[k] = json.RawMessage(v)
		} else {
			delete(m, k)
		}
	}
	for _, k := range claudeGuardedKeys {
		set(top, k, k)
	}
	projects := map[string]map[string]json.RawMessage{}
	if raw, ok := top["projects"]; ok {
		if err := json.Unmarshal(raw, &projects); err != nil {
			return nil, fmt.Errorf("projects: %v", err)
		}
	}
	for key := range g.raw { // projects the agent removed come back with their guarded keys
		if rest, ok := strings.CutPrefix(key, "projects/"); ok {
			i := strings.LastIndex(rest, "/")
			if projects[rest[:i]] == nil {
				projects[rest[:i]] = map[string]json.RawMessage{}
			}
		}
	}
	for p, entry := range projects {
		for _, k := range claudeGuardedProjectKeys {
			set(entry, k, "projects/"+p+"/"+k)
		}
	}
	if len(projects) > 0 {
		raw, err := json.Marshal(projects)
		if err != nil {
			return nil, err
		}
		top["projects"] = raw
	}
	var out bytes.Buffer
	raw, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeBeside replaces path by a file holding b (mode perm): written and synced beside it,
// then renamed over it, so a reader never sees half of it.
func writeBeside(path string, b []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".acpterm-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
