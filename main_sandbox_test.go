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
