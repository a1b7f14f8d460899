package programs

import "strings"

// Interpreters: code given inline (python -c, node -e, perl -e …) or read from stdin is opaque,
// so it is at least ask; a script file is a program the rules decide on. No "always" grant
// covers an interpreter.

// flagInline returns an Inline function for an interpreter whose inline-code options are the
// short letters in flags (in a bundle too: perl -ne); phpLong adds php's long options.
func flagInline(flags []string, phpLong bool) func(argv []string) (string, bool) {
	return func(argv []string) (string, bool) {
		base := baseName(argv[0])
		for _, a := range argv[1:] {
			if a == Dynamic {
				return base + " gets an argument only known at run time", true
			}
			if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
				if a == "-" {
					return base + " - reads its program from stdin", true
				}
				return "", false // script file: a program the rules decide on
			}
			if strings.HasPrefix(a, "--") {
				if phpLong {
					if o, ok := longAbbrevAny(a, []string{"--run", "--process-begin", "--process-code", "--process-end", "--process-file"}); ok {
						return base + " " + o + " runs inline code", true
					}
				}
				continue
			}
			for _, f := range flags {
				if strings.Contains(a[1:], f) {
					return base + " " + a + " runs inline code", true
				}
			}
		}
		return "", false
	}
}

// nodeInline finds node's inline and preloaded code: -e/--eval, -p/--print, -r/--require,
// --import, loaders, also bundled (node -pe CODE).
func nodeInline(argv []string) (string, bool) {
	base := baseName(argv[0])
	for _, a := range argv[1:] {
		if a == "-e" || a == "--eval" || a == "-p" || a == "--print" || strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print=") ||
			a == "-r" || a == "--require" || a == "--import" || strings.HasPrefix(a, "--require=") || strings.HasPrefix(a, "--import=") || strings.HasPrefix(a, "--loader") ||
			strings.HasPrefix(a, "--experimental-loader") || (len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "epr")) {
			return base + " " + a + " runs inline or preloaded code", true
		}
	}
	if base == "bun" && len(argv) > 1 && (argv[1] == "run" || argv[1] == "x" || argv[1] == "exec") {
		return "bun " + argv[1] + " runs workspace scripts or packages", true
	}
	return "", false
}

// pythonModule returns the module of `python -m MODULE …` and the words after it.
func pythonModule(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			return args[i+1], args[i+2:]
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			return a[2:], args[i+1:]
		case a == "--" || !strings.HasPrefix(a, "-"):
			return "", nil // a script file or the end of python's options
		case a == "-W" || a == "-X" || a == "-c":
			i++
		}
	}
	return "", nil
}

// pythonTestModules are modules whose run executes test files from the workspace.
var pythonTestModules = setOf("pytest", "unittest", "nose2", "tox", "nox")

func init() {
	pyInline := flagInline([]string{"c"}, false)
	register(&Spec{Names: []string{"python", "python2", "python3", "pypy", "pypy3"}, Prefix: true, NoGrant: "an interpreter",
		Inline: pyInline,
		Launch: func(tool string, args []string) (Hit, bool) {
			hit := hitFor(tool)
			for _, a := range args {
				if a == "--" || !strings.HasPrefix(a, "-") {
					break
				}
				if a == "-W" || strings.HasPrefix(a, "-W") {
					return hit("-W", "sets a warnings filter, which imports the module its category names")
				}
				if a == "-m" || strings.HasPrefix(a, "-m") {
					break
				}
			}
			if mod, rest := pythonModule(args); mod == "pytest" {
				return pytestLaunch("pytest", rest)
			}
			return Hit{}, false
		},
		WorkspaceCode: func(argv []string) (Hit, bool) {
			if mod, _ := pythonModule(argv[1:]); pythonTestModules[mod] {
				return runnerHitFiles(baseName(argv[0])+" -m "+mod, "test files, conftest.py")
			}
			return Hit{}, false
		},
		Examples: []Example{
			{Line: "python3 -c 'import os'", Allow: []string{"python3"}, Want: "ask", Reason: "python3 -c runs inline code"},
			{Line: "python3 - < x.py", Allow: []string{"python3"}, Want: "ask", Reason: "reads its program from stdin"},
			{Line: "python3 -m pytest -q", Allow: []string{"python3 -m pytest"}, Want: "ask", Reason: "python3 -m pytest runs scripts from workspace files"},
			{Line: "python3 -m pytest -q", Allow: []string{"python3 -m pytest"}, Confined: true, Want: "allow"},
			{Line: "python3 -m pytest --basetemp=/tmp/x", Allow: []string{"python3 -m pytest"}, Confined: true, Want: "ask", Reason: "pytest --basetemp"},
			{Line: "python3 -W error::x.Y tool.py", Allow: []string{"python3"}, Want: "ask", Reason: "python3 -W sets a warnings filter"},
			{Line: "python3 --version", Allow: []string{"python3 --version"}, Want: "allow"},
			{Line: "python3.12 -c x", Allow: []string{"python3.12"}, Want: "ask", Reason: "runs inline code"},
		}})
	register(&Spec{Names: []string{"node", "nodejs"}, NoGrant: "an interpreter", Inline: nodeInline, Examples: []Example{
		{Line: "node -e 'process.exit(0)'", Allow: []string{"node"}, Want: "ask", Reason: "node -e runs inline or preloaded code"},
		{Line: "node -pe 1", Allow: []string{"node"}, Want: "ask", Reason: "node -pe runs inline"},
		{Line: "node --require ./x.js app.js", Allow: []string{"node"}, Want: "ask", Reason: "node --require runs inline or preloaded code"},
		{Line: "node --version", Allow: []string{"node --version"}, Want: "allow"},
	}})
	register(&Spec{Names: []string{"deno"}, NoGrant: "an interpreter", Inline: func(argv []string) (string, bool) {
		if len(argv) > 1 && (argv[1] == "eval" || argv[1] == "repl" || argv[1] == "task") {
			return "deno " + argv[1] + " runs inline code or workspace tasks", true
		}
		return "", false
	}, Examples: []Example{{Line: "deno eval 1", Allow: []string{"deno"}, Want: "ask", Reason: "deno eval runs inline code"}}})
	register(&Spec{Names: []string{"perl"}, Prefix: true, NoGrant: "an interpreter", Inline: flagInline([]string{"e", "E", "M"}, false),
		Examples: []Example{{Line: "perl -ne 'print if /x/' f", Allow: []string{"perl"}, Want: "ask", Reason: "perl -ne runs inline code"}}})
	register(&Spec{Names: []string{"ruby"}, Prefix: true, NoGrant: "an interpreter", Inline: flagInline([]string{"e", "r"}, false),
		Examples: []Example{{Line: "ruby -e 'p 1'", Allow: []string{"ruby"}, Want: "ask", Reason: "ruby -e runs inline code"}}})
	register(&Spec{Names: []string{"irb"}, Inline: flagInline([]string{"e", "r"}, false)})
	register(&Spec{Names: []string{"php"}, Prefix: true, NoGrant: "an interpreter", Inline: flagInline([]string{"r", "B", "R", "E", "F"}, true),
		Examples: []Example{{Line: "php --run 'echo 1;'", Allow: []string{"php"}, Want: "ask", Reason: "php --run runs inline code"}}})
	register(&Spec{Names: []string{"lua", "luajit"}, Prefix: true, NoGrant: "an interpreter", Inline: flagInline([]string{"e", "l"}, false)})
	for _, n := range []string{"osascript", "Rscript", "R", "julia", "tclsh", "wish"} {
		s := &Spec{Names: []string{n}, Inline: flagInline([]string{"e"}, false)}
		if n == "osascript" || n == "tclsh" || n == "wish" {
			s.NoGrant = "an interpreter"
		}
		register(s)
	}
	awk := func(argv []string) (string, bool) {
		return baseName(argv[0]) + " runs an inline awk program (which can call system())", true
	}
	for _, n := range []string{"awk", "gawk", "mawk", "nawk"} {
		s := &Spec{Names: []string{n}, NoGrant: "an interpreter", Inline: awk}
		if n == "awk" {
			s.Examples = []Example{{Line: "awk '{print $1}' f", Want: "ask", Reason: "awk runs an inline awk program"}}
		}
		register(s)
	}
	other := func(argv []string) (string, bool) {
		return baseName(argv[0]) + " runs shell code in a dialect that is not analysed", true
	}
	for _, n := range []string{"fish", "csh", "tcsh", "xonsh", "nu", "elvish", "pwsh", "powershell"} {
		s := &Spec{Names: []string{n}, Inline: other}
		if n == "fish" || n == "csh" || n == "tcsh" {
			s.NoGrant = "a shell"
		}
		register(s)
	}
}
