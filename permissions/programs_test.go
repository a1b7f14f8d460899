package permissions

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions/programs"
)

// TestProgramExamples checks every example of every program spec (permissions/programs) against
// the engine, the way execpolicy checks its rules' examples: each line, judged with the spec's
// program allowed (or the example's own allow and deny rules), [policy.fs] write = "allow" and,
// when the example says so, commands confined by the OS sandbox, gets exactly the verdict the
// example states, with a reason containing its text.
func TestProgramExamples(t *testing.T) {
	n := 0
	for _, spec := range programs.All() {
		for _, ex := range spec.Examples {
			n++
			allow := ex.Allow
			if len(allow) == 0 {
				allow = []string{spec.Names[0]}
			}
			name := spec.Names[0] + "/" + ex.Line
			if ex.Confined {
				name += " (confined)"
			}
			t.Run(name, func(t *testing.T) {
				f := newCmdFixtureFS(t, config.Commands{Allow: allow, Deny: ex.Deny}, config.FS{Read: "allow", Write: "allow"})
				if ex.Confined {
					f = confine(t, f)
				}
				d := f.e.DecideCommand(CommandRequest{Command: ex.Line})
				if string(d.Verdict) != ex.Want || !strings.Contains(d.Reason, ex.Reason) {
					t.Errorf("%q (allow %q, deny %q, confined %v): %s %q (%s), want %s with reason containing %q",
						ex.Line, allow, ex.Deny, ex.Confined, d.Verdict, d.Rule, d.Reason, ex.Want, ex.Reason)
				}
			})
		}
	}
	if n < 150 {
		t.Errorf("only %d program examples; every spec needs examples that allow, ask and deny", n)
	}
}

// TestProgramSpecsOneHome: every program name has one spec, and the facts the shell walk, the
// rule matcher and the grant check share come from it: find's -exec actions, git's -c check.
func TestProgramSpecsOneHome(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range programs.All() {
		for _, n := range s.Names {
			if seen[n] {
				t.Errorf("%s has two specs", n)
			}
			seen[n] = true
		}
	}
	for _, action := range programs.FindExecActions() {
		argv := []string{"find", ".", action, "id", ";"}
		if why := bannedHead(argv); !strings.Contains(why, "find "+action+" runs a command for every file found") {
			t.Errorf("grant check for %q: %q", argv, why)
		}
		p := newTestPolicy(t, config.Commands{Allow: []string{"find", "id"}})
		a, _ := analyse(t, p, strings.Join(argv[:4], " ")+" \\;", 0)
		if len(a.leaves) != 2 || a.leaves[1].via[0] != "find "+action {
			t.Errorf("walk of %q: leaves %q", argv, leafStrings(a))
		}
	}
	for _, argv := range [][]string{{"git", "-c", "x=y", "log"}, {"git", "-cx=y", "status"}} {
		if why := bannedHead(argv); !strings.Contains(why, "git -c sets config") {
			t.Errorf("grant check for %q: %q", argv, why)
		}
		p := newTestPolicy(t, config.Commands{Allow: []string{"git log", "git status"}})
		if l := leafFor(t, p, argv...); l.Rule != "launch: git -c" {
			t.Errorf("leaf %q: rule %q", argv, l.Rule)
		}
	}
}
