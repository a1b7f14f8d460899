package permissions

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// TestOptionSpellings: a security tester's bypasses of the per-program option tables with GNU
// getopt_long abbreviations (--to-comm=, --target-dir=, --outp=, --in-pl, --rs=), bundled short
// options (-xvI PROG, -nes/a/b/e, -vo ProxyCommand=…), tar's old-style keys (xvIf PROG) and
// options after operands (sed p f -i). Allowing a program must not allow any of them.
func TestOptionSpellings(t *testing.T) {
	f := newCmdFixtureFS(t, config.Commands{
		Allow: []string{"tar", "cp", "mv", "sort", "sed", "rsync", "chmod", "install", "timeout", "env", "git status", "git diff",
			"git log", "git grep", "git clone", "git archive", "git help", "git rebase", "man", "ssh", "scp", "sftp", "rg", "zip",
			"sdiff", "diff3", "ls", "time"},
		Deny: []string{"rm", "curl"},
	}, config.FS{Read: "allow", Write: "allow"})
	cases := []struct {
		argv   []string
		want   Verdict
		reason string
	}{
		// tar (GNU tar ran ./evil.sh for the first two).
		{[]string{"tar", "xf", "a.tar", "--to-comm=./evil.sh"}, Ask, "tar --to-command runs a program"},
		{[]string{"tar", "-xvI", "./evil.sh", "-f", "a.tar"}, Ask, "tar -I runs a program"},
		{[]string{"tar", "-xvI./evil.sh", "-f", "a.tar"}, Ask, "tar -I runs a program"},
		{[]string{"tar", "xvIf", "./evil.sh", "a.tar"}, Ask, "tar -I runs a program"},
		{[]string{"tar", "cvFf", "./evil.sh", "a.tar", "dir"}, Ask, "tar -F runs a program"},
		{[]string{"tar", "--use-compress-prog=sh"}, Ask, "tar --use-compress-program runs a program"},
		{[]string{"tar", "--use-c", "sh", "-xf", "a.tar"}, Ask, "tar --use-compress-program runs a program"},
		{[]string{"tar", "-xf", "a.tar", "--checkpoint=1", "--checkpoint-act=exec=sh"}, Ask, "tar --checkpoint-action runs a program"},
		{[]string{"tar", "-xf", "a.tar", "--info-s=./x"}, Ask, "tar --info-script"},
		{[]string{"tar", "-xf", "a.tar", "--to", "./x"}, Ask, "tar --to-command"},
		{[]string{"tar", "-czvf", "a.tar.gz", "--checkpoint=10", "dir"}, Allow, `matches allow rule "tar"`},
		{[]string{"tar", "-xzvf", "a.tar.gz", "--checkpoint=10"}, Ask, "tar -x extracts an archive"},
		{[]string{"tar", "-cf", "-I", "dir"}, Allow, `matches allow rule "tar"`}, // -f takes "-I" as the archive name
		{[]string{"tar", "tvf", "a.tar"}, Allow, `matches allow rule "tar"`},
		// Writers: the long option names a target, abbreviated.
		{[]string{"cp", "--target-dir=.git/hooks", "pre-commit"}, Deny, "cp writes .git/hooks"},
		{[]string{"cp", "--t", ".git/hooks", "pre-commit"}, Deny, "cp writes .git/hooks"},
		{[]string{"cp", "-vt", ".git/hooks", "pre-commit"}, Deny, "cp writes .git/hooks"},
		{[]string{"mv", "--target-d=/etc", "x"}, Deny, "mv writes /etc"},
		{[]string{"sort", "--outp=/etc/x", "f"}, Deny, "sort writes /etc/x"},
		{[]string{"sort", "--o", "/etc/x", "f"}, Deny, "sort writes /etc/x"},
		{[]string{"sort", "-uo/etc/x", "f"}, Deny, "sort writes /etc/x"},
		{[]string{"chmod", "--ref=a", ".git/hooks/x"}, Deny, "chmod writes .git/hooks/x"},
		{[]string{"cp", "--target-dir=sub", "a"}, Allow, `matches allow rule "cp"`},
		// Launching options, abbreviated.
		{[]string{"sort", "--compress-p=sh", "f"}, Ask, "sort --compress-program runs a compression program"},
		{[]string{"install", "--strip-prog=/tmp/x", "a", "b"}, Ask, "install --strip-program"},
		{[]string{"install", "--strip", "a", "b"}, Allow, `matches allow rule "install"`},
		{[]string{"sdiff", "-o", "/tmp/merged", "a", "b"}, Ask, "sdiff -o writes the merged file"},
		{[]string{"diff3", "--diff-prog=./x", "a", "b", "c"}, Ask, "diff3 --diff-program"},
		// sed.
		{[]string{"sed", "--in-pl", "s/a/b/", "f"}, Ask, "sed -i edits files in place"},
		{[]string{"sed", "-ni", "s/a/b/", "f"}, Ask, "sed -i edits files in place"},
		{[]string{"sed", "s/a/b/", "f", "-i"}, Ask, "sed -i edits files in place"},
		{[]string{"sed", "-nes/a/b/e", "p"}, Ask, "sed script may execute"},
		{[]string{"sed", "--expr=s/a/b/e", "p"}, Ask, "sed script may execute"},
		{[]string{"sed", "--e", "1e id", "p"}, Ask, "sed script may execute"},
		{[]string{"sed", "--fil=x.sed", "f"}, Ask, "sed -f reads a sed script"},
		{[]string{"sed", "-n", "-E", "-e", "s/a/b/g", "-e", "1,5p", "f"}, Allow, `matches allow rule "sed"`},
		{[]string{"sed", "-ne", "1p", "f"}, Allow, `matches allow rule "sed"`},
		// rsync.
		{[]string{"rsync", "--rs=sh", "a", "b"}, Ask, "rsync --rsh"},
		{[]string{"rsync", "--rsync-p=/tmp/x", "a", "b"}, Ask, "rsync --rsync-path"},
		{[]string{"rsync", "-avzesh", "a", "b"}, Ask, "rsync -e"},
		{[]string{"rsync", "-avze", "sh -c id", "a", "b"}, Ask, "rsync -e"},
		{[]string{"rsync", "--remote-opt=--rsync-path=x", "a", "host:b"}, Ask, "rsync --remote-option"},
		{[]string{"rsync", "-av", "--delete", "src/", "dst/"}, Allow, `matches allow rule "rsync"`},
		// git subcommand options (parse-options accepts abbreviations and bundles).
		{[]string{"git", "grep", "--open=sh -c id", "foo"}, Ask, "git --open-files-in-pager runs a pager"},
		{[]string{"git", "grep", "-iOsh", "foo"}, Ask, "git -O runs a pager"},
		{[]string{"git", "diff", "--ext"}, Ask, "git --ext-diff runs an external diff program"},
		{[]string{"git", "log", "--outp=/etc/x"}, Deny, "git writes /etc/x"},
		{[]string{"git", "archive", "--exec", "/tmp/x", "--remote=r", "HEAD"}, Ask, "git --exec names a program"},
		{[]string{"git", "clone", "-c", "core.fsmonitor=id", "r", "d"}, Ask, "git clone -c sets config"},
		{[]string{"git", "clone", "--templ=./t", "r", "d"}, Ask, "git --template copies hooks"},
		{[]string{"git", "clone", "-qu", "sh -c id", "r"}, Ask, "git clone -u names a program"},
		{[]string{"git", "help", "--we", "log"}, Ask, "git help --we starts a viewer"},
		{[]string{"git", "rebase", "--exe=id", "main"}, Ask, "git rebase --exec runs a shell command"},
		{[]string{"git", "diff", "--exit-code", "--stat"}, Allow, `matches allow rule "git diff"`},
		{[]string{"git", "log", "--oneline", "-n", "5"}, Allow, `matches allow rule "git log"`},
		// man, ssh family, rg, zip.
		{[]string{"man", "-kP", "sh -c id", "ls"}, Ask, "man -P runs a pager"},
		{[]string{"man", "--pag=sh", "ls"}, Ask, "man --pager runs a pager"},
		{[]string{"man", "-M", "-P", "ls"}, Allow, `matches allow rule "man"`}, // -M takes "-P" as its value
		{[]string{"ssh", "-vo", "ProxyCommand=sh -c id", "h"}, Ask, "ssh -o can name a program"},
		{[]string{"ssh", "-vFcfg", "h"}, Ask, "ssh -F"},
		{[]string{"scp", "-qS", "./x", "a", "h:b"}, Ask, "scp -S"},
		{[]string{"sftp", "-b", "batch", "h"}, Ask, "sftp -b runs commands from a batch file"},
		{[]string{"ssh", "-p", "22", "-l", "u", "h"}, Allow, `matches allow rule "ssh"`},
		{[]string{"rg", "-zA3", "foo"}, Ask, "rg -z runs decompression programs"},
		{[]string{"rg", "--search-z", "foo"}, Ask, "rg -z"},
		{[]string{"rg", "--pr=./x", "foo"}, Ask, "rg --pre runs a preprocessor"},
		{[]string{"rg", "-A3", "-e", "z", "foo"}, Allow, `matches allow rule "rg"`},
		{[]string{"zip", "-qTT", "sh", "a.zip", "f"}, Ask, "zip -TT runs a test program"},
		{[]string{"zip", "--unzip=sh", "-T", "a.zip", "f"}, Ask, "zip -TT"},
		// Wrappers: abbreviated long options that take a value.
		{[]string{"timeout", "--sig", "KILL", "5", "rm", "-rf", "x"}, Deny, `deny rule "rm"`},
		{[]string{"timeout", "--k=1", "5", "curl", "x"}, Deny, `deny rule "curl"`},
		{[]string{"env", "--split=curl x"}, Deny, `deny rule "curl"`},
		{[]string{"env", "--ch=/etc", "ls"}, Ask, "cd to /etc, which is outside the roots"},
		{[]string{"time", "--out=/etc/x", "ls"}, Deny, "time -o /etc/x: write denied"},
		{[]string{"time", "--o", "/etc/x", "ls"}, Deny, "time -o /etc/x: write denied"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.argv[0], Args: c.argv[1:]})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.argv, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
		}
	}
}

// TestRunnerSubcommandSpellings: a build runner's subcommand is found after options that take a
// value (npm --prefix . run x) and after a +toolchain (cargo +nightly build), so an allow rule
// for the program does not let it run workspace recipes unasked.
func TestRunnerSubcommandSpellings(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: []string{"npm", "cargo", "uv"}})
	cases := []struct {
		argv   []string
		want   Verdict
		reason string
	}{
		{[]string{"npm", "--prefix", ".", "run", "evil"}, Ask, "npm run runs scripts from workspace files"},
		{[]string{"npm", "-w", "pkg", "test"}, Ask, "npm test runs scripts"},
		{[]string{"cargo", "+nightly", "build"}, Ask, "cargo build runs scripts"},
		{[]string{"cargo", "-Z", "unstable-options", "build"}, Ask, "cargo build runs scripts"},
		{[]string{"uv", "--directory", "x", "run", "y"}, Ask, "uv run runs scripts"},
		{[]string{"npm", "--version"}, Allow, `matches allow rule "npm"`},
		{[]string{"npm", "ls", "--depth=0"}, Allow, `matches allow rule "npm"`},
		{[]string{"cargo", "--color=never", "fmt"}, Allow, `matches allow rule "cargo"`},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.argv[0], Args: c.argv[1:]})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.argv, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
		}
	}
}

// TestInlineCodeSpellings: inline interpreter code written as a bundle (node -pe, perl -lne) or
// as an (abbreviated) long option (php --run, --process-c) is at least ask with the
// interpreter allowed.
func TestInlineCodeSpellings(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: []string{"node", "perl", "php", "python3"}})
	cases := []struct {
		argv   []string
		want   Verdict
		reason string
	}{
		{[]string{"node", "-pe", "require('child_process').execSync('id')"}, Ask, "node -pe runs inline or preloaded code"},
		{[]string{"perl", "-lne", "system('id')", "f"}, Ask, "perl -lne runs inline code"},
		{[]string{"php", "--run=system('id');"}, Ask, "php --run runs inline code"},
		{[]string{"php", "--process-c", "system('id');"}, Ask, "php --process-code runs inline code"},
		{[]string{"python3", "-Ic", "import os"}, Ask, "python3 -Ic runs inline code"},
		{[]string{"node", "--version"}, Allow, `matches allow rule "node"`},
		{[]string{"php", "--version"}, Allow, `matches allow rule "php"`},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.argv[0], Args: c.argv[1:]})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.argv, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
		}
	}
}

// TestRunnerAliases: every npm spelling of a command that runs package.json scripts (aliases,
// typo aliases, audit fix, version) and cargo's external plugins (nextest, llvm-cov) ask with
// the program allowed; read-only subcommands, including after options that take a value, stay
// allowed.
func TestRunnerAliases(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: []string{"npm", "cargo", "pnpm", "bun"}})
	ask := [][]string{
		{"npm", "rb"}, {"npm", "in"}, {"npm", "ins"}, {"npm", "isntall"}, {"npm", "ic"}, {"npm", "clean-install"},
		{"npm", "sit"}, {"npm", "upgrade"}, {"npm", "udpate"}, {"npm", "version", "patch"}, {"npm", "verison", "patch"},
		{"npm", "audit", "fix"}, {"npm", "--json", "audit", "fix"}, {"npm", "ddp"}, {"npm", "dedupe"}, {"npm", "prune"},
		{"npm", "uninstall", "x"}, {"npm", "rm", "x"}, {"npm", "edit", "x"}, {"npm", "install-ci-test"}, {"npm", "cit"},
		{"npm", "insta"}, {"npm", "isnt"}, {"npm", "install-clean"}, {"npm", "isntall-clean"}, {"npm", "unknowncmd"},
		{"npm", "--", "run", "x"}, {"npm", "--json", "rb"}, {"npm", "--foo", "ls", "rebuil"},
		{"cargo", "nextest", "run"}, {"cargo", "llvm-cov"}, {"cargo", "rustc"}, {"cargo", "miri", "test"},
		{"cargo", "--color", "never", "nextest", "run"}, {"pnpm", "rb"}, {"pnpm", "-C", "d", "install"},
		{"npm", "docs"}, {"npm", "help", "x"}, {"npm", "login"}, {"cargo", "clean"}, {"cargo", "login"}, {"cargo", "yank", "x"},
		{"pnpm", "build"}, {"pnpm", "view", "x"}, {"bun", "dev"}, {"bun", "i"}, {"bun", "--cwd", "d", "a", "x"}, {"bun", "pm", "trust"},
	}
	allow := [][]string{
		{"npm"}, {"npm", "--version"}, {"npm", "ls"}, {"npm", "view", "x"}, {"npm", "audit"}, {"npm", "outdated"},
		{"npm", "--prefix", ".", "ls"}, {"npm", "-w", "mypkg", "ls"}, {"npm", "config", "get", "registry"},
		{"cargo"}, {"cargo", "--version"}, {"cargo", "fmt"}, {"cargo", "tree"}, {"cargo", "metadata"},
		{"cargo", "--color", "never", "fmt"}, {"pnpm", "ls"}, {"pnpm", "-C", "d", "why", "x"},
		{"bun", "outdated"}, {"bun", "--cwd", "d", "outdated"}, {"npm", "-g", "ls", "typescript"}, {"npm", "-s", "view", "react", "version"},
		{"cargo", "-q", "tree", "-p", "x"},
	}
	for _, argv := range ask {
		d := f.e.DecideCommand(CommandRequest{Command: argv[0], Args: argv[1:]})
		if d.Verdict != Ask || !strings.HasPrefix(d.Rule, "runner: ") {
			t.Errorf("%q: %s %q (%s), want ask by a runner rule", argv, d.Verdict, d.Rule, d.Reason)
		}
	}
	for _, argv := range allow {
		d := f.e.DecideCommand(CommandRequest{Command: argv[0], Args: argv[1:]})
		if d.Verdict != Allow {
			t.Errorf("%q: %s %q (%s), want allow", argv, d.Verdict, d.Rule, d.Reason)
		}
	}
	// cargo -C reads another directory's configuration, which may lie outside the roots (a
	// directory in the root can be a symlink to one): asked about even for a read-only
	// subcommand.
	if d := f.e.DecideCommand(CommandRequest{Command: "cargo", Args: []string{"-C", "sub", "tree"}}); d.Verdict != Ask || d.Rule != "launch: cargo -C" {
		t.Errorf("cargo -C sub tree: %s %q (%s), want ask by launch: cargo -C", d.Verdict, d.Rule, d.Reason)
	}
}

// TestLongOptionExactName: a long option that exactly names a longer option
// (--output-indicator-new) is not taken for the shorter dangerous one it starts with (--output);
// the dangerous option itself, its "=value" form and its abbreviations still ask.
func TestLongOptionExactName(t *testing.T) {
	f := newCmdFixture(t, config.Commands{Allow: []string{"git", "tar", "rg"}})
	cases := []struct {
		argv []string
		want Verdict
		rule string
	}{
		{[]string{"git", "log", "--output-indicator-new=+"}, Allow, "allow: git"},
		{[]string{"git", "diff", "--output-indicator-old", "-"}, Allow, "allow: git"},
		{[]string{"git", "diff", "--output-indicator-context=x"}, Allow, "allow: git"},
		{[]string{"git", "log", "--output=/etc/f"}, Deny, "git target: outside roots"},
		{[]string{"git", "log", "--output", "/etc/f"}, Deny, "git target: outside roots"},
		{[]string{"git", "log", "--outp=/etc/f"}, Deny, "git target: outside roots"},
		{[]string{"git", "log", "--output", "f"}, Ask, "git target: fs.write"}, // [policy.fs] write = "ask"
		{[]string{"git", "format-patch", "--output-directory=/etc/d"}, Deny, "git target: outside roots"},
		{[]string{"rg", "--pre-glob=*.pdf", "x"}, Allow, "allow: rg"},
		{[]string{"rg", "--pre=/tmp/x", "x"}, Ask, "launch: rg --pre"},
		{[]string{"rg", "--hostname-bin=/tmp/x", "x"}, Ask, "launch: rg --hostname-bin"},
		{[]string{"tar", "--checkpoint=10", "-cf", "a.tar", "x"}, Allow, "allow: tar"},
		{[]string{"tar", "--checkpoint-act=exec=id", "-cf", "a.tar", "x"}, Ask, "launch: tar --checkpoint-action"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.argv[0], Args: c.argv[1:]})
		if d.Verdict != c.want || d.Rule != c.rule {
			t.Errorf("%q: %s %q (%s), want %s %q", c.argv, d.Verdict, d.Rule, d.Reason, c.want, c.rule)
		}
	}
}
