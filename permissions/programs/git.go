package programs

import (
	"strings"
)

func gitLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	sub, subAt := "", len(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			sub, subAt = a, i
			break
		}
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c"):
			return hit("-c", "sets config, which can name programs git runs (core.pager, core.fsmonitor, alias.x=!cmd)")
		case strings.HasPrefix(a, "--config-env"):
			return hit("--config-env", "sets config from the environment, which can name programs git runs")
		case strings.HasPrefix(a, "--exec-path"):
			return hit("--exec-path", "chooses where git finds its sub-programs")
		case a == "-C" || strings.HasPrefix(a, "--git-dir") || strings.HasPrefix(a, "--work-tree"):
			return hit(strings.SplitN(a, "=", 2)[0], "points git at another repository, whose config may name programs")
		}
		if a == "--namespace" || a == "--super-prefix" || a == "--list-cmds" {
			i++
		}
	}
	for _, a := range args {
		if sub == "grep" && gitGrepO(a) {
			return hit("-O", "runs a pager program on the results")
		}
		for _, o := range gitLaunchLong {
			if o.full == "--exec" && sub == "rebase" {
				continue // rebase --exec, below
			}
			// The name as written (before "=") is the option or an abbreviation of it;
			// a longer name that merely starts with it (--output-indicator-new) is
			// another option (parse-options: an exact match wins).
			if longAbbrev(a, o.full) {
				return hit(o.full, o.why)
			}
		}
		if strings.Contains(a, "ext::") || strings.HasPrefix(a, "fd::") {
			return hit(a, "uses a transport that runs a command")
		}
	}
	rest := args[min(subAt+1, len(args)):]
	switch sub {
	case "rebase":
		for _, a := range rest {
			if a == "-x" || strings.HasPrefix(a, "--exec") || longAbbrev(a, "--exec") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "x")) {
				return hit("rebase --exec", "runs a shell command after each commit")
			}
		}
	case "bisect":
		if len(rest) > 0 && rest[0] == "run" {
			return hit("bisect run", "runs a command for each step")
		}
	case "submodule":
		for _, a := range rest {
			if a == "foreach" {
				return hit("submodule foreach", "runs a shell command in each submodule")
			}
		}
	case "config":
		if !gitReadOnlyConfig(rest) {
			return hit(sub, "can run or configure external programs")
		}
	case "hook":
		if len(rest) > 0 && rest[0] == "run" {
			return hit("hook run", "runs the repository's hooks, which are files in .git the agent's commands may have written")
		}
	case "difftool", "mergetool", "filter-branch", "filter-repo", "send-email", "instaweb", "daemon":
		return hit(sub, "can run or configure external programs")
	case "help":
		for _, a := range rest {
			if longAbbrev(a, "--man") || longAbbrev(a, "--web") || longAbbrev(a, "--info") ||
				(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "mwi")) {
				return hit("help "+a, "starts a viewer program chosen by config")
			}
		}
	case "clone", "fetch", "pull", "ls-remote", "archive", "push":
		for _, a := range rest {
			if a == "--" {
				break
			}
			if sub == "clone" {
				if o, ok := findOption([]string{a}, getoptSpec{shortVal: "bcjou"}, "c", []string{"--config", "--template"}); ok {
					return hit(sub+" "+o, "sets config or hooks for the new repository, which can name programs git runs")
				}
			}
			if a == "-u" || (sub == "clone" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "u")) {
				return hit(sub+" -u", "names a program to run on the remote side")
			}
		}
	}
	return Hit{}, false
}

// gitLaunchLong are git subcommand options (parse-options, which accepts abbreviations) that
// run a program or write a file (--output and --output-directory are write targets: gitWrites).
var gitLaunchLong = []struct{ full, why string }{
	{"--open-files-in-pager", "runs a pager program on the results"},
	{"--upload-pack", "names a program to run"},
	{"--receive-pack", "names a program to run"},
	{"--exec", "names a program to run"},
	{"--ext-diff", "runs an external diff program"},
	{"--extcmd", "runs an external diff program"},
	{"--template", "copies hooks from a template directory into the repository"},
}

// gitGrepO reports git grep's -O (--open-files-in-pager) in a bundle of short options: letters
// up to one that takes a value (-e -f -m -A -B -C).
func gitGrepO(a string) bool {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for _, c := range a[1:] {
		if c == 'O' {
			return true
		}
		if strings.ContainsRune("efmABC", c) {
			return false
		}
	}
	return false
}

// gitReadOnlyConfig reports a git config command line that only reads (--get, --get-all,
// --get-regexp, --list/-l, --show-origin … without --file or a value to set): it starts nothing.
func gitReadOnlyConfig(rest []string) bool {
	reading := false
	for _, a := range rest {
		switch {
		case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--list" || a == "-l" || a == "--get-urlmatch":
			reading = true
		case a == "--show-origin" || a == "--show-scope" || a == "--null" || a == "-z" || a == "--name-only" ||
			a == "--global" || a == "--local" || a == "--system" || a == "--includes" || a == "--no-includes" ||
			a == "--bool" || a == "--int" || a == "--path" || a == "--type=bool" || a == "--type=int" || a == "--type=path":
		case strings.HasPrefix(a, "-"):
			return false // --file, --blob, --edit, --add, --unset, --replace-all …
		}
	}
	return reading
}

func init() {
	register(&Spec{Names: []string{"git"}, Launch: gitLaunch, DynamicArgs: true, Writes: gitWrites, Examples: []Example{
		{Line: "git status && git diff --stat && git log --oneline -5", Allow: []string{"git status", "git diff", "git log"}, Want: "allow"},
		{Line: "git --no-pager log -p", Allow: []string{"git log"}, Want: "allow"},
		{Line: "GIT_PAGER=cat git log", Allow: []string{"git log"}, Want: "allow"},
		{Line: "git -c core.pager='sh -c id' log", Allow: []string{"git log"}, Want: "ask", Reason: "git -c sets config"},
		{Line: "git -ccore.fsmonitor=x status", Allow: []string{"git status"}, Want: "ask", Reason: "git -c"},
		{Line: "git --config-env=core.pager=X log", Allow: []string{"git log"}, Want: "ask", Reason: "git --config-env"},
		{Line: "git --exec-path=/tmp log", Allow: []string{"git log"}, Want: "ask", Reason: "git --exec-path"},
		{Line: "git -C /tmp status", Allow: []string{"git status"}, Want: "ask", Reason: "git -C points git at another repository"},
		{Line: "git grep -O foo", Allow: []string{"git grep"}, Want: "ask", Reason: "git -O runs a pager"},
		{Line: "git diff --ext-diff", Allow: []string{"git diff"}, Want: "ask", Reason: "git --ext-diff"},
		{Line: "git diff --output-indicator-new=+", Allow: []string{"git diff"}, Want: "allow"},
		{Line: "git log --output=/tmp/x", Allow: []string{"git log"}, Want: "deny", Reason: "git writes /tmp/x"},
		{Line: "git diff --output=changes.diff && git log -p --out log.txt", Allow: []string{"git diff", "git log"}, Want: "allow"},
		{Line: "git diff --out .git/hooks/pre-commit", Allow: []string{"git diff"}, Want: "deny", Reason: "git writes .git/hooks/pre-commit"},
		{Line: "git archive -o /tmp/a.tar HEAD", Want: "deny", Reason: "git writes /tmp/a.tar"},
		{Line: "git archive -o/tmp/a.tar HEAD", Want: "deny", Reason: "git writes /tmp/a.tar"},
		{Line: "git archive -vo /tmp/a.tar HEAD", Want: "deny", Reason: "git writes /tmp/a.tar"},
		{Line: "git archive --output /tmp/a.tar HEAD", Want: "deny", Reason: "git writes /tmp/a.tar"},
		{Line: "git archive --format=tar --output=/tmp/a.tar HEAD", Want: "deny", Reason: "git writes /tmp/a.tar"},
		{Line: "git archive -o out.tar HEAD", Want: "allow"},
		{Line: "git bundle create /tmp/b HEAD", Want: "deny", Reason: "git writes /tmp/b"},
		{Line: "git bundle create -q /tmp/b --all", Want: "deny", Reason: "git writes /tmp/b"},
		{Line: "git bundle create repo.bundle HEAD && git bundle verify repo.bundle", Want: "allow"},
		{Line: "git format-patch -o /tmp HEAD~1", Want: "deny", Reason: "git writes /tmp"},
		{Line: "git format-patch --output-directory=/tmp HEAD~1", Want: "deny", Reason: "git writes /tmp"},
		{Line: "git format-patch --output-dir /tmp HEAD~1", Want: "deny", Reason: "git writes /tmp"},
		{Line: "git format-patch -o patches HEAD~3", Want: "allow"},
		{Line: "git checkout-index --prefix=/tmp/ -a", Want: "deny", Reason: "git writes /tmp/"},
		{Line: "git checkout-index -a --prefix=.git/hooks/", Want: "deny", Reason: "git writes .git/hooks/"},
		{Line: "git checkout-index -a --prefix=.gi", Want: "ask", Reason: "only known at run time"},
		{Line: "git checkout-index -a --prefix=export/", Want: "allow"},
		{Line: "git worktree add /tmp/w", Want: "deny", Reason: "git writes /tmp/w"},
		{Line: "git worktree add -b topic /tmp/w main", Want: "deny", Reason: "git writes /tmp/w"},
		{Line: "git worktree add -b topic ../w main", Want: "deny", Reason: "git writes ../w"},
		{Line: "git worktree move wt /tmp/w", Want: "deny", Reason: "git writes /tmp/w"},
		{Line: "git worktree add wt/topic && git worktree list", Want: "allow"},
		{Line: "git clone https://example.com/r.git /tmp/r", Want: "deny", Reason: "git writes /tmp/r"},
		{Line: "git clone -b main --depth 1 https://example.com/r.git ../r", Want: "deny", Reason: "git writes ../r"},
		{Line: "git clone --sep /tmp/g https://example.com/r.git r", Want: "deny", Reason: "git writes /tmp/g"},
		{Line: "git clone --separate-git-dir=.git/modules/x https://example.com/r.git r", Want: "deny", Reason: "git writes .git/modules/x"},
		{Line: "git clone -qb main https://example.com/r.git vendor/r", Want: "allow"},
		{Line: "git clone https://example.com/r.git", Want: "allow"},
		{Line: "git init /tmp/x", Want: "deny", Reason: "git writes /tmp/x"},
		{Line: "git init -b main -q ../x", Want: "deny", Reason: "git writes ../x"},
		{Line: "git init --initial-branch main sub && git init", Want: "allow"},
		{Line: "git hook run pre-commit", Want: "ask", Reason: "git hook run runs the repository's hooks"},
		{Line: "git rebase -x 'make' main", Allow: []string{"git rebase"}, Want: "ask", Reason: "git rebase --exec"},
		{Line: "git clone ext::sh x", Allow: []string{"git clone"}, Want: "ask", Reason: "uses a transport that runs a command"},
		{Line: "git config --get user.email", Allow: []string{"git config --get"}, Want: "allow"},
		{Line: "git config -l --show-origin", Allow: []string{"git config"}, Want: "allow"},
		{Line: "git config core.pager 'sh -c id'", Allow: []string{"git config"}, Want: "ask", Reason: "git config can run or configure external programs"},
		{Line: "git config --file x --get a.b", Allow: []string{"git config"}, Want: "ask", Reason: "git config"},
	}})
}
