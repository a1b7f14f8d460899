// Package programs is acpterm's knowledge of individual programs, as data: one Spec per program
// (or per family sharing one command line, such as ssh/scp/sftp), in one file per program, so
// that adding or fixing a program touches one file. A Spec says how the program runs other
// programs (its wrapper behaviour), which options make it launch programs or write files,
// which of its files it writes, whether it executes code from the workspace, what an "always"
// grant may cover, and examples that must come out allow / ask / deny, which a table test in
// package permissions checks against the real engine (the way Codex's execpolicy checks the
// match/not_match examples of its rules).
//
// Specs are Go values rather than an embedded TOML file: the option syntax of real programs
// (GNU getopt abbreviations and bundles, tar's old-style keys, sed scripts, npm's value-taking
// global options) needs small functions, which a declarative file could only name; Go values
// are type-checked at build time, and a spec's functions sit next to its examples.
//
// The shell walk (which finds the simple commands of a line) and the rule matcher (which
// matches them against [policy.commands]) live in package permissions and use this package;
// nothing here parses shell or knows the config.
package programs

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Dynamic stands in an argument list for a word whose value is only known when the shell runs
// (permissions.DynamicWord).
const Dynamic = "<dynamic>"

// Hit is a finding about a command line: the rule it names ("git -c", "npm run") and one line
// saying why.
type Hit struct {
	Rule   string
	Reason string
}

// WrapKind is how a wrapper runs the command it is given.
type WrapKind int

// The wrapper kinds the shell walk knows how to peel.
const (
	// NotWrapper: the program runs no command given to it.
	NotWrapper WrapKind = iota
	// Simple: `wrapper [options] [positional…] command…` (nice, timeout, sudo …), options per
	// WrapOpts.
	Simple
	// Env: env's options, NAME=VALUE words, -S strings and -C directories.
	Env
	// Xargs: the command gets more arguments read from input.
	Xargs
	// FindExec: find's -exec/-execdir/-ok/-okdir actions (FindExecActions).
	FindExec
	// Watch: the words are joined and run with sh -c (or exec'd with -x).
	Watch
	// Time: /usr/bin/time, whose -o writes a file.
	Time
	// Busybox: `busybox APPLET args` runs the applet.
	Busybox
	// Su: su is privilege escalation; su -c CMD runs CMD with a shell.
	Su
	// Opaque: runs another program in a way that is not modelled (strace, chroot, flock …):
	// always at least ask; the words after its options are analysed as a possible command so
	// deny rules still fire.
	Opaque
	// Shell: a shell whose -c script is parsed in Dialects.
	Shell
)

// WrapOpts describes a Simple wrapper's command line: options, then Positional words, then the
// command.
type WrapOpts struct {
	Value      string          // short option letters that take a value ("n" for nice -n 5)
	Long       map[string]bool // long options that take a separate value (--signal KILL)
	Stop       string          // short option letters after which there is no command (chrt -p)
	StopLong   map[string]bool // long options after which there is no command
	Positional int             // words between the options and the command (timeout DURATION)
}

// Note is a finding every leaf run through a wrapper carries (privilege escalation, setsid).
type Note struct {
	Rule, Reason, Construct string
}

// Wrapper is a Spec's wrapper behaviour.
type Wrapper struct {
	// Kind says how the walk peels the wrapper off to reach the command it runs.
	Kind WrapKind
	// Opts are a Simple wrapper's options: which take a value, after which no command follows,
	// and how many words sit between the options and the command.
	Opts WrapOpts
	// Note, when set, is carried by every leaf run through the wrapper.
	Note *Note
	// Dialects are the shell dialects a Shell's -c script is read in, strictest wins:
	// "posix" (dash), "bash", "zsh", "ksh".
	Dialects []string
}

// Arg is one argument word: its value, or Dyn when only the shell knows it.
type Arg struct {
	S   string
	Dyn bool
}

// Targets are the files a program writes according to its arguments.
type Targets struct {
	// Paths are the targets as written (relative to the command's directory or absolute).
	Paths []string
	// Entries are indexes into Paths of directory entries removed or moved as such (rm,
	// unlink, mv's sources): a symlink among them is judged where it is, not by its target.
	Entries map[int]bool
	// Dynamic is set when an argument only known at run time may be a target.
	Dynamic bool
	// Reader is set when the command reads by purpose and writes these files only because an
	// output option names them (git log --output, sort -o, tree -o, uniq IN OUT, xxd IN OUT):
	// allowing the command is then no approval of the write, which [policy.fs] write judges
	// like a redirect. Writers by purpose (cp, tee, go build -o) leave it false.
	Reader bool
}

// readerWrites marks the targets of w as written by a reader's output option (Targets.Reader).
func readerWrites(w func(string, []Arg) Targets) func(string, []Arg) Targets {
	return func(tool string, args []Arg) Targets {
		t := w(tool, args)
		t.Reader = true
		return t
	}
}

// Example is a command line a Spec must decide a certain way; the table test runs it through
// the engine with the spec's program allowed (Allow, or the spec's first name) and
// [policy.fs] write = "allow".
type Example struct {
	Line     string   // a shell line, as terminal/create sends it
	Want     string   // "allow", "ask" or "deny"
	Reason   string   // a substring of the decision's reason ("" = any)
	Allow    []string // the allow rules of the example's config ("" = the spec's first name)
	Deny     []string // deny rules of the example's config
	Confined bool     // judged as if commands ran confined by the OS sandbox
}

// Spec is what acpterm knows about one program.
type Spec struct {
	// Names are the basenames the spec covers.
	Names []string
	// Prefix makes the spec also cover names that start with one of Names (python3.12,
	// perl5.36); a grant is still judged by the exact name.
	Prefix bool
	// Wrapper is how the program runs a command given to it (nil: it does not).
	Wrapper *Wrapper
	// Launch finds options and operands that make the program start another program or write
	// files its operands do not name (git -c, rg --pre, tar -I, sed -i …): at least ask, even
	// when an allow rule matches. tool is the basename run; args excludes it.
	Launch func(tool string, args []string) (Hit, bool)
	// DynamicArgs: an argument only known at run time may be one of the options Launch looks
	// for, so it is at least ask.
	DynamicArgs bool
	// Writes returns the files the program writes according to its arguments; they are
	// checked like redirect targets (outside the roots or protected: deny). tool is the
	// basename run; args excludes it.
	Writes func(tool string, args []Arg) Targets
	// WorkspaceCode finds command lines that execute code from workspace files the agent can
	// edit (test files, package.json scripts, Makefiles, build.rs …). An allow rule covers them
	// only while commands run confined by the OS sandbox; otherwise they are asked about.
	// argv includes the program name.
	WorkspaceCode func(argv []string) (Hit, bool)
	// Inline finds interpreter code given inline or read from stdin (python -c, node -e, awk
	// programs): opaque, so at least ask. It returns the reason. argv includes the name.
	Inline func(argv []string) (string, bool)
	// NoGrant says why an "always" grant may never cover the program ("a shell", "an
	// interpreter" …); "" when grants are fine (they are still refused for command lines that
	// Launch or WorkspaceCode flag).
	NoGrant string
	// Examples must come out as they say (checked by a table test).
	Examples []Example
}

var (
	registry = map[string]*Spec{}
	prefixed []*Spec
	all      []*Spec
)

// register adds s; a name registered twice is a programming error.
func register(s *Spec) *Spec {
	for _, n := range s.Names {
		if _, dup := registry[n]; dup {
			panic(fmt.Sprintf("programs: %s registered twice", n))
		}
		registry[n] = s
	}
	if s.Prefix {
		prefixed = append(prefixed, s)
	}
	all = append(all, s)
	return s
}

// versioned matches versioned interpreter names such as python3.12, ruby3.2, perl5.36, php8.2,
// lua5.4, node20 (but not phpunit or luacheck).
var versioned = regexp.MustCompile(`^(python|pypy|ruby|perl|php|lua|luajit|node|tclsh|wish)[0-9][0-9.]*$`)

// Lookup returns the spec for a program basename, and whether it covers the name exactly (by
// one of its names or as a versioned interpreter name); nil when there is none.
func Lookup(base string) (s *Spec, exact bool) {
	if s := registry[base]; s != nil {
		return s, true
	}
	if m := versioned.FindStringSubmatch(base); m != nil {
		if s := registry[m[1]]; s != nil {
			return s, true
		}
	}
	for _, s := range prefixed {
		for _, n := range s.Names {
			if strings.HasPrefix(base, n) {
				return s, false
			}
		}
	}
	return nil, false
}

// All returns every spec, ordered by first name.
func All() []*Spec {
	out := append([]*Spec(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Names[0] < out[j].Names[0] })
	return out
}

// hitFor returns the Hit constructor for tool: hit("-c", "sets config …") is rule "git -c",
// reason "git -c sets config …".
func hitFor(tool string) func(opt, why string) (Hit, bool) {
	return func(opt, why string) (Hit, bool) {
		return Hit{Rule: tool + " " + opt, Reason: fmt.Sprintf("%s %s %s", tool, opt, why)}, true
	}
}

// setOf returns the set of words.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
