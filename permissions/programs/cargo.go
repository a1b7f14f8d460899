package programs

// cargo builds run build.rs scripts and proc macros; test, run and bench run workspace code;
// plugins (cargo-*) and .cargo/config.toml aliases are any other subcommand.
func init() {
	s := registerRunner([]string{"cargo"}, Runner{
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
		{Line: "cargo metadata --format-version 1", Want: "allow"},
		{Line: "cargo metadata --manifest-path /tmp/x/Cargo.toml", Want: "ask", Reason: "cargo --manifest-path reads the manifest"},
		{Line: "cargo tree --manifest-path=sub/Cargo.toml", Want: "ask", Reason: "cargo --manifest-path"},
		{Line: "cargo --config build.rustc-wrapper=/tmp/x tree", Want: "ask", Reason: "cargo --config sets configuration"},
		{Line: "cargo -C /tmp tree", Want: "ask", Reason: "cargo -C runs cargo in another directory"},
		{Line: "cargo fmt -- --config x=y", Want: "allow"},
	})
	s[0].Launch, s[0].DynamicArgs = cargoLaunch, true
}

// cargoLaunch finds cargo's options that make it read configuration from elsewhere:
// --manifest-path (the manifest and the .cargo/config.toml files beside it, which can name a
// rustc wrapper, linker or runner cargo runs), --config (sets those keys directly) and -C (runs
// cargo in another directory, with that directory's configuration).
func cargoLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	o, ok := findOption(args, getoptSpec{shortVal: "ZC", longVal: []string{"--manifest-path", "--config", "--color", "--explain"}}, "C", []string{"--manifest-path", "--config"})
	switch {
	case !ok:
		return Hit{}, false
	case o == "--manifest-path":
		return hit(o, "reads the manifest it names and the .cargo/config.toml beside it, which can name programs cargo runs")
	case o == "--config":
		return hit(o, "sets configuration that can name programs cargo runs (rustc wrapper, linker, runner)")
	}
	return hit(o, "runs cargo in another directory, with that directory's configuration (it may lie outside the roots, or be a symlink to one)")
}
