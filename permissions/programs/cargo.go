package programs

// cargo builds run build.rs scripts and proc macros; test, run and bench run workspace code;
// plugins (cargo-*) and .cargo/config.toml aliases are any other subcommand.
func init() {
	registerRunner([]string{"cargo"}, Runner{
		Subs: setOf("build", "b", "run", "r", "test", "t", "check", "c", "bench", "install", "clippy", "doc", "d", "fix", "publish", "package", "xtask"),
		// Built-ins that do not build. Left out on purpose: .cargo/config.toml names credential
		// providers (login, logout, owner, yank) and build.target-dir (clean removes it).
		Safe: setOf("add", "config", "fetch", "fmt", "generate-lockfile", "help", "info", "init", "locate-project",
			"metadata", "new", "pkgid", "read-manifest", "remove", "rm", "report", "search", "tree",
			"uninstall", "update", "vendor", "verify-project", "version"),
		ValueOpts: setOf("--color", "--config", "-Z", "-C", "--explain"),
		BoolOpts:  setOf("-v", "-vv", "--verbose", "-q", "--quiet", "--frozen", "--locked", "--offline"),
	}, "", []Example{
		{Line: "cargo test", Want: "ask", Reason: "cargo test runs scripts"},
		{Line: "cargo +nightly build", Want: "ask", Reason: "cargo build"},
		{Line: "cargo -Z flag build", Want: "ask", Reason: "cargo build"},
		{Line: "cargo nextest run", Want: "ask", Reason: "cargo nextest may run scripts"},
		{Line: "cargo tree", Want: "allow"},
		{Line: "cargo -q tree", Want: "allow"},
		{Line: "cargo clippy -- -D warnings", Confined: true, Want: "allow"},
	})
}
