package permissions

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/permissions/policy"
	"github.com/acpterm/acpterm/permissions/programs"
)

// The command half of the policy. Choices made where the design leaves room:
//
//   - Rules are [policy.commands] prefixes matched word by word, after quote removal, against
//     every leaf. An allow rule's first word matches only the same bare name (looked up on the
//     policy PATH) or a path resolving to the same real program, never a program inside a root;
//     deny and ask rules also match by basename (/tmp/x/rm is rm). Harmless git globals
//     (--no-pager …) are skipped when matching.
//   - Wrappers are transparent to allow rules but not to deny/ask rules: `sudo ls` is checked
//     against deny "sudo" and the inner `ls`.
//   - A line is allow only if every construct in it is on the allow-list of gate.go (literal
//     words, pipelines, && || ; !, subshells, groups, redirects to regular files or /dev/null,
//     allowed builtins); anything else is at least ask, naming the construct. The walk still
//     finds the commands inside substitutions, eval, trap … so deny rules fire there.
//   - What a program's options and operands do (launch programs, write files, execute
//     workspace code, inline code) comes from its spec in package programs; a workspace code
//     runner is covered by an allow rule only while commands run confined (EngineOptions.Confined).
//   - Redirect targets are checked with DecideWrite/DecideRead, but the [policy.fs] read/write
//     verdict itself is not applied (a static target inside a root that is not protected and
//     matches no deny glob is fine); outside the roots or protected is deny.
//   - A command run after a cd to a directory outside the roots is ask; cd is followed through
//     && and || exactly, and later relative paths are checked against every directory the
//     shell may be in.
//   - An agent environment variable that is neither denied nor allowed is ask, naming it.
//   - Budgets (MaxScriptBytes, MaxLeaves, MaxNesting, MaxWrappers) deny when exceeded.

// commandRule is one [policy.commands] prefix: words matched one by one against a leaf's argv.
type commandRule struct {
	src      string   // as written in the config
	words    []string // after shell quote removal
	headReal string   // real path of words[0] when it is a path ("" otherwise)
}

// commandPolicy is the compiled command half of the policy: prefix rules, the unmatched verdict,
// the env policy and the roots. Runtime facts taken from acpterm's own environment (policy PATH,
// HOME, base env) are filled in on first use (see runtime).
type commandPolicy struct {
	allow, ask, deny []commandRule
	unmatched        Verdict
	roots            *Roots
	fs               fsView // the roots' file-system view (the real one when roots is nil)
	env              *envPolicy

	rtOnce sync.Once
	rt     *cmdRuntime

	lookMu    sync.Mutex
	lookCache map[string]lookEntry
}

// cmdRuntime holds what the command policy takes from acpterm's own environment.
type cmdRuntime struct {
	pathDirs []string // the policy PATH, in order
	home     string   // HOME of the child environment
	base     []envKV  // the base child environment (PATH included)
	getenv   func(string) string
}

type lookEntry struct {
	real string
	at   time.Time
}

// lookTTL bounds how long a PATH lookup result is reused (PATH directories are outside the
// roots, so the agent cannot plant a binary there through the policy; the cache only saves
// syscalls when commands come in bursts).
const lookTTL = 2 * time.Second

// compileCommandPolicy compiles pol's command rules, unmatched verdict and env rules. Errors
// name the list and entry (as the config file spells them): a prefix that is not plain shell
// words, an unknown unmatched verdict, or an env glob that is not a valid pattern.
func compileCommandPolicy(pol policy.Policy, roots *Roots) (*commandPolicy, error) {
	p := &commandPolicy{roots: roots, lookCache: map[string]lookEntry{}}
	if roots != nil {
		p.fs = roots.fs
	}
	switch v := Verdict(pol.Unmatched); v {
	case Allow, Ask, Deny:
		p.unmatched = v
	case "":
		p.unmatched = Ask
	default:
		return nil, fmt.Errorf("policy.unmatched: %q is not one of allow, ask, deny", pol.Unmatched)
	}
	for _, l := range []struct {
		key string
		in  []string
		out *[]commandRule
	}{
		{"policy.commands.allow", pol.Commands.Allow, &p.allow},
		{"policy.commands.ask", pol.Commands.Ask, &p.ask},
		{"policy.commands.deny", pol.Commands.Deny, &p.deny},
	} {
		for i, s := range l.in {
			r, err := parseRule(s, p.fs)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %v", l.key, i, err)
			}
			*l.out = append(*l.out, r)
		}
	}
	env, err := compileEnvPolicy(pol.Env)
	if err != nil {
		return nil, err
	}
	p.env = env
	return p, nil
}

// parseRule splits a command prefix into words with the shell's own quote removal.
func parseRule(s string, v fsView) (commandRule, error) {
	r := commandRule{src: s}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(s), "")
	if err != nil {
		return r, fmt.Errorf("command prefix %q does not parse as shell words: %v", s, err)
	}
	bad := fmt.Errorf("command prefix %q must be plain words (no operators, redirects, assignments, $ or globs)", s)
	if len(f.Stmts) != 1 {
		return r, bad
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return r, bad
	}
	a := &analyzer{fieldCfg: &expand.Config{}}
	for _, w := range call.Args {
		v, ok := a.static(w, actx{lang: syntax.LangPOSIX})
		if !ok || strings.HasPrefix(v, "~") {
			return r, bad
		}
		r.words = append(r.words, v)
	}
	if strings.Contains(r.words[0], "/") {
		if real, err := v.evalSymlinks(r.words[0]); err == nil {
			r.headReal = real
		} else {
			r.headReal = filepath.Clean(r.words[0])
		}
	}
	return r, nil
}

// runtime returns the runtime facts, computing them from getenv on first use.
func (p *commandPolicy) runtime(getenv func(string) string) *cmdRuntime {
	p.rtOnce.Do(func() {
		if p.rt == nil {
			p.rt = p.buildRuntime(getenv)
		}
	})
	return p.rt
}

// lookPath finds name on the policy PATH and returns its real path ("" when not found).
func (p *commandPolicy) lookPath(name string, rt *cmdRuntime) string {
	now := time.Now()
	p.lookMu.Lock()
	if e, ok := p.lookCache[name]; ok && now.Sub(e.at) < lookTTL {
		p.lookMu.Unlock()
		return e.real
	}
	p.lookMu.Unlock()
	real := ""
	for _, d := range rt.pathDirs {
		cand := filepath.Join(d, name)
		st, err := p.fs.stat(cand)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			continue
		}
		if r, err := p.fs.evalSymlinks(cand); err == nil {
			real = r
		} else {
			real = cand
		}
		break
	}
	p.lookMu.Lock()
	if len(p.lookCache) > 4096 {
		p.lookCache = map[string]lookEntry{}
	}
	p.lookCache[name] = lookEntry{real: real, at: now}
	p.lookMu.Unlock()
	return real
}

// resolveProgram resolves a leaf's argv[0] as the kernel would run it: a
// name with a slash against the (first candidate) cwd, a bare name on the policy PATH. It
// reports the real path, whether it is a shell builtin (in a script), and whether the real path
// lies inside a root (a workspace executable the agent can write).
func (p *commandPolicy) resolveProgram(name string, cwd cwdState, shell bool, rt *cmdRuntime) (real string, builtin, workspace bool) {
	if !strings.Contains(name, "/") {
		if _, ok := allowedBuiltins[name]; ok && shell {
			return "", true, false
		}
		if rt != nil {
			real = p.lookPath(name, rt)
		}
	} else if filepath.IsAbs(name) {
		if r, err := p.fs.realPath(name); err == nil {
			real = r
			if _, err := p.fs.lstat(r); err != nil {
				real = "" // does not exist: unresolved, but still checked for containment below
				if p.roots != nil && p.roots.Contains(r) {
					return "", false, true
				}
			}
		}
	} else {
		if len(cwd.dirs) > 0 {
			if r, err := p.fs.evalSymlinks(filepath.Join(cwd.dirs[0], name)); err == nil {
				real = r
			}
		}
		if p.workspaceProgram(name, cwd) {
			return real, false, true
		}
	}
	if real != "" && p.roots != nil && p.roots.Contains(real) {
		workspace = true
	}
	return real, false, workspace
}

// workspaceProgram reports whether a program named by a path resolves (from any candidate cwd)
// inside a root, i.e. it is content the agent can write (such as ./miner).
func (p *commandPolicy) workspaceProgram(name string, cwd cwdState) bool {
	if p.roots == nil {
		return false
	}
	if filepath.IsAbs(name) && p.rt != nil && slices.Contains(p.rt.pathDirs, filepath.Dir(name)) {
		// A program named by its path in a policy PATH directory is trusted like a bare name
		// looked up there (those directories are outside the roots).
		return false
	}
	cands := []string{name}
	if !filepath.IsAbs(name) {
		cands = cands[:0]
		for _, d := range cwd.dirs {
			cands = append(cands, filepath.Join(d, name))
		}
		if cwd.unknown {
			return true // cannot tell where it is; treat as the agent's own
		}
	}
	for _, c := range cands {
		real, err := p.fs.realPath(c)
		if err != nil {
			continue
		}
		if p.roots.Contains(real) {
			return true
		}
	}
	return false
}

// match reports how rule r matches argv: 2 = definitely, 1 = maybe (a dynamic word sits where a
// rule word is), 0 = no. forAllow applies the stricter program check of allow rules: a bare rule
// name matches only the same bare name or a path resolving to the same real program, and never
// a workspace executable; deny/ask rules also match by basename (so /tmp/x/rm is still rm).
func (p *commandPolicy) match(r commandRule, argv []string, real string, workspace, forAllow bool, rt *cmdRuntime) int {
	if len(argv) < len(r.words) || argv[0] == DynamicWord {
		return 0 // a dynamic program is already at least ask ("dynamic program")
	}
	head := r.words[0]
	ok := false
	switch {
	case r.headReal != "":
		ok = argv[0] == head || (real != "" && real == r.headReal)
	case forAllow:
		if workspace {
			return 0
		}
		if !strings.Contains(argv[0], "/") {
			ok = argv[0] == head
		} else if real != "" && rt != nil {
			ok = real == p.lookPath(head, rt)
		}
	default:
		ok = path.Base(argv[0]) == head || (real != "" && path.Base(real) == head)
	}
	if !ok {
		return 0
	}
	res := 2
	for k := 1; k < len(r.words); k++ {
		switch argv[k] {
		case r.words[k]:
		case DynamicWord:
			res = 1
		default:
			return 0
		}
	}
	return res
}

// leafResult is a matched leaf plus what grants need to know.
type leafResult struct {
	Leaf
	grantable  bool     // ask only because no rule matched
	constructs []string // construct names that raised this leaf
}

// decideLeaf matches one leaf against the rules and the built-in tables:
// deny > ask > allow; a leaf no rule covers gets the unmatched verdict; opaque programs,
// program-launching options, build runners, inline interpreter code and workspace executables
// are at least ask even when an allow rule matches.
func (p *commandPolicy) decideLeaf(l *rawLeaf, rt *cmdRuntime) leafResult {
	res := leafResult{Leaf: Leaf{Argv: l.argv, Via: l.via}}
	var fs []finding
	add := func(v Verdict, rule, reason, construct string) {
		fs = append(fs, finding{verdict: v, rule: rule, reason: reason, construct: construct})
	}
	real, builtin, workspace := "", false, false
	dynProg := len(l.argv) == 0 || l.argv[0] == DynamicWord
	if dynProg {
		add(Ask, "construct: dynamic program", "the program name is only known at run time", "dynamic program name")
	} else {
		real, builtin, workspace = p.resolveProgram(l.argv[0], l.cwd, l.shell, rt)
		res.Program, res.Builtin = real, builtin
	}
	// Deny and ask rules, on the leaf and on every wrapper it runs through.
	check := func(rules []commandRule, v Verdict, argv []string, what string) {
		for _, r := range rules {
			wreal := real
			if what != "" {
				wreal = ""
			}
			switch p.match(r, argv, wreal, false, false, rt) {
			case 2:
				add(v, string(v)+": "+r.src, fmt.Sprintf("%smatches %s rule %q", what, v, r.src), "")
			case 1:
				add(Ask, string(v)+": "+r.src, fmt.Sprintf("%smay match %s rule %q (a word is only known at run time)", what, v, r.src), "")
			}
		}
	}
	margv := matchArgv(l.argv)
	check(p.deny, Deny, margv, "")
	check(p.ask, Ask, margv, "")
	for _, w := range l.wrappers {
		if len(w) == 0 {
			continue
		}
		what := "wrapper " + quoteArgv(w) + " "
		check(p.deny, Deny, w, what)
		check(p.ask, Ask, w, what)
	}
	if !dynProg {
		tool := path.Base(l.argv[0])
		if spec, _ := programs.Lookup(tool); spec != nil {
			if spec.Launch != nil {
				if hit, ok := spec.Launch(tool, l.argv[1:]); ok {
					add(Ask, "launch: "+hit.Rule, hit.Reason, hit.Rule)
				}
			}
			if spec.WorkspaceCode != nil {
				if hit, ok := spec.WorkspaceCode(l.argv); ok && !l.confined {
					add(Ask, "runner: "+hit.Rule, hit.Reason+"; an allow rule covers it only while commands run confined by the OS sandbox, which is not in force", "workspace code runner")
				}
			}
			if spec.Inline != nil {
				if why, ok := spec.Inline(l.argv); ok {
					add(Ask, "construct: inline code", why, "inline interpreter code")
				}
			}
			if spec.DynamicArgs {
				for _, a := range l.argv[1:] {
					if a == DynamicWord {
						add(Ask, "launch: "+tool, tool+" gets an argument only known at run time, which may be a program-launching option", "dynamic "+tool+" argument")
						break
					}
				}
			}
		}
		if workspace {
			add(Ask, "construct: workspace executable", fmt.Sprintf("%s is inside a root (content the agent can write)", l.argv[0]), "workspace executable")
		}
		if (l.argv[0] == "test" || l.argv[0] == "[") && l.shell {
			for _, a := range l.argv[1:] {
				if a == "-v" {
					add(Ask, "construct: arithmetic evaluation", "test -v evaluates array subscripts, which can run commands", "arithmetic evaluation")
				}
			}
		}
	}
	fs = append(fs, l.notes...)
	// Allow rules and builtins.
	base := finding{verdict: p.unmatched, rule: "unmatched"}
	if !dynProg {
		for _, r := range p.allow {
			if p.match(r, margv, real, workspace, true, rt) == 2 {
				base = finding{verdict: Allow, rule: "allow: " + r.src, reason: fmt.Sprintf("matches allow rule %q", r.src)}
				break
			}
		}
		if base.rule == "unmatched" && builtin {
			base = finding{verdict: Allow, rule: "builtin: " + l.argv[0], reason: l.argv[0] + " is a shell builtin on the list acpterm allows (it only prints, tests, changes to a checked directory or ends the script)"}
		}
	}
	if base.rule == "unmatched" {
		base.reason = "no rule covers " + strings.Join(l.argv, " ") + " ([policy] unmatched = " + string(p.unmatched) + ")"
		if l.maybe {
			base.reason += " (words after an unknown wrapper argument, analysed in case they are a command)"
		}
	}
	final := base
	for _, f := range fs {
		// The strictest finding decides; at equal severity a specific finding names the cause
		// better than "unmatched".
		if rank(f.verdict) > rank(final.verdict) || (final.rule == "unmatched" && f.verdict == final.verdict) {
			final = f
		}
		if f.construct != "" && rank(f.verdict) >= rank(Ask) {
			res.constructs = append(res.constructs, f.construct)
		}
	}
	res.Verdict, res.Rule, res.Reason = final.verdict, final.rule, final.reason
	res.grantable = final.rule == "unmatched" && final.verdict == Ask
	for _, f := range fs {
		if rank(f.verdict) >= rank(Ask) {
			res.grantable = false
		}
	}
	return res
}

// gitHarmlessGlobals are git options before the subcommand that change neither what git runs
// nor which repository it uses; they are skipped when matching rules, so "git status" also
// covers `git --no-pager status` (and deny "git push" covers `git --no-pager push`).
var gitHarmlessGlobals = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
	"--no-replace-objects": true, "--glob-pathspecs": true, "--noglob-pathspecs": true,
	"--icase-pathspecs": true, "--no-advice": true,
}

// matchArgv returns the words rules are matched against: argv, minus harmless git globals.
func matchArgv(argv []string) []string {
	if len(argv) < 2 || path.Base(argv[0]) != "git" || !gitHarmlessGlobals[argv[1]] {
		return argv
	}
	out := []string{argv[0]}
	i := 1
	for i < len(argv) && gitHarmlessGlobals[argv[i]] {
		i++
	}
	return append(out, argv[i:]...)
}

// quoteArgv renders argv for a reason line.
func quoteArgv(argv []string) string {
	return "`" + strings.Join(argv, " ") + "`"
}

// setOf returns the set of words.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
