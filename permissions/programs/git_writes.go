package programs

import (
	"strings"
)

// gitWrites returns the files a git command line writes outside what git itself manages
// (checked like redirect targets): --output=F of the diff family (log, diff, show …),
// archive -o/--output F, bundle create F, format-patch -o/--output-directory DIR,
// checkout-index --prefix=DIR/ (a prefix that does not end in "/" joins the index's paths
// into names that cannot be judged here, so it counts as a target only known at run time),
// and worktree add PATH / worktree move SRC DST. Long options may be abbreviated
// (parse-options). A word only known at run time sets Targets.Dynamic.
func gitWrites(_ string, args []Arg) Targets {
	sub, subAt := "", len(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dyn {
			return Targets{Dynamic: true}
		}
		if !strings.HasPrefix(a.S, "-") {
			sub, subAt = a.S, i
			break
		}
		if a.S == "-C" || a.S == "-c" || a.S == "--namespace" || a.S == "--super-prefix" || a.S == "--list-cmds" ||
			a.S == "--git-dir" || a.S == "--work-tree" || a.S == "--config-env" {
			i++
		}
	}
	rest := args[min(subAt+1, len(args)):]
	var t Targets
	merge := func(u Targets) {
		t.Paths = append(t.Paths, u.Paths...)
		t.Dynamic = t.Dynamic || u.Dynamic
	}
	longs := []string{"--output"}
	shorts := ""
	switch sub {
	case "archive":
		shorts = "o"
	case "format-patch":
		longs, shorts = append(longs, "--output-directory"), "o"
	}
	merge(gitValueTargets(rest, longs, shorts))
	// The diff family reads history; its --output is a reader's output option.
	t.Reader = gitDiffFamily[sub] && len(t.Paths) > 0
	switch sub {
	case "bundle":
		if len(rest) > 0 && rest[0].S == "create" && !rest[0].Dyn {
			merge(operandTarget(rest[1:], 0, func(string) bool { return false }))
		}
	case "checkout-index":
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if a.Dyn || a.S == "--" {
				break
			}
			name, v, hasV := strings.Cut(a.S, "=")
			if !longAbbrev(name, "--prefix") {
				continue
			}
			if !hasV {
				if i+1 >= len(rest) {
					break
				}
				i++
				if rest[i].Dyn {
					t.Dynamic = true
					continue
				}
				v = rest[i].S
			}
			if strings.HasSuffix(v, "/") {
				t.Paths = append(t.Paths, v)
			} else {
				t.Dynamic = true
			}
		}
	case "clone", "init":
		// clone REPO [DIR] / init [DIR]: the new repository's directory, and its git directory
		// when it is put elsewhere (--separate-git-dir). Every operand after the repository
		// counts, so a value option this table does not know can only add targets.
		spec := gitCloneOpts
		first := 1
		if sub == "init" {
			spec, first = gitInitOpts, 0
		}
		merge(gitValueTargets(rest, []string{"--separate-git-dir"}, ""))
		merge(operandsFrom(rest, first, func(w string) bool { return gitTakesNext(w, spec) }))
	case "worktree":
		if len(rest) > 0 && !rest[0].Dyn {
			valueOpt := func(w string) bool { return w == "-b" || w == "-B" || w == "--reason" }
			switch rest[0].S {
			case "add":
				merge(operandTarget(rest[1:], 0, valueOpt))
			case "move":
				merge(operandTarget(rest[1:], 1, valueOpt))
			}
		}
	}
	return t
}

// gitValueTargets is valueTargets with parse-options' spelling: an abbreviated long option
// (--out F, --output-dir F) takes the next word as its value too.
func gitValueTargets(args []Arg, longs []string, shorts string) Targets {
	var t Targets
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dyn {
			continue // a dynamic word is already at least ask (DynamicArgs)
		}
		if a.S == "--" {
			break
		}
		// next takes the option's value from the next word (a dynamic one marks t Dynamic).
		next := func() {
			switch {
			case i+1 < len(args) && args[i+1].Dyn:
				i++
				t.Dynamic = true
			case i+1 < len(args):
				i++
				t.Paths = append(t.Paths, args[i].S)
			}
		}
		if strings.HasPrefix(a.S, "--") {
			name, v, hasV := strings.Cut(a.S, "=")
			if _, ok := longAbbrevAny(name, longs); !ok {
				continue
			}
			if hasV {
				t.Paths = append(t.Paths, v)
			} else {
				next()
			}
			continue
		}
		if len(a.S) >= 2 && a.S[0] == '-' && a.S[1] != '-' {
			// A bundle of short flags up to a letter in shorts, whose value is the rest of the
			// word or the next word.
			for k := 1; k < len(a.S); k++ {
				if strings.IndexByte(shorts, a.S[k]) < 0 {
					continue
				}
				if k+1 < len(a.S) {
					t.Paths = append(t.Paths, a.S[k+1:])
				} else {
					next()
				}
				break
			}
		}
	}
	return t
}

// gitDiffFamily are the git subcommands that only read history and take --output=FILE (the
// diff options, git-diff(1) "--output").
var gitDiffFamily = setOf("diff", "log", "show", "whatchanged", "diff-tree", "diff-files", "diff-index", "range-diff", "reflog", "stash")

// gitCloneOpts and gitInitOpts are the options of git clone and git init that take a value
// (git-clone(1), git-init(1)); an optional value (--shared, --recurse-submodules) only follows "=".
var (
	gitCloneOpts = getoptSpec{shortVal: "objuc", longVal: []string{"--origin", "--branch", "--upload-pack",
		"--template", "--reference", "--reference-if-able", "--separate-git-dir", "--depth", "--shallow-since",
		"--shallow-exclude", "--jobs", "--filter", "--server-option", "--config", "--bundle-uri", "--ref-format",
		"--revision"}}
	gitInitOpts = getoptSpec{shortVal: "b", longVal: []string{"--template", "--separate-git-dir",
		"--initial-branch", "--object-format", "--ref-format"}}
)

// gitTakesNext reports whether the option word w takes the next word as its value under
// parse-options' spelling: a long option of spec (abbreviated or not) without "=value", or a
// bundle of short letters whose value letter ends the word.
func gitTakesNext(w string, spec getoptSpec) bool {
	if strings.HasPrefix(w, "--") {
		if strings.Contains(w, "=") {
			return false
		}
		_, ok := longAbbrevAny(w, spec.longVal)
		return ok
	}
	for k := 1; k < len(w); k++ {
		if strings.IndexByte(spec.shortVal, w[k]) >= 0 {
			return k == len(w)-1
		}
	}
	return false
}
