package programs

// tree -o writes its listing to the file it names.
func treeWrites(_ string, args []Arg) Targets { return valueTargets(args, nil, "o") }

func init() {
	register(&Spec{Names: []string{"tree"}, Writes: readerWrites(treeWrites), DynamicArgs: true, Examples: []Example{
		{Line: "tree -L 2 -I node_modules", Want: "allow"},
		{Line: "tree -o listing.txt", Want: "allow"},
		{Line: "tree -o ~/.bashrc", Want: "deny", Reason: "tree writes"},
		{Line: "tree -o ../outside/x", Want: "deny", Reason: "outside the roots"},
		{Line: "tree -o .git/config", Want: "deny", Reason: "protected path"},
		{Line: "tree -o/tmp/x", Want: "deny", Reason: "outside the roots"},
	}})
}
