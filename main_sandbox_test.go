package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/sandbox"
)

// A sandboxed agent's missing state directories are made (Landlock grants only what exists),
// dot-named ones included; a missing state file is not made; the network goes through the
// proxy when commands do not share acpterm's network.
func TestAgentSpecStateDirs(t *testing.T) {
	home := t.TempDir()
	cfg := config.Default(home)
	cfg.Sandbox.Agent = true
	s := &sessionSandbox{spec: &sandbox.Spec{Network: sandbox.NetworkProxy}}
	for _, c := range []struct {
		argv []string
		dir  string
	}{
		{[]string{"node", "/x/node_modules/@google/gemini-cli/bundle/gemini.js", "--acp"}, ".gemini"},
		{[]string{"claude-agent-acp"}, ".claude"},
	} {
		a := s.agentSpec(cfg, c.argv, func(k string) string { return map[string]string{"HOME": home}[k] })
		p := filepath.Join(home, c.dir)
		if st, err := os.Stat(p); err != nil || !st.IsDir() || !slices.Contains(a.Write, p) {
			t.Fatalf("%v: %s: %v (write %q)", c.argv, p, err, a.Write)
		}
		if a.Network != sandbox.NetworkProxy {
			t.Fatalf("%v: network %q", c.argv, a.Network)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatalf("~/.claude.json was made: %v", err)
	}
}

// A sandboxed agent's spec keeps the commands' masks but its own credentials: claude-agent-acp
// gets ~/.claude/.credentials.json, not Codex's auth.json nor ~/.git-credentials.
func TestAgentSpecUnmasksOwnCredentials(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{".claude/.credentials.json", ".codex/auth.json", ".git-credentials"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default(home)
	cfg.Sandbox.Agent = true
	s := &sessionSandbox{spec: &sandbox.Spec{Network: sandbox.NetworkProxy, Mask: sandbox.SecretPaths(home)}}
	a := s.agentSpec(cfg, []string{"claude-agent-acp"}, func(k string) string { return map[string]string{"HOME": home}[k] })
	want := []string{filepath.Join(home, ".git-credentials"), filepath.Join(home, ".codex/auth.json")}
	if !slices.Equal(a.Mask, want) {
		t.Errorf("agent mask %q, want %q", a.Mask, want)
	}
	if len(s.spec.Mask) != 3 {
		t.Errorf("the commands' mask changed: %q", s.spec.Mask)
	}
}
