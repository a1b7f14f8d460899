package permissions

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/config"
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
//   - Command and process substitutions do not raise the verdict by themselves: their commands
//     are leaves, and their output is dynamic, so it can only be a dynamic program (ask), a
//     dynamic argument to a tool with program-launching options (ask) or a dynamic redirect
//     target (ask). Arithmetic on variables, [[ -eq ]], -v, subscripts, eval, source, trap,
//     aliases, function definitions, namerefs, background jobs and setsid are at least ask.
//   - Redirect targets are checked with DecideWrite/DecideRead, but the [policy.fs] read/write
//     verdict itself is not applied (a static target inside a root that is not protected and
//     matches no deny glob is fine); outside the roots or protected is deny.
//   - A cd to a directory outside the roots is ask; later relative paths are checked against
//     every directory the shell may be in.
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

// compileCommandPolicy compiles cfg's [policy.commands], [policy.unmatched] and [policy.env]
// lists. Errors name the list and entry: a prefix that is not plain shell words, an unknown
// unmatched verdict, or an env glob that is not a valid pattern.
func compileCommandPolicy(cfg *config.Config, roots *Roots) (*commandPolicy, error) {
	p := &commandPolicy{roots: roots, lookCache: map[string]lookEntry{}}
	switch v := Verdict(cfg.Policy.Unmatched); v {
	case Allow, Ask, Deny:
		p.unmatched = v
	case "":
		p.unmatched = Ask
	default:
		return nil, fmt.Errorf("policy.unmatched: %q is not one of allow, ask, deny", cfg.Policy.Unmatched)
	}
	for _, l := range []struct {
		key string
		in  []string
		out *[]commandRule
	}{
		{"policy.commands.allow", cfg.Policy.Commands.Allow, &p.allow},
		{"policy.commands.ask", cfg.Policy.Commands.Ask, &p.ask},
		{"policy.commands.deny", cfg.Policy.Commands.Deny, &p.deny},
	} {
		for i, s := range l.in {
			r, err := parseRule(s)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %v", l.key, i, err)
			}
			*l.out = append(*l.out, r)
		}
	}
	env, err := compileEnvPolicy(cfg.Policy.Env)
	if err != nil {
		return nil, err
	}
	p.env = env
	return p, nil
}

// parseRule splits a command prefix into words with the shell's own quote removal.
func parseRule(s string) (commandRule, error) {
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
		if real, err := filepath.EvalSymlinks(r.words[0]); err == nil {
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
		st, err := os.Stat(cand)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			continue
		}
		if r, err := filepath.EvalSymlinks(cand); err == nil {
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
		if r, err := realPath(name); err == nil {
			real = r
			if _, err := os.Lstat(r); err != nil {
				real = "" // does not exist: unresolved, but still checked for containment below
				if p.roots != nil && p.roots.Contains(r) {
					return "", false, true
				}
			}
		}
	} else {
		if len(cwd.dirs) > 0 {
			if r, err := filepath.EvalSymlinks(filepath.Join(cwd.dirs[0], name)); err == nil {
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
		real, err := realPath(c)
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
		res.Program = real
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
		if why, ok := launchOption(l.argv); ok {
			add(Ask, "launch: "+why.rule, why.reason, why.rule)
		}
		if why, ok := buildRunner(l.argv); ok {
			add(Ask, "runner: "+why.rule, why.reason, "build runner")
		}
		if why, ok := inlineCode(l.argv); ok {
			add(Ask, "construct: inline code", why, "inline interpreter code")
		}
		if workspace {
			add(Ask, "construct: workspace executable", fmt.Sprintf("%s is inside a root (content the agent can write)", l.argv[0]), "workspace executable")
		}
		if tool := path.Base(l.argv[0]); launchTools[tool] {
			for _, a := range l.argv[1:] {
				if a == DynamicWord {
					add(Ask, "launch: "+tool, tool+" gets an argument only known at run time, which may be a program-launching option", "dynamic "+tool+" argument")
					break
				}
			}
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

// launchReason is why an argv hits the program-launching option table.
type launchReason struct{ rule, reason string }

// launchTools are the programs with a program-launching option table; a dynamic argument to one
// of them may be such an option, so it is at least ask.
var launchTools = map[string]bool{
	"git": true, "rg": true, "sed": true, "find": true, "tar": true, "man": true, "ssh": true, "scp": true,
	"sftp": true, "zip": true, "rsync": true, "less": true, "more": true, "vim": true, "vi": true, "nvim": true,
	"view": true, "ex": true, "sort": true, "diff": true, "sdiff": true, "diff3": true, "go": true,
	"install": true, "date": true,
}

// goFlagReasons are go command flags (any subcommand, - or --, with or without test.) that run
// another program, write a file wherever they point, or make go read its inputs from elsewhere.
var goFlagReasons = map[string]string{
	"exec":         "runs a program around every binary",
	"toolexec":     "runs a program around every compiler and tool invocation",
	"vettool":      "runs another program as the vet tool",
	"o":            "writes the output file wherever it points (e.g. ~/.bashrc)",
	"C":            "runs go in another directory, whose go.mod and files are not checked",
	"modfile":      "reads another go.mod, which can replace modules with other code",
	"overlay":      "replaces source files with the ones an overlay file names",
	"pgo":          "reads a profile file named by the agent",
	"ldflags":      "passes flags to the linker, which can name an external linker program (-extld)",
	"gccgoflags":   "passes flags to gccgo",
	"compiler":     "chooses another compiler",
	"coverprofile": "writes a coverage profile wherever it points",
	"cpuprofile":   "writes a CPU profile wherever it points",
	"memprofile":   "writes a memory profile wherever it points",
	"blockprofile": "writes a block profile wherever it points",
	"mutexprofile": "writes a mutex profile wherever it points",
	"trace":        "writes an execution trace wherever it points",
	"outputdir":    "writes profiles into a directory wherever it points",
	"testlogfile":  "writes a log file wherever it points",
	"gocoverdir":   "writes coverage data wherever it points",
	"fuzzcachedir": "writes the fuzz cache wherever it points",
}

// goLaunch checks a go command line: flags from goFlagReasons, and subcommands that run
// commands or write outside the roots (generate, tool, install, env -w/-u).
func goLaunch(args []string, hit func(opt, why string) (launchReason, bool)) (launchReason, bool) {
	sub := ""
	for i, a := range args {
		if a == "--" || a == "-args" || a == "--args" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if sub == "" {
				sub = a
				switch sub {
				case "tool":
					return hit("tool", "runs a tool program (also module tools from go.mod)")
				case "install":
					return hit("install", "writes binaries outside the roots (GOBIN or GOPATH/bin)")
				case "env":
					for _, b := range args[i+1:] {
						if b == "-w" || b == "-u" {
							return hit("env "+b, "writes go's environment file, whose GOFLAGS apply to every later go command")
						}
					}
				}
			}
			continue
		}
		name := strings.TrimLeft(a, "-")
		name, _, _ = strings.Cut(name, "=")
		name = strings.TrimPrefix(name, "test.")
		if why, ok := goFlagReasons[name]; ok {
			return hit("-"+name, why)
		}
	}
	return launchReason{}, false
}

// launchOption checks argv against the per-tool table of options that make a program start
// another program or write files: git -c/--config-env/--exec-path/-C/--git-dir,
// -O/--open-files-in-pager, --upload-pack, ext:: URLs, rebase --exec, bisect run …; rg --pre,
// --hostname-bin, -z; sed e/w/W commands or -i; find -exec/-delete/-fprint*; tar --to-command,
// -I; and others. A hit makes the leaf at least ask even when an allow rule matches.
func launchOption(argv []string) (launchReason, bool) {
	tool := path.Base(argv[0])
	hit := func(opt, why string) (launchReason, bool) {
		return launchReason{rule: tool + " " + opt, reason: fmt.Sprintf("%s %s %s", tool, opt, why)}, true
	}
	args := argv[1:]
	switch tool {
	case "git":
		sub, subAt := "", len(args)
		for i := 0; i < len(args); i++ {
			a := args[i]
			if !strings.HasPrefix(a, "-") {
				sub, subAt = a, i
				break
			}
			switch {
			case a == "-c" || strings.HasPrefix(a, "-c"):
				return hit("-c", "sets config, which can name programs git runs (core.pager, core.fsmonitor, alias.x=!cmd)")
			case strings.HasPrefix(a, "--config-env"):
				return hit("--config-env", "sets config from the environment, which can name programs git runs")
			case strings.HasPrefix(a, "--exec-path"):
				return hit("--exec-path", "chooses where git finds its sub-programs")
			case a == "-C" || strings.HasPrefix(a, "--git-dir") || strings.HasPrefix(a, "--work-tree"):
				return hit(strings.SplitN(a, "=", 2)[0], "points git at another repository, whose config may name programs")
			}
			if a == "--namespace" || a == "--super-prefix" || a == "--list-cmds" {
				i++
			}
		}
		for _, a := range args {
			if sub == "grep" && gitGrepO(a) {
				return hit("-O", "runs a pager program on the results")
			}
			for _, o := range gitLaunchLong {
				if o.full == "--exec" && sub == "rebase" {
					continue // rebase --exec, below
				}
				// The name as written (before "=") is the option or an abbreviation of it;
				// a longer name that merely starts with it (--output-indicator-new) is
				// another option (parse-options: an exact match wins).
				if longAbbrev(a, o.full) {
					return hit(o.full, o.why)
				}
			}
			if strings.Contains(a, "ext::") || strings.HasPrefix(a, "fd::") {
				return hit(a, "uses a transport that runs a command")
			}
		}
		rest := args[min(subAt+1, len(args)):]
		switch sub {
		case "rebase":
			for _, a := range rest {
				if a == "-x" || strings.HasPrefix(a, "--exec") || longAbbrev(a, "--exec") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "x")) {
					return hit("rebase --exec", "runs a shell command after each commit")
				}
			}
		case "bisect":
			if len(rest) > 0 && rest[0] == "run" {
				return hit("bisect run", "runs a command for each step")
			}
		case "submodule":
			for _, a := range rest {
				if a == "foreach" {
					return hit("submodule foreach", "runs a shell command in each submodule")
				}
			}
		case "difftool", "mergetool", "filter-branch", "filter-repo", "send-email", "instaweb", "daemon", "config":
			return hit(sub, "can run or configure external programs")
		case "help":
			for _, a := range rest {
				if longAbbrev(a, "--man") || longAbbrev(a, "--web") || longAbbrev(a, "--info") ||
					(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "mwi")) {
					return hit("help "+a, "starts a viewer program chosen by config")
				}
			}
		case "clone", "fetch", "pull", "ls-remote", "archive", "push":
			for _, a := range rest {
				if a == "--" {
					break
				}
				if sub == "clone" {
					if o, ok := findOption([]string{a}, getoptSpec{shortVal: "bcjou"}, "c", []string{"--config", "--template"}); ok {
						return hit(sub+" "+o, "sets config or hooks for the new repository, which can name programs git runs")
					}
				}
				if a == "-u" || (sub == "clone" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "u")) {
					return hit(sub+" -u", "names a program to run on the remote side")
				}
			}
		}
	case "rg":
		for _, a := range args {
			switch {
			case longAbbrev(a, "--pre"): // not --pre-glob, another option
				return hit("--pre", "runs a preprocessor program on every file")
			case longAbbrev(a, "--hostname-bin"):
				return hit("--hostname-bin", "runs a program to get the host name")
			}
		}
		if _, ok := findOption(args, getoptSpec{shortVal: "ABCdEefgjMmrtT"}, "z", []string{"--search-zip"}); ok {
			return hit("-z", "runs decompression programs on files")
		}
	case "sed":
		return sedLaunch(args, hit)
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return hit(a, "runs a command for every file found")
			case "-delete":
				return hit(a, "deletes files")
			case "-fprint", "-fprint0", "-fprintf", "-fls":
				return hit(a, "writes a file")
			}
		}
	case "tar":
		// Old-style keys: a first word without a dash is a bundle of option letters whose values
		// are the following words (tar xvIf PROG a.tar).
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != DynamicWord {
			if k := strings.IndexAny(args[0], "IF"); k >= 0 {
				return hit("-"+args[0][k:k+1], "runs a program")
			}
		}
		if o, ok := findOption(args, getoptSpec{shortVal: "bCfFgHIKLNTVX"}, "IF", tarLaunchLong, "--checkpoint"); ok {
			return hit(o, "runs a program")
		}
	case "man":
		if o, ok := findOption(args, getoptSpec{shortVal: "CELMPRSemprs", shortOpt: "HTX"}, "PH", []string{"--pager", "--html"}); ok {
			return hit(o, "runs a pager or browser program")
		}
	case "ssh", "scp", "sftp":
		spec, shorts := getoptSpec{shortVal: "BbcDEeFIiJLlmOoPpQRSWw"}, "oF"
		switch tool {
		case "scp":
			spec, shorts = getoptSpec{shortVal: "cDFiJloPSX"}, "oFSD"
		case "sftp":
			spec, shorts = getoptSpec{shortVal: "BbcDFiJloPRSsX"}, "oFSDb"
		}
		if o, ok := findOption(args, spec, shorts, nil); ok {
			if o == "-b" {
				return hit(o, "runs commands from a batch file, which can hold !command shell escapes")
			}
			return hit(o, "can name a program to run (ProxyCommand, LocalCommand, a config file)")
		}
	case "zip":
		for _, a := range args {
			if a == "--" {
				break
			}
			if (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "TT")) || longAbbrev(a, "--unzip-command") {
				return hit("-TT", "runs a test program")
			}
		}
	case "rsync":
		if o, ok := findOption(args, getoptSpec{shortVal: "BefMT@"}, "eM", []string{"--rsh", "--rsync-path", "--remote-option"}); ok {
			return hit(o, "names a remote shell program or passes options to the other rsync")
		}
	case "less", "more":
		for _, a := range args {
			if strings.HasPrefix(a, "+") {
				return hit(a, "runs less commands at start, which can start a shell")
			}
		}
	case "vim", "vi", "nvim", "view", "ex", "vimdiff":
		for _, a := range args {
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--cmd") || strings.HasPrefix(a, "-S") {
				return hit(a, "runs editor commands, which can start programs")
			}
		}
	case "sort":
		if _, ok := findOption(args, getoptSpec{shortVal: "kotST"}, "", []string{"--compress-program"}); ok {
			return hit("--compress-program", "runs a compression program")
		}
	case "date":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				break
			}
			if a == "--date" || a == "--file" || a == "--reference" {
				i++ // the value is the next word
				continue
			}
			if strings.HasPrefix(a, "--") {
				// getopt accepts any unambiguous prefix: --s, --se, --set.
				if name, _, _ := strings.Cut(a, "="); len(name) > 2 && strings.HasPrefix("--set", name) {
					return hit("--set", "sets the system clock")
				}
				continue
			}
			if len(a) < 2 || a[0] != '-' {
				continue
			}
			for k, r := range a[1:] {
				if r == 's' {
					return hit("-s", "sets the system clock")
				}
				if r == 'I' {
					break // optional value attached
				}
				if r == 'd' || r == 'f' || r == 'r' {
					if k == len(a)-2 {
						i++ // the value is the next word
					}
					break // or the rest of this word
				}
			}
		}
	case "install":
		for _, a := range args {
			if a == "--" {
				break
			}
			if _, ok := longAbbrevAny(a, []string{"--strip-program"}, "--strip"); ok || strings.HasPrefix(a, "--strip-program") {
				return hit("--strip-program", "runs a program on every installed file")
			}
		}
	case "diff", "sdiff", "diff3":
		for _, a := range args {
			if a == "--" {
				break
			}
			if strings.HasPrefix(a, "--diff-program") || longAbbrev(a, "--diff-program") {
				return hit("--diff-program", "runs another diff program")
			}
		}
		if tool == "sdiff" {
			if o, ok := findOption(args, getoptSpec{shortVal: "ow", longVal: []string{"--output", "--width", "--diff-program"}}, "o", []string{"--output"}); ok {
				return hit(o, "writes the merged file wherever it points")
			}
		}
	case "go":
		return goLaunch(args, hit)
	}
	return launchReason{}, false
}

// gitLaunchLong are git subcommand options (parse-options, which accepts abbreviations) that
// run a program or write a file.
var gitLaunchLong = []struct{ full, why string }{
	{"--open-files-in-pager", "runs a pager program on the results"},
	{"--upload-pack", "names a program to run"},
	{"--receive-pack", "names a program to run"},
	{"--exec", "names a program to run"},
	{"--ext-diff", "runs an external diff program"},
	{"--extcmd", "runs an external diff program"},
	{"--output", "writes a file"},
	{"--output-directory", "writes files into a directory"},
	{"--template", "copies hooks from a template directory into the repository"},
}

// gitGrepO reports git grep's -O (--open-files-in-pager) in a bundle of short options: letters
// up to one that takes a value (-e -f -m -A -B -C).
func gitGrepO(a string) bool {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for _, c := range a[1:] {
		if c == 'O' {
			return true
		}
		if strings.ContainsRune("efmABC", c) {
			return false
		}
	}
	return false
}

// tarLaunchLong are GNU tar's long options that run a program.
var tarLaunchLong = []string{"--to-command", "--checkpoint-action", "--use-compress-program", "--info-script",
	"--new-volume-script", "--rsh-command", "--rmt-command"}

// sedLaunch allows only sed scripts made of line addresses with p/d/q/n/=, and s commands whose
// flags cannot execute (e) or write (w); -i, -f and anything else is at least ask. Options
// are read as GNU sed reads them: long names abbreviated (--in-pl, --expr=…), short letters
// bundled (-nes/a/b/e, -ni), and options after operands (sed p f -i).
func sedLaunch(args []string, hit func(opt, why string) (launchReason, bool)) (launchReason, bool) {
	var scripts, operands []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, has := strings.Cut(a, "=")
			switch {
			case longAbbrev(name, "--in-place"):
				return hit("-i", "edits files in place")
			case longAbbrev(name, "--file"):
				return hit("-f", "reads a sed script from a file, which cannot be checked")
			case longAbbrev(name, "--expression"):
				explicit = true
				if !has && i+1 < len(args) {
					i++
					val, has = args[i], true
				}
				if has {
					scripts = append(scripts, val)
				}
			case longAbbrev(name, "--line-length"):
				if !has {
					i++
				}
			}
		case len(a) > 1 && a[0] == '-':
		letters:
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'i':
					return hit("-i", "edits files in place")
				case 'f':
					return hit("-f", "reads a sed script from a file, which cannot be checked")
				case 'e', 'l':
					val := a[k+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					if a[k] == 'e' {
						explicit = true
						scripts = append(scripts, val)
					}
					break letters
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if !explicit && len(operands) > 0 {
		scripts = append(scripts, operands[0])
	}
	for _, s := range scripts {
		if s == DynamicWord || !sedSafe(s) {
			return hit("script", "may execute (e) or write (w, W) files; only addresses with p/d/q/n/= and s///[gpI0-9] are allowed")
		}
	}
	return launchReason{}, false
}

// sedSafe checks one sed script conservatively.
func sedSafe(s string) bool {
	for _, cmd := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			continue
		}
		// Strip a line address: N, $, N,M, /re/ is not supported (it may contain anything).
		j := 0
		for j < len(cmd) && (cmd[j] >= '0' && cmd[j] <= '9' || cmd[j] == '$' || cmd[j] == ',' || cmd[j] == '~' || cmd[j] == '!') {
			j++
		}
		rest := strings.TrimSpace(cmd[j:])
		switch {
		case rest == "p" || rest == "d" || rest == "q" || rest == "n" || rest == "=" || rest == "P" || rest == "N" || rest == "":
			continue
		case len(rest) > 1 && rest[0] == 's':
			d := rest[1]
			if d == '\\' || d == '\n' || d == ' ' {
				return false
			}
			parts := splitUnescaped(rest[2:], d)
			if len(parts) != 3 {
				return false
			}
			for _, f := range parts[2] {
				if !(f == 'g' || f == 'p' || f == 'I' || f == 'i' || f >= '0' && f <= '9') {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// splitUnescaped splits s at unescaped occurrences of d.
func splitUnescaped(s string, d byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == d {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// buildRunner reports build and script runners that execute recipes from workspace files the
// agent can edit: npm/pnpm/yarn/bun scripts, npx, make, just, tox, cargo build scripts …
// They are at least ask even when an allow rule matches.
func buildRunner(argv []string) (launchReason, bool) {
	tool := path.Base(argv[0])
	// The subcommand is the first word that is not an option. A word right after an option
	// written without "=" may be that option's value (npm --prefix . run x, cargo -Z flag build),
	// so it is only a candidate and the search goes on; +toolchain (cargo +nightly build) is
	// skipped. Every candidate is checked: a value that happens to be a subcommand name is
	// only stricter. The word after "--" is a candidate too (npm -- run x runs "run"). A word
	// after an option known to take a value (runnerValueOpts) is that value, not a candidate;
	// a word after one known to take none (runnerBoolOpts) is the subcommand.
	var subs []string
	afterOpt := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			if i+1 < len(argv) {
				subs = append(subs, argv[i+1])
			}
			break
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
			if runnerValueOpts[tool][a] {
				i++ // the option's value
				afterOpt = false
				continue
			}
			if runnerBoolOpts[tool][a] {
				afterOpt = false // takes no value: the next word is the subcommand
				continue
			}
			afterOpt = strings.HasPrefix(a, "-") && !strings.Contains(a, "=")
			continue
		}
		subs = append(subs, a)
		if !afterOpt {
			break
		}
		afterOpt = false
	}
	for _, sub := range subs {
		if why, ok := buildRunnerSub(argv, tool, sub); ok {
			return why, true
		}
	}
	// npm-like tools and cargo: a subcommand not known to leave the workspace's scripts alone
	// (an alias, a typo alias npm accepts, an abbreviation, a cargo-* plugin or a
	// .cargo/config.toml alias) is treated as running them.
	if safe := runnerSafeSubs[tool]; safe != nil {
		for _, sub := range subs {
			if sub == "audit" && slices.Contains(argv[1:], "fix") {
				sub = "audit fix" // installs the fixed versions: their install scripts run
			}
			if !safe[sub] {
				return launchReason{rule: tool + " " + sub, reason: tool + " " + sub + " may run scripts from workspace files the agent can edit (package.json, build.rs, plugins …): it is not a subcommand known to leave them alone"}, true
			}
		}
	}
	if len(subs) == 0 {
		return buildRunnerSub(argv, tool, "")
	}
	return launchReason{}, false
}

// runnerValueOpts are, per tool, global options that always take the next word as their value
// (so it is not the subcommand). Only options certain to take a value are listed: a boolean
// option listed here would hide the subcommand after it.
var runnerValueOpts = map[string]map[string]bool{
	"npm":   setOf("--prefix", "-C", "-w", "--workspace", "--registry", "--loglevel", "--userconfig", "--globalconfig", "--cache"),
	"cnpm":  setOf("--prefix", "-C", "-w", "--workspace", "--registry", "--loglevel", "--userconfig", "--globalconfig", "--cache"),
	"pnpm":  setOf("-C", "--dir", "--filter", "-F"),
	"cargo": setOf("--color", "--config", "-Z", "-C", "--explain"),
	"bun":   setOf("--cwd"),
}

// runnerBoolOpts are, per tool, global options that never take a value, so the word after them
// is the subcommand (npm -g ls x: "x" is ls's operand). Only options certain to take no value
// are listed: a value-taking option listed here would hide the subcommand after its value.
var runnerBoolOpts = map[string]map[string]bool{
	"npm":   npmBoolOpts,
	"cnpm":  npmBoolOpts,
	"cargo": setOf("-v", "-vv", "--verbose", "-q", "--quiet", "--frozen", "--locked", "--offline"),
}

var npmBoolOpts = setOf("-g", "--global", "-s", "--silent", "-q", "--quiet", "--json", "-l", "--long", "-p", "--parseable",
	"-a", "--all", "-d", "-dd", "-ddd", "-f", "--force", "-y", "--yes", "--dry-run")

// runnerSafeSubs are, per tool, the subcommands known not to run workspace scripts, build
// scripts or plugins (npm: no lifecycle scripts, no reify; cargo: built-ins that do not build).
// For these tools every other subcommand is a build runner. Left out on purpose: subcommands
// that start a program named by config the agent can write (a project .npmrc's browser/editor/
// viewer: npm docs, repo, bugs, home, help, login, edit; .cargo/config.toml's credential
// providers: cargo login, logout, owner, yank; its build.target-dir: cargo clean removes it),
// pnpm's npm pass-through commands (pnpm runs a package.json script of the same name first),
// and bun/pnpm script names (bun dev, pnpm build run the script).
var runnerSafeSubs = map[string]map[string]bool{
	"npm":  npmSafeSubs,
	"cnpm": npmSafeSubs,
	"pnpm": setOf("ls", "list", "ll", "la", "outdated", "why", "audit", "config", "c", "get", "set", "root", "bin", "licenses"),
	"bun":  setOf("outdated", "info", "audit"),
	"cargo": setOf("add", "config", "fetch", "fmt", "generate-lockfile", "help", "info", "init", "locate-project",
		"metadata", "new", "pkgid", "read-manifest", "remove", "rm", "report", "search", "tree",
		"uninstall", "update", "vendor", "verify-project", "version"),
}

var npmSafeSubs = setOf("access", "audit", "cache", "completion", "config", "c", "get", "set",
	"deprecate", "diff", "dist-tag", "dist-tags", "doctor", "explain", "why", "find-dupes", "fund",
	"hook", "logout", "ls", "list", "la", "ll", "org", "outdated", "owner", "author", "ping", "pkg",
	"prefix", "profile", "query", "root", "sbom", "search", "s", "se", "find", "star", "stars", "team", "token",
	"unpublish", "unstar", "view", "v", "info", "show", "whoami")

// setOf returns the set of words.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// buildRunnerSub is buildRunner for one candidate subcommand sub.
func buildRunnerSub(argv []string, tool, sub string) (launchReason, bool) {
	hit := func(what string) (launchReason, bool) {
		return launchReason{rule: what, reason: what + " runs scripts from workspace files the agent can edit (package.json, Makefile …)"}, true
	}
	switch tool {
	case "npm", "pnpm", "bun", "cnpm":
		switch sub {
		case "run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "exec", "x", "install", "i", "ci",
			"add", "rebuild", "pack", "publish", "dlx", "create", "init", "update", "up", "link", "ln", "explore", "it", "install-test", "cit":
			return hit(tool + " " + sub)
		}
	case "yarn":
		switch sub {
		case "info", "why", "list", "outdated", "help", "config", "licenses", "owner", "versions":
		default:
			if len(argv) == 2 && (argv[1] == "--version" || argv[1] == "-v") {
				return launchReason{}, false
			}
			return hit("yarn " + sub)
		}
	case "npx", "pnpx", "bunx", "make", "gmake", "bmake", "just", "tox", "nox", "rake", "gradle", "gradlew", "mvn", "mvnw",
		"ant", "ninja", "scons", "invoke", "task", "mage", "earthly", "bazel", "bazelisk", "meson", "pre-commit", "lefthook", "husky":
		return hit(tool)
	case "cargo":
		switch sub {
		case "build", "b", "run", "r", "test", "t", "check", "c", "bench", "install", "clippy", "doc", "d", "fix", "publish", "package", "xtask":
			return hit("cargo " + sub)
		}
	case "go":
		if sub == "generate" {
			return hit("go generate")
		}
	case "uv", "poetry", "pipenv", "hatch", "pdm", "rye", "composer", "bundle":
		switch sub {
		case "run", "exec", "run-script", "install", "sync", "build":
			return hit(tool + " " + sub)
		}
	case "pip", "pip3":
		if sub == "install" {
			return hit(tool + " install")
		}
	case "cmake":
		for _, a := range argv[1:] {
			if a == "--build" || a == "-P" {
				return hit("cmake " + a)
			}
		}
	case "dotnet":
		switch sub {
		case "run", "build", "test", "msbuild", "publish", "pack":
			return hit("dotnet " + sub)
		}
	}
	return launchReason{}, false
}
