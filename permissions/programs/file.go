package programs

// file -C compiles a magic file and writes the result (NAME.mgc) next to where it runs.
func fileLaunch(tool string, args []string) (Hit, bool) {
	if o, ok := findOption(args, getoptSpec{shortVal: "efFmP"}, "C", []string{"--compile"}); ok {
		return hitFor(tool)(o, "compiles a magic file and writes it (.mgc)")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"file"}, Launch: fileLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "file README.md", Want: "allow"},
		{Line: "file -b --mime-type README.md", Want: "allow"},
		{Line: "file -C -m ~/x", Want: "ask", Reason: "file -C compiles a magic file"},
		{Line: "file --compile -m x", Want: "ask", Reason: "file --compile"},
		{Line: "file -zC -m x", Want: "ask", Reason: "file -C"},
	}})
}
