package programs

// npm and its kin run package.json scripts (lifecycle scripts on install, named scripts on
// run/test/start) and packages' own install scripts.

// npmRunSubs are the npm-like subcommands that run scripts from package.json or packages.
var npmRunSubs = setOf("run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "exec", "x",
	"install", "i", "ci", "add", "rebuild", "pack", "publish", "dlx", "create", "init", "update", "up", "link", "ln",
	"explore", "it", "install-test", "cit")

// npmSafeSubs are the npm subcommands known not to run workspace scripts (no lifecycle scripts,
// no reify). Left out on purpose: subcommands that start a program named by config the agent
// can write (a project .npmrc's browser/editor/viewer: npm docs, repo, bugs, home, help, login,
// edit).
var npmSafeSubs = setOf("access", "audit", "cache", "completion", "config", "c", "get", "set",
	"deprecate", "diff", "dist-tag", "dist-tags", "doctor", "explain", "why", "find-dupes", "fund",
	"hook", "logout", "ls", "list", "la", "ll", "org", "outdated", "owner", "author", "ping", "pkg",
	"prefix", "profile", "query", "root", "sbom", "search", "s", "se", "find", "star", "stars", "team", "token",
	"unpublish", "unstar", "view", "v", "info", "show", "whoami")

var npmValueOpts = setOf("--prefix", "-C", "-w", "--workspace", "--registry", "--loglevel", "--userconfig", "--globalconfig", "--cache")

var npmBoolOpts = setOf("-g", "--global", "-s", "--silent", "-q", "--quiet", "--json", "-l", "--long", "-p", "--parseable",
	"-a", "--all", "-d", "-dd", "-ddd", "-f", "--force", "-y", "--yes", "--dry-run")

func init() {
	registerRunner([]string{"npm", "cnpm"}, Runner{Subs: npmRunSubs, Safe: npmSafeSubs, ValueOpts: npmValueOpts, BoolOpts: npmBoolOpts}, "", []Example{
		{Line: "npm test", Want: "ask", Reason: "npm test runs scripts from workspace files"},
		{Line: "npm run build", Want: "ask", Reason: "npm run runs scripts"},
		{Line: "npm --prefix . run x", Want: "ask", Reason: "npm run"},
		{Line: "npm -- run x", Want: "ask", Reason: "npm run"},
		{Line: "npm rb", Want: "ask", Reason: "npm rb may run scripts"},
		{Line: "npm audit fix", Want: "ask", Reason: "npm audit fix may run scripts"},
		{Line: "npm ls --depth=0", Want: "allow"},
		{Line: "npm -g ls x", Want: "allow"},
		{Line: "npm test", Confined: true, Want: "allow"},
	})
	// pnpm runs a package.json script of the same name before its npm pass-through commands,
	// so only these are known to leave scripts alone.
	registerRunner([]string{"pnpm"}, Runner{Subs: npmRunSubs, ValueOpts: setOf("-C", "--dir", "--filter", "-F"),
		Safe: setOf("ls", "list", "ll", "la", "outdated", "why", "audit", "config", "c", "get", "set", "root", "bin", "licenses")}, "", []Example{
		{Line: "pnpm test", Want: "ask", Reason: "pnpm test runs scripts"},
		{Line: "pnpm build", Want: "ask", Reason: "pnpm build may run scripts"},
		{Line: "pnpm ls", Want: "allow"},
	})
	// bun script names and aliases run the script (bun dev); bun is also an interpreter.
	register(&Spec{Names: []string{"bun"}, NoGrant: "an interpreter",
		WorkspaceCode: Runner{Subs: npmRunSubs, ValueOpts: setOf("--cwd"), Safe: setOf("outdated", "info", "audit")}.workspaceCode(),
		Inline:        nodeInline,
		Examples: []Example{
			{Line: "bun dev", Want: "ask", Reason: "bun dev may run scripts"},
			{Line: "bun outdated", Want: "allow"},
		}})
	register(&Spec{Names: []string{"yarn"}, WorkspaceCode: Runner{Check: func(argv []string, sub string) (Hit, bool) {
		switch sub {
		case "info", "why", "list", "outdated", "help", "config", "licenses", "owner", "versions":
			return Hit{}, false
		}
		if len(argv) == 2 && (argv[1] == "--version" || argv[1] == "-v") {
			return Hit{}, false
		}
		return runnerHit("yarn " + sub)
	}}.workspaceCode(), Examples: []Example{
		{Line: "yarn test", Want: "ask", Reason: "yarn test runs scripts"},
		{Line: "yarn", Want: "ask", Reason: "yarn  runs scripts"},
		{Line: "yarn why react", Want: "allow"},
		{Line: "yarn --version", Want: "allow"},
	}})
}
