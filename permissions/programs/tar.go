package programs

import (
	"strings"
)

func tarLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	// Old-style keys: a first word without a dash is a bundle of option letters whose values
	// are the following words (tar xvIf PROG a.tar).
	spec := getoptSpec{shortVal: "bCfFgHIKLNTVX"}
	key := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != Dynamic {
		key = args[0]
		if k := strings.IndexAny(key, "IF"); k >= 0 {
			return hit("-"+key[k:k+1], "runs a program")
		}
	}
	if o, ok := findOption(args, spec, "IF", tarLaunchLong, "--checkpoint"); ok {
		return hit(o, "runs a program")
	}
	// Extraction writes the archive's members, which the command line does not show: any path
	// under the target directory (.git/hooks, a build script, a symlink and then through it).
	if strings.IndexByte(key, 'P') >= 0 {
		return hit("-P", tarAbsoluteWhy)
	}
	if o, ok := findOption(args, spec, "P", []string{"--absolute-names"}); ok {
		return hit(o, tarAbsoluteWhy)
	}
	// -O (--to-stdout) extracts to standard output only.
	if _, ok := findOption(args, spec, "O", []string{"--to-stdout"}); ok || strings.IndexByte(key, 'O') >= 0 {
		return Hit{}, false
	}
	if strings.IndexByte(key, 'x') >= 0 {
		return hit("-x", tarExtractWhy)
	}
	if o, ok := findOption(args, spec, "x", []string{"--extract", "--get"}); ok {
		return hit(o, tarExtractWhy)
	}
	return Hit{}, false
}

const (
	tarExtractWhy  = "extracts an archive whose members are not on the command line (they may write .git/hooks, build scripts or through symlinks)"
	tarAbsoluteWhy = "keeps absolute member names (an archive may write anywhere on the machine)"
)

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
		{Line: "tar tf a.tar && tar -tvzf a.tgz && tar --list -f a.tar", Want: "allow"},
		{Line: "tar -cf out.tar --exclude=x src", Want: "allow"},
		{Line: "tar xf hook.tar", Want: "ask", Reason: "tar -x extracts an archive whose members are not on the command line"},
		{Line: "tar xzf a.tgz", Want: "ask", Reason: "tar -x extracts"},
		{Line: "tar -xzf a.tgz", Want: "ask", Reason: "tar -x extracts"},
		{Line: "tar -x -f a.tar", Want: "ask", Reason: "tar -x extracts"},
		{Line: "tar -vxf a.tar", Want: "ask", Reason: "tar -x extracts"},
		{Line: "tar --extract --file=a.tar", Want: "ask", Reason: "tar --extract extracts"},
		{Line: "tar --ext -f a.tar", Want: "ask", Reason: "tar --extract extracts"},
		{Line: "tar --get -f a.tar", Want: "ask", Reason: "tar --get extracts"},
		{Line: "tar -f a.tar -x", Want: "ask", Reason: "tar -x extracts"},
		{Line: "tar -xPf abs.tar", Want: "ask", Reason: "tar -P keeps absolute member names"},
		{Line: "tar xPf abs.tar", Want: "ask", Reason: "tar -P keeps absolute member names"},
		{Line: "tar -x --absolute-names -f abs.tar", Want: "ask", Reason: "tar --absolute-names keeps absolute member names"},
		{Line: "tar -xOf a.tar x && tar xOf a.tar y && tar -x --to-stdout -f a.tar z", Want: "allow"},
		{Line: "tar -cPf out.tar src", Want: "ask", Reason: "tar -P keeps absolute member names"},
	}})
}
