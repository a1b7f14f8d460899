// Package policy holds the value the permissions engine decides by (Policy) and the syntax of
// its rules: host rules (ParseHostRule) and the built-in lists of environment variables no
// agent may set. It has no behaviour beyond parsing and no dependencies, so a configuration
// layer (acpterm's config package) can convert to it without importing the engine.
package policy

// Policy is what a permissions engine decides by: the roots, the verdict for what no rule
// covers, the rules for commands, environment variables, files and network hosts, and the
// files and directories of acpterm's own that no request may write. It is a plain value:
// build it directly, or convert a loaded configuration (config.Config.Permissions).
type Policy struct {
	// Roots are the directories the agent may work in (cwd and files): absolute, real,
	// existing. At least one is required.
	Roots []string
	// Unmatched is the verdict for a command no rule covers: "allow", "ask" or "deny".
	Unmatched string
	// OutputByteLimit caps the bytes of terminal output kept for the agent (0: no cap of the
	// policy's own).
	OutputByteLimit int
	// Commands holds the command prefix rules.
	Commands Commands
	// Env holds the rules for environment variables the agent sets.
	Env Env
	// FS holds the verdicts and deny globs for file reads and writes inside the roots.
	FS FS
	// Network holds the host rules for connections from sandboxed commands.
	Network Network
	// Protected are acpterm's own files and directories (its config file and directory,
	// state directory, a project policy file) that no request may write, besides the ones the
	// engine knows itself (.git, shell start-up files, ~/.ssh …).
	Protected []Protected
	// ProjectFile is the base name of the project policy file (".acpterm.toml"), protected in
	// the session cwd whether or not it exists yet; "" for none.
	ProjectFile string
}

// Commands are command prefix rules, matched word by word against every simple command
// (leaf) after shell parsing; each entry is a shell-word string such as "git status". The
// strictest verdict among the rules that match wins: deny > ask > allow.
type Commands struct {
	Allow []string // prefixes allowed without asking
	Ask   []string // prefixes always asked about
	Deny  []string // prefixes always refused
}

// Env are the rules for environment variables the agent sets (as agent variables or inside a
// script). Entries are variable-name globs (path.Match syntax), matched without case. Deny
// beats allow; the engine always adds BuiltinEnvDeny and HiddenEnvDeny to Deny and
// BuiltinEnvAllow to Allow.
type Env struct {
	// Deny are globs the agent may not set, except where the value is known to be harmless (a
	// pager variable set to a plain pager, CGO_ENABLED=0/1, a PYTHONPATH inside the roots).
	Deny []string
	// StrictDeny are globs the agent may not set whatever the value (config puts the user's
	// own [policy.env] deny entries here).
	StrictDeny []string
	// Allow are globs the agent may set.
	Allow []string
}

// FS are the verdicts for file access inside the roots.
type FS struct {
	// Read and Write are the verdicts ("allow", "ask", "deny") for fs/read_text_file and
	// fs/write_text_file inside the roots (ACP: fs/*).
	Read  string
	Write string
	// DenyRead and DenyWrite are doublestar globs; relative globs apply inside every root.
	DenyRead  []string
	DenyWrite []string
}

// Network are the host rules (ParseHostRule syntax) for connections from sandboxed commands,
// matched on the host name the client asked for and the port.
type Network struct {
	Allow []string // host rules connected to without asking
	Deny  []string // host rules refused (deny > allow)
	// Unmatched is the verdict for a host no rule covers: "ask" ("" means ask), "deny" or
	// "allow".
	Unmatched string
}

// Protected is one file or directory of acpterm's own that no request may write.
type Protected struct {
	// Path is absolute; a relative or empty path is ignored.
	Path string
	// Dir: the path and everything beneath it; otherwise the path itself only.
	Dir bool
	// Reason says what it is, shown in the decision ("acpterm's config file (/home/u/…)").
	Reason string
}
