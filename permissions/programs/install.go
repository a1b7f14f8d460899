package programs

import (
	"strings"
)

func installLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if a == "--" {
			break
		}
		if _, ok := longAbbrevAny(a, []string{"--strip-program"}, "--strip"); ok || strings.HasPrefix(a, "--strip-program") {
			return hit("--strip-program", "runs a program on every installed file")
		}
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"install"}, Launch: installLaunch, DynamicArgs: true, Writes: writerTargets, Examples: []Example{
		{Line: "install -d out", Want: "allow"},
		{Line: "install --strip-program=/tmp/x a b", Want: "ask", Reason: "install --strip-program"},
		{Line: "install -m 755 x .git/hooks/pre-commit", Want: "deny", Reason: "install writes .git/hooks/pre-commit"},
	}})
}
