package programs

import ()

func rgLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		switch {
		case longAbbrev(a, "--pre"): // not --pre-glob, another option
			return hit("--pre", "runs a preprocessor program on every file")
		case longAbbrev(a, "--hostname-bin"):
			return hit("--hostname-bin", "runs a program to get the host name")
		}
	}
	if _, ok := findOption(args, getoptSpec{shortVal: "ABCdEefgjMmrtT"}, "z", []string{"--search-zip"}); ok {
		return hit("-z", "runs decompression programs on files")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"rg"}, Launch: rgLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "rg -n 'func main' --type go", Want: "allow"},
		{Line: "rg --pre ./x.sh foo", Want: "ask", Reason: "rg --pre runs a preprocessor"},
		{Line: "rg --pre-glob '*.gz' foo", Want: "allow"},
		{Line: "rg --hostname-bin=./x foo", Want: "ask", Reason: "rg --hostname-bin"},
		{Line: "rg -z foo", Want: "ask", Reason: "rg -z runs decompression programs"},
		{Line: "rg -iz foo", Want: "ask", Reason: "rg -z"},
	}})
}
