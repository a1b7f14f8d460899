package programs

import (
	"strings"
)

func diffLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--diff-program") || longAbbrev(a, "--diff-program") {
			return hit("--diff-program", "runs another diff program")
		}
	}
	if tool == "sdiff" {
		if o, ok := findOption(args, getoptSpec{shortVal: "ow", longVal: []string{"--output", "--width", "--diff-program"}}, "o", []string{"--output"}); ok {
			return hit(o, "writes the merged file wherever it points")
		}
	}
	return Hit{}, false
}

func init() {
	for _, n := range []string{"diff", "sdiff", "diff3"} {
		s := &Spec{Names: []string{n}, Launch: diffLaunch, DynamicArgs: true}
		if n == "diff" {
			s.Examples = []Example{
				{Line: "diff -u a b", Want: "allow"},
				{Line: "diff --diff-program=x a b", Want: "ask", Reason: "diff --diff-program runs another diff program"},
			}
		}
		if n == "sdiff" {
			s.Examples = []Example{{Line: "sdiff -o out a b", Want: "ask", Reason: "sdiff -o writes the merged file"}}
		}
		register(s)
	}
}
