package programs

import ()

func rsyncLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	if o, ok := findOption(args, getoptSpec{shortVal: "BefMT@"}, "eM", []string{"--rsh", "--rsync-path", "--remote-option"}); ok {
		return hit(o, "names a remote shell program or passes options to the other rsync")
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"rsync"}, Launch: rsyncLaunch, DynamicArgs: true, Examples: []Example{
		{Line: "rsync -e 'sh -c id' a b", Want: "ask", Reason: "rsync -e names a remote shell program"},
		{Line: "rsync --rsync-path=x a host:b", Want: "ask", Reason: "rsync --rsync-path"},
	}})
}
