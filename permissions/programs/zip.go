package programs

import (
	"strings"
)

func zipLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if a == "--" {
			break
		}
		if (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "TT")) || longAbbrev(a, "--unzip-command") {
			return hit("-TT", "runs a test program")
		}
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"zip"}, Launch: zipLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "zip -r out.zip src", Want: "allow"},
		{Line: "zip -TT 'sh -c id' out.zip f", Want: "ask", Reason: "zip -TT runs a test program"},
		{Line: "zip --unzip-command=x out.zip f", Want: "ask", Reason: "zip -TT"},
	}})
}
