package config

// Network is [policy.network]: which hosts sandboxed commands (and a sandboxed agent) may
// connect to through acpterm's proxy. Rules match the host name the client asked for (not
// what it resolves to), and the port where a rule names one.
type Network struct {
	// Allow lists host rules that connect without asking; they extend the built-in (empty)
	// list. A user file's allow rule covered by a deny rule is an error.
	Allow []string
	// Deny lists host rules that are refused (deny > allow).
	Deny []string
	// Unmatched is the verdict for a host no rule covers: "ask" (default), "deny" or "allow".
	Unmatched string
	// AgentAllow, when set (non-nil), replaces the built-in model API hosts of a sandboxed
	// agent (BuiltinAgentHosts, see AgentHosts): the hosts the agent itself reaches without
	// asking. Nil: the built-in list for the agent acpterm recognises in its command.
	AgentAllow []string
}
