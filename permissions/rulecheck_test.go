package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// TestRunnerAllowRuleRejected: an allow rule for a build runner would never take effect (the
// runner is asked about whatever the allow rules say, B35), so the config is rejected at load
// with the entry's file:line:col; rules that also cover other commands (npm, cargo, yarn) load.
func TestRunnerAllowRuleRejected(t *testing.T) {
	base := cmdRealTemp(t)
	cwd := filepath.Join(base, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		return map[string]string{"HOME": base, "XDG_CONFIG_HOME": filepath.Join(base, "cfg")}[k]
	}
	file := filepath.Join(base, "config.toml")
	load := func(body string) error {
		t.Helper()
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load(config.LoadOptions{Path: file, Cwd: cwd, Getenv: getenv})
		return err
	}
	cases := []struct{ body, want string }{
		{"[policy.commands]\nallow = [\"ls\", \"make\"]\n", file + `:2:16: policy.commands.allow: allow rule "make" has no effect: make is a build runner, which runs scripts from workspace files the agent can edit (package.json, Makefile …), so acpterm always asks before it runs; remove it or move it to ask`},
		{"[policy.commands]\nallow = [\"npm run test\"]\n", file + `:2:10: policy.commands.allow: allow rule "npm run test" has no effect: npm run is a build runner`},
		{"[policy.commands]\nallow = [\"cargo  build\"]\n", `allow rule "cargo build" has no effect: cargo build is a build runner`},
		{"[policy.env]\nallow = [\"BASH_FUNC_ls\"]\n", file + `:2:10: policy.env.allow: "BASH_FUNC_ls" has no effect: it is on acpterm's built-in env deny list as "BASH_FUNC_*"`},
		{"[policy.commands]\nallow = [\"npm\", \"cargo\", \"yarn\", \"go test\", \"cmake\"]\nask = [\"make\"]\n", ""},
	}
	for _, c := range cases {
		err := load(c.body)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want it to load", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one containing %q", c.body, err, c.want)
		}
	}
}

// TestRunnerNotGrantable: a build runner is asked about even when an allow rule covers its
// program, and CanGrant says up front that "always" cannot be granted for it (the dialog must
// not offer it); an unmatched command can be granted.
func TestRunnerNotGrantable(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: []string{"cargo", "tar"}})
	cases := []struct {
		argv     []string
		rule     string
		grantErr string // "" = CanGrant is nil
	}{
		{[]string{"make", "test"}, "runner: make", `grant refused for "make test": make is a build runner executing workspace recipes`},
		{[]string{"cargo", "build"}, "runner: cargo build", `grant refused for "cargo build": it asks because of runner: cargo build`},
		{[]string{"tar", "-xvI", "./x", "-f", "a.tar"}, "launch: tar -I", `grant refused for "tar -xvI ./x -f a.tar": it asks because of launch: tar -I`},
		{[]string{"npm", "rb"}, "runner: npm rb", `grant refused for "npm rb": it asks because of runner: npm rb`},
		{[]string{"cargo", "nextest", "run"}, "runner: cargo nextest", `grant refused for "cargo nextest run": it asks because of runner: cargo nextest`},
		{[]string{"wc", "-l", "f"}, "unmatched", ""},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.argv[0], Args: c.argv[1:]})
		if d.Verdict != Ask || d.Rule != c.rule {
			t.Errorf("%q: %s %q (%s), want ask %q", c.argv, d.Verdict, d.Rule, d.Reason, c.rule)
		}
		err := f.e.CanGrant(d)
		switch {
		case c.grantErr == "" && err != nil:
			t.Errorf("%q: CanGrant = %v, want nil", c.argv, err)
		case c.grantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), c.grantErr)):
			t.Errorf("%q: CanGrant = %v, want %q…", c.argv, err, c.grantErr)
		}
		if _, gerr := f.e.Grant(d, false); (gerr == nil) != (err == nil) {
			t.Errorf("%q: Grant error %v disagrees with CanGrant %v", c.argv, gerr, err)
		}
	}
	if n := len(f.e.Grants()); n != 1 {
		t.Errorf("%d grants, want 1 (wc only)", n)
	}
}
