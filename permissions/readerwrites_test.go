package permissions

import (
	"strings"
	"testing"
)

// A reader's output option (git log --output, sort -o, tree -o, uniq IN OUT, xxd IN OUT) is a
// write the allow rule for the reader never approved: it is held to [policy.fs] write like a
// redirect, while a program that writes by purpose (cp, allowed by a rule) is not.
func TestReaderOutputOptionFollowsFSWrite(t *testing.T) {
	f := newCorpusFixture(t)
	pol := f.e.Policy()
	pol.Commands.Allow = append(pol.Commands.Allow, "sort", "tree", "uniq", "xxd", "cp")
	e, err := NewEngine(pol, EngineOptions{Cwd: f.root, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line, rule string
		want       Verdict
	}{
		{"git log -1 --format=x --output=run.sh", "git target: fs.write", Ask},
		{"git diff --out changes.diff", "git target: fs.write", Ask},
		{"git show --output=sub/x HEAD", "git target: fs.write", Ask},
		{"sort -o out.txt README.md", "sort target: fs.write", Ask},
		{"tree -o tree.txt", "tree target: fs.write", Ask},
		{"uniq README.md out.txt", "uniq target: fs.write", Ask},
		{"xxd README.md out.hex", "xxd target: fs.write", Ask},
		{"git log --output=/dev/null", "allow: git log", Allow},
		{"git log -p", "allow: git log", Allow},
		{"sort README.md", "allow: sort", Allow},
		{"cp README.md copy.md", "allow: cp", Allow},
		{"git log --output=.git/hooks/pre-commit", "git target: protected", Deny},
	}
	for _, c := range cases {
		d := e.DecideCommand(CommandRequest{Command: c.line})
		if d.Verdict != c.want || !strings.HasPrefix(d.Rule, c.rule) {
			t.Errorf("%q: %s (%s: %s), want %s (%s)", c.line, d.Verdict, d.Rule, d.Reason, c.want, c.rule)
		}
	}
	pol.FS.Write = "allow"
	e, err = NewEngine(pol, EngineOptions{Cwd: f.root, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.DecideCommand(CommandRequest{Command: "git log --output=x.txt"}); d.Verdict != Allow {
		t.Errorf("write = allow: %s %q, want allow", d.Verdict, d.Reason)
	}
}
