package permissions

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/permissions/programs"
)

// Analysis budgets: exceeding any of them
// makes the whole request deny, never ask.
const (
	// MaxScriptBytes is the largest total size, in bytes, of shell text analysed for one request
	// (the top-level line plus every nested -c/eval/watch script).
	MaxScriptBytes = 64 << 10
	// MaxLeaves is the largest number of simple commands (leaves) one request may contain.
	MaxLeaves = 256
	// MaxNesting is the deepest nesting of re-parsed scripts (sh -c inside sh -c, eval),
	// command/process substitutions and subshells.
	MaxNesting = 6
	// MaxWrappers is the longest wrapper chain (timeout nice env …) in front of one command.
	MaxWrappers = 16
)

// finding is one thing the analysis noticed that sets a minimum verdict: a shell construct
// (command substitution, background process, redirect) or a request-level problem.
type finding struct {
	verdict   Verdict
	rule      string // e.g. "construct: command substitution"
	reason    string // one line naming what was found
	construct string // short name for Decision.Constructs ("" = not a construct)
	gate      bool   // recorded by the allow-list gate (gate.go), not by the walk
}

// rawLeaf is a simple command found by the analysis, before rule matching.
type rawLeaf struct {
	argv     []string   // static words; DynamicWord for words only known at run time
	via      []string   // wrapper chain, outermost first
	wrappers [][]string // argv of each wrapper in via (checked against deny/ask rules)
	shell    bool       // runs inside a shell script (shell builtins and functions apply)
	cwd      cwdState   // effective working directory candidates
	notes    []finding  // leaf-specific findings added by the analysis (e.g. "find -exec")
	maybe    bool       // the leaf's position was guessed (e.g. after a dynamic wrapper option)
	confined bool       // it runs confined by the OS sandbox (analyzer.confined)
}

// cwdState is the set of directories a command may run in. A `cd` adds its target (the old
// directory is kept: the cd may fail and later commands still run), so checks made against every
// candidate are conservative. unknown is set after a cd whose target is dynamic.
type cwdState struct {
	dirs    []string
	unknown bool
	// outside is a candidate directory outside the roots that a cd led to ("" = none): a
	// command run there is at least ask (a cd that nothing follows is harmless).
	outside string
}

// union returns the directories of c and d together (a later command may run in either).
func (c cwdState) union(d cwdState) cwdState {
	u := c.with(d.dirs, d.unknown)
	if u.outside == "" {
		u.outside = d.outside
	}
	return u
}

func (c cwdState) with(dirs []string, unknown bool) cwdState {
	out := cwdState{unknown: c.unknown || unknown, outside: c.outside}
	out.dirs = append(out.dirs, c.dirs...)
	for _, d := range dirs {
		dup := false
		for _, e := range out.dirs {
			if e == d {
				dup = true
				break
			}
		}
		if !dup {
			out.dirs = append(out.dirs, d)
		}
	}
	if len(out.dirs) > 8 { // keep the set small; beyond that, later relative paths are unknown
		out.dirs = out.dirs[:8]
		out.unknown = true
	}
	return out
}

// actx is the context a command is analysed in.
type actx struct {
	via      []string
	wrappers [][]string
	depth    int // nesting of re-parsed scripts, substitutions and subshells
	lang     syntax.LangVariant
	// langs are the dialects a script given to script() is read in, strictest wins (a line
	// /bin/sh runs must hold for dash and bash); nil means lang alone.
	langs []syntax.LangVariant
	shell bool // inside a parsed shell script
	maybe bool
	notes []finding // findings every leaf under this context carries (sudo, xargs, find -exec)
}

func (c actx) nest(label string) actx {
	c.depth++
	if label != "" {
		c.via = append(append([]string(nil), c.via...), label)
	}
	return c
}

// withNote returns c with f added to the findings of every leaf analysed under it.
func (c actx) withNote(f finding) actx {
	c.notes = append(append([]finding(nil), c.notes...), f)
	return c
}

func (c actx) wrap(label string, argv []string) actx {
	c.via = append(append([]string(nil), c.via...), label)
	c.wrappers = append(append([][]string(nil), c.wrappers...), argv)
	return c
}

// wv is one analysed word: its static value, or dyn when only the shell can know it.
type wv struct {
	s   string
	dyn bool
}

func (w wv) String() string {
	if w.dyn {
		return DynamicWord
	}
	return w.s
}

func wvStrings(ws []wv) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func staticWords(ss []string) []wv {
	out := make([]wv, len(ss))
	for i, s := range ss {
		out[i] = wv{s: s}
	}
	return out
}

// analyzer walks one request's commands and collects leaves and findings.
type analyzer struct {
	pol   *commandPolicy
	home  string                                // HOME of the child environment (tilde expansion)
	judge func(abs string, write bool) *finding // path check for redirect targets; nil = fine
	// judgeEntry checks removing or moving the directory entry abs itself (a symlink is
	// judged where it is, not by its target); nil = judge(abs, true).
	judgeEntry func(abs string) *finding
	leaves     []*rawLeaf
	notes      []finding
	bytes      int
	over       string // budget overrun ("" = none); makes the decision deny
	cwd        cwdState
	funcs      map[string]bool
	fieldCfg   *expand.Config
	// allexport is set once the script ran set -a / set -o allexport: every later assignment
	// is exported to children.
	allexport bool
	// dedupe counts the leaves found by the first dialect's pass over a script read in several
	// dialects; secondPass is set while a later dialect's pass runs, whose leaves already found
	// are not recorded again (nor counted against MaxLeaves or MaxScriptBytes).
	dedupe     map[string]int
	secondPass bool
	// confined: the commands run confined by the OS sandbox (EngineOptions.Confined or
	// AgentConfined), so an allow rule may cover a program that executes workspace code.
	confined bool
}

func newAnalyzer(pol *commandPolicy, cwd, home string, judge func(string, bool) *finding) *analyzer {
	a := &analyzer{pol: pol, home: home, judge: judge}
	if cwd != "" {
		a.cwd.dirs = []string{cwd}
	} else {
		a.cwd.unknown = true
	}
	env := []string{}
	if home != "" {
		env = append(env, "HOME="+home)
	}
	a.fieldCfg = &expand.Config{Env: expand.ListEnviron(env...)}
	return a
}

func (a *analyzer) note(v Verdict, construct, reason string) {
	a.notes = append(a.notes, finding{verdict: v, rule: "construct: " + construct, reason: reason, construct: construct})
}

func (a *analyzer) overBudget(why string) {
	if a.over == "" {
		a.over = why
	}
}

// langName names a dialect for messages.
func langName(l syntax.LangVariant) string {
	switch l {
	case syntax.LangPOSIX:
		return "POSIX sh"
	case syntax.LangZsh:
		return "zsh"
	case syntax.LangMirBSDKorn:
		return "mksh"
	default:
		return "bash"
	}
}

// controlChar returns the first character in s that a shell and the parser may disagree on:
// C0 controls other than tab and newline, DEL, C1 controls, and invalid UTF-8.
func controlChar(s string) (rune, bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return rune(s[i]), true
		}
		if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			return r, true
		}
		i += n
	}
	return 0, false
}

// script parses src in every dialect that may run it (c.langs, or c.lang alone) and analyses
// every command in it under each: the strictest reading wins. A line that parses in one dialect
// and not in another is at least ask (the shells read it differently); leaves found again by a
// later dialect's pass are not counted twice.
func (a *analyzer) script(src string, c actx) {
	if a.over != "" {
		return
	}
	if !a.secondPass {
		a.bytes += len(src)
	}
	if a.bytes > MaxScriptBytes {
		a.overBudget(fmt.Sprintf("shell text is larger than %d bytes", MaxScriptBytes))
		return
	}
	if c.depth > MaxNesting {
		a.overBudget(fmt.Sprintf("shell nesting is deeper than %d levels", MaxNesting))
		return
	}
	if r, bad := controlChar(src); bad {
		a.note(Ask, "control character", fmt.Sprintf("script contains control character %U; the shell and the parser may split it differently", r))
	}
	langs := c.langs
	if len(langs) == 0 {
		langs = []syntax.LangVariant{c.lang}
	}
	c.langs = nil
	type parsed struct {
		lang syntax.LangVariant
		f    *syntax.File
	}
	var ok []parsed
	var failed []string
	var firstErr error
	for _, l := range langs {
		f, err := parseScript(src, l)
		if err != nil {
			failed = append(failed, langName(l))
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		ok = append(ok, parsed{l, f})
	}
	if len(ok) == 0 {
		a.note(Ask, "unparsable script", fmt.Sprintf("script does not parse as %s (%v); it cannot be analysed", langName(c.lang), firstErr))
		return
	}
	if len(failed) > 0 {
		a.note(Ask, "dialect difference", fmt.Sprintf("script parses as %s but not as %s (%v); the shells that may run it read it differently", langName(ok[0].lang), strings.Join(failed, ", "), firstErr))
	}
	c.shell = true
	outer := a.dedupe == nil && len(ok) > 1
	if outer {
		a.dedupe = map[string]int{}
	}
	savedCwd, savedSecond := a.cwd, a.secondPass
	var after cwdState
	for i, p := range ok {
		cc := c
		cc.lang = p.lang
		a.cwd = savedCwd
		if outer {
			a.secondPass = i > 0
		}
		a.stmts(p.f.Stmts, cc)
		a.gate(p.f, cc)
		if i == 0 {
			after = a.cwd
		} else {
			after = after.union(a.cwd)
		}
	}
	a.cwd = after
	a.secondPass = savedSecond
	if outer {
		a.dedupe = nil
	}
}

// parseScript parses src as lang, keeping comments. A comment that ends in a backslash is
// read by mvdan.cc/sh as continuing onto the next line, which no shell does: such a backslash
// is replaced by a space before parsing again, so the next line is analysed as the shell runs
// it (the gate still asks about the comment).
func parseScript(src string, lang syntax.LangVariant) (*syntax.File, error) {
	for tries := 0; ; tries++ {
		f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
		if err != nil || tries > 16 {
			return f, err
		}
		fixed := src
		syntax.Walk(f, func(n syntax.Node) bool {
			cm, ok := n.(*syntax.Comment)
			if !ok {
				return true
			}
			// The parser's comment text runs to the end of the line it believes in: it ends
			// in "\\\n" when it swallowed the newline.
			end := -1
			switch {
			case strings.HasSuffix(cm.Text, "\\\n"):
				end = int(cm.Hash.Offset()) + 1 + len(cm.Text) - 2
			case strings.HasSuffix(cm.Text, "\\"):
				end = int(cm.Hash.Offset()) + 1 + len(cm.Text) - 1
			}
			if end >= 0 && end < len(fixed) && fixed[end] == '\\' {
				fixed = fixed[:end] + " " + fixed[end+1:]
			}
			return true
		})
		if fixed == src {
			return f, nil
		}
		src = fixed
	}
}

// stmts analyses a list of statements run one after the other (; or newlines): each one starts
// in any directory the one before may have left the shell in, whether it succeeded or failed.
func (a *analyzer) stmts(list []*syntax.Stmt, c actx) {
	for _, s := range list {
		if a.over != "" {
			return
		}
		fail := a.stmt(s, c)
		a.cwd = a.cwd.union(fail)
	}
}

// stmt analyses one statement. On return a.cwd holds the directories the shell may be in when
// the statement succeeded, and the result those when it failed; `cd sub && make && cd ..` is
// followed exactly (the commands after a cd run only where it succeeded).
func (a *analyzer) stmt(s *syntax.Stmt, c actx) cwdState {
	if s == nil {
		return a.cwd
	}
	entry := a.cwd
	if s.Background || s.Disown {
		a.note(Ask, "background process", "a command runs in the background (&) and may outlive the terminal")
	}
	if s.Coprocess {
		a.note(Ask, "coprocess", "a coprocess (|&) runs in the background")
	}
	for _, r := range s.Redirs {
		a.redirect(r, c)
	}
	fail := a.command(s.Cmd, c)
	if s.Negated {
		succ := a.cwd
		a.cwd, fail = fail, succ
	}
	if s.Background || s.Coprocess {
		// A background job runs in a subshell: its cd does not move this shell.
		a.cwd = entry
		return entry
	}
	return fail
}

// command analyses one command and returns the directories the shell may be in when it failed
// (a.cwd holds those after success).
func (a *analyzer) command(cmd syntax.Command, c actx) cwdState {
	entry := a.cwd
	switch x := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		// Prefix assignments reach the command's environment; before a builtin that starts
		// no child (IFS= read -r l) they do not.
		exported := len(x.Args) > 0
		if len(x.Args) > 0 {
			if s, ok := a.static(x.Args[0], c); ok && c.shell {
				if _, builtin := allowedBuiltins[s]; builtin && s != "command" {
					exported = false
				}
			}
		}
		for _, as := range x.Assigns {
			a.assign(as, c, exported)
		}
		if len(x.Args) == 0 {
			return entry
		}
		a.setOptions(x.Args, c)
		a.run(a.words(x.Args, c), c)
		return entry // a failed cd leaves the directory as it was
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.AndStmt:
			failX := a.stmt(x.X, c)
			failY := a.stmt(x.Y, c)
			return failX.union(failY)
		case syntax.OrStmt:
			failX := a.stmt(x.X, c)
			succX := a.cwd
			a.cwd = failX
			failY := a.stmt(x.Y, c)
			a.cwd = succX.union(a.cwd)
			return failY
		default:
			// Pipeline elements run in subshells (in zsh the last one runs in this shell).
			a.stmt(x.X, c)
			a.cwd = entry
			fail := a.stmt(x.Y, c)
			if c.lang == syntax.LangZsh {
				a.cwd = entry.union(a.cwd).union(fail)
			} else {
				a.cwd = entry
			}
			return a.cwd
		}
	case *syntax.Block:
		a.stmts(x.Stmts, c)
		return a.cwd
	case *syntax.Subshell:
		a.stmts(x.Stmts, a.deeper(c, ""))
		a.cwd = entry
		return entry
	default:
		a.compound(cmd, c)
		after := entry.union(a.cwd)
		switch cmd.(type) {
		case *syntax.WhileClause, *syntax.ForClause:
			if len(after.dirs) != len(entry.dirs) {
				after.unknown = true // a cd repeated by the loop may go anywhere
			}
		}
		a.cwd = after
		return a.cwd
	}
	return entry
}

// compound analyses the commands inside a compound command other than a list, pipeline, group
// or subshell (if, loops, case, functions, [[ ]], declarations …); the directory after it is
// taken as any the commands inside may leave.
func (a *analyzer) compound(cmd syntax.Command, c actx) {
	switch x := cmd.(type) {
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			a.stmts(ic.Cond, c)
			a.stmts(ic.Then, c)
		}
	case *syntax.WhileClause:
		a.stmts(x.Cond, c)
		a.stmts(x.Do, c)
	case *syntax.ForClause:
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				a.varName(l.Name.Value, "for loop variable")
			}
			for _, w := range l.Items {
				a.scan(w, c)
			}
		case *syntax.CStyleLoop:
			a.arith(l.Init, c)
			a.arith(l.Cond, c)
			a.arith(l.Post, c)
		}
		a.stmts(x.Do, c)
	case *syntax.CaseClause:
		a.scan(x.Word, c)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				a.scan(p, c)
			}
			a.stmts(it.Stmts, c)
		}
	case *syntax.FuncDecl:
		names := []string{}
		if x.Name != nil {
			names = append(names, x.Name.Value)
		}
		for _, n := range x.Names {
			names = append(names, n.Value)
		}
		if a.funcs == nil {
			a.funcs = map[string]bool{}
		}
		for _, n := range names {
			a.funcs[n] = true
		}
		a.note(Ask, "function definition", fmt.Sprintf("defines shell function %s, which shadows a command name; its body is analysed", strings.Join(names, ", ")))
		a.stmt(x.Body, c)
	case *syntax.ArithmCmd:
		a.arith(x.X, c)
	case *syntax.LetClause:
		a.note(Ask, "arithmetic evaluation", "let evaluates arithmetic, which can run commands through array subscripts")
		for _, e := range x.Exprs {
			a.scan(e, c)
		}
	case *syntax.TestClause:
		a.test(x.X, c)
	case *syntax.DeclClause:
		a.decl(x, c)
	case *syntax.TimeClause:
		a.stmt(x.Stmt, c)
	case *syntax.CoprocClause:
		a.note(Ask, "coprocess", "coproc runs a command in the background")
		a.stmt(x.Stmt, c)
	case *syntax.TestDecl:
		a.note(Ask, "test declaration", "bats @test blocks are not run by a plain shell")
		a.stmt(x.Body, c)
	default:
		a.note(Ask, "unknown construct", fmt.Sprintf("shell construct %T is not analysed", cmd))
	}
}

// deeper returns c one nesting level down, or records a budget overrun.
func (a *analyzer) deeper(c actx, label string) actx {
	c = c.nest(label)
	if c.depth > MaxNesting {
		a.overBudget(fmt.Sprintf("shell nesting is deeper than %d levels", MaxNesting))
	}
	return c
}

// assign checks one assignment: its name against the env deny list, its value for substitutions.
func (a *analyzer) assign(as *syntax.Assign, c actx, exported bool) {
	if as.Name != nil {
		v, known := "", as.Value == nil
		if as.Value != nil {
			v, known = a.static(as.Value, c)
		}
		a.envValue(as.Name.Value, v, known && as.Index == nil && !as.Append && as.Array == nil, "assignment", exported)
		if as.Index != nil {
			a.arith(as.Index, c)
		}
	} else if as.Naked && as.Value != nil {
		// declare "$x": the word itself may expand to NAME=VALUE or an option.
		if s, ok := a.static(as.Value, c); ok {
			if i := strings.IndexByte(s, '='); i > 0 {
				a.varName(s[:i], "assignment")
				a.exportName(s[:i], exported)
			} else if !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "+") {
				a.varName(s, "declaration")
				a.exportName(s, exported)
			}
		} else {
			a.note(Ask, "dynamic declaration", "a declare/export argument is only known at run time")
		}
	}
	if as.Value != nil {
		a.scan(as.Value, c)
	}
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				a.arith(el.Index, c)
			}
			if el.Value != nil {
				a.scan(el.Value, c)
			}
		}
	}
}

// exportName applies the agent-env rule to a variable a script hands to a child process: a
// name that is neither on the env deny list (varName denies those) nor on the allow list is
// at least ask. A variable reaches a child when it is exported (VAR=x cmd, export, declare -x,
// any assignment after set -a) or when it is already in the child's base environment (HOME,
// TMPDIR, GOCACHE …: assigning an inherited variable changes what children see). Plain shell
// variables used only for expansion stay fine. IFS is exempt (see varName).
func (a *analyzer) exportName(name string, exported bool) {
	if name == "IFS" || !validEnvName(name) {
		return
	}
	if !exported && !a.allexport && !slices.Contains(baseEnvNames, name) {
		return
	}
	if _, ok := a.pol.env.denied(name); ok {
		return // varName already denies it
	}
	if _, ok := a.pol.env.allowed(name); ok {
		return
	}
	a.notes = append(a.notes, finding{
		verdict:   Ask,
		rule:      "env: not allowed",
		reason:    fmt.Sprintf("script passes %s to a child process, which is not on the env allow list ([policy.env] allow)", name),
		construct: "exports " + name,
	})
}

// setOptions notices `set -a` / `set -o allexport` (every later assignment is exported).
func (a *analyzer) setOptions(args []*syntax.Word, c actx) {
	if s, ok := a.static(args[0], c); !ok || s != "set" {
		return
	}
	for i := 1; i < len(args); i++ {
		s, ok := a.static(args[i], c)
		if !ok {
			a.allexport = true // set "$x" may be -a
			continue
		}
		if len(s) > 1 && s[0] == '-' && s[1] != '-' && s[1] != 'o' && strings.Contains(s, "a") {
			a.allexport = true
		}
		if (s == "-o" || s == "-ao" || strings.HasPrefix(s, "-") && strings.HasSuffix(s, "o")) && i+1 < len(args) {
			if v, ok := a.static(args[i+1], c); !ok || v == "allexport" {
				a.allexport = true
			}
		}
	}
}

// varName denies setting a variable that is on the env deny list inside a script: PATH=… git,
// export LD_PRELOAD=…, read PATH (the same variables by another route). IFS is exempt: assigning it only
// changes how unquoted expansions split, and those words are dynamic anyway.
func (a *analyzer) varName(name, what string) {
	if name == "IFS" {
		return
	}
	if pat, ok := a.pol.env.denied(name); ok {
		a.notes = append(a.notes, finding{
			verdict:   Deny,
			rule:      "env deny: " + pat,
			reason:    fmt.Sprintf("script sets %s (%s), which is on the env deny list (%s)", name, what, pat),
			construct: "sets " + name,
		})
	}
}

func (a *analyzer) decl(x *syntax.DeclClause, c actx) {
	nameref := x.Variant != nil && x.Variant.Value == "nameref"
	exported := false
	if x.Variant != nil && x.Variant.Value == "export" {
		exported = true
	}
	for _, as := range x.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if s, ok := a.static(as.Value, c); ok && len(s) > 1 && s[0] == '-' {
				if strings.Contains(s, "x") {
					exported = true // declare -x, typeset -x
				}
				if x.Variant != nil && x.Variant.Value == "export" && strings.Contains(s, "n") {
					exported = false // export -n unexports
				}
			}
		}
	}
	for _, as := range x.Args {
		a.assign(as, c, exported)
		if as.Naked && as.Name == nil && as.Value != nil {
			if s, ok := a.static(as.Value, c); ok && strings.HasPrefix(s, "-") && strings.Contains(s, "n") {
				nameref = true
			}
		}
		if as.Index != nil {
			a.arith(as.Index, c)
		}
	}
	if nameref {
		a.note(Ask, "nameref", "declare -n makes a name refer to another variable, so later assignments can set any variable")
	}
}

// hasNameref reports a -n option (alone or in a cluster) among declaration arguments.
func hasNameref(ws []wv) bool {
	for _, w := range ws {
		if !w.dyn && len(w.s) > 1 && w.s[0] == '-' && !strings.Contains(w.s, "=") && strings.Contains(w.s, "n") {
			return true
		}
	}
	return false
}

// subscript flags a variable name with an array subscript (read 'a[i]', printf -v 'a[$x]'):
// bash evaluates the subscript as arithmetic, which can run commands. Number subscripts are fine.
func (a *analyzer) subscript(s, what string) {
	i := strings.IndexByte(s, '[')
	if i <= 0 {
		return
	}
	j := strings.IndexByte(s[i:], ']')
	if j > 0 && isDigits(s[i+1:i+j]) {
		return
	}
	a.note(Ask, "arithmetic evaluation", what+" "+s+": the array subscript is evaluated as arithmetic, which can run commands")
}

// test analyses a [[ ]] expression: substitutions inside run, and arithmetic comparisons or
// -v on non-literal operands evaluate array subscripts, which can run commands.
func (a *analyzer) test(e syntax.TestExpr, c actx) {
	switch x := e.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !a.numericTest(x.X) || !a.numericTest(x.Y) {
				a.note(Ask, "arithmetic evaluation", "[[ … -eq … ]] evaluates its operands as arithmetic, which can run commands through array subscripts")
			}
		}
		a.test(x.X, c)
		a.test(x.Y, c)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			a.note(Ask, "arithmetic evaluation", "[[ -v … ]] evaluates array subscripts, which can run commands")
		}
		a.test(x.X, c)
	case *syntax.ParenTest:
		a.test(x.X, c)
	case *syntax.Word:
		a.scan(x, c)
	}
}

func (a *analyzer) numericTest(e syntax.TestExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	lit := w.Lit()
	if lit == "" {
		return false
	}
	for _, r := range lit {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// arith analyses an arithmetic expression. Arithmetic on anything but number literals is at least
// ask: bash evaluates variable values recursively and array subscripts inside them can run
// commands (x='a[$(id)]'; echo $((x))).
func (a *analyzer) arith(e syntax.ArithmExpr, c actx) {
	if e == nil {
		return
	}
	if !arithLiteral(e) {
		a.note(Ask, "arithmetic evaluation", "arithmetic on variables can run commands through array subscripts")
	}
	a.scan(e, c)
}

func arithLiteral(e syntax.ArithmExpr) bool {
	ok := true
	syntax.Walk(e, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			lit := x.Lit()
			if lit == "" {
				ok = false
				return false
			}
			for _, r := range lit {
				if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == 'x' || r == 'X' || r == '#') {
					ok = false
				}
			}
			if lit[0] < '0' || lit[0] > '9' {
				ok = false
			}
			return false
		}
		return ok
	})
	return ok
}

// scan walks a node (word, expression) for the parts that run code or are evaluated: command
// and process substitutions (analysed as nested scripts), arithmetic, and parameter
// expansions that evaluate (${x@P}, zsh ${(e)x}, subscripts).
func (a *analyzer) scan(n syntax.Node, c actx) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		if a.over != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst:
			name := "$(…)"
			if x.Backquotes {
				name = "`…`"
			}
			// The commands inside are leaves of their own; the output only becomes words,
			// which are dynamic: a dynamic program name, a dynamic argument to a tool with
			// program-launching options or a dynamic redirect target is at least ask. So the
			// substitution itself does not raise the verdict (the issue lists "substitution as
			// a program name", not every substitution).
			a.notes = append(a.notes, finding{verdict: Allow, rule: "construct: command substitution", reason: "command substitution " + name, construct: "command substitution"})
			a.stmts(x.Stmts, a.deeper(c, name))
			return false
		case *syntax.ProcSubst:
			a.notes = append(a.notes, finding{verdict: Allow, rule: "construct: process substitution", reason: "process substitution <(…)/>(…)", construct: "process substitution"})
			a.stmts(x.Stmts, a.deeper(c, "<(…)"))
			return false
		case *syntax.ArithmExp:
			if !arithLiteral(x.X) {
				a.note(Ask, "arithmetic evaluation", "arithmetic expansion on variables can run commands through array subscripts")
			}
		case *syntax.ParamExp:
			a.param(x)
		}
		return true
	})
}

func (a *analyzer) param(x *syntax.ParamExp) {
	if x.Excl && x.Names == 0 {
		a.note(Ask, "indirect expansion", "${!var} expands the variable named by var's value, whose array subscript can run commands")
	}
	if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.ContainsAny(x.Exp.Word.Lit(), "P") {
		a.note(Ask, "prompt expansion", "${var@P} expands the value like a prompt, which runs command substitutions in it")
	}
	if x.Flags != nil && strings.ContainsAny(x.Flags.Value, "e") {
		a.note(Ask, "eval expansion", "zsh ${(e)…} evaluates the value, which runs command substitutions in it")
	}
	if x.Index != nil {
		if w, ok := x.Index.(*syntax.Word); ok {
			switch lit := w.Lit(); {
			case lit == "@" || lit == "*":
				return
			case lit != "" && arithLiteral(w):
				return
			}
			if len(w.Parts) == 1 {
				switch w.Parts[0].(type) {
				case *syntax.SglQuoted:
					return
				}
			}
		}
		a.note(Ask, "arithmetic evaluation", "an array subscript is evaluated as arithmetic, which can run commands")
	}
	if x.Slice != nil {
		if (x.Slice.Offset != nil && !arithLiteral(x.Slice.Offset)) || (x.Slice.Length != nil && !arithLiteral(x.Slice.Length)) {
			a.note(Ask, "arithmetic evaluation", "a ${var:offset:length} slice is evaluated as arithmetic, which can run commands")
		}
	}
}

// words analyses the words of a simple command: substitutions are walked, and each word gets its
// static value (after quote removal, like the shell) or is marked dynamic.
func (a *analyzer) words(ws []*syntax.Word, c actx) []wv {
	out := make([]wv, 0, len(ws))
	for _, w := range ws {
		a.scan(w, c)
		if c.lang == syntax.LangZsh {
			for _, p := range w.Parts {
				if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "(") {
					a.note(Ask, "zsh glob qualifier", "zsh glob qualifiers such as *(e:…:) run code while expanding "+l.Value)
					break
				}
			}
		}
		if s, ok := a.static(w, c); ok {
			out = append(out, wv{s: s})
		} else {
			out = append(out, wv{dyn: true})
		}
	}
	return out
}

// static returns the value of w after the shell's expansions when it is known without running
// anything: exactly one field with no parameter, command, arithmetic or process expansion, no
// unquoted glob characters, no brace expansion and at most a leading ~ or ~/.
// Quote and backslash removal use expand.Fields, which matches bash (`\rm` → rm, `-\exec` → -exec).
func (a *analyzer) static(w *syntax.Word, c actx) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	if len(w.Parts) == 1 {
		// Fast paths for the common plain words; expand.Fields gives the same result.
		switch x := w.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(x.Value, "\\*?[{~=") {
				return x.Value, true
			}
		case *syntax.SglQuoted:
			if !x.Dollar {
				return x.Value, true
			}
		}
	}
	for i, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if unquotedGlob(x.Value) {
				return "", false
			}
			if strings.Contains(x.Value, "\\\n") {
				// The parser (mvdan.cc/sh v3.14) keeps a backslash-newline that follows an
				// escaped backslash (`\\\<newline>`) where the shell removes it as a line
				// continuation: the word's value is not known for sure (fuzz: FuzzAnalyze).
				return "", false
			}
			if i == 0 && strings.HasPrefix(x.Value, "~") {
				// Only ~ and ~/… expand to the (policy-built) HOME; ~user, ~+, ~- are dynamic.
				rest := x.Value[1:]
				if (rest != "" && rest[0] != '/') || (rest == "" && len(w.Parts) > 1) || a.home == "" {
					return "", false
				}
			}
			if i == 0 && c.lang == syntax.LangZsh && strings.HasPrefix(x.Value, "=") {
				return "", false // zsh =cmd expands to a path
			}
			if c.lang != syntax.LangPOSIX && strings.Contains(x.Value, "~") && wordHasEquals(w) {
				return "", false // bash expands ~ after = in words that look like assignments (a=~/x)
			}

		case *syntax.SglQuoted:
			if x.Dollar && (c.lang == syntax.LangPOSIX || !dollarQuoteSimple(x.Value)) {
				return "", false // dash has no $'…': it runs a literal $ followed by the string
			}
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); !ok || strings.Contains(l.Value, "\\\n") {
					return "", false // see the backslash-newline note above
				}
			}
		default:
			return "", false
		}
	}
	if c.lang != syntax.LangPOSIX && hasBraceExp(w) {
		return "", false // bash/zsh/ksh split {a,b} and {1..3} into several words (POSIX sh does not)
	}
	fields, err := expand.Fields(a.fieldCfg, w)
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

// dollarQuoteSimple reports whether the body of a $'…' string uses only escapes whose meaning
// the parser and bash agree on: \\ \' \" \? \a \b \e \E \f \n \r \t \v, \xH[H] and octal
// \N[N[N]] with a non-zero value up to \377. Anything else (\c, \u, \U, NUL, octal overflow
// such as \700, where bash keeps the low byte and the parser does not) makes the word dynamic.
func dollarQuoteSimple(s string) bool {
	isOct := func(c byte) bool { return c >= '0' && c <= '7' }
	hexVal := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10
		}
		return -1
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		if i >= len(s) {
			return false
		}
		switch c := s[i]; {
		case strings.IndexByte(`\'"?abeEfnrtv`, c) >= 0:
		case c == 'x':
			j, v := i+1, 0
			for j < len(s) && j < i+3 && hexVal(s[j]) >= 0 {
				v = v*16 + hexVal(s[j])
				j++
			}
			if j == i+1 || v == 0 || (j < len(s) && hexVal(s[j]) >= 0) {
				return false // \x with more hex digits after it: implementations differ
			}
			i = j - 1
		case isOct(c):
			j, v := i, 0
			for j < len(s) && j < i+3 && isOct(s[j]) {
				v = v*8 + int(s[j]-'0')
				j++
			}
			if v == 0 || v > 0o377 || (j < len(s) && s[j] >= '0' && s[j] <= '9') {
				return false // NUL, overflow, or digits right after (\18): implementations differ
			}
			i = j - 1
		default:
			return false
		}
	}
	return true
}

// hasBraceExp reports whether w holds a brace expansion ({a,b}, {1..3}, also across quoted
// parts as in {a,'b'}); w itself is not modified.
func hasBraceExp(w *syntax.Word) bool {
	found := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			found = true
		}
	}
	if !found {
		return false
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	syntax.SplitBraces(cp)
	for _, p := range cp.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	// bash's own rules differ from the parser's in corners ("}{},}" expands: a "}" right
	// after "{" is literal there): anything with an unquoted "{" followed later by "," or ".."
	// and then "}" in the word's unquoted text counts as a brace expansion (fuzz: FuzzAnalyze).
	var lit strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			lit.WriteByte(0) // quoted or expanded: not a brace character
			continue
		}
		for i := 0; i < len(l.Value); i++ {
			if l.Value[i] == '\\' { // an escaped character is literal
				lit.WriteByte(0)
				i++
				continue
			}
			lit.WriteByte(l.Value[i])
		}
	}
	s := lit.String()
	if i := strings.IndexByte(s, '{'); i >= 0 {
		rest := s[i+1:]
		if j := strings.LastIndexByte(rest, '}'); j >= 0 && (strings.Contains(rest[:j], ",") || strings.Contains(rest[:j], "..")) {
			return true
		}
	}
	return false
}

// wordHasEquals reports an unquoted '=' in one of w's literal parts.
func wordHasEquals(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "=") {
			return true
		}
	}
	return false
}

// unquotedGlob reports an unescaped * ? or [ in an unquoted literal.
func unquotedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket expression needs a closing ] later in the word; a lone [ (as in
			// `[ -d x ]`) is literal.
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// redirect checks one redirection: here-documents are scanned for substitutions; file targets
// are checked like file accesses: a static target inside a root and not
// protected is fine, outside the roots or protected is deny, a dynamic target is ask.
func (a *analyzer) redirect(r *syntax.Redirect, c actx) {
	if r.Hdoc != nil {
		a.scan(r.Hdoc, c)
	}
	if r.Word == nil {
		return
	}
	a.scan(r.Word, c)
	write := true
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.RdrIn:
		write = false
	case syntax.DplIn, syntax.DplOut:
		s, ok := a.static(r.Word, c)
		if ok && (s == "-" || isDigits(s) || isDigits(strings.TrimSuffix(s, "-"))) {
			return // fd duplication, move (N-) or close
		}
		if r.Op == syntax.DplIn {
			write = false
		}
	}
	s, ok := a.static(r.Word, c)
	if !ok {
		a.note(Ask, "dynamic redirect", fmt.Sprintf("redirect %s to a target only known at run time", r.Op))
		return
	}
	a.checkRedirect(s, write, "redirect "+r.Op.String()+" "+s)
}

// checkPath resolves a path used by a command (redirect target, time -o FILE, a writer's
// operand) against every candidate cwd and records a finding when it is not fine. The path is
// judged physically, as the kernel will open it (symlinks followed before a later ".."), and it
// must lead to a regular file or /dev/null: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N
// and /proc/… re-open whatever file sits behind a descriptor (for writing, too), and other
// devices, FIFOs and directories are not files whose contents the policy can judge.
func (a *analyzer) checkPath(p string, write bool, what string) {
	a.checkTarget(p, write, false, what)
}

// checkRedirect is checkPath for a redirect target, which must also be a regular file (or one
// still to be created) or /dev/null.
func (a *analyzer) checkRedirect(p string, write bool, what string) {
	a.checkTarget(p, write, true, what)
}

func (a *analyzer) checkTarget(p string, write, redirect bool, what string) {
	if p == "/dev/null" {
		return
	}
	var abs []string
	if filepath.IsAbs(p) {
		abs = []string{p}
	} else {
		if a.cwd.unknown {
			a.note(Ask, "unknown directory", what+": relative to a directory only known at run time")
		}
		for _, d := range a.cwd.dirs {
			abs = append(abs, d+"/"+p)
		}
	}
	for _, q := range abs {
		if why := specialTarget(a.pol.fs, q, redirect); why != "" {
			a.notes = append(a.notes, finding{verdict: Ask, rule: "construct: special file", reason: what + ": " + why, construct: "special file target"})
			continue
		}
		if a.judge == nil {
			continue
		}
		if f := a.judge(q, write); f != nil {
			f.reason = what + ": " + f.reason
			a.notes = append(a.notes, *f)
		}
	}
}

// specialTarget says why the absolute path p, resolved physically, is a descriptor alias or a
// path under /proc, /dev (but /dev/null) or /sys, or, for a redirect target, not a regular file
// (or one still to be created); "" when it is fine.
func specialTarget(v fsView, p string, redirect bool) string {
	clean := filepath.Clean(p)
	switch {
	case clean == "/dev/stdin" || clean == "/dev/stdout" || clean == "/dev/stderr" || strings.HasPrefix(clean, "/dev/fd/") || clean == "/dev/fd":
		return clean + " re-opens whatever file sits behind a file descriptor"
	}
	real, err := v.realPath(p)
	if err != nil {
		return "cannot be resolved: " + err.Error()
	}
	if real == "/dev/null" {
		return ""
	}
	for _, dir := range []string{"/proc", "/dev", "/sys"} {
		if within(dir, real) {
			return real + " is under " + dir + ", not a regular file"
		}
	}
	if st, err := v.stat(real); err == nil && redirect && !st.Mode().IsRegular() {
		return real + " is not a regular file (" + fileType(st.Mode()) + ")"
	}
	return ""
}

// checkEntry is checkPath for a directory entry that is removed or moved as such (rm, unlink,
// mv's sources): judgeEntry judges a symbolic link by its own location, not by its target.
func (a *analyzer) checkEntry(p, what string) {
	if a.judgeEntry == nil {
		a.checkPath(p, true, what)
		return
	}
	saved := a.judge
	a.judge = func(abs string, _ bool) *finding { return a.judgeEntry(abs) }
	a.checkPath(p, true, what)
	a.judge = saved
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// run analyses one command given as words: shell builtins, wrappers and shells are peeled and
// their inner commands analysed; anything else becomes a leaf.
func (a *analyzer) run(words []wv, c actx) {
	if a.over != "" || len(words) == 0 {
		return
	}
	if len(c.wrappers) > MaxWrappers {
		a.overBudget(fmt.Sprintf("more than %d wrappers in front of one command", MaxWrappers))
		return
	}
	h := words[0]
	if h.dyn {
		a.leaf(words, c)
		return
	}
	name := h.s
	base := path.Base(name)
	var w wrapperFunc
	spec, isWrapper := wrapperSpecs[base]
	if isWrapper {
		w = wrapperFor(spec)
		isWrapper = w != nil
	}
	d, isShell := shellDialects[base]
	if (isWrapper || isShell) && strings.Contains(name, "/") && a.pol.workspaceProgram(name, a.cwd) {
		a.leaf(words, c) // a workspace executable named like a wrapper is not that wrapper
		return
	}
	if c.shell && !strings.Contains(name, "/") {
		if a.funcs[name] {
			// Calls a function defined in the script (its body was analysed at the definition).
			a.leaf(words, c, finding{verdict: Ask, rule: "construct: function call", reason: "calls shell function " + name + " defined in the script", construct: "function call"})
			return
		}
		gateWhy := ""
		if shellBuiltinNames[name] || (c.lang == syntax.LangZsh && zshBuiltinNames[name]) {
			if why, ok := builtinOK(words); !ok {
				gateWhy = why
			}
		}
		handled := a.builtin(name, words, c)
		if gateWhy != "" {
			a.gateNote("builtin "+name, gateWhy) // after the walk's own, more specific findings
		}
		if handled {
			return
		}
	}
	if isWrapper {
		w(a, words, c)
		return
	}
	if isShell {
		a.shellCmd(words, d, c)
		return
	}
	a.leaf(words, c)
}

// leaf records a simple command.
func (a *analyzer) leaf(words []wv, c actx, notes ...finding) *rawLeaf {
	if a.dedupe != nil {
		key := strings.Join(wvStrings(words), "\x00") + "\x01" + strings.Join(c.via, "\x00") + "\x01" + strings.Join(a.cwd.dirs, "\x00")
		if a.secondPass {
			if a.dedupe[key] > 0 {
				a.dedupe[key]--
				return &rawLeaf{argv: wvStrings(words), cwd: a.cwd}
			}
		} else {
			a.dedupe[key]++
		}
	}
	if len(a.leaves) >= MaxLeaves {
		a.overBudget(fmt.Sprintf("more than %d simple commands", MaxLeaves))
		return &rawLeaf{}
	}
	all := append(append([]finding(nil), c.notes...), notes...)
	if a.cwd.outside != "" {
		all = append(all, finding{verdict: Ask, rule: "construct: cd outside roots", reason: "runs after a cd to " + a.cwd.outside + ", which is outside the roots", construct: "cd outside roots"})
	}
	l := &rawLeaf{argv: wvStrings(words), via: c.via, wrappers: c.wrappers, shell: c.shell, cwd: a.cwd, notes: all, maybe: c.maybe, confined: a.confined}
	a.leaves = append(a.leaves, l)
	a.writeTargets(words)
	for _, w := range c.wrappers {
		if len(w) > 0 && path.Base(w[0]) == "nohup" {
			// nohup appends the command's output to ./nohup.out when its output is a terminal
			// (always, in a pane): a write no rule for the command approved.
			a.checkWriterTargets("nohup", []string{"nohup.out"}, nil, true)
		}
	}
	return l
}

// builtin handles shell builtins that change how later commands are analysed (cd, eval, source,
// exec, command, trap, read …). It reports whether words were fully handled.
func (a *analyzer) builtin(name string, words []wv, c actx) bool {
	switch name {
	case "cd", "pushd", "chdir":
		a.leaf(words, c)
		a.cd(words[1:])
		return true
	case "popd":
		a.leaf(words, c)
		a.cwd.unknown = true
		return true
	case "eval":
		a.note(Ask, "eval", "eval runs a string as shell code")
		var parts []string
		for _, w := range words[1:] {
			if w.dyn {
				a.note(Ask, "eval", "eval of a string only known at run time cannot be analysed")
				return true
			}
			parts = append(parts, w.s)
		}
		a.script(strings.Join(parts, " "), a.deeper(c, "eval"))
		return true
	case "trap":
		// trap [-lp] [[ACTION] SIGNAL…]: ACTION is shell code run later.
		args := words[1:]
		if len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" && args[0].s != "--" {
			a.leaf(words, c)
			return true
		}
		if len(args) > 0 && !args[0].dyn && args[0].s == "--" {
			args = args[1:]
		}
		if len(args) >= 2 {
			a.note(Ask, "trap", "trap installs shell code that runs on a signal or exit")
			if args[0].dyn {
				a.note(Ask, "trap", "trap action only known at run time cannot be analysed")
			} else if args[0].s != "-" && args[0].s != "" {
				a.script(args[0].s, a.deeper(c, "trap"))
			}
			return true
		}
		a.leaf(words, c)
		return true
	case "exec":
		inner := peelOptions(words, wrapSpec{Value: "a"})
		if inner.dyn >= 0 {
			a.dynWrapper(words, inner.dyn, c)
			return true
		}
		if _, ok := inner.opt("-c"); ok {
			a.note(Ask, "exec -c", "exec -c runs the command without the environment acpterm built (which sets git's safe.bareRepository=explicit)")
		}
		if inner.cmd >= len(words) {
			return true // exec with only redirects
		}
		a.run(words[inner.cmd:], c.wrap("exec", wvStrings(words[:inner.cmd])))
		return true
	case "command":
		inner := peelOptions(words, wrapSpec{})
		if inner.dyn >= 0 {
			a.dynWrapper(words, inner.dyn, c)
			return true
		}
		for _, w := range words[1:inner.cmd] {
			if w.s == "-v" || w.s == "-V" || (strings.HasPrefix(w.s, "-") && strings.ContainsAny(w.s, "vV")) {
				a.leaf(words, c) // command -v NAME only looks a name up
				return true
			}
		}
		if inner.cmd >= len(words) {
			a.leaf(words, c)
			return true
		}
		inC := c.wrap("command", wvStrings(words[:inner.cmd]))
		inC.shell = false // command skips functions (builtins still apply, but none are special)
		a.run(words[inner.cmd:], inC)
		return true
	case "builtin":
		if len(words) > 1 {
			a.run(words[1:], c.wrap("builtin", []string{"builtin"}))
		}
		return true
	case "source", ".":
		a.leaf(words, c, finding{verdict: Ask, rule: "construct: source", reason: name + " runs a script file in this shell; its content is not analysed", construct: "source"})
		return true
	case "export", "readonly", "local", "declare", "typeset", "nameref":
		for _, w := range words[1:] {
			if w.dyn {
				a.note(Ask, "dynamic declaration", name+" with an argument only known at run time")
				continue
			}
			if strings.HasPrefix(w.s, "-") || strings.HasPrefix(w.s, "+") {
				continue
			}
			n := w.s
			if i := strings.IndexByte(n, '='); i >= 0 {
				n = n[:i]
			}
			n = strings.TrimSuffix(n, "+")
			if i := strings.IndexByte(n, '['); i >= 0 {
				n = n[:i]
			}
			a.varName(n, name)
			a.subscript(w.s, name)
		}
		if name == "nameref" || hasNameref(words[1:]) {
			a.note(Ask, "nameref", name+" -n makes a name refer to another variable, so later assignments can set any variable")
		}
		a.leaf(words, c)
		return true
	case "read", "mapfile", "readarray", "getopts", "unset":
		for _, w := range words[1:] {
			if !w.dyn {
				a.varName(w.s, name)
				a.subscript(w.s, name)
			}
		}
		a.leaf(words, c)
		return true
	case "printf":
		for i := 1; i+1 < len(words); i++ {
			if !words[i].dyn && words[i].s == "-v" && !words[i+1].dyn {
				a.varName(words[i+1].s, "printf -v")
				a.subscript(words[i+1].s, "printf -v")
			}
		}
		a.leaf(words, c)
		return true
	case "alias":
		// alias NAME=VALUE changes what a later command word runs (dash expands aliases in
		// scripts); the value is analysed as code.
		a.note(Ask, "alias", "alias definitions change what later commands run")
		for _, w := range words[1:] {
			if w.dyn {
				continue
			}
			if i := strings.IndexByte(w.s, '='); i > 0 {
				a.script(w.s[i+1:], a.deeper(c, "alias"))
			}
		}
		a.leaf(words, c)
		return true
	}
	return false
}

// cd sets the directories the shell is in after a successful cd/pushd to args' target (the
// caller keeps the old ones for when it fails). A relative target is taken from every candidate
// directory the way cd -L does (lexically, then made real); cd -P resolves it physically. A
// target outside the roots, a target only known at run time, cd -, cd +N/-N (directory stack)
// and cd with no target (HOME) are at least ask: later relative paths would be judged from a
// directory the analysis cannot vouch for.
func (a *analyzer) cd(args []wv) {
	var target *wv
	physical := false
	for i := range args {
		w := args[i]
		if !w.dyn && len(w.s) > 1 && w.s[0] == '-' && strings.Trim(w.s[1:], "LPe@") == "" {
			physical = physical || strings.ContainsRune(w.s, 'P')
			continue
		}
		if !w.dyn && w.s == "--" {
			if i+1 < len(args) {
				target = &args[i+1]
			}
			break
		}
		target = &args[i]
		break
	}
	switch {
	case target == nil:
		a.note(Ask, "cd to HOME", "cd without a directory goes to HOME, which is outside the roots")
		if a.home == "" {
			a.cwd = cwdState{unknown: true}
			return
		}
		a.cwd = cwdState{}.with([]string{a.home}, false)
		return
	case target.dyn:
		a.note(Ask, "cd to a dynamic directory", "cd to a directory only known at run time; later relative paths cannot be checked")
		a.cwd = cwdState{unknown: true}
		return
	case target.s == "-":
		a.note(Ask, "cd -", "cd - goes to $OLDPWD, which the environment or the script may have set")
		a.cwd = cwdState{unknown: true}
		return
	case strings.HasPrefix(target.s, "+") || strings.HasPrefix(target.s, "-"):
		a.note(Ask, "cd to the directory stack", "cd "+target.s+" goes to a directory-stack entry")
		a.cwd = cwdState{unknown: true}
		return
	}
	var dirs []string
	add := func(joined string) {
		if !physical {
			joined = filepath.Clean(joined)
		}
		if real, err := a.pol.fs.realPath(joined); err == nil {
			joined = real
		}
		dirs = append(dirs, joined)
	}
	if filepath.IsAbs(target.s) {
		add(target.s)
	} else {
		for _, d := range a.cwd.dirs {
			add(d + "/" + target.s)
		}
	}
	a.cwd = cwdState{}.with(dirs, a.cwd.unknown && !filepath.IsAbs(target.s))
	// Leaving the roots is at least ask: the request cwd must be inside them, and a cd in the
	// script must not be a way around that.
	if a.pol == nil || a.pol.roots == nil {
		return
	}
	for _, d := range dirs {
		if !a.pol.roots.Contains(d) {
			a.cwd.outside = d
			break
		}
	}
}

// dynWrapper handles a wrapper whose option/command position holds a dynamic word: the program
// is unknown (ask), and the words after it are also analysed as a command in case they are one.
func (a *analyzer) dynWrapper(words []wv, at int, c actx) {
	label := words[0].s
	inC := c.wrap(path.Base(label), wvStrings(words[:at]))
	a.leaf(words[at:], inC)
	if at+1 < len(words) {
		inC.maybe = true
		a.run(words[at+1:], inC)
	}
}

// shellCmd handles sh/bash/zsh…: with -c (alone or in a cluster such as -lc, -ec) the script is
// parsed recursively in the shell's own dialect; later words become $0 $1 …, so references to
// them are dynamic. A shell without -c reads a script file or stdin, which is opaque.
func (a *analyzer) shellCmd(words []wv, langs []syntax.LangVariant, c actx) {
	base := path.Base(words[0].s)
	cmode := false
	i := 1
	var rc string
loop:
	for ; i < len(words); i++ {
		w := words[i]
		if w.dyn {
			a.leaf(words, c, finding{verdict: Ask, rule: "construct: dynamic shell option", reason: base + " gets an option only known at run time", construct: "dynamic shell option"})
			return
		}
		s := w.s
		switch {
		case s == "--" || s == "-":
			i++
			break loop
		case s == "--rcfile" || s == "--init-file":
			if i+1 < len(words) {
				rc = words[i+1].s
			}
			i++
		case strings.HasPrefix(s, "--"):
			if s == "--command" || strings.HasPrefix(s, "--command=") {
				cmode = true
			}
		case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
			letters := s[1:]
			if s[0] == '-' && strings.ContainsRune(letters, 'c') {
				cmode = true
			}
			if strings.ContainsAny(letters, "oO") {
				i++ // -o NAME / -O NAME take a value
			}
		default:
			break loop
		}
	}
	label := base
	if cmode {
		label = base + " -c"
	}
	inC := c.wrap(label, wvStrings(words[:min(i, len(words))]))
	if rc != "" {
		a.note(Ask, "shell startup file", base+" --rcfile runs "+rc+" first; its content is not analysed")
	}
	if !cmode {
		if i < len(words) {
			a.leaf(words, c, finding{verdict: Ask, rule: "construct: shell script file", reason: base + " runs script file " + words[i].String() + "; its content is not analysed", construct: "shell script file"})
		} else {
			a.leaf(words, c, finding{verdict: Ask, rule: "construct: shell reads stdin", reason: base + " with no -c reads its script from stdin, which cannot be analysed", construct: "shell reading stdin"})
		}
		return
	}
	if i >= len(words) {
		a.leaf(words, c, finding{verdict: Ask, rule: "construct: shell -c", reason: base + " -c without a script", construct: "shell -c"})
		return
	}
	if words[i].dyn {
		a.leaf(words, c, finding{verdict: Ask, rule: "construct: dynamic script", reason: base + " -c with a script only known at run time", construct: "dynamic shell script"})
		return
	}
	// A child shell's cd does not move this shell, but the candidates it adds are kept: checks
	// against more directories are only stricter.
	inC.lang, inC.langs = langs[0], langs
	a.script(words[i].s, a.deeper(inC, ""))
}

// writeTargets checks the files a program writes according to its spec (programs.Spec.Writes:
// cp, mv, tee, tar, sort -o, go -o …) like redirect targets: outside the roots or protected is
// deny, whatever the allow rules say. A word only known at run time may be a target, so it is
// at least ask.
func (a *analyzer) writeTargets(words []wv) {
	if len(words) == 0 || words[0].dyn {
		return
	}
	tool := path.Base(words[0].s)
	spec, _ := programs.Lookup(tool)
	if spec == nil || spec.Writes == nil {
		return
	}
	args := make([]programs.Arg, len(words)-1)
	for i, w := range words[1:] {
		args[i] = programs.Arg{S: w.s, Dyn: w.dyn}
	}
	t := spec.Writes(tool, args)
	if t.Dynamic {
		a.note(Ask, "dynamic write target", fmt.Sprintf("%s gets an argument only known at run time, so the file it writes cannot be checked", tool))
	}
	a.checkWriterTargets(tool, t.Paths, t.Entries, t.Reader)
}

// checkWriterTargets checks the files tool writes like redirect targets (checkPath; checkEntry
// for the directory entries in entries, indexes into targets). "" targets (only known at run
// time, already noted) and tee's "-" are skipped. With reader (Targets.Reader) the
// [policy.fs] write verdict applies too, as to a redirect.
func (a *analyzer) checkWriterTargets(tool string, targets []string, entries map[int]bool, reader bool) {
	for k, t := range targets {
		if t == "" || t == "-" && tool == "tee" {
			continue
		}
		n := len(a.notes)
		if entries[k] && !strings.HasSuffix(t, "/") { // rm -r link/ follows the link
			a.checkEntry(t, tool+" writes "+t)
		} else {
			a.checkPath(t, true, tool+" writes "+t)
		}
		// A program that writes by purpose is allowed to write files, so the [policy.fs] write
		// verdict (made for fs/write_text_file and redirects) does not apply to it; outside the
		// roots, protected paths, deny_write globs and links still do. A reader's output
		// option is a write the allow rule never approved: fs.write applies as to a redirect.
		kept := a.notes[:n]
		for _, f := range a.notes[n:] {
			if !reader && (f.rule == "redirect: fs.write" || strings.HasPrefix(f.rule, "redirect: grant:")) {
				continue
			}
			f.rule = strings.Replace(f.rule, "redirect: ", tool+" target: ", 1)
			f.construct = tool + " write target"
			kept = append(kept, f)
		}
		a.notes = kept
	}
}
