package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunnerAllowRuleLoads: an allow rule for a program that executes workspace code loads (a
// confined session honours it; elsewhere the engine asks at run time); an env allow entry the
// engine would never honour (on policy.HiddenEnvDeny) is rejected with its file:line:col.
func TestRunnerAllowRuleLoads(t *testing.T) {
	home, cwd, e := sandbox(t)
	file := filepath.Join(home, "config.toml")
	cases := []struct{ body, want string }{
		{"[policy.commands]\nallow = [\"ls\", \"make\"]\n", ""},
		{"[policy.commands]\nallow = [\"npm run test\"]\n", ""},
		{"[policy.commands]\nallow = [\"cargo  build\"]\n", ""},
		{"[policy.env]\nallow = [\"BASH_FUNC_ls\"]\n", file + `:2:10: policy.env.allow: "BASH_FUNC_ls" has no effect: it is on acpterm's built-in env deny list as "BASH_FUNC_*"`},
		{"[policy.commands]\nallow = [\"npm\", \"cargo\", \"yarn\", \"go test\", \"cmake\"]\nask = [\"make\"]\n", ""},
	}
	for _, c := range cases {
		writeFile(t, file, c.body)
		_, err := Load(LoadOptions{Path: file, Cwd: cwd, Getenv: e.get})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want it to load", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one containing %q", c.body, err, c.want)
		}
	}
}
