package programs

import "strings"

// xxd [options] [infile [outfile]]: the second operand is the file it writes (with or without
// -r). Options taking a value take the next word unless the value follows in the same word
// (-c8, -cols 8).
func xxdWrites(_ string, args []Arg) Targets {
	return operandTarget(args, 1, func(w string) bool {
		name := strings.TrimLeft(w, "-")
		if name == "" || strings.ContainsAny(name, "0123456789") {
			return false
		}
		for _, o := range []string{"c", "cols", "g", "groupsize", "l", "len", "o", "offset", "s", "seek", "n", "name"} {
			if name == o {
				return true
			}
		}
		return false
	})
}

func init() {
	register(&Spec{Names: []string{"xxd"}, Writes: readerWrites(xxdWrites), DynamicArgs: true, Examples: []Example{
		{Line: "xxd -l 64 README.md", Want: "allow"},
		{Line: "xxd -c 16 README.md dump.txt", Want: "allow"},
		{Line: "xxd -r README.md ~/.bashrc", Want: "deny", Reason: "xxd writes"},
		{Line: "xxd README.md ../x", Want: "deny", Reason: "outside the roots"},
		{Line: "xxd -s 4 README.md /tmp/x", Want: "deny", Reason: "outside the roots"},
	}})
}
