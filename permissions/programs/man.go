package programs

import ()

func manLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	if o, ok := findOption(args, getoptSpec{shortVal: "CELMPRSemprs", shortOpt: "HTX"}, "PH", []string{"--pager", "--html"}); ok {
		return hit(o, "runs a pager or browser program")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"man"}, Launch: manLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "man ls", Want: "allow"},
		{Line: "man -P 'sh -c id' ls", Want: "ask", Reason: "man -P runs a pager"},
		{Line: "man --html=x ls", Want: "ask", Reason: "man --html"},
	}})
}
