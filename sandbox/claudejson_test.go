package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A guard over a config file that did not exist: Claude Code's own first write (empty
// defaults in a project, its state) is no change; an MCP server added with it is taken out.
func TestClaudeConfigGuardNewFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	g := NewClaudeConfigGuard(p, "")
	first := `{"numStartups": 1, "projects": {"/w": {"allowedTools": [], "mcpServers": {}, "hasTrustDialogAccepted": false}}}`
	if err := os.WriteFile(p, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := g.Restore(filepath.Join(dir, "q")); got != nil {
		t.Fatalf("defaults reported as a change: %v", got)
	}
	if b, _ := os.ReadFile(p); string(b) != first {
		t.Errorf("the file was rewritten: %s", b)
	}
	if err := os.WriteFile(p, []byte(`{"numStartups": 2, "mcpServers": {"x": {"command": "evil"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := g.Restore(filepath.Join(dir, "q"))
	if len(got) != 1 || got[0].Message != "sandbox: the sandboxed agent changed mcpServers in "+p+": put back as they were before it started" {
		t.Fatalf("Restore: %v", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"numStartups\": 2\n}\n" {
		t.Errorf("after Restore: %q", b)
	}
}

// A config file the agent replaced by a symbolic link (its directory is writable with
// CLAUDE_CONFIG_DIR) is moved into the quarantine, not written through; one that is no longer
// JSON is reported.
func TestClaudeConfigGuardReplaced(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	if err := os.WriteFile(p, []byte(`{"mcpServers": {"a": {"command": "a"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g := NewClaudeConfigGuard(p, "")
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte(`{"mcpServers": {"evil": {"command": "evil"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "q")
	got := g.Restore(q)
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "sandbox: removed "+p+", created by the sandboxed command (moved to "+q+"/") {
		t.Fatalf("Restore: %v", got)
	}
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Errorf("the link is still there (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != `{"mcpServers": {"evil": {"command": "evil"}}}` {
		t.Errorf("written through the link: %s", b)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got = g.Restore(q)
	if len(got) != 1 || got[0].Message != "sandbox: "+p+" is no longer valid JSON after the sandboxed agent; check it before running Claude Code" {
		t.Errorf("Restore of broken JSON: %v", got)
	}
}
