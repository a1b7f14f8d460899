package permissions

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions/policy"
)

// newTestPolicy builds a commandPolicy directly (no Roots, no Engine): PATH /usr/bin:/bin,
// HOME /home/u, the corpus baseline rules unless others are given.
func newTestPolicy(t testing.TB, cmds config.Commands) *commandPolicy {
	t.Helper()
	if cmds.Allow == nil && cmds.Ask == nil && cmds.Deny == nil {
		cmds = config.Commands{Allow: corpusAllow, Deny: corpusDeny}
	}
	p, err := compileCommandPolicy(permsOf(&config.Config{Policy: config.Policy{Unmatched: "ask", Commands: cmds, Env: config.Env{Deny: policy.BuiltinEnvDeny()}}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.runtime(func(k string) string {
		return map[string]string{"HOME": "/home/u", "PATH": "/usr/bin:/bin"}[k]
	})
	return p
}

type judged struct {
	path  string
	write bool
}

// analyse runs the analyser on a script in dialect lang with cwd /w, recording path checks.
func analyse(t testing.TB, p *commandPolicy, script string, lang syntax.LangVariant) (*analyzer, *[]judged) {
	t.Helper()
	var seen []judged
	a := newAnalyzer(p, "/w", "/home/u", func(abs string, write bool) *finding {
		seen = append(seen, judged{abs, write})
		if !strings.HasPrefix(abs, "/w/") {
			return &finding{verdict: Deny, rule: "redirect: outside roots", reason: abs + " is outside"}
		}
		return nil
	})
	a.script(script, actx{lang: lang})
	return a, &seen
}

func leafStrings(a *analyzer) []string {
	var out []string
	for _, l := range a.leaves {
		out = append(out, strings.Join(l.argv, " "))
	}
	return out
}

func noteNames(a *analyzer) []string {
	var out []string
	for _, n := range a.notes {
		if !n.gate {
			out = append(out, n.construct)
		}
	}
	return out
}

func TestAnalyzeLeaves(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	cases := []struct {
		script string
		lang   syntax.LangVariant
		want   []string
	}{
		{"a && b; c | d || e", syntax.LangBash, []string{"a", "b", "c", "d", "e"}},
		{"echo $(ls) \"$(pwd)\" `id`", syntax.LangBash, []string{"ls", "pwd", "id", "echo <dynamic> <dynamic> <dynamic>"}},
		{"(cd x; ls) && { cat f; }", syntax.LangBash, []string{"cd x", "ls", "cat f"}},
		{"if a; then b; elif c; then d; else e; fi", syntax.LangBash, []string{"a", "b", "c", "d", "e"}},
		{"while a; do b; done; until c; do d; done", syntax.LangBash, []string{"a", "b", "c", "d"}},
		{"for f in x y; do cat \"$f\"; done", syntax.LangBash, []string{"cat <dynamic>"}},
		{"case $x in a) b;; *) c;; esac", syntax.LangBash, []string{"b", "c"}},
		{`\rm -rf y; "r"'m' x; $'\x72m' z`, syntax.LangBash, []string{"rm -rf y", "rm x", "rm z"}},
		{"r\\\nm -rf build", syntax.LangPOSIX, []string{"rm -rf build"}},
		{"ls ~/x ~ ~root", syntax.LangBash, []string{"ls /home/u/x /home/u <dynamic>"}},
		{"echo a=~/x b:~/y '~' a='~'", syntax.LangBash, []string{"echo <dynamic> b:~/y ~ a=~"}},
		{"echo a=~/x", syntax.LangPOSIX, []string{"echo a=~/x"}},
		{"echo {a,b} {} {a} x{1..3}", syntax.LangBash, []string{"echo <dynamic> {} {a} <dynamic>"}},
		{"echo {a,b}", syntax.LangPOSIX, []string{"echo <dynamic>"}},     // conservative: expand.Fields splits braces
		{`echo $'\x41' 'b'`, syntax.LangPOSIX, []string{`echo $\x41 b`}}, // dash has no $'…'
		{`echo *.go '*.go' \* "a b"`, syntax.LangBash, []string{"echo <dynamic> *.go * a b"}},
		{`[ -d .git ] && echo [a] a[ ]`, syntax.LangBash, []string{"[ -d .git ]", "echo <dynamic> a[ ]"}},
		{"timeout -s KILL 5 nice -n 3 env -u X A=1 ls -l", syntax.LangBash, []string{"ls -l"}},
		{"xargs -0 -n1 rm -f", syntax.LangBash, []string{"rm -f <dynamic>"}},
		{"xargs -I{} cp {} /tmp", syntax.LangBash, []string{"cp <dynamic> /tmp <dynamic>"}},
		{"find . -name '*.go' -exec grep -l x {} \\; -execdir wc {} +", syntax.LangBash, []string{"find . -name *.go -exec grep -l x {} ; -execdir wc {} +", "grep -l x <dynamic>", "wc <dynamic>"}},
		{"bash -lc 'ls -a' && sh -ec 'pwd'", syntax.LangBash, []string{"ls -a", "pwd"}},
		{"bash --norc --noprofile -o pipefail -c 'git status'", syntax.LangBash, []string{"git status"}},
		{"command -v git; command ls; builtin cd /; exec cat f", syntax.LangBash, []string{"command -v git", "ls", "cd /", "cat f"}},
		{"eval 'rm -rf x'", syntax.LangBash, []string{"rm -rf x"}},
		{"trap 'rm -rf x' EXIT; trap -p", syntax.LangBash, []string{"rm -rf x", "trap -p"}},
		{"watch -n 1 'ls | wc -l'", syntax.LangBash, []string{"ls", "wc -l"}},
		{"env -S 'A=1 rm -rf /' x", syntax.LangBash, []string{"rm -rf / x"}},
		{"env - A=1 rm x; env", syntax.LangBash, []string{"rm x", "env"}},
		{"sudo -E -u root VAR=1 ls /root", syntax.LangBash, []string{"ls /root"}},
		{"/usr/bin/time -o /w/t -f %e ls", syntax.LangBash, []string{"ls"}},
		{"busybox sh -c 'ls'", syntax.LangBash, []string{"ls"}},
		{"strace -f rm x", syntax.LangBash, []string{"strace -f rm x", "rm x"}},
		{"su -c 'rm -rf /' root", syntax.LangBash, []string{"su -c rm -rf / root", "rm -rf /"}},
		{"diff <(ls a) >(cat)", syntax.LangBash, []string{"ls a", "cat", "diff <dynamic> <dynamic>"}},
		{"f() { rm -rf ~; }; f", syntax.LangBash, []string{"rm -rf /home/u", "f"}},
		{"echo ${x:-$(id)}", syntax.LangBash, []string{"id", "echo <dynamic>"}},
		{"cat <<EOF\n$(id)\nEOF", syntax.LangBash, []string{"id", "cat"}},
		{"cat <<'EOF'\n$(id)\nEOF", syntax.LangBash, []string{"cat"}},
		{"zsh -c 'echo =(ls)'", syntax.LangBash, []string{"ls", "echo <dynamic>"}},
		{"X=$(id) Y=1 git log", syntax.LangBash, []string{"id", "git log"}},
		{"nice", syntax.LangBash, []string{"nice"}},
		{"alias ll='rm -rf ~'", syntax.LangBash, []string{"rm -rf /home/u", "alias ll=rm -rf ~"}},
		{"timeout $T rm -rf x", syntax.LangBash, []string{"<dynamic> rm -rf x", "rm -rf x"}},
	}
	for _, c := range cases {
		a, _ := analyse(t, p, c.script, c.lang)
		if got := leafStrings(a); !slices.Equal(got, c.want) {
			t.Errorf("%q: leaves %q, want %q", c.script, got, c.want)
		}
		if a.over != "" {
			t.Errorf("%q: over budget: %s", c.script, a.over)
		}
	}
}

func TestAnalyzeVia(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	a, _ := analyse(t, p, "timeout 5 bash -c 'nice ls'; echo $(sh -c pwd)", syntax.LangBash)
	want := [][]string{{"timeout", "bash -c", "nice"}, {"$(…)", "sh -c"}, nil}
	if len(a.leaves) != 3 {
		t.Fatalf("leaves %q", leafStrings(a))
	}
	for i, l := range a.leaves {
		if !slices.Equal(l.via, want[i]) {
			t.Errorf("leaf %d %q: via %q, want %q", i, l.argv, l.via, want[i])
		}
	}
	if got := a.leaves[0].wrappers[0]; !slices.Equal(got, []string{"timeout", "5"}) {
		t.Errorf("wrapper argv %q", got)
	}
}

func TestAnalyzeConstructs(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	cases := []struct {
		script string
		lang   syntax.LangVariant
		want   []string // construct names of the findings, in order
	}{
		{"ls &", syntax.LangBash, []string{"background process"}},
		{"coproc ls", syntax.LangBash, []string{"coprocess"}},
		{"echo $(ls)", syntax.LangBash, []string{"command substitution"}}, // recorded, verdict allow
		{"cat <(ls)", syntax.LangBash, []string{"process substitution"}},
		{"echo $((1+2)) $((0x1f))", syntax.LangBash, nil},
		{"echo $((x+1))", syntax.LangBash, []string{"arithmetic evaluation"}},
		{"(( i++ ))", syntax.LangBash, []string{"arithmetic evaluation"}},
		{"let x=1", syntax.LangBash, []string{"arithmetic evaluation"}},
		{`echo "${a[@]}" ${a[0]} ${a['k']}`, syntax.LangBash, nil},
		{`echo ${a[i]}`, syntax.LangBash, []string{"arithmetic evaluation"}},
		{`echo ${x@P}`, syntax.LangBash, []string{"prompt expansion"}},
		{`echo ${x@Q}`, syntax.LangBash, nil},
		{`[[ -f go.mod && $x == y ]]`, syntax.LangBash, nil},
		{`[[ $x -eq 1 ]]`, syntax.LangBash, []string{"arithmetic evaluation"}},
		{`[[ -v x ]]`, syntax.LangBash, []string{"arithmetic evaluation"}},
		{"f() { ls; }", syntax.LangBash, []string{"function definition"}},
		{"eval \"$x\"", syntax.LangBash, []string{"eval", "eval"}},
		{"if then", syntax.LangBash, []string{"unparsable script"}},
		{"echo =(ls)", syntax.LangBash, []string{"unparsable script"}},
		{"ls > \"$f\"", syntax.LangBash, []string{"dynamic redirect"}},
		{"PATH=/w/bin ls", syntax.LangBash, []string{"sets PATH"}},
		{"export LD_PRELOAD=/w/x.so; declare -x GIT_DIR=x", syntax.LangBash, []string{"sets LD_PRELOAD", "sets GIT_DIR"}},
		{"export LD_PRELOAD=/w/x.so", syntax.LangPOSIX, []string{"sets LD_PRELOAD"}},
		{"read -r PATH; for HOME in x; do :; done; printf -v PAGER x", syntax.LangBash, []string{"sets PATH", "sets HOME", "sets PAGER"}},
		{"while IFS= read -r line; do echo \"$line\"; done", syntax.LangBash, nil},
		{"env GIT_PAGER=x git log", syntax.LangBash, []string{"sets GIT_PAGER"}},
		{"cd \"$d\" && ls > out", syntax.LangBash, []string{"cd to a dynamic directory", "unknown directory"}},
		{"bash --rcfile x -c ls", syntax.LangBash, []string{"shell startup file"}},
		{"ls *(e:'rm -rf ~':)", syntax.LangZsh, []string{"zsh glob qualifier"}},
		{"ls *.go", syntax.LangZsh, nil},
		{"x='a[$(id)]'; echo ${!x}", syntax.LangBash, []string{"indirect expansion"}},
		{"read 'a[$(id)]'; printf -v 'b[x]' 1; read 'c[2]'", syntax.LangBash, []string{"arithmetic evaluation", "arithmetic evaluation"}},
		{"declare -n r=PATH; r=/tmp", syntax.LangBash, []string{"nameref"}},
		{"alias ls='rm -rf ~'", syntax.LangBash, []string{"alias", "rm write target"}},
		{"f() { :; }; f", syntax.LangBash, []string{"function definition"}},
	}
	for _, c := range cases {
		a, _ := analyse(t, p, c.script, c.lang)
		if got := noteNames(a); !slices.Equal(got, c.want) {
			t.Errorf("%q: constructs %q, want %q", c.script, got, c.want)
		}
	}
}

func TestAnalyzeControlChars(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	for _, s := range []string{"git status\r; echo x", "ls\x1b[31m", "ls\x7f", "ls \u0085x", "ls \xff", "ls\u2028x", "a\x00b"} {
		a, _ := analyse(t, p, s, syntax.LangBash)
		if got := noteNames(a); len(got) == 0 || got[0] != "control character" {
			t.Errorf("%q: constructs %q, want control character first", s, got)
		}
	}
	a, _ := analyse(t, p, "ls\tx\ny", syntax.LangBash)
	if got := noteNames(a); len(got) != 0 {
		t.Errorf("tab/newline flagged: %q", got)
	}
}

func TestAnalyzeRedirects(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	cases := []struct {
		script string
		want   []judged
	}{
		{"echo x > out 2>&1 >&- 3<&0 >/dev/null 2>/dev/fd/1", []judged{{"/w/out", true}}}, // /dev/fd/1: asked, not judged as a file
		{"cat < in >> log &> all", []judged{{"/w/in", false}, {"/w/log", true}, {"/w/all", true}}},
		// After `cd X &&` the command runs only in X; after `cd X;` in X or (cd failed) where it was.
		{"cd sub && echo x > f", []judged{{"/w/sub/f", true}}},
		{"cd sub || echo x > f", []judged{{"/w/f", true}}},
		{"! cd sub || echo x > f", []judged{{"/w/sub/f", true}}},
		{"(cd sub) && echo x > f", []judged{{"/w/f", true}}},
		{"cd sub | cat && echo x > f", []judged{{"/w/f", true}}},
		{"cd /etc; echo > passwd", []judged{{"/etc/passwd", true}, {"/w/passwd", true}}},
		{"cd; echo > .bashrc", []judged{{"/home/u/.bashrc", true}, {"/w/.bashrc", true}}},
		{"echo x >&out", []judged{{"/w/out", true}}},
		{"cat <<< hi; cat <<EOF\nx\nEOF", nil},
		{"/usr/bin/time -o /etc/t ls", []judged{{"/etc/t", true}}},
		{"env -C /tmp sh -c 'echo > x'", []judged{{"/tmp/x", true}, {"/tmp/x", true}}}, // sh: read as dash and as bash
	}
	for _, c := range cases {
		a, seen := analyse(t, p, c.script, syntax.LangBash)
		if !slices.Equal(*seen, c.want) {
			t.Errorf("%q: checked %v, want %v", c.script, *seen, c.want)
		}
		for _, j := range *seen {
			if !strings.HasPrefix(j.path, "/w/") {
				found := false
				for _, n := range a.notes {
					found = found || (n.verdict == Deny && strings.Contains(n.reason, j.path))
				}
				if !found {
					t.Errorf("%q: no deny finding for %s: %+v", c.script, j.path, a.notes)
				}
			}
		}
	}
}

func TestAnalyzeBudgets(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	nested := "ls"
	for i := 0; i < MaxNesting+1; i++ {
		q, err := syntax.Quote(nested, syntax.LangBash)
		if err != nil {
			t.Fatal(err)
		}
		nested = "sh -c " + q
	}
	cases := []struct{ name, script, want string }{
		{"nesting", nested, "nesting is deeper than 6"},
		{"substitution nesting", strings.Repeat("echo $(", MaxNesting+1) + "id" + strings.Repeat(")", MaxNesting+1), "nesting is deeper than 6"},
		{"wrappers", strings.Repeat("nice ", MaxWrappers+2) + "ls", "more than 16 wrappers"},
		{"leaves", strings.Repeat("ls;", MaxLeaves+1), "more than 256 simple commands"},
		{"bytes", "echo " + strings.Repeat("x", MaxScriptBytes), "larger than 65536 bytes"},
	}
	for _, c := range cases {
		a, _ := analyse(t, p, c.script, syntax.LangBash)
		if !strings.Contains(a.over, c.want) {
			t.Errorf("%s: over %q, want %q", c.name, a.over, c.want)
		}
	}
	// Just under the budgets: no overrun.
	a, _ := analyse(t, p, strings.Repeat("ls;", MaxLeaves), syntax.LangBash)
	if a.over != "" || len(a.leaves) != MaxLeaves {
		t.Errorf("%d leaves: over %q, %d leaves", MaxLeaves, a.over, len(a.leaves))
	}
}

func TestAnalyzeWorkspaceCwd(t *testing.T) {
	p := newTestPolicy(t, config.Commands{})
	a, _ := analyse(t, p, "cd a && cd ../b && ls", syntax.LangBash)
	got := a.leaves[2].cwd.dirs
	want := []string{"/w/b"}
	if !slices.Equal(got, want) {
		t.Errorf("cwd candidates %q, want %q", got, want)
	}
	a, _ = analyse(t, p, "pushd x; popd; ls", syntax.LangBash)
	if !a.leaves[2].cwd.unknown {
		t.Errorf("popd should make the cwd unknown")
	}
	if filepath.Join("/w", "..") != "/" {
		t.Fatal("unexpected Join")
	}
}
