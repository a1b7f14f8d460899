package programs

import "slices"

func findLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for _, a := range args {
		if IsFindExecAction(a) {
			return hit(a, "runs a command for every file found")
		}
		switch a {
		case "-delete":
			return hit(a, "deletes files")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			return hit(a, "writes a file")
		}
	}
	return Hit{}, false
}

// FindExecActions returns (a fresh copy of) find's actions that run a command for every file
// found; the words up to ";" or "+" are that command (analysed as a leaf of its own).
func FindExecActions() []string { return slices.Clone(findExecActions) }

// IsFindExecAction reports whether word is one of FindExecActions.
func IsFindExecAction(word string) bool { return slices.Contains(findExecActions, word) }

var findExecActions = []string{"-exec", "-execdir", "-ok", "-okdir"}

func init() {
	register(&Spec{Names: []string{"find"}, Launch: findLaunch, DynamicArgs: true, Wrapper: &Wrapper{Kind: FindExec},
		Examples: []Example{
			{Line: "find . -name '*.go' -not -path './vendor/*'", Want: "allow"},
			{Line: "find . -name x -exec rm {} +", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
			{Line: "find . -name x -exec grep -l y {} +", Allow: []string{"find", "grep"}, Want: "ask", Reason: "find -exec runs a command for every file found"},
			{Line: "find . -execdir ls ;", Want: "ask", Reason: "find -execdir"},
			{Line: "find . -okdir ls ;", Want: "ask", Reason: "find -okdir"},
			{Line: "find . -delete", Want: "ask", Reason: "find -delete deletes files"},
			{Line: "find . -fprint /tmp/x", Want: "ask", Reason: "find -fprint writes a file"},
		}})
}
