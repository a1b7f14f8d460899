// Package config finds, parses and validates acpterm's TOML configuration: the user file
// ($XDG_CONFIG_HOME/acpterm/config.toml or --config), built-in defaults, and a project file
// (.acpterm.toml in the session cwd) that may only tighten the policy. The v1 schema is the one in
// documented in the README ("Configuration"); unknown keys, wrong types and bad values are errors that name
// file:line:col and the key path.
package config

import "time"

// Config is a loaded, validated configuration. Every path in it is absolute and real (symlinks
// resolved); every enum holds one of its documented values.
type Config struct {
	// Source is the path of the user config file that was read, or "built-in defaults".
	Source string
	// UserFile is the user config file: the file that was read (as Source), or,
	// when none was, where Load looked for it ($XDG_CONFIG_HOME/acpterm/config.toml, else
	// ~/.config/acpterm/config.toml), so messages can say where a setting such as [agent]
	// command goes. "" when no home directory is known (and for Default).
	UserFile string
	// Project is the path of the applied project file (.acpterm.toml), or "" when there was none.
	Project string
	// Agent is the [agent] table.
	Agent Agent
	// Policy is the [policy] table and its sub-tables.
	Policy Policy
	// UI is the [ui] table.
	UI UI
	// MCP is the [mcp] table.
	MCP MCP
	// Sandbox is the [sandbox] table: how the kernel confines commands and the agent.
	Sandbox Sandbox
}

// MCP is the [mcp] table: what acpterm offers the agent as MCP servers.
type MCP struct {
	// Terminals offers acpterm's interactive terminal tools (terminal_start, terminal_input, …)
	// to every session as the MCP server "acpterm" (default true). A project file may turn it
	// off, never on.
	Terminals bool
}

// Sandbox is the [sandbox] table.
type Sandbox struct {
	// Mode is "off" (commands run with the user's rights), "auto" (every layer the kernel
	// offers, the missing ones said) or "required" (a command, or an agent with Agent, is
	// refused when a layer is missing). Default "auto".
	Mode string
	// Network is "proxy" (default: an empty network namespace whose only way out is
	// acpterm's proxy, deciding each host by [policy.network]), "on" (commands share
	// acpterm's network) or "off" (an empty network namespace, no way out).
	Network string
	// Agent starts the agent process itself through the sandbox (its network through the
	// proxy unless Network is "on"). Default false.
	Agent bool
	// AgentWrite are further absolute paths a sandboxed agent may write (beyond the roots,
	// the temp dir and its built-in state directories).
	AgentWrite []string
}

// Agent is the [agent] table.
type Agent struct {
	// Command is the agent argv used when nothing follows `--` on the command line.
	Command []string
	// Mode is the session mode acpterm switches the agent to at start: "asking" (the default:
	// the mode in which the agent asks acpterm before it runs a command or edits a file, from
	// a built-in table of agents), "agent" (keep the agent's own choice), or a mode id.
	Mode string
}

// Policy is the [policy] table: where the agent may work and what it may run.
type Policy struct {
	// Roots are the directories the agent may work in (cwd and files): absolute, real, existing.
	// Default: the session cwd.
	Roots []string
	// Unmatched is the verdict for a command no rule covers: "ask", "deny" or "allow".
	Unmatched string
	// OutputByteLimit caps the bytes of terminal output kept for the agent (default 1 MiB).
	OutputByteLimit int
	// Commands holds the [policy.commands] prefix rules.
	Commands Commands
	// Env is the [policy.env] table.
	Env Env
	// FS is the [policy.fs] table.
	FS FS
	// Network is the [policy.network] table.
	Network Network
	// KillGrace is the SIGTERM→SIGKILL grace period for terminals (default 2 s).
	KillGrace time.Duration
	// MaxTerminals is the number of live terminals allowed at once (default 16).
	MaxTerminals int
}

// Commands is [policy.commands]: command prefixes matched word by word against every simple
// command (leaf) after shell parsing. Each entry is a shell-word string such as "git status".
type Commands struct {
	Allow []string
	Ask   []string
	Deny  []string
}

// Env is [policy.env].
type Env struct {
	// Deny lists variable-name globs the agent may not set; it extends the built-in deny list.
	Deny []string
	// Allow lists variable-name globs the agent may set (beyond the built-in harmless set).
	Allow []string
}

// FS is [policy.fs]: file access inside roots.
type FS struct {
	// Read is the verdict for fs/read_text_file inside roots: "allow", "ask" or "deny".
	Read string
	// Write is the verdict for fs/write_text_file inside roots: "allow", "ask" or "deny".
	Write string
	// DenyRead and DenyWrite are doublestar globs; relative globs apply inside every root.
	DenyRead  []string
	DenyWrite []string
}

// UI is the [ui] table.
type UI struct {
	// Keys maps an action name (e.g. "leave_pane", "quit", "zoom") to key strings as Bubble Tea
	// spells them ("ctrl+]", "ctrl+q").
	Keys map[string][]string
	// Theme is "auto", "dark" or "light".
	Theme string
	// Notify lists how the TUI tells the user that the agent needs them (an approval or a
	// question opened, a long prompt turn finished, the agent exited): "bell" (BEL), "title"
	// (the window title shows the state), "desktop" (a desktop notification by the escape the
	// terminal is known to support: OSC 9 or OSC 777), "osc9" and "osc777" (that escape
	// whatever the terminal). Empty: none.
	Notify []string
	// NotifyAfter is how long a prompt turn must have run for its end to notify (default 10s).
	NotifyAfter time.Duration
	// Mouse is whether the TUI asks the terminal for mouse events (clicks and drags while a
	// button is down, the wheel: xterm cell-motion tracking). False leaves the mouse to the
	// terminal: its own selection and wheel, and no clicks or wheel in acpterm (default true).
	Mouse bool
}

// NotifyChannels are the values ui.notify accepts.
var NotifyChannels = []string{"bell", "title", "desktop", "osc9", "osc777"}

// DefaultNotifyAfter is ui.notify_after's default.
const DefaultNotifyAfter = 10 * time.Second
