package permissions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// typicalCommands is a config a developer would write: read-only git, common read tools, the
// go toolchain's build and vet, pytest through python3, and deny rules for rm and curl.
var typicalCommands = config.Commands{
	Allow: []string{"git status", "git diff", "git log", "git show", "ls", "cat", "echo", "printf", "head", "tail", "grep", "wc",
		"sort", "find", "rg", "go build", "go vet", "go version", "python3 -m pytest", "man", "tee"},
	Deny: []string{"rm", "curl", "sudo"},
}

type lineCase struct {
	name    string
	line    string
	want    Verdict
	reason  string // substring of Decision.Reason
	dialect string
	// construct, when set, must be among Decision.Constructs (for a construct the walk
	// already names in the reason with a more specific finding).
	construct string
}

func runLineCases(t *testing.T, f *cmdFixture, cases []lineCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := f.e.DecideCommand(CommandRequest{Session: "s", Command: f.expand(c.line), Dialect: c.dialect})
			if d.Verdict != c.want || !strings.Contains(d.Reason, f.expand(c.reason)) {
				t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.line, d.Verdict, d.Rule, d.Reason, c.want, f.expand(c.reason))
			}
			if c.construct != "" && !slices.Contains(d.Constructs, c.construct) {
				t.Errorf("%q: constructs %q, want %q among them", c.line, d.Constructs, c.construct)
			}
		})
	}
}

// TestAllowedConstructs: lines made only of constructs on the allow-list come out allow.
func TestAllowedConstructs(t *testing.T) {
	f := newCmdFixtureFS(t, typicalCommands, config.FS{Read: "allow", Write: "allow"})
	if err := os.WriteFile(filepath.Join(f.root, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	runLineCases(t, f, []lineCase{
		{"and-pipe", "git status && git diff --stat | head -n 20", Allow, "", "", ""},
		{"semicolon-newline", "git log --oneline -5; ls -la\nwc -l README.md", Allow, "", "", ""},
		{"negation-or", "! grep -q foo README.md || echo missing", Allow, "", "", ""},
		{"subshell", "(cd sub && ls) && ls", Allow, "", "", ""},
		{"group", "{ git status; git diff; } 2>&1 | head", Allow, "", "", ""},
		{"quotes", `grep -n 'a b' "README.md" | sort`, Allow, "", "", ""},
		{"pattern", "ls *.md && wc -l sub/*.go", Allow, "", "", ""},
		{"redirect-in", "cat < README.md", Allow, "", "", ""},
		{"redirect-out", "echo x > out.txt && echo y >> out.txt 2>/dev/null", Allow, "", "", ""},
		{"heredoc-quoted", "cat <<'EOF'\nhello $x $(id)\nEOF", Allow, "", "", ""},
		{"heredoc-plain", "cat <<EOF > notes.txt\nplain text\nEOF", Allow, "", "", ""},
		{"fd-dup", "ls 2>&1 >&2 <&- | cat", Allow, "", "", ""},
		{"builtins", "set -euo pipefail; command -v go; type -a git; pwd; true; : ok; test -f README.md && exit 0", Allow, "", "", ""},
		{"comment", "ls # list files", Allow, "", "", ""},
		{"tilde", "ls ~/ && cat ~/notes.txt", Allow, "", "", ""},
		{"bash-all-redirect", "ls &> out.txt", Allow, "", DialectBash, ""},
	})
}

// TestGatedBuiltins: builtins that evaluate text, run commands, or change parsing, options,
// attributes, aliases, hashing or the environment of later commands are at least ask, in
// several spellings; a deny rule still wins where the walk sees the command.
func TestGatedBuiltins(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: append([]string{"kill"}, typicalCommands.Allow...), Deny: typicalCommands.Deny})
	runLineCases(t, f, []lineCase{
		{"declare-i", "declare -i x=1", Ask, "builtin declare", "", ""},
		{"typeset-i", "typeset -i n; echo ok", Ask, "builtin typeset", "", ""},
		{"read-int", "read -r x < README.md", Ask, "builtin read is not on the list", "", ""},
		{"printf-v", "printf -v x %s 1", Ask, "printf -v assigns a variable", "", ""},
		{"printf-v-bundled", "printf -vx %s 1", Ask, "printf -v assigns a variable", "", ""},
		{"set-k", "set -k; echo x", Ask, "set -k changes how the shell", "", ""},
		{"set-a", "set -a; git status", Ask, "set -a changes how the shell", "", ""},
		{"set-H", "set -H", Ask, "set -H changes how the shell", "", ""},
		{"set-o-history", "set -o history", Ask, "set -o history changes", "", ""},
		{"set-positional", "set -- a b", Ask, "positional parameters", "", ""},
		{"shopt-cdable", "shopt -s cdable_vars; cd x", Ask, "builtin shopt", "", ""},
		{"shopt-aliases", "shopt -s expand_aliases", Ask, "builtin shopt", "", ""},
		{"bash-cmds-sh", "BASH_CMDS[ls]=/tmp/x; ls", Ask, "", "", ""},
		{"bash-cmds", "BASH_CMDS[ls]=/tmp/x; ls", Ask, "array subscripts", DialectBash, "arithmetic evaluation"},
		{"bash-aliases", "BASH_ALIASES[ls]='rm -rf ~'; ls", Ask, "array subscripts", DialectBash, ""},
		{"jobs-x", "jobs -x rm x", Ask, "jobs -x is not an option", "", ""},
		{"mapfile-callback", "mapfile -C cb -c 1 arr < README.md", Ask, "builtin mapfile", DialectBash, ""},
		{"readarray-callback", "readarray -C cb a < README.md", Ask, "builtin readarray", DialectBash, ""},
		{"hash-p", "hash -p /tmp/x ls; ls", Ask, "builtin hash", "", ""},
		{"enable-f", "enable -f ./x.so y", Ask, "builtin enable", DialectBash, ""},
		{"alias", "alias ls=id; ls", Ask, "alias", "", ""},
		{"umask", "umask 000; echo x > f", Ask, "builtin umask", "", ""},
		{"ulimit", "ulimit -c unlimited", Ask, "builtin ulimit", "", ""},
		{"trap", "trap 'id' EXIT", Ask, "trap", "", ""},
		{"eval", "eval ls", Ask, "eval", "", ""},
		{"source", ". ./env.sh", Ask, "runs a script file in this shell", "", ""},
		{"exec", "exec ls", Ask, "builtin exec", "", ""},
		{"export", "export NO_COLOR=1", Ask, "builtin export", "", ""},
		{"unset", "unset NO_COLOR", Ask, "builtin unset", "", ""},
		{"kill-allowed-rule", "kill 1", Ask, "builtin kill is not on the list", "", ""},
		{"command-runs", "command git status", Ask, "command runs another command", "", ""},
		{"wait-p", "wait -p v", Ask, "wait -p is not an option", DialectBash, ""},
		{"deny-still-wins", "eval 'rm -rf x'", Deny, `deny rule "rm"`, "", ""},
		{"deny-in-trap", "trap 'curl x' EXIT", Deny, `deny rule "curl"`, "", ""},
	})
}

// TestGatedExpansions: expansions that can run code or set variables, and every other
// construct not on the allow-list, are at least ask with a reason naming it.
func TestGatedExpansions(t *testing.T) {
	f := newCmdFixture(t, typicalCommands)
	runLineCases(t, f, []lineCase{
		{"arith", "echo $((1+2))", Ask, "arithmetic expansion", "", ""},
		{"arith-cmd", "(( x = 1 ))", Ask, "arithmetic", DialectBash, ""},
		{"let", "let x=1", Ask, "let evaluates arithmetic", DialectBash, ""},
		{"assign-default", "echo ${x:=1}", Ask, "${…:=…} (it assigns a variable)", "", ""},
		{"assign-default-unset", "echo ${x=1}", Ask, "${…:=…} (it assigns a variable)", "", ""},
		{"subscript", "echo ${a[$i]}", Ask, "arithmetic", DialectBash, ""},
		{"param", "echo $USER", Ask, "parameter expansion $USER", "", ""},
		{"param-quoted", `echo "$USER"`, Ask, "parameter expansion $USER", "", ""},
		{"cmdsubst", `echo "$(id)"`, Ask, "command substitution", "", ""},
		{"backquote", "echo `id`", Ask, "command substitution", "", ""},
		{"procsubst", "diff <(ls) <(ls sub)", Ask, "", DialectBash, ""},
		{"procsubst-cat", "cat <(ls)", Ask, "process substitution", DialectBash, ""},
		{"brace", "echo {a,b}", Ask, "brace expansion", "", ""},
		{"tilde-user", "ls ~root", Ask, "tilde expansion ~root", "", ""},
		{"dollar-quote-bad-escape", `echo $'\u0041'`, Ask, "$'…' escape", DialectBash, ""},
		{"for", "for f in *.go; do echo x; done", Ask, "a for loop", "", ""},
		{"while", "while true; do ls; done", Ask, "a while/until loop", "", ""},
		{"if", "if true; then ls; fi", Ask, "an if statement", "", ""},
		{"case", "case x in x) ls;; esac", Ask, "a case statement", "", ""},
		{"test-clause", "[[ -f x ]] && ls", Ask, "[[ … ]]", DialectBash, ""},
		{"function", "f() { ls; }; f", Ask, "function", "", ""},
		{"time", "time ls", Ask, "time", DialectBash, ""},
		{"background", "ls &", Ask, "background", "", ""},
		{"bare-assignment", "x=1", Ask, "assigns a shell variable (x=…)", "", ""},
		{"append-assignment", "PATHX+=a ls", Ask, "PATHX", DialectBash, "variable assignment"},
		{"pipe-all", "ls |& cat", Ask, "|&", DialectBash, ""},
		{"named-fd", "ls {fd}>out.txt", Ask, "", DialectBash, "named file descriptor"},
		{"heredoc-expands", "cat <<EOF\n$(id)\nEOF", Ask, "here-document body expands", "", ""},
		{"read-write-redirect", "cat <> f", Ask, "redirect <>", "", ""},
		{"dup-to-file", "ls >&out.txt", Ask, "redirect >&", DialectBash, ""},
	})
}

// TestRedirectTargets: a redirect target must resolve physically, as the kernel will open it,
// to a regular file or /dev/null: descriptor aliases and special files are at least ask, and
// ".." after a symlink is taken from where the link leads.
func TestRedirectTargets(t *testing.T) {
	f := newCmdFixture(t, typicalCommands)
	outside := filepath.Join(filepath.Dir(f.root), "outside")
	if err := os.MkdirAll(filepath.Join(outside, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "a", "b"), filepath.Join(f.root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(f.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/stdout", filepath.Join(f.root, "out-link")); err != nil {
		t.Fatal(err)
	}
	runLineCases(t, f, []lineCase{
		{"dev-stdout", "echo x > /dev/stdout", Ask, "/dev/stdout re-opens whatever file sits behind a file descriptor", "", ""},
		{"dev-stderr", "cat README.md >/dev/stderr", Ask, "/dev/stderr re-opens", "", ""},
		{"dev-stdin", "cat < /dev/stdin", Ask, "/dev/stdin re-opens", "", ""},
		{"dev-fd", "echo x 3<README.md >/dev/fd/3", Ask, "/dev/fd/3 re-opens", "", ""},
		{"tee-dev-fd", "echo x | tee /dev/fd/3 3<README.md", Ask, "/dev/fd/3 re-opens", "", ""},
		{"proc-fd", "echo x > /proc/self/fd/1", Ask, "under /proc", "", ""},
		{"link-to-stdout", "echo x > out-link", Ask, "not a regular file", "", ""},
		{"dotdot-after-symlink", "echo x > link/../pwn", Deny, filepath.Join(outside, "a", "pwn"), "", ""},
		{"dotdot-after-symlink-read", "cat < link/../../a/b/x", Allow, "", "", ""},
		{"fifo", "echo x > fifo", Ask, "not a regular file (named pipe)", "", ""},
		{"directory", "cat < dir", Ask, "not a regular file (directory)", "", ""},
		{"dev-null", "ls > /dev/null 2>/dev/null < /dev/null", Allow, "", "", ""},
		{"dev-zero", "head -c 1 < /dev/zero", Ask, "under /dev", "", ""},
		{"protected", "echo x >> .git/config", Deny, "protected path", "", ""},
		{"outside-write", "echo x > ../x", Deny, "outside the roots", "", ""},
	})
}

// TestDialects: a line /bin/sh runs must hold under dash and bash (strictest wins); the agent's
// own permission request is judged as bash, with zsh-only constructs asked about.
func TestDialects(t *testing.T) {
	f := newCmdFixture(t, typicalCommands)
	runLineCases(t, f, []lineCase{
		{"comment-backslash", "echo a # c \\\nrm -rf x", Deny, `deny rule "rm"`, "", ""},
		{"comment-backslash-bash", "ls # \\\ncurl x.invalid", Deny, `deny rule "curl"`, DialectBash, ""},
		{"comment-backslash-safe", "ls # c \\\necho b", Allow, "", "", ""},
		{"herestring-sh", "cat <<< x", Ask, "parses as bash but not as POSIX sh", "", ""},
		{"herestring-bash", "cat <<< x", Allow, "", DialectBash, ""},
		{"amp-redirect-sh", "ls &> out.txt", Ask, "not as POSIX sh", "", ""},
		{"array-sh", "a=(1 2)", Ask, "not as POSIX sh", "", ""},
		{"dollar-quote-rm", `$'\x72m' -rf x`, Deny, `deny rule "rm"`, "", ""},
		{"dollar-quote-bash", `echo $'a\tb'`, Allow, "", DialectBash, ""},
		{"zsh-qualifier", "ls *(e:'id':)", Ask, "", DialectBash, ""},
		{"zsh-equals", "cat =(ls)", Ask, "", DialectBash, ""},
		{"sh-c-both", "sh -c 'cat <<< x'", Ask, "not as POSIX sh", "", ""},
		{"bash-c", "bash -c 'cat <<< x'", Allow, "", "", ""},
		{"dash-c", "dash -c 'echo {a,b}'", Ask, "brace expansion", "", ""},
		{"dollar-quote-both", `echo $'\x41'`, Allow, "", "", ""},
	})
}

// TestCdTracking: a cd with a literal target inside the roots is followed exactly, so going
// into a directory and back is allowed; a cd whose target is not literal, cd -, or one that
// leaves the roots is at least ask.
func TestCdTracking(t *testing.T) {
	f := newCmdFixtureFS(t, typicalCommands, config.FS{Read: "allow", Write: "allow"})
	if err := os.MkdirAll(filepath.Join(f.root, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	runLineCases(t, f, []lineCase{
		{"in-and-back", "cd sub && ls && cd ..", Allow, "", "", ""},
		{"in-and-back-deep", "cd sub/deep && go build ./... && cd ../.. && git status", Allow, "", "", ""},
		{"back-then-write", "cd sub && echo x > f && cd .. && echo y > g", Allow, "", "", ""},
		{"subshell", "(cd sub && ls); ls", Allow, "", "", ""},
		{"semicolon-back-then-run", "cd sub; cd ..; ls", Ask, "runs after a cd to", "", ""},
		{"semicolon-back-last", "cd sub && ls; cd ..", Allow, "", "", ""},
		{"dash", "cd -", Ask, "cd - goes to $OLDPWD", "", ""},
		{"dynamic", `cd "$(echo sub)" && ls`, Ask, "", "", ""},
		{"param", "cd $USER", Ask, "cd to a directory only known at run time", "", ""},
		{"home", "cd && ls", Ask, "cd without a directory goes to HOME", "", ""},
		{"up", "cd .. && ls", Ask, "outside the roots", "", ""},
		{"tmp-git", "cd /tmp && git status", Ask, "runs after a cd to /tmp, which is outside the roots", "", ""},
		{"tmp-nothing-after", "cd /tmp", Allow, "", "", ""},
		{"tmp-redirect", "cd /tmp && echo x > y", Deny, "outside the roots", "", ""},
		{"stack", "cd +1", Ask, "directory-stack", DialectBash, ""},
		{"protected-after-cd", "cd sub && echo x > ../.git/config", Deny, "protected path", "", ""},
	})
}

// TestSafeEnvValues: variables on the env deny list set to a value that cannot run code (a
// plain pager, the cgo switch, PYTHONPATH inside the roots) are allowed, in a prefix, through
// env and as agent variables; anything else keeps being denied.
func TestSafeEnvValues(t *testing.T) {
	f := confine(t, newCmdFixture(t, typicalCommands)) // pytest runs workspace code: allowed only confined
	if err := os.MkdirAll(filepath.Join(f.root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	runLineCases(t, f, []lineCase{
		{"git-pager-cat", "GIT_PAGER=cat git log", Allow, "", "", ""},
		{"pager-cat", "PAGER=cat git log -p", Allow, "", "", ""},
		{"pager-less-opts", "GIT_PAGER='less -R -F' git log", Allow, "", "", ""},
		{"pager-empty", "GIT_PAGER= git log", Allow, "", "", ""},
		{"env-pager", "env GIT_PAGER=cat git show", Allow, "", "", ""},
		{"manpager", "MANPAGER=cat man ls", Allow, "", "", ""},
		{"pager-less-cmd", "GIT_PAGER='less +!id' git log", Deny, "GIT_PAGER", "", ""},
		{"pager-semicolon", "GIT_PAGER='cat; id' git log", Deny, "GIT_PAGER", "", ""},
		{"pager-vim", "PAGER=vim git log", Deny, "PAGER", "", ""},
		{"pager-dynamic", `GIT_PAGER="$x" git log`, Deny, "GIT_PAGER", "", ""},
		{"cgo-0", "CGO_ENABLED=0 go build ./...", Allow, "", "", ""},
		{"cgo-1", "CGO_ENABLED=1 go vet ./...", Allow, "", "", ""},
		{"cgo-other", "CGO_ENABLED=x go build", Deny, "CGO_ENABLED", "", ""},
		{"cgo-cflags", "CGO_CFLAGS=-O2 go build", Deny, "CGO_CFLAGS", "", ""},
		{"pythonpath-src", "PYTHONPATH=src python3 -m pytest -q", Allow, "", "", ""},
		{"pythonpath-abs", "PYTHONPATH=$ROOT/src:src python3 -m pytest", Allow, "", "", ""},
		{"pythonpath-outside", "PYTHONPATH=/etc python3 -m pytest", Deny, "PYTHONPATH", "", ""},
		{"pythonpath-up", "PYTHONPATH=src:../x python3 -m pytest", Deny, "PYTHONPATH", "", ""},
		{"pythonpath-empty-entry", "PYTHONPATH=src: python3 -m pytest", Deny, "PYTHONPATH", "", ""},
		{"read-through-redirect", "cat < /etc/hostname && cat /etc/hostname", Allow, "", "", ""},
	})
	for _, c := range []struct {
		v    EnvVar
		want Verdict
	}{
		{EnvVar{"GIT_PAGER", "cat"}, Allow},
		{EnvVar{"PAGER", "less -R"}, Allow},
		{EnvVar{"CGO_ENABLED", "0"}, Allow},
		{EnvVar{"PYTHONPATH", "src"}, Allow},
		{EnvVar{"GIT_PAGER", "sh -c id"}, Deny},
		{EnvVar{"PYTHONPATH", "/tmp"}, Deny},
	} {
		d := f.e.DecideCommand(CommandRequest{Command: "git", Args: []string{"log"}, Env: []EnvVar{c.v}})
		if d.Verdict != c.want {
			t.Errorf("agent env %s=%q: %s (%s), want %s", c.v.Name, c.v.Value, d.Verdict, d.Reason, c.want)
		}
	}
	// A name the user denied in [policy.env] deny stays denied whatever its value.
	g := newCmdFixture(t, typicalCommands)
	pol := g.e.Policy()
	pol.Env.StrictDeny = append(slices.Clone(pol.Env.StrictDeny), "GIT_PAGER") // as config converts a user's deny entry
	e, err := NewEngine(pol, EngineOptions{Cwd: g.root, Getenv: func(k string) string { return g.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.DecideCommand(CommandRequest{Command: "GIT_PAGER=cat git log"}); d.Verdict != Deny {
		t.Errorf("user-denied GIT_PAGER=cat: %s (%s), want deny", d.Verdict, d.Reason)
	}
}

// TestREADMEListsAllowedBuiltins: the README's "Security model" names every builtin on the
// allowed list and every allowed redirect operator, so the list a user reads is the code's.
func TestREADMEListsAllowedBuiltins(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "## Security model")
	if i < 0 {
		t.Fatal("README.md has no Security model section")
	}
	sec := s[i:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	builtins := sec[strings.Index(sec, "Builtins are allowed only from this list"):]
	builtins = builtins[:strings.Index(builtins, "whatever the allow rules say")]
	for _, name := range allowedBuiltinNames {
		if _, ok := allowedBuiltins[name]; !ok {
			t.Errorf("allowedBuiltinNames has %q, which allowedBuiltins lacks", name)
		}
		if !strings.Contains(builtins, "`"+name+"`") {
			t.Errorf("README Security model does not list builtin %q", name)
		}
	}
	if len(allowedBuiltinNames) != len(allowedBuiltins) {
		t.Errorf("allowedBuiltinNames has %d names, allowedBuiltins %d", len(allowedBuiltinNames), len(allowedBuiltins))
	}
	for _, op := range []string{"`<`", "`>`", "`>>`", "`>|`", "`&>`", "`&>>`", "`2>&1`", "`/dev/null`", "`{ …; }`", "`( … )`", "`!`", "`&&`", "`||`", "`;`"} {
		if !strings.Contains(sec, op) {
			t.Errorf("README Security model does not name %s", op)
		}
	}
}

// confine rebuilds f's engine as for a session whose commands run confined by the OS sandbox.
func confine(t *testing.T, f *cmdFixture) *cmdFixture {
	t.Helper()
	e, err := NewEngine(f.e.policy, EngineOptions{Cwd: f.root, Getenv: func(k string) string { return f.env[k] }, Confined: true})
	if err != nil {
		t.Fatal(err)
	}
	f.e = e
	return f
}

// TestWorkspaceCodeConfined: a program that executes workspace code (go test, pytest, cargo
// test, npm test, make) is covered by an allow rule only while commands run confined by the OS
// sandbox; unconfined it asks, saying so, whatever the allow rules say. Its other checks
// (options that load code or write elsewhere, deny rules) apply either way.
func TestWorkspaceCodeConfined(t *testing.T) {
	allow := config.Commands{Allow: []string{"go test", "go run", "pytest", "python3 -m pytest", "cargo test", "npm test", "make", "just"}, Deny: []string{"rm"}}
	lines := []string{"go test ./...", "go run ./cmd/x", "pytest -q", "python3 -m pytest -x", "cargo test", "npm test", "make check", "just"}
	open := newCmdFixtureFS(t, allow, config.FS{Read: "allow", Write: "allow"})
	shut := confine(t, newCmdFixtureFS(t, allow, config.FS{Read: "allow", Write: "allow"}))
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			d := open.e.DecideCommand(CommandRequest{Command: line})
			if d.Verdict != Ask || !strings.HasPrefix(d.Rule, "runner: ") || !strings.Contains(d.Reason, "an allow rule covers it only while commands run confined by the OS sandbox, which is not in force") {
				t.Errorf("unconfined: %s %q (%s), want ask naming the runner and the sandbox", d.Verdict, d.Rule, d.Reason)
			}
			if d := shut.e.DecideCommand(CommandRequest{Command: line}); d.Verdict != Allow {
				t.Errorf("confined: %s %q (%s), want allow", d.Verdict, d.Rule, d.Reason)
			}
			if err := shut.e.CanGrant(d); err == nil {
				t.Errorf("unconfined %q can be granted; a grant must never cover a workspace code runner", line)
			}
		})
	}
	// Confined, the other checks still apply.
	runLineCases(t, shut, []lineCase{
		{"confined-pytest-plugin", "pytest -p evil", Ask, "pytest -p loads a plugin module", "", ""},
		{"confined-go-exec", "go test -exec /tmp/x ./...", Ask, "go -exec runs a program", "", ""},
		{"confined-deny", "make test && rm -rf x", Deny, `deny rule "rm"`, "", ""},
		{"confined-unmatched", "cargo build", Ask, "no rule covers cargo build", "", ""},
	})
}
