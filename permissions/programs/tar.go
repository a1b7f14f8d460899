package programs

import (
	"strings"
)

func tarLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	// Old-style keys: a first word without a dash is a bundle of option letters whose values
	// are the following words (tar xvIf PROG a.tar).
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != Dynamic {
		if k := strings.IndexAny(args[0], "IF"); k >= 0 {
			return hit("-"+args[0][k:k+1], "runs a program")
		}
	}
	if o, ok := findOption(args, getoptSpec{shortVal: "bCfFgHIKLNTVX"}, "IF", tarLaunchLong, "--checkpoint"); ok {
		return hit(o, "runs a program")
	}
	return Hit{}, false
}

// tarLaunchLong are GNU tar's long options that run a program.
var tarLaunchLong = []string{"--to-command", "--checkpoint-action", "--use-compress-program", "--info-script",
	"--new-volume-script", "--rsh-command", "--rmt-command"}

func init() {
	register(&Spec{Names: []string{"tar"}, Launch: tarLaunch, DynamicArgs: true, Writes: tarWrites, Examples: []Example{
		{Line: "tar -czf out.tgz src && tar -tzf out.tgz", Want: "allow"},
		{Line: "tar -xf a.tar -C .git", Want: "deny", Reason: "tar writes .git"},
		{Line: "tar xvIf prog a.tar", Want: "ask", Reason: "tar -I runs a program"},
		{Line: "tar --to-command=x -xf a.tar", Want: "ask", Reason: "tar --to-command runs a program"},
		{Line: "tar --use-comp=x -cf a.tar .", Want: "ask", Reason: "tar --use-compress-program"},
		{Line: "tar -czf /tmp/out.tgz .", Want: "deny", Reason: "tar writes /tmp/out.tgz"},
	}})
}
