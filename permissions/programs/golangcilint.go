package programs

// golangci-lint reads the configuration it is pointed at, which can load plugin linters
// (shared objects) and name the programs it runs.
func golangciLaunch(tool string, args []string) (Hit, bool) {
	if o, ok := findOption(args, getoptSpec{shortVal: "cj", longVal: []string{"--config"}}, "c", []string{"--config"}); ok {
		return hitFor(tool)(o, "reads a configuration it is pointed at, which can load plugin linters")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"golangci-lint"}, Launch: golangciLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "golangci-lint run ./...", Want: "allow"},
		{Line: "golangci-lint run --timeout 5m", Want: "allow"},
		{Line: "golangci-lint run --config /tmp/x.yml", Want: "ask", Reason: "golangci-lint --config reads a configuration"},
		{Line: "golangci-lint run -c x.yml", Want: "ask", Reason: "golangci-lint -c"},
		{Line: "golangci-lint run --conf=x.yml", Want: "ask", Reason: "golangci-lint --config"},
	}})
}
