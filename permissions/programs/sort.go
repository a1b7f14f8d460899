package programs

import ()

func sortLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	if _, ok := findOption(args, getoptSpec{shortVal: "kotST"}, "", []string{"--compress-program"}); ok {
		return hit("--compress-program", "runs a compression program")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"sort"}, Launch: sortLaunch, DynamicArgs: true, Writes: readerWrites(writerTargets), Examples: []Example{
		{Line: "sort -u f | head", Want: "allow", Allow: []string{"sort", "head"}},
		{Line: "sort --compress-program=x f", Want: "ask", Reason: "sort --compress-program runs a compression program"},
		{Line: "sort -o .git/config f", Want: "deny", Reason: "sort writes .git/config"},
		{Line: "sort --output=/etc/x f", Want: "deny", Reason: "sort writes /etc/x"},
		{Line: "sort -o out.txt f", Want: "allow"},
		{Line: "sort -T /tmp f", Want: "deny", Reason: "sort writes /tmp"},
		{Line: "sort -T/tmp f", Want: "deny", Reason: "sort writes /tmp"},
		{Line: "sort -uT /tmp f", Want: "deny", Reason: "sort writes /tmp"},
		{Line: "sort --temporary-directory=/tmp f", Want: "deny", Reason: "sort writes /tmp"},
		{Line: "sort --temp /tmp f", Want: "deny", Reason: "sort writes /tmp"},
		{Line: "sort -T .git f", Want: "deny", Reason: "sort writes .git"},
		{Line: "sort -T tmp -S 1G big.txt", Want: "allow"},
	}})
}
