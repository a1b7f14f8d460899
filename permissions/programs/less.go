package programs

import (
	"strings"
)

func lessLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if strings.HasPrefix(a, "+") {
			return hit(a, "runs less commands at start, which can start a shell")
		}
	}
	return Hit{}, false
}

func init() {
	for _, n := range []string{"less", "more"} {
		s := &Spec{Names: []string{n}, Launch: lessLaunch, DynamicArgs: true}
		if n == "less" {
			s.Examples = []Example{
				{Line: "less README.md", Want: "allow"},
				{Line: "less '+!id' README.md", Want: "ask", Reason: "less +!id runs less commands at start"},
			}
		}
		register(s)
	}
}
