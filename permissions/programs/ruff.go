package programs

// ruff writes its cache and, with --output-file (-o), its report where they point.
func ruffWrites(_ string, args []Arg) Targets {
	return valueTargets(args, []string{"--cache-dir", "--output-file"}, "o")
}

func init() {
	register(&Spec{Names: []string{"ruff"}, Writes: ruffWrites, DynamicArgs: true, Examples: []Example{
		{Line: "ruff check .", Want: "allow"},
		{Line: "ruff check --cache-dir .ruff_cache .", Want: "allow"},
		{Line: "ruff check --cache-dir /tmp/x .", Want: "deny", Reason: "outside the roots"},
		{Line: "ruff check -o ~/.bashrc .", Want: "deny", Reason: "ruff writes"},
		{Line: "ruff check --output-file=/tmp/r .", Want: "deny", Reason: "outside the roots"},
	}})
}
