package permissions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions/policy"
)

func TestCompileCommandPolicyErrors(t *testing.T) {
	cases := []struct {
		cfg  config.Policy
		want string
	}{
		{config.Policy{Commands: config.Commands{Allow: []string{"ls", "git status | sh"}}}, "policy.commands.allow[1]: command prefix \"git status | sh\" must be plain words"},
		{config.Policy{Commands: config.Commands{Deny: []string{"rm $X"}}}, "policy.commands.deny[0]"},
		{config.Policy{Commands: config.Commands{Ask: []string{"echo 'x"}}}, "policy.commands.ask[0]: command prefix \"echo 'x\" does not parse"},
		{config.Policy{Unmatched: "maybe"}, `policy.unmatched: "maybe" is not one of allow, ask, deny`},
		{config.Policy{Env: config.Env{Allow: []string{"A["}}}, `policy.env.allow[0]: "A[" is not a valid variable-name glob`},
	}
	for _, c := range cases {
		_, err := compileCommandPolicy(permsOf(&config.Config{Policy: c.cfg}), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	p, err := compileCommandPolicy(permsOf(&config.Config{Policy: config.Policy{Commands: config.Commands{Allow: []string{`git "log" \-\-oneline`}}}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.allow[0].words; !slices.Equal(got, []string{"git", "log", "--oneline"}) {
		t.Errorf("rule words %q", got)
	}
	if p.unmatched != Ask {
		t.Errorf("empty unmatched → %q, want ask", p.unmatched)
	}
}

// leafFor analyses argv (exec form) with the test policy and returns the single decided leaf.
func leafFor(t *testing.T, p *commandPolicy, words ...string) leafResult {
	t.Helper()
	a := newAnalyzer(p, "/w", "/home/u", nil)
	a.run(staticWords(words), actx{})
	if len(a.leaves) == 0 {
		t.Fatalf("%q: no leaves", words)
	}
	return p.decideLeaf(a.leaves[0], p.rt)
}

func TestDecideLeafRules(t *testing.T) {
	p := newTestPolicy(t, config.Commands{
		Allow: []string{"git status", "git log", "ls", "cat", "sed", "rg", "find", "tar", "go test", "make", "npm", "cargo", "sort", "/usr/bin/env"},
		Ask:   []string{"git push"},
		Deny:  []string{"rm", "git push --force"},
	})
	cases := []struct {
		argv   []string
		want   Verdict
		rule   string
		reason string
	}{
		{[]string{"git", "status", "-s"}, Allow, "allow: git status", `matches allow rule "git status"`},
		{[]string{"/usr/bin/git", "status"}, Allow, "allow: git status", ""},
		{[]string{"git", "--no-pager", "-P", "log", "-n", "3"}, Allow, "allow: git log", ""},
		{[]string{"git", "--no-pager", "push", "--force"}, Deny, "deny: git push --force", ""},
		{[]string{"git", "--no-pager", "-c", "core.pager=id", "log"}, Ask, "launch: git -c", ""},
		{[]string{"git", "stash"}, Ask, "unmatched", "no rule covers git stash"},
		{[]string{"git", "push"}, Ask, "ask: git push", `matches ask rule "git push"`},
		{[]string{"git", "push", "--force", "origin"}, Deny, "deny: git push --force", ""},
		{[]string{"/tmp/x/rm", "-rf", "/"}, Deny, "deny: rm", ""},
		{[]string{"ls", "-la"}, Allow, "allow: ls", ""},
		{[]string{"git", "-C", "/etc", "status"}, Ask, "launch: git -C", "another repository"},
		{[]string{"git", "--git-dir=/w/x.git", "log"}, Ask, "launch: git --git-dir", ""},
		{[]string{"git", "rebase", "-i", "--exec", "make"}, Ask, "launch: git rebase --exec", ""},
		{[]string{"git", "bisect", "run", "./t.sh"}, Ask, "launch: git bisect run", ""},
		{[]string{"git", "submodule", "foreach", "id"}, Ask, "launch: git submodule foreach", ""},
		{[]string{"git", "config", "core.pager", "id"}, Ask, "launch: git config", ""},
		{[]string{"git", "log", "--output=x"}, Allow, "allow: git log", ""}, // its target is checked by the walk (TestLongOptionExactName)
		{[]string{"git", "log", "-c"}, Allow, "allow: git log", ""},         // -c after the subcommand is not a config option
		{[]string{"sed", "-n", "1,5p", "f"}, Allow, "allow: sed", ""},
		{[]string{"sed", "-e", "s/a/b/g;s|x|y|2", "f"}, Allow, "allow: sed", ""},
		{[]string{"sed", "s/a/b/e", "f"}, Ask, "launch: sed script", ""},
		{[]string{"sed", "-i", "s/a/b/", "f"}, Ask, "launch: sed -i", "edits files in place"},
		{[]string{"sed", "-f", "x.sed", "f"}, Ask, "launch: sed -f", ""},
		{[]string{"sed", "/re/d", "f"}, Ask, "launch: sed script", ""},
		{[]string{"rg", "-iz", "x"}, Ask, "launch: rg -z", ""},
		{[]string{"rg", "-e", "foo", "--pre=./x"}, Ask, "launch: rg --pre", ""},
		{[]string{"rg", "-i", "foo"}, Allow, "allow: rg", ""},
		{[]string{"find", ".", "-name", "x", "-delete"}, Ask, "launch: find -delete", ""},
		{[]string{"find", ".", "-fprint", "/w/out"}, Ask, "launch: find -fprint", ""},
		{[]string{"find", ".", "-name", "*.go"}, Allow, "allow: find", ""},
		{[]string{"tar", "-I", "sh -c id", "-xf", "a.tar"}, Ask, "launch: tar -I", ""},
		{[]string{"tar", "--to-command=sh", "-xf", "a.tar"}, Ask, "launch: tar --to-command", ""},
		{[]string{"sort", "--compress-program=sh", "f"}, Ask, "launch: sort --compress-program", ""},
		{[]string{"go", "test", "-exec=/w/x", "./..."}, Ask, "launch: go -exec", ""},
		{[]string{"go", "test", "./..."}, Ask, "runner: go test", "only while commands run confined by the OS sandbox"}, // allowed only when confined (TestWorkspaceCodeConfined)
		{[]string{"go", "generate", "./..."}, Ask, "runner: go generate", ""},                                           // not allowed, and a runner: the runner names the cause
		{[]string{"make", "test"}, Ask, "runner: make", "runs scripts from workspace files"},
		{[]string{"npm", "run", "build"}, Ask, "runner: npm run", ""},
		{[]string{"npm", "--version"}, Allow, "allow: npm", ""},
		{[]string{"cargo", "build"}, Ask, "runner: cargo build", ""},
		{[]string{"python3", "-c", "print(1)"}, Ask, "construct: inline code", "python3 -c runs inline code"},
		{[]string{"python3", "-Ic", "print(1)"}, Ask, "construct: inline code", ""},
		{[]string{"python3", "script.py"}, Ask, "unmatched", ""},
		{[]string{"perl", "-lne", "print"}, Ask, "construct: inline code", ""},
		{[]string{"cd", "/"}, Ask, "unmatched", ""}, // a builtin is only a builtin inside a shell
		{[]string{"env", "ls"}, Allow, "allow: ls", ""},
		{[]string{"sudo", "ls"}, Ask, "construct: privilege escalation", "sudo: runs the command with other privileges"},
		{[]string{"bash", "script.sh"}, Ask, "construct: shell script file", "runs script file script.sh"},
	}
	for _, c := range cases {
		l := leafFor(t, p, c.argv...)
		if l.Verdict != c.want || l.Rule != c.rule || !strings.Contains(l.Reason, c.reason) {
			t.Errorf("%q: %s %q %q, want %s %q (reason ~ %q)", c.argv, l.Verdict, l.Rule, l.Reason, c.want, c.rule, c.reason)
		}
	}
}

func TestDecideLeafDynamicWords(t *testing.T) {
	p := newTestPolicy(t, config.Commands{Allow: []string{"ls", "git log", "echo"}, Deny: []string{"git push"}})
	a := newAnalyzer(p, "/w", "/home/u", nil)
	a.script(`ls "$d"; git log $x; git $y origin; echo $(ls); $cmd`, actx{lang: 0})
	var got []string
	for _, l := range a.leaves {
		r := p.decideLeaf(l, p.rt)
		got = append(got, string(r.Verdict)+" "+r.Rule)
	}
	want := []string{
		"allow allow: ls",                // ls has no program-launching options
		"ask launch: git",                // a dynamic git argument may be -c…
		"ask deny: git push",             // may match the deny rule
		"allow allow: ls",                // inside $(…)
		"allow allow: echo",              // echo <dynamic>
		"ask construct: dynamic program", // $cmd
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestDecideLeafUnmatchedSetting(t *testing.T) {
	for _, u := range []string{"allow", "deny"} {
		p, err := compileCommandPolicy(permsOf(&config.Config{Policy: config.Policy{Unmatched: u, Commands: config.Commands{Allow: []string{"ls"}}}}), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.runtime(func(string) string { return "" })
		if l := leafFor(t, p, "id"); string(l.Verdict) != u || l.Rule != "unmatched" || l.grantable {
			t.Errorf("unmatched=%s: %s %s grantable=%v", u, l.Verdict, l.Rule, l.grantable)
		}
		// unmatched = allow never loosens constructs.
		if l := leafFor(t, p, "python3", "-c", "x"); l.Verdict == Allow {
			t.Errorf("unmatched=%s: inline code allowed", u)
		}
	}
}

func TestDecideCommandCwd(t *testing.T) {
	f := newCorpusFixture(t)
	sub := filepath.Join(f.root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cwd, want, rule, reason string
	}{
		{"", f.root, "allow: ls", ""},
		{sub, sub, "allow: ls", ""},
		{sub + "/../sub/.", sub, "allow: ls", ""},
		{"sub", "", "invalid cwd", `cwd "sub" is not an absolute path`},
		{f.home, "", "cwd outside roots", "is outside the roots"},
		{filepath.Join(f.root, "missing"), "", "invalid cwd", "is not an existing directory"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: "ls", Cwd: c.cwd})
		if d.Cwd != c.want || d.Rule != c.rule || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("cwd %q: Cwd %q rule %q reason %q, want %q %q ~%q", c.cwd, d.Cwd, d.Rule, d.Reason, c.want, c.rule, c.reason)
		}
		if c.want == "" && d.Verdict != Deny {
			t.Errorf("cwd %q: %s, want deny", c.cwd, d.Verdict)
		}
	}
}

func TestDecideCommandRequest(t *testing.T) {
	f := newCorpusFixture(t)
	cases := []struct {
		r      CommandRequest
		want   Verdict
		argv   []string
		shell  bool
		reason string
	}{
		{CommandRequest{Command: "ls"}, Allow, []string{"ls"}, false, ""},
		{CommandRequest{Command: "/bin/ls", Args: []string{"-l"}}, Allow, []string{"/bin/ls", "-l"}, false, ""},
		{CommandRequest{Command: "ls -l"}, Allow, []string{"/bin/sh", "-c", "ls -l"}, true, ""},
		{CommandRequest{Command: "ls -l", Args: []string{"x"}}, Ask, []string{"ls -l", "x"}, false, "no rule covers ls -l x"},
		{CommandRequest{Command: ""}, Deny, []string{""}, false, "the command is empty"},
		{CommandRequest{Command: "ls", Args: []string{"a\x00b"}}, Deny, []string{"ls", "a\x00b"}, false, "argument 1 contains a NUL byte"},
		// A bare assignment is not on the list of constructs acpterm allows (it could be
		// BASH_CMDS[x]=… or set a variable a later expansion reads).
		{CommandRequest{Command: "FOO=1"}, Ask, []string{"/bin/sh", "-c", "FOO=1"}, true, "assigns a shell variable (FOO=…)"},
		{CommandRequest{Command: "# just a comment"}, Allow, []string{"/bin/sh", "-c", "# just a comment"}, true, "runs no commands"},
		{CommandRequest{Command: "# just a comment"}, Allow, []string{"/bin/sh", "-c", "# just a comment"}, true, ""},
		{CommandRequest{Command: "[[ -f x ]] && ls"}, Ask, []string{"/bin/sh", "-c", "[[ -f x ]] && ls"}, true, ""},
		{CommandRequest{Command: "cd /etc && ls"}, Ask, []string{"/bin/sh", "-c", "cd /etc && ls"}, true, "cd to /etc, which is outside the roots"},
		{CommandRequest{Command: "cd . && ls"}, Allow, []string{"/bin/sh", "-c", "cd . && ls"}, true, ""},
		// Command substitution is not on the list of constructs acpterm allows.
		{CommandRequest{Command: `echo "files: $(ls | head -n 3)"`}, Ask, []string{"/bin/sh", "-c", `echo "files: $(ls | head -n 3)"`}, true, "command substitution"},
		{CommandRequest{Command: `git $(echo -c) log`}, Ask, []string{"/bin/sh", "-c", `git $(echo -c) log`}, true, "program-launching option"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(c.r)
		if d.Verdict != c.want || !slices.Equal(d.Argv, c.argv) || d.Shell != c.shell || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q %q: %s argv %q shell %v reason %q; want %s %q %v ~%q", c.r.Command, c.r.Args, d.Verdict, d.Argv, d.Shell, d.Reason, c.want, c.argv, c.shell, c.reason)
		}
		if d.OutputLimit != 1<<20 {
			t.Errorf("output limit %d", d.OutputLimit)
		}
	}
}

func TestDecideCommandGrants(t *testing.T) {
	f := newCorpusFixture(t)
	g, err := f.e.grants.Add(Grant{Session: "s1", Argv: []string{"git", "fetch"}, Prefix: true})
	if err != nil {
		t.Fatal(err)
	}
	// Unmatched ask → allow through the grant, in the right session only.
	d := f.e.DecideCommand(CommandRequest{Session: "s1", Command: "git status && git fetch origin"})
	if d.Verdict != Allow || d.Grant != g.ID || d.Leaves[1].Rule != "grant: "+g.ID {
		t.Errorf("granted: %s grant %q leaves %+v", d.Verdict, d.Grant, d.Leaves)
	}
	d = f.e.DecideCommand(CommandRequest{Session: "s2", Command: "git fetch origin"})
	if d.Verdict != Ask || d.Grant != "" {
		t.Errorf("other session: %s grant %q", d.Verdict, d.Grant)
	}
	// A grant never covers a construct-driven ask or a deny.
	if _, err := f.e.grants.Add(Grant{Session: "s1", Argv: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	d = f.e.DecideCommand(CommandRequest{Session: "s1", Command: "echo x | id"})
	if d.Verdict != Allow || d.Leaves[1].Rule != "grant: "+d.Grant {
		t.Errorf("granted leaf in a pipeline: %s %q %+v", d.Verdict, d.Rule, d.Leaves)
	}
	// Inside a substitution the leaf is granted, but the substitution itself still asks.
	d = f.e.DecideCommand(CommandRequest{Session: "s1", Command: "echo $(id)"})
	if d.Verdict != Ask || d.Rule != "construct: command substitution" || d.Leaves[0].Rule != "grant: "+d.Grant {
		t.Errorf("granted leaf inside a substitution: %s %q %+v", d.Verdict, d.Rule, d.Leaves)
	}
	d = f.e.DecideCommand(CommandRequest{Session: "s1", Command: "id &"})
	if d.Verdict != Ask || d.Rule != "construct: background process" {
		t.Errorf("grant over a construct: %s %q", d.Verdict, d.Rule)
	}
	if _, err := f.e.grants.Add(Grant{Session: "s1", Argv: []string{"rm", "x"}}); err != nil {
		t.Fatal(err)
	}
	d = f.e.DecideCommand(CommandRequest{Session: "s1", Command: "rm", Args: []string{"x"}})
	if d.Verdict != Deny || d.Grant != "" {
		t.Errorf("grant over deny: %s grant %q", d.Verdict, d.Grant)
	}
	f2 := newCmdFixture(t, config.Commands{Allow: []string{"ls"}, Ask: []string{"git push"}})
	if _, err := f2.e.grants.Add(Grant{Session: "s1", Argv: []string{"git", "push"}, Prefix: true}); err != nil {
		t.Fatal(err)
	}
	d = f2.e.DecideCommand(CommandRequest{Session: "s1", Command: "git", Args: []string{"push"}})
	if d.Verdict != Ask || d.Rule != "ask: git push" {
		t.Errorf("grant over an ask rule: %s %q", d.Verdict, d.Rule)
	}
}

func TestDecideCommandHeadless(t *testing.T) {
	f := newCorpusFixture(t)
	e, err := NewEngine(f.e.Policy(), EngineOptions{Cwd: f.root, Headless: true, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.DecideCommand(CommandRequest{Command: "id"}); d.Verdict != Ask {
		t.Errorf("headless: %s, want ask (the caller answers)", d.Verdict)
	}
}

func TestExplain(t *testing.T) {
	f := newCorpusFixture(t)
	out, err := f.e.Explain(CommandRequest{Command: "git status && rm -rf x", Env: []EnvVar{{"CI", "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Verdict, Rule, Reason, Cwd string
		Argv                       []string
		Shell                      bool
		EnvAdded                   []string `json:"env_added"`
		Env                        []string
		Leaves                     []struct {
			Argv                  []string
			Verdict, Rule, Reason string
			Via                   []string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Verdict != "deny" || got.Rule != "deny: rm" || got.Reason != "leaf 2 `rm -rf x`: matches deny rule \"rm\"" {
		t.Errorf("verdict/rule/reason: %q %q %q", got.Verdict, got.Rule, got.Reason)
	}
	if got.Cwd != f.root || !got.Shell || !slices.Equal(got.Argv, []string{"/bin/sh", "-c", "git status && rm -rf x"}) || !slices.Equal(got.EnvAdded, []string{"CI"}) {
		t.Errorf("cwd %q shell %v argv %q env_added %q", got.Cwd, got.Shell, got.Argv, got.EnvAdded)
	}
	if got.Env != nil || strings.Contains(string(out), f.home) {
		t.Errorf("Explain leaks the environment:\n%s", out)
	}
	if len(got.Leaves) != 2 || got.Leaves[0].Verdict != "allow" || got.Leaves[0].Rule != "allow: git status" ||
		got.Leaves[1].Verdict != "deny" || !slices.Equal(got.Leaves[1].Argv, []string{"rm", "-rf", "x"}) || !slices.Equal(got.Leaves[1].Via, []string{"sh -c"}) {
		t.Errorf("leaves %+v", got.Leaves)
	}
	if !strings.HasSuffix(string(out), "}\n") {
		t.Errorf("output should end with a newline")
	}
	if !strings.Contains(string(out), `"git status && rm -rf x"`) {
		t.Errorf("shell text should stay readable (no \\u0026 escapes):\n%s", out)
	}
}

// TestDecideCommandConcurrent: one Engine answers requests from many goroutines (run with -race).
func TestDecideCommandConcurrent(t *testing.T) {
	f := newCorpusFixture(t)
	reqs := []struct {
		r    CommandRequest
		want Verdict
	}{
		{CommandRequest{Command: "git status && ls | head -n 3"}, Allow},
		{CommandRequest{Command: "rm", Args: []string{"-rf", "x"}}, Deny},
		{CommandRequest{Command: "id"}, Ask},
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var err error
			for i := 0; i < 50 && err == nil; i++ {
				c := reqs[(g+i)%len(reqs)]
				if d := f.e.DecideCommand(c.r); d.Verdict != c.want {
					err = fmt.Errorf("%q: %s, want %s", c.r.Command, d.Verdict, c.want)
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// A redirect that writes is held to [policy.fs] write like fs/write_text_file, so an allowed
// `echo` cannot write a file the policy says to ask about.
func TestDecideCommandRedirectFollowsFSWrite(t *testing.T) {
	f := newCorpusFixture(t)
	cases := []struct {
		line   string
		want   Verdict
		reason string
	}{
		{"echo x > notes.txt", Ask, "redirect > notes.txt: "},
		{"echo x >> sub/notes.txt", Ask, "redirect >> sub/notes.txt: "},
		{"echo x > /dev/null", Allow, ""},
		{"cat < README.md", Allow, ""},
		{"echo x > " + f.home + "/.bashrc", Deny, "redirect > " + f.home + "/.bashrc"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.line})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: %s %q, want %s ~%q", c.line, d.Verdict, d.Reason, c.want, c.reason)
		}
	}
	pol := f.e.Policy()
	pol.FS.Write = "allow"
	e, err := NewEngine(pol, EngineOptions{Cwd: f.root, Getenv: func(k string) string { return f.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.DecideCommand(CommandRequest{Command: "echo x > notes.txt"}); d.Verdict != Allow {
		t.Errorf("write = allow: %s %q, want allow", d.Verdict, d.Reason)
	}
}

// permsOf converts a test's config into the engine's policy as acpterm does, with no
// environment (so no protected config or state directories).
func permsOf(c *config.Config) policy.Policy {
	return c.Permissions(func(string) string { return "" })
}
