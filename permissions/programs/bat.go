package programs

// bat shows files through a pager program it may be told to run (--pager).
func batLaunch(tool string, args []string) (Hit, bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if longAbbrev(a, "--pager") {
			return hitFor(tool)("--pager", "runs the pager program it names")
		}
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"bat", "batcat"}, Launch: batLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "bat -n README.md", Want: "allow"},
		{Line: "bat --paging=never README.md", Want: "allow"},
		{Line: "bat --pager=id README.md", Want: "ask", Reason: "bat --pager runs the pager program"},
		{Line: "bat --pager 'sh -c id' README.md", Want: "ask", Reason: "bat --pager"},
		{Line: "bat --pag=id README.md", Want: "ask", Reason: "bat --pager"},
	}})
}
