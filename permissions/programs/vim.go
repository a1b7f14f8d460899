package programs

import (
	"strings"
)

func vimLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if strings.HasPrefix(a, "+") || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--cmd") || strings.HasPrefix(a, "-S") {
			return hit(a, "runs editor commands, which can start programs")
		}
	}
	return Hit{}, false
}

func init() {
	for _, n := range []string{"vim", "vi", "nvim", "view", "ex", "vimdiff"} {
		s := &Spec{Names: []string{n}, Launch: vimLaunch, DynamicArgs: true}
		if n == "vim" {
			s.Examples = []Example{
				{Line: "vim -c ':!id' f", Want: "ask", Reason: "vim -c runs editor commands"},
				{Line: "vim '+!id' f", Want: "ask", Reason: "runs editor commands"},
			}
		}
		register(s)
	}
}
