package programs

// fd runs a command for every match (-x, --exec) or with all matches (-X, --exec-batch).
func fdLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	if o, ok := findOption(args, getoptSpec{shortVal: "dEetSdcjx", longVal: []string{"--exec", "--exec-batch"}}, "xX", []string{"--exec", "--exec-batch"}); ok {
		if o == "-X" || o == "--exec-batch" {
			return hit(o, "runs a program with all matches")
		}
		return hit(o, "runs a program for every match")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"fd", "fdfind"}, Launch: fdLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "fd -e go", Want: "allow"},
		{Line: "fd -tf -H README", Want: "allow"},
		{Line: "fd -x id", Want: "ask", Reason: "fd -x runs a program for every match"},
		{Line: "fd --exec id", Want: "ask", Reason: "fd --exec runs a program for every match"},
		{Line: "fd --exe=id", Want: "ask", Reason: "fd --exec"},
		{Line: "fd -X id", Want: "ask", Reason: "fd -X runs a program with all matches"},
		{Line: "fd --exec-batch id", Want: "ask", Reason: "fd --exec-batch runs a program with all matches"},
		{Line: "fd -tf -x id {}", Want: "ask", Reason: "fd -x"},
		{Line: "fd -Hx id", Want: "ask", Reason: "fd -x"},
	}})
}
