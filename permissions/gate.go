package permissions

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Allow by construction. The shell walk (shell.go) finds every simple command and checks it
// against the rules, but a walk that knows what is dangerous can never know everything that is.
// So, independently of it, every parsed script passes through gate, which knows only what is
// safe: a line can come out "allow" only if each of its constructs is on the list below. Anything
// else is at least "ask", with a reason naming the construct. Deny rules still see every leaf
// the walk finds, so a deny still wins when it is visible.
//
// The constructs whose meaning the analyser knows exactly (also listed in the README):
//
//   - simple commands made of literal words: unquoted, 'single-quoted' or "double-quoted"
//     text without expansions, a leading ~ or ~/ (the policy-built HOME), and in arguments
//     the filename patterns * ? [...] (they only expand to names of existing files; such a
//     word counts as unknown for the program checks, so a pattern in a program name, in a
//     redirect target or in an argument of a program with dangerous options is still ask);
//   - NAME=literal assignments in front of a command (checked against [policy.env]);
//   - pipelines (|), && and ||, ; and newlines, ! (negation), ( … ) subshells and { …; } groups;
//   - redirects < > >> >| with a literal target that resolves physically (symlinks followed
//     as the kernel follows them) to a regular file or /dev/null, fd duplication and closing
//     (2>&1, >&2, <&-), and here-documents whose body holds no expansion;
//   - comments.
//
// Builtins (gatedBuiltin) are allowed only from allowedBuiltins: ones that neither evaluate
// text, run commands, change parsing, options, attributes, aliases or hashing, nor change the
// environment of later commands. Every other builtin is at least ask, whatever the allow rules
// say.

// allowedBuiltins are the builtins a script may use without a rule, with the arguments they
// are limited to (checked by gatedBuiltin). Each one only prints, tests, or ends the script;
// cd changes the directory later commands run in, which the analysis follows exactly because
// its target must be literal.
var allowedBuiltins = map[string]string{
	":": "", "true": "", "false": "", "echo": "", "test": "", "[": "", "pwd": "-L -P", "exit": "",
	"printf":  "without -v",
	"cd":      "a literal directory inside the roots, not -",
	"type":    "-a -f -P -p -t",
	"command": "-v -V (looking a name up)",
	"times":   "",
	"dirs":    "-l -p -v",
	"jobs":    "-l -n -p -r -s",
	"wait":    "without -p",
	"set":     "-e -u -x -o errexit|nounset|pipefail|xtrace (they only stop the script sooner or trace it)",
}

// allowedBuiltinNames lists allowedBuiltins in a fixed order (README, messages).
var allowedBuiltinNames = []string{":", "true", "false", "echo", "printf", "test", "[", "pwd", "exit", "cd", "type", "command", "times", "dirs", "jobs", "wait", "set"}

// shellBuiltinNames are the builtins (and reserved words that run like commands) of bash and
// dash: a name from this set inside a script is the shell's own, so it is on allowedBuiltins or
// at least ask (zshBuiltinNames too, in a script read as zsh).
var shellBuiltinNames = setOf(
	":", ".", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "chdir", "command",
	"compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
	"eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history",
	"jobs", "kill", "let", "local", "logout", "mapfile", "nameref", "popd", "printf", "pushd", "pwd",
	"read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
)

// zshBuiltinNames are zsh's own builtins (in bash and dash, names such as which and print are
// external programs the rules decide on).
var zshBuiltinNames = setOf(
	"autoload", "bindkey", "emulate", "setopt", "unsetopt", "zmodload", "functions", "unfunction",
	"unhash", "zstyle", "zle", "zparseopts", "integer", "float", "print", "whence", "where", "which",
	"rehash", "noglob", "disable", "limit", "unlimit", "vared", "sched", "zcompile", "zformat",
)

// builtinOK reports whether the builtin call words (words[0] is the name) is on allowedBuiltins
// with allowed arguments; otherwise it returns why not.
func builtinOK(words []wv) (string, bool) {
	name := words[0].s
	args := words[1:]
	if _, ok := allowedBuiltins[name]; !ok {
		return fmt.Sprintf("builtin %s is not on the list of builtins acpterm allows (%s)", name, builtinWhat(name)), false
	}
	only := func(letters string) (string, bool) {
		for _, w := range args {
			if w.dyn {
				return name + " gets an argument only known at run time", false
			}
			if w.s == "--" {
				return "", true
			}
			if len(w.s) < 2 || w.s[0] != '-' {
				continue
			}
			for _, ch := range w.s[1:] {
				if !strings.ContainsRune(letters, ch) {
					return fmt.Sprintf("%s -%c is not an option acpterm allows for it", name, ch), false
				}
			}
		}
		return "", true
	}
	switch name {
	case "printf":
		for _, w := range args {
			if w.dyn {
				return "printf gets an argument only known at run time (it may be -v, which sets a variable)", false
			}
			if w.s == "--" || !strings.HasPrefix(w.s, "-") {
				break
			}
			if strings.HasPrefix(w.s, "-v") {
				return "printf -v assigns a variable, whose array subscript is evaluated as arithmetic", false
			}
		}
	case "pwd":
		return only("LP")
	case "type":
		return only("afPpt")
	case "dirs":
		return only("lpv")
	case "jobs":
		return only("lnprs")
	case "wait":
		return only("fn")
	case "command":
		for _, w := range args {
			if !w.dyn && len(w.s) > 1 && w.s[0] == '-' && strings.ContainsAny(w.s, "vV") {
				return "", true
			}
		}
		return "command runs another command (skipping functions)", false
	case "set":
		for i := 0; i < len(args); i++ {
			w := args[i]
			if w.dyn {
				return "set gets an argument only known at run time", false
			}
			s := w.s
			if s == "" || (s[0] != '-' && s[0] != '+') || s == "--" || s == "-" {
				return "set with operands replaces the positional parameters", false
			}
			for k := 1; k < len(s); k++ {
				switch s[k] {
				case 'e', 'u', 'x':
				case 'o':
					if i+1 >= len(args) || args[i+1].dyn {
						return "set -o without a known option name", false
					}
					i++
					switch args[i].s {
					case "errexit", "nounset", "pipefail", "xtrace":
					default:
						return "set -o " + args[i].s + " changes how the shell reads or runs later commands", false
					}
				default:
					return fmt.Sprintf("set %c%c changes how the shell reads or runs later commands", s[0], s[k]), false
				}
			}
		}
	}
	return "", true
}

// builtinWhat says in a few words why an off-list builtin is not safe.
func builtinWhat(name string) string {
	switch name {
	case "eval", "source", ".", "trap", "alias", "unalias", "fc", "history", "bind":
		return "it evaluates text as shell code"
	case "exec", "builtin", "command", "kill", "bg", "fg", "disown", "suspend", "noglob":
		return "it runs, resumes or signals commands"
	case "declare", "typeset", "local", "readonly", "export", "integer", "float", "nameref", "unset",
		"read", "mapfile", "readarray", "getopts", "let", "vared", "zparseopts":
		return "it sets variables or their attributes, which can evaluate arithmetic or reach later commands"
	case "set", "shopt", "setopt", "unsetopt", "emulate", "enable", "disable", "hash", "unhash", "rehash", "ulimit", "umask", "limit", "unlimit":
		return "it changes shell options, limits or the command table for later commands"
	case "pushd", "popd", "chdir":
		return "it changes the directory through the directory stack"
	}
	return "its effect on later commands is not modelled"
}

// gate checks every node of the parsed script f against the allow-list of constructs and
// records an ask finding, naming the construct, for each node that is not on it.
func (a *analyzer) gate(f *syntax.File, c actx) {
	flag := func(construct, reason string) {
		a.gateNote(construct, reason)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case nil, *syntax.File, *syntax.Stmt, *syntax.Subshell, *syntax.Block, *syntax.Comment:
			return true
		case *syntax.CallExpr:
			if len(x.Args) == 0 && len(x.Assigns) > 0 {
				flag("variable assignment", "assigns a shell variable ("+assignName(x.Assigns[0])+"=…), which can change how later words expand")
			}
			for _, as := range x.Assigns {
				switch {
				case as.Naked || as.Name == nil:
					flag("declaration", "a declaration without a value")
				case as.Append:
					flag("variable assignment", as.Name.Value+"+= appends to a variable")
				case as.Index != nil:
					flag("arithmetic evaluation", "assigns "+as.Name.Value+"[…], whose subscript is evaluated as arithmetic")
				case as.Array != nil:
					flag("array assignment", "assigns the array "+as.Name.Value)
				case as.Value != nil:
					if what := a.wordConstruct(as.Value, c, false); what != "" {
						flag(what, "the value of "+as.Name.Value+" uses "+what)
					}
				}
			}
			for _, w := range x.Args {
				if what := a.wordConstruct(w, c, true); what != "" {
					flag(what, "a word uses "+what+", which is only known when the shell runs")
				}
			}
			return false
		case *syntax.BinaryCmd:
			switch x.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
				return true
			}
			flag("|&", "|& pipes standard error too (bash only)")
			return true
		case *syntax.Redirect:
			a.gateRedirect(x, c)
			return false
		case *syntax.IfClause:
			flag("if statement", "an if statement runs commands depending on others")
		case *syntax.WhileClause:
			flag("loop", "a while/until loop runs commands repeatedly")
		case *syntax.ForClause:
			flag("loop", "a for loop assigns a variable and runs commands repeatedly")
		case *syntax.CaseClause:
			flag("case statement", "a case statement matches patterns on a word")
		case *syntax.FuncDecl:
			flag("function definition", "defines a shell function, which shadows a command name")
		case *syntax.ArithmCmd:
			flag("arithmetic evaluation", "(( … )) evaluates arithmetic, which can run commands through array subscripts")
		case *syntax.LetClause:
			flag("arithmetic evaluation", "let evaluates arithmetic, which can run commands through array subscripts")
		case *syntax.TestClause:
			flag("[[ ]] test", "[[ … ]] evaluates its operands (arithmetic, patterns, -v)")
		case *syntax.DeclClause:
			name := "declare"
			if x.Variant != nil {
				name = x.Variant.Value
			}
			flag("builtin "+name, "builtin "+name+" is not on the list of builtins acpterm allows ("+builtinWhat(name)+")")
		case *syntax.TimeClause:
			flag("time", "the time keyword is not on the list of constructs acpterm allows")
		case *syntax.CoprocClause:
			flag("coprocess", "coproc runs a command in the background")
		case *syntax.TestDecl:
			flag("test declaration", "bats @test blocks are not run by a plain shell")
		case syntax.Command:
			flag("unknown construct", fmt.Sprintf("shell construct %T is not on the list of constructs acpterm allows", n))
		}
		// Words, expressions and clauses inside a construct flagged above: the walk goes on
		// to find the statements nested in them.
		return true
	})
}

// gateNote records an ask finding for construct, once per construct and reason.
func (a *analyzer) gateNote(construct, reason string) {
	for _, f := range a.notes {
		if f.construct == construct && f.reason == reason {
			return
		}
	}
	a.notes = append(a.notes, finding{verdict: Ask, rule: "construct: " + construct, reason: reason + " (not on the list of constructs acpterm allows without asking)", construct: construct, gate: true})
}

func assignName(as *syntax.Assign) string {
	if as.Name != nil {
		return as.Name.Value
	}
	return "…"
}

// gateRedirect checks a redirect's operator and the shape of its target; where the target
// resolves to is checked by the walk (analyzer.redirect).
func (a *analyzer) gateRedirect(r *syntax.Redirect, c actx) {
	if r.N != nil && !isDigits(r.N.Value) {
		a.gateNote("named file descriptor", "redirect with a named file descriptor {"+strings.Trim(r.N.Value, "{}")+"} assigns a variable")
	}
	switch r.Op {
	case syntax.RdrAll, syntax.AppAll:
		if c.lang == syntax.LangPOSIX {
			a.gateNote("redirect "+r.Op.String(), "redirect "+r.Op.String()+" means \"run in the background, then redirect\" to a POSIX shell")
			break
		}
		fallthrough
	case syntax.RdrIn, syntax.RdrOut, syntax.AppOut, syntax.RdrClob:
		if r.Word != nil {
			if what := a.wordConstruct(r.Word, c, false); what != "" {
				a.gateNote(what, "a redirect target uses "+what)
			}
		}
	case syntax.DplIn, syntax.DplOut:
		if s, ok := a.static(r.Word, c); !ok || !(s == "-" || isDigits(s) || isDigits(strings.TrimSuffix(s, "-"))) {
			a.gateNote("redirect "+r.Op.String(), "redirect "+r.Op.String()+" to something other than a file descriptor number")
		}
	case syntax.WordHdoc:
		if what := a.wordConstruct(r.Word, c, false); what != "" {
			a.gateNote(what, "a here-string uses "+what)
		}
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			for _, p := range r.Hdoc.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					a.gateNote("here-document expansion", "a here-document body expands parameters, commands or arithmetic")
					break
				}
			}
		}
	default:
		a.gateNote("redirect "+r.Op.String(), "redirect "+r.Op.String()+" is not on the list of constructs acpterm allows")
	}
}

// wordConstruct returns the name of the first construct in w that is not a literal word part
// ("" when w is literal). Filename patterns are accepted when pattern is set (arguments).
func (a *analyzer) wordConstruct(w *syntax.Word, c actx, pattern bool) string {
	if w == nil {
		return ""
	}
	if _, ok := a.static(w, c); ok {
		return ""
	}
	for i, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(x.Value, "~") {
				rest := x.Value[1:]
				if (rest != "" && rest[0] != '/') || a.home == "" {
					return "tilde expansion " + strings.SplitN(x.Value, "/", 2)[0]
				}
			}
			if c.lang == syntax.LangZsh && strings.ContainsAny(x.Value, "()") {
				return "zsh glob qualifier"
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				if c.lang == syntax.LangPOSIX {
					return "$'…' quoting (dash and bash read it differently)"
				}
				if !dollarQuoteSimple(x.Value) {
					return "$'…' escape"
				}
			}
		case *syntax.DblQuoted:
			if x.Dollar {
				return "$\"…\" translation"
			}
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return partName(q)
				}
			}
		default:
			return partName(p)
		}
	}
	if hasBraceExp(w) {
		return "brace expansion" // bash expands it; dash does not, but the value is not known for sure
	}
	if pattern && wordHasGlob(w) {
		return ""
	}
	return "a word only known at run time"
}

// wordHasGlob reports an unquoted pattern character in one of w's literal parts.
func wordHasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && unquotedGlob(l.Value) {
			return true
		}
	}
	return false
}

// partName names a word part that is not literal.
func partName(p syntax.WordPart) string {
	switch x := p.(type) {
	case *syntax.ParamExp:
		switch {
		case x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull):
			return "parameter expansion ${…:=…} (it assigns a variable)"
		case x.Index != nil:
			return "parameter expansion with an array subscript (evaluated as arithmetic)"
		case x.Param != nil:
			return "parameter expansion $" + x.Param.Value
		}
		return "parameter expansion"
	case *syntax.CmdSubst:
		return "command substitution"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "extended glob"
	case *syntax.BraceExp:
		return "brace expansion"
	}
	return fmt.Sprintf("%T", p)
}
