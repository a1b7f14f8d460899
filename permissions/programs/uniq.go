package programs

// uniq [OPTION]... [INPUT [OUTPUT]]: the second operand is the file it writes.
func uniqWrites(_ string, args []Arg) Targets {
	return operandTarget(args, 1, func(w string) bool { return w == "-f" || w == "-s" || w == "-w" })
}

func init() {
	register(&Spec{Names: []string{"uniq"}, Writes: readerWrites(uniqWrites), DynamicArgs: true, Examples: []Example{
		{Line: "uniq -c README.md", Want: "allow"},
		{Line: "uniq -f 1 README.md", Want: "allow"},
		{Line: "uniq README.md out.txt", Want: "allow"},
		{Line: "uniq README.md ~/.bashrc", Want: "deny", Reason: "uniq writes"},
		{Line: "uniq -w 3 README.md ../x", Want: "deny", Reason: "outside the roots"},
		{Line: "uniq -- README.md /tmp/x", Want: "deny", Reason: "outside the roots"},
	}})
}
