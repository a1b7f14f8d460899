package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// TestRunnerAllowRuleLoads: an allow rule for a program that executes workspace code loads (a
// confined session honours it); an env allow entry the engine would never honour is rejected
// with its file:line:col.
func TestRunnerAllowRuleLoads(t *testing.T) {
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
	// Allow rules for programs that execute workspace code load: a session whose commands run
	// confined by the OS sandbox honours them; elsewhere they ask at run time (TestWorkspaceCodeConfined).
	cases := []struct{ body, want string }{
		{"[policy.commands]\nallow = [\"ls\", \"make\"]\n", ""},
		{"[policy.commands]\nallow = [\"npm run test\"]\n", ""},
		{"[policy.commands]\nallow = [\"cargo  build\"]\n", ""},
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
		{[]string{"make", "test"}, "runner: make", `grant refused for "make test": it asks because of runner: make`},
		{[]string{"cargo", "build"}, "runner: cargo build", `grant refused for "cargo build": it asks because of runner: cargo build`},
		{[]string{"tar", "-xvI", "./x", "-f", "a.tar"}, "launch: tar -I", `grant refused for "tar -xvI ./x -f a.tar": tar -I runs a program, so it is never granted`},
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
