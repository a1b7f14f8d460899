package permissions

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

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
