package programs

// Programs that run another program given on their command line: the shell walk peels them and
// analyses the inner command (a deny rule for it still fires), by the wrapper kind each spec
// names. A wrapper never gets an "always" grant: it would cover every program it can run.

// privilege is the note every command run with other privileges carries.
var privilege = &Note{Rule: "construct: privilege escalation", Reason: "runs the command with other privileges", Construct: "privilege escalation"}

func init() {
	simple := func(names []string, o WrapOpts, note *Note, noGrant string, ex []Example) {
		for i, n := range names {
			s := &Spec{Names: []string{n}, Wrapper: &Wrapper{Kind: Simple, Opts: o, Note: note}, NoGrant: noGrant}
			if i == 0 {
				s.Examples = ex
			}
			register(s)
		}
	}
	const runs = "a wrapper that runs another program"
	simple([]string{"nice"}, WrapOpts{Value: "n", Long: setOf("--adjustment")}, nil, runs, []Example{
		{Line: "nice -n 5 ls", Allow: []string{"ls"}, Want: "allow"},
		{Line: "nice rm -rf x", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
	})
	simple([]string{"ionice"}, WrapOpts{Value: "cnp", Stop: "p", Long: setOf("--class", "--classdata", "--pid", "--pgid", "--uid"), StopLong: setOf("--pid", "--pgid", "--uid")}, nil, "", nil)
	simple([]string{"nohup"}, WrapOpts{}, nil, runs, []Example{
		{Line: "nohup ls", Allow: []string{"ls"}, Want: "allow"}, // the table runs with [policy.fs] write = "allow"
		{Line: "cd /tmp && nohup ls", Allow: []string{"ls"}, Want: "deny", Reason: "nohup writes nohup.out"},
	})
	simple([]string{"timeout"}, WrapOpts{Value: "sk", Long: setOf("--signal", "--kill-after"), Positional: 1}, nil, runs, []Example{
		{Line: "timeout 60 go build ./...", Allow: []string{"go build"}, Want: "allow"},
		{Line: "timeout -s KILL 5 rm -rf x", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
	})
	simple([]string{"stdbuf"}, WrapOpts{Value: "ioe", Long: setOf("--input", "--output", "--error")}, nil, "", nil)
	simple([]string{"chrt"}, WrapOpts{Value: "TPD", Stop: "pm", Positional: 1, Long: setOf("--sched-runtime", "--sched-period", "--sched-deadline"), StopLong: setOf("--pid", "--max")}, nil, "", nil)
	simple([]string{"taskset"}, WrapOpts{Stop: "p", Positional: 1, StopLong: setOf("--pid")}, nil, "", nil)
	simple([]string{"noglob", "nocorrect"}, WrapOpts{}, nil, "", nil)
	simple([]string{"setsid"}, WrapOpts{}, &Note{Rule: "construct: setsid", Reason: "setsid starts a new session outside the terminal's process group, which killing the terminal does not reach", Construct: "setsid"}, runs, []Example{
		{Line: "setsid ls", Allow: []string{"ls"}, Want: "ask", Reason: "setsid starts a new session"},
	})
	simple([]string{"sudo"}, WrapOpts{Value: "ugCDhprtUTR", Stop: "lvkK", Long: setOf("--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--command-timeout", "--chroot"), StopLong: setOf("--list", "--validate", "--reset-timestamp", "--remove-timestamp", "--version", "--help")}, privilege, "privilege escalation", []Example{
		{Line: "sudo -u root rm -rf /var/lib", Allow: []string{"sudo"}, Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
		{Line: "sudo ls", Allow: []string{"sudo", "ls"}, Want: "ask", Reason: "privilege"},
	})
	simple([]string{"doas"}, WrapOpts{Value: "uC", Stop: "L"}, privilege, "privilege escalation", nil)
	simple([]string{"pkexec"}, WrapOpts{Long: setOf("--user")}, privilege, "privilege escalation", nil)
	simple([]string{"run0"}, WrapOpts{Value: "u", Long: setOf("--user", "--setenv", "--property", "--unit", "--chdir", "--description", "--nice", "--slice")}, privilege, "privilege escalation", nil)

	register(&Spec{Names: []string{"env"}, Wrapper: &Wrapper{Kind: Env}, NoGrant: runs, Examples: []Example{
		{Line: "env FOO=1 rm -rf /", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
		{Line: "env -S 'rm -rf /'", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
		{Line: "env NO_COLOR=1 ls", Allow: []string{"ls"}, Want: "allow"},
		{Line: "env -i ls", Allow: []string{"ls"}, Want: "ask", Reason: "env -i runs the command without the environment acpterm built"},
	}})
	register(&Spec{Names: []string{"xargs"}, Wrapper: &Wrapper{Kind: Xargs}, NoGrant: runs, Examples: []Example{
		{Line: "printf '%s\\n' a | xargs rm -f", Allow: []string{"printf", "xargs"}, Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
		{Line: "ls | xargs wc -l", Allow: []string{"ls", "xargs", "wc"}, Want: "ask", Reason: "xargs runs the command with arguments read from input"},
	}})
	register(&Spec{Names: []string{"watch"}, Wrapper: &Wrapper{Kind: Watch}, NoGrant: "a wrapper that runs a shell", Examples: []Example{
		{Line: "watch -n1 'rm -rf x'", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
	}})
	register(&Spec{Names: []string{"time"}, Wrapper: &Wrapper{Kind: Time}, Examples: []Example{
		{Line: "/usr/bin/time -o /etc/t ls", Allow: []string{"/usr/bin/time", "ls"}, Want: "deny", Reason: "time -o /etc/t"},
	}})
	register(&Spec{Names: []string{"busybox"}, Wrapper: &Wrapper{Kind: Busybox}, NoGrant: "a shell"})
	register(&Spec{Names: []string{"su"}, Wrapper: &Wrapper{Kind: Su}, NoGrant: "privilege escalation", Examples: []Example{
		{Line: "su -c 'rm -rf x'", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
	}})
	for i, n := range []string{"strace", "ltrace", "gdb", "valgrind", "unshare", "nsenter", "chroot", "runuser",
		"flock", "script", "unbuffer", "parallel", "systemd-run", "firejail", "bwrap", "fakeroot", "proot",
		"catchsegv", "expect", "entr", "dbus-run-session", "xvfb-run", "sg", "newgrp", "ssh-agent", "caffeinate"} {
		s := &Spec{Names: []string{n}, Wrapper: &Wrapper{Kind: Opaque}}
		if n == "expect" {
			s.Inline = flagInline([]string{"c"}, false)
		}
		if i == 0 {
			s.Examples = []Example{
				{Line: "strace -f ls", Allow: []string{"strace", "ls"}, Want: "ask", Reason: "strace runs another program in a way that is not analysed"},
				{Line: "strace -f rm -rf x", Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
			}
		}
		register(s)
	}
	// Shells: a -c script is parsed in the shell's own dialects (sh is dash on Debian and
	// Ubuntu and bash elsewhere, so a script for sh must hold under both).
	shell := func(names []string, dialects ...string) {
		for _, n := range names {
			s := &Spec{Names: []string{n}, Wrapper: &Wrapper{Kind: Shell, Dialects: dialects}, NoGrant: "a shell"}
			if n == "sh" {
				s.Examples = []Example{
					{Line: "sh -c 'git status && rm -rf x'", Allow: []string{"git status"}, Deny: []string{"rm"}, Want: "deny", Reason: `deny rule "rm"`},
					{Line: "sh -c 'cat <<< x'", Allow: []string{"cat"}, Want: "ask", Reason: "not as POSIX sh"},
					{Line: "cat README.md | sh", Allow: []string{"cat"}, Want: "ask", Reason: "reads its script from stdin"},
				}
			}
			register(s)
		}
	}
	shell([]string{"sh"}, "posix", "bash")
	shell([]string{"dash", "ash", "posh", "yash"}, "posix")
	shell([]string{"bash", "rbash"}, "bash")
	shell([]string{"zsh"}, "zsh")
	shell([]string{"ksh", "mksh", "lksh"}, "ksh")
}
