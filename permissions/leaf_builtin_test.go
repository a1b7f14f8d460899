package permissions

import "testing"

// A leaf the shell runs itself says so (Builtin, no Program); one run from the policy PATH has
// its resolved path and is no builtin.
func TestLeafBuiltinOrProgram(t *testing.T) {
	f := newCorpusFixture(t)
	d := f.e.DecideCommand(CommandRequest{Command: "cd . && ls"})
	if len(d.Leaves) != 2 {
		t.Fatalf("leaves %+v", d.Leaves)
	}
	if l := d.Leaves[0]; !l.Builtin || l.Program != "" {
		t.Errorf("cd: builtin %v program %q, want a builtin without a program", l.Builtin, l.Program)
	}
	if l := d.Leaves[1]; l.Builtin || l.Program == "" {
		t.Errorf("ls: builtin %v program %q, want a resolved program", l.Builtin, l.Program)
	}
}
