package programs

import (
	"slices"
	"strings"
)

// Runner describes how a program's command line shows that it executes workspace code (build
// scripts, package.json scripts, Makefiles, test files): the data behind Spec.WorkspaceCode
// for the tools with subcommands.
type Runner struct {
	// Always: every invocation runs workspace code (make, just, npx, pytest).
	Always bool
	// Subs are the subcommands that run workspace code.
	Subs map[string]bool
	// Safe, when set, are the only subcommands known to leave workspace scripts alone: any
	// other one (an alias, an abbreviation, a plugin) is taken as running them.
	Safe map[string]bool
	// ValueOpts are global options that always take the next word as their value (so it is
	// not the subcommand); BoolOpts are ones that never take a value (the next word is the
	// subcommand). Only options certain to be so are listed.
	ValueOpts, BoolOpts map[string]bool
	// Check decides odd command lines itself (yarn, cmake); it gets the candidate subcommand
	// ("" when there is none).
	Check func(argv []string, sub string) (Hit, bool)
	// Files names the workspace files whose code runs, for the reason ("" = package.json,
	// Makefile …).
	Files string
}

// runnerHit is the finding for a runner named what.
func runnerHit(what string) (Hit, bool) { return runnerHitFiles(what, "") }

// runnerHitFiles is runnerHit naming the files whose code runs ("" = package.json, Makefile …).
func runnerHitFiles(what, files string) (Hit, bool) {
	if files == "" {
		files = "package.json, Makefile …"
	}
	return Hit{Rule: what, Reason: what + " runs scripts from workspace files the agent can edit (" + files + ")"}, true
}

// workspaceCode returns the Spec.WorkspaceCode function for r.
//
// The subcommand is the first word that is not an option. A word right after an option written
// without "=" may be that option's value (npm --prefix . run x, cargo -Z flag build), so it is
// only a candidate and the search goes on; +toolchain (cargo +nightly build) is skipped. Every
// candidate is checked: a value that happens to be a subcommand name is only stricter. The
// word after "--" is a candidate too (npm -- run x runs "run"). A word after an option in
// ValueOpts is that value, not a candidate; a word after one in BoolOpts is the subcommand.
func (r Runner) workspaceCode() func(argv []string) (Hit, bool) {
	return func(argv []string) (Hit, bool) {
		tool := baseName(argv[0])
		if r.Always {
			return runnerHitFiles(tool, r.Files)
		}
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
				if r.ValueOpts[a] {
					i++ // the option's value
					afterOpt = false
					continue
				}
				if r.BoolOpts[a] {
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
			if h, ok := r.sub(argv, tool, sub); ok {
				return h, true
			}
		}
		// A subcommand not known to leave the workspace's scripts alone (an alias, a typo alias
		// npm accepts, an abbreviation, a cargo-* plugin or a .cargo/config.toml alias) is
		// treated as running them.
		if r.Safe != nil {
			for _, sub := range subs {
				if sub == "audit" && slices.Contains(argv[1:], "fix") {
					sub = "audit fix" // installs the fixed versions: their install scripts run
				}
				if !r.Safe[sub] {
					return Hit{Rule: tool + " " + sub, Reason: tool + " " + sub + " may run scripts from workspace files the agent can edit (package.json, build.rs, plugins …): it is not a subcommand known to leave them alone"}, true
				}
			}
		}
		if len(subs) == 0 {
			return r.sub(argv, tool, "")
		}
		return Hit{}, false
	}
}

func (r Runner) sub(argv []string, tool, sub string) (Hit, bool) {
	if r.Check != nil {
		return r.Check(argv, sub)
	}
	if r.Subs[sub] {
		return runnerHitFiles(tool+" "+sub, r.Files)
	}
	return Hit{}, false
}

// baseName is path.Base for a program name.
func baseName(p string) string {
	if i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/'); i >= 0 {
		return strings.TrimRight(p, "/")[i+1:]
	}
	return p
}

// registerRunner registers one spec per name for a program family sharing runner r (npm and
// cnpm, make and gmake …), the first with the examples ex, and returns them.
func registerRunner(names []string, r Runner, noGrant string, ex []Example) []*Spec {
	var specs []*Spec
	for i, n := range names {
		s := &Spec{Names: []string{n}, WorkspaceCode: r.workspaceCode(), NoGrant: noGrant}
		if i == 0 {
			s.Examples = ex
		}
		specs = append(specs, register(s))
	}
	return specs
}

// alwaysRunners are build and task runners every invocation of which runs recipes from
// workspace files: make and its kin, task runners, JVM and other build tools, git hook managers.
var alwaysRunners = []string{"npx", "pnpx", "bunx", "make", "gmake", "bmake", "just", "tox", "nox", "rake",
	"gradle", "gradlew", "mvn", "mvnw", "ant", "ninja", "scons", "invoke", "task", "mage", "earthly",
	"bazel", "bazelisk", "meson", "pre-commit", "lefthook", "husky"}

func init() {
	for i, n := range alwaysRunners {
		s := &Spec{Names: []string{n}, WorkspaceCode: Runner{Always: true}.workspaceCode()}
		if n == "npx" || n == "pnpx" || n == "bunx" {
			s.NoGrant = "a runner of arbitrary packages"
		}
		if i == 0 {
			s.Examples = []Example{
				{Line: "npx tsc --noEmit", Allow: []string{"npx"}, Want: "ask", Reason: "npx runs scripts from workspace files"},
				{Line: "npx tsc --noEmit", Allow: []string{"npx"}, Confined: true, Want: "allow"},
			}
		}
		if n == "make" {
			s.Examples = []Example{
				{Line: "make test", Want: "ask", Reason: "make runs scripts from workspace files the agent can edit"},
				{Line: "make -j4 build", Confined: true, Want: "allow"},
				{Line: "make", Want: "ask", Reason: "an allow rule covers it only while commands run confined by the OS sandbox"},
			}
		}
		register(s)
	}
	register(&Spec{Names: []string{"cmake"}, WorkspaceCode: Runner{Check: func(argv []string, _ string) (Hit, bool) {
		for _, a := range argv[1:] {
			if a == "--build" || a == "-P" {
				return runnerHit("cmake " + a)
			}
		}
		return Hit{}, false
	}}.workspaceCode(), Examples: []Example{
		{Line: "cmake --build build", Want: "ask", Reason: "cmake --build runs scripts"},
		{Line: "cmake --version", Want: "allow"},
	}})
	registerRunner([]string{"dotnet"}, Runner{Subs: setOf("run", "build", "test", "msbuild", "publish", "pack")}, "", []Example{
		{Line: "dotnet test", Want: "ask", Reason: "dotnet test runs scripts"},
		{Line: "dotnet --info", Want: "allow"},
	})
	registerRunner([]string{"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "composer", "bundle"},
		Runner{Subs: setOf("run", "exec", "run-script", "install", "sync", "build")}, "", []Example{
			{Line: "uv run pytest", Want: "ask", Reason: "uv run runs scripts"},
			{Line: "uv pip list", Want: "allow"},
		})
	registerRunner([]string{"pip", "pip3"}, Runner{Subs: setOf("install")}, "", []Example{
		{Line: "pip install -e .", Want: "ask", Reason: "pip install runs scripts"},
		{Line: "pip list", Want: "allow"},
	})
}
