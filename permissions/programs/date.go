package programs

import (
	"strings"
)

func dateLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "--date" || a == "--file" || a == "--reference" {
			i++ // the value is the next word
			continue
		}
		if strings.HasPrefix(a, "--") {
			// getopt accepts any unambiguous prefix: --s, --se, --set.
			if name, _, _ := strings.Cut(a, "="); len(name) > 2 && strings.HasPrefix("--set", name) {
				return hit("--set", "sets the system clock")
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		for k, r := range a[1:] {
			if r == 's' {
				return hit("-s", "sets the system clock")
			}
			if r == 'I' {
				break // optional value attached
			}
			if r == 'd' || r == 'f' || r == 'r' {
				if k == len(a)-2 {
					i++ // the value is the next word
				}
				break // or the rest of this word
			}
		}
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"date"}, Launch: dateLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "date -u +%Y-%m-%d", Want: "allow"},
		{Line: "date -s 2020-01-01", Want: "ask", Reason: "date -s sets the system clock"},
		{Line: "date --se 2020-01-01", Want: "ask", Reason: "date --set"},
	}})
}
