package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit statuses (the CLI contract in README.md and --help).
const (
	// exitOK: every prompt turn ended with a stop reason (or a subcommand succeeded).
	exitOK = 0
	// exitFailure: the agent or the protocol failed (or the audit chain is broken).
	exitFailure = 1
	// exitUsage: bad flags or arguments, or a configuration error.
	exitUsage = 2
)

// demoAgentArg is the hidden first argument that turns acpterm into the demo agent (acpterm
// --demo re-executes itself with it).
const demoAgentArg = "__demo-agent"

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage error")

// usageError wraps a message as a usage error.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// cliOptions is the parsed main command line.
type cliOptions struct {
	configPath string
	cwd        string
	prompts    []string
	headless   bool
	approve    string   // "deny" | "allow"
	answers    []string // --answer KEY=VALUE, in command-line order
	auditLog   string
	logFile    string
	trace      string // --trace FILE: the JSON-RPC protocol trace
	resume     string // --resume ID ("" none)
	pick       bool   // --resume without an id: the session picker
	cont       bool   // --continue: the latest session of the cwd
	demo       bool
	// sandboxMode is --sandbox MODE ("" = the config's [sandbox] mode).
	sandboxMode string
	// sandboxAgent is --sandbox-agent: run the agent itself in the sandbox.
	sandboxAgent bool
	version      bool
	help         bool
	agent        []string // everything after `--` (or the first non-flag argument)
}

// stringList is a repeatable string flag (--prompt), kept in command-line order.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

const usageText = `acpterm runs an AI coding agent (an ACP agent) in your terminal: its commands run in
real terminal panes, and a sandbox policy decides what it may run, read and write.

Usage:
  acpterm [flags] -- AGENT [ARGS...]      run AGENT (interactive, or --headless)
  acpterm [flags] --demo                  run the built-in demo agent (no key, no network)
  acpterm policy check [--json] [--config FILE] [--cwd DIR] -- COMMAND [ARGS...]
                                          explain the policy's decision for a command (--json: as JSON)
  acpterm audit verify [FILE]             check the audit log's hash chain
  acpterm sandbox check [--config FILE] [--cwd DIR] [--sandbox MODE]
                                          show which sandbox layers are in force (JSON)

Flags:
  --config FILE     config file (default $XDG_CONFIG_HOME/acpterm/config.toml)
  --cwd DIR         session working directory (default: the current directory;
                    with --demo: a new scratch directory)
  --prompt TEXT     send TEXT as a prompt; repeatable, sent in order, one turn each
  --headless        no TUI: print the session as plain text on stdout
  --approve MODE    headless answer to "ask" decisions: deny (default) or allow
  --answer KEY=VALUE
                    headless answer to a field of the agent's questions (elicitation
                    forms); repeatable; without any, questions are declined
  --audit-log FILE  audit log (default $XDG_STATE_HOME/acpterm/audit.jsonl)
  --log FILE        diagnostics log (default $XDG_STATE_HOME/acpterm/acpterm.log; rotated at 16 MiB, one old file kept)
  --resume [ID]     resume session ID (ACP session/load, else session/resume); without an
                    ID, pick one of this directory's earlier sessions (interactive only);
                    put the agent after "--" (acpterm --resume -- AGENT)
  --continue        resume the most recent session of this directory
  --trace FILE      write every JSON-RPC message to and from the agent to FILE (JSONL,
                    timestamped; for bug reports: it holds prompts, file contents and output)
  --demo            run the built-in scripted demo agent
  --sandbox MODE    off, auto or required: how the kernel confines commands
                    (default [sandbox] mode, auto)
  --sandbox-agent   run the agent itself in the sandbox too ([sandbox] agent)
  --version         print the version and exit
  --help            print this help and exit

The agent command is what follows "--"; without it, [agent] command from the config is used.

Exit status: 0 every prompt turn ended with a stop reason; 1 agent or protocol failure;
2 usage or configuration error.
`

// parseArgs parses the main command line (not the subcommands). Errors wrap errUsage.
// resumePick is what parseArgs reads as the value of a --resume given without an id.
const resumePick = "\x00pick"

// optionalResume rewrites a --resume that has no id (the last flag, or followed by "--" or
// another flag) to --resume=<resumePick>, so the flag package can parse it.
func optionalResume(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--resume" || a == "-resume") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			a = "--resume=" + resumePick
		}
		out = append(out, a)
	}
	return out
}

func parseArgs(args []string) (cliOptions, error) {
	var o cliOptions
	fs := flag.NewFlagSet("acpterm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.configPath, "config", "", "")
	fs.StringVar(&o.cwd, "cwd", "", "")
	fs.Var((*stringList)(&o.prompts), "prompt", "")
	fs.BoolVar(&o.headless, "headless", false, "")
	fs.StringVar(&o.approve, "approve", "deny", "")
	fs.Var((*stringList)(&o.answers), "answer", "")
	fs.StringVar(&o.auditLog, "audit-log", "", "")
	fs.StringVar(&o.logFile, "log", "", "")
	fs.StringVar(&o.trace, "trace", "", "")
	fs.StringVar(&o.resume, "resume", "", "")
	fs.BoolVar(&o.cont, "continue", false, "")
	fs.BoolVar(&o.demo, "demo", false, "")
	fs.StringVar(&o.sandboxMode, "sandbox", "", "")
	fs.BoolVar(&o.sandboxAgent, "sandbox-agent", false, "")
	fs.BoolVar(&o.version, "version", false, "")
	fs.BoolVar(&o.help, "help", false, "")
	fs.BoolVar(&o.help, "h", false, "")
	if err := fs.Parse(optionalResume(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			o.help = true
			return o, nil
		}
		return o, usageError("%v", err)
	}
	if len(fs.Args()) > 0 {
		o.agent = fs.Args()
	}
	if o.help || o.version {
		return o, nil
	}
	switch o.sandboxMode {
	case "", "off", "auto", "required":
	default:
		return o, usageError("--sandbox must be off, auto or required, not %q", o.sandboxMode)
	}
	if o.approve != "deny" && o.approve != "allow" {
		return o, usageError("--approve must be deny or allow, not %q", o.approve)
	}
	approveSet := false
	fs.Visit(func(f *flag.Flag) { approveSet = approveSet || f.Name == "approve" })
	if approveSet && !o.headless {
		return o, usageError("--approve answers questions in --headless mode only; the interactive mode asks you")
	}
	for _, a := range o.answers {
		if k, _, ok := strings.Cut(a, "="); !ok || strings.TrimSpace(k) == "" {
			return o, usageError("--answer %q: must be KEY=VALUE (the field name of the agent's question, then its value)", a)
		}
	}
	if len(o.answers) > 0 && !o.headless {
		return o, usageError("--answer answers questions in --headless mode only; the interactive mode asks you")
	}
	if o.resume == resumePick {
		o.resume, o.pick = "", true
	}
	switch {
	case (o.resume != "" || o.pick) && o.cont:
		return o, usageError("--resume and --continue both choose the session; give one")
	case o.pick && o.headless:
		return o, usageError("--resume without an id shows a picker, which needs the interactive mode; give the session id, or use --continue")
	case strings.TrimSpace(o.resume) != o.resume:
		return o, usageError("--resume %q: a session id has no surrounding spaces", o.resume)
	}
	if o.demo && len(o.agent) > 0 {
		return o, usageError("--demo runs the built-in agent; do not also name an agent (%q)", strings.Join(o.agent, " "))
	}
	for i, p := range o.prompts {
		if strings.TrimSpace(p) == "" {
			return o, usageError("--prompt #%d is empty", i+1)
		}
	}
	return o, nil
}

// policyArgs is the parsed `policy check` command line.
type policyArgs struct {
	configPath, cwd string
	command         []string
	json            bool // --json: the decision as JSON
}

// parsePolicyCheck parses the arguments after `policy check`.
func parsePolicyCheck(args []string) (policyArgs, error) {
	var p policyArgs
	fs := flag.NewFlagSet("acpterm policy check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&p.configPath, "config", "", "")
	fs.StringVar(&p.cwd, "cwd", "", "")
	fs.BoolVar(&p.json, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return p, usageError("policy check: %v", err)
	}
	p.command = fs.Args()
	if len(p.command) == 0 || p.command[0] == "" {
		return p, usageError("policy check: no command given (usage: acpterm policy check [--json] [--config FILE] [--cwd DIR] -- COMMAND [ARGS...])")
	}
	return p, nil
}
