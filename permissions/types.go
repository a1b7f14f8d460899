// Package permissions is acpterm's sandbox policy engine: it decides every command, file read and
// file write an agent asks for (allow, ask or deny, with reasons), builds the child environment,
// performs confined file IO, keeps "always" grants and writes the hash-chained audit log.
// It is independent of ACP, the UI and acpterm's config file: an Engine decides by a
// policy.Policy value (package permissions/policy), which acpterm builds from its config with
// config.Config.Permissions; what it knows about each program is data in package
// permissions/programs.
//
// Use: NewEngine(policy, EngineOptions{Cwd: …}) once per session, then DecideCommand,
// DecideRead, DecideWrite and DecideHost per request; ReadFile and WriteFile do the file IO
// the decisions allow, confined to the roots; Grant keeps an "always" answer.
package permissions

// Verdict is a policy outcome: "allow" runs without asking, "ask" needs a live answer from the
// user, "deny" refuses with a reason sent back to the agent. Severity: deny > ask > allow.
type Verdict string

// The three verdicts, in increasing severity.
const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Max returns the stricter of a and b (deny > ask > allow). An unknown verdict counts as deny.
func Max(a, b Verdict) Verdict {
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

func rank(v Verdict) int {
	switch v {
	case Allow:
		return 0
	case Ask:
		return 1
	default:
		return 2
	}
}

// EnvVar is one environment variable the agent asked to set (ACP terminal/create `env` item).
type EnvVar struct{ Name, Value string }

// CommandRequest is what an agent asked to run (ACP terminal/create).
type CommandRequest struct {
	// Session is the ACP session id (used for session-scoped grants and the audit log).
	Session string
	// Command is the program, or a whole shell line when Args is empty and it holds shell syntax.
	Command string
	// Args are the arguments (exec form; no shell implied).
	Args []string
	// Cwd is the absolute working directory; "" means the session cwd.
	Cwd string
	// Env are the variables the agent wants added to the policy-built environment.
	Env []EnvVar
	// Dialect is the shell that will run a shell line: "" (DialectSh) for acpterm's own
	// /bin/sh -c (judged under dash and bash, strictest wins), DialectBash for a line the
	// agent's own tool runs (session/request_permission), judged as bash and as zsh, and
	// confined only when EngineOptions.AgentConfined says the agent is.
	Dialect string
}

// The dialects of CommandRequest.Dialect.
const (
	DialectSh   = ""
	DialectBash = "bash"
)

// Leaf is one simple command found in a request after shell parsing and wrapper peeling.
type Leaf struct {
	// Argv holds the static words; DynamicWord marks a word that cannot be known statically.
	Argv []string `json:"argv"`
	// Program is the resolved real path of Argv[0] on the policy PATH ("" if unresolved).
	Program string `json:"program,omitempty"`
	// Builtin says the shell runs Argv[0] itself, as a builtin (Program is then "").
	Builtin bool `json:"builtin,omitempty"`
	// Via is the wrapper chain that led here, outermost first, e.g. ["bash -c", "timeout"].
	Via []string `json:"via,omitempty"`
	// Verdict is this leaf's own verdict.
	Verdict Verdict `json:"verdict"`
	// Rule names the deciding rule, e.g. "deny: rm", "allow: git status", "unmatched".
	Rule string `json:"rule"`
	// Reason says in one line why.
	Reason string `json:"reason"`
}

// DynamicWord stands in Leaf.Argv for a word whose value is only known when the shell runs.
const DynamicWord = "<dynamic>"

// Decision is the engine's answer for one request, with everything needed to show it to a person
// and, when allowed, to run exactly what was decided on.
type Decision struct {
	// Verdict is the outcome: the strictest of every leaf's and construct's (deny > ask >
	// allow).
	Verdict Verdict `json:"verdict"`
	// Rule is the deciding rule (the one that set Verdict).
	Rule string `json:"rule"`
	// Reason is one line a person can read; it names the leaf, variable or path at fault.
	Reason string `json:"reason"`
	// Leaves are the simple commands found, each with its own verdict (commands only).
	Leaves []Leaf `json:"leaves,omitempty"`
	// Constructs lists shell constructs that raised the verdict, e.g. "command substitution".
	Constructs []string `json:"constructs,omitempty"`

	// Argv is what will be executed: exec form, or ["/bin/sh","-c",LINE] for a shell line.
	Argv []string `json:"argv,omitempty"`
	// Shell reports that the request was run as a shell line.
	Shell bool `json:"shell,omitempty"`
	// Path is the real absolute path of a file request.
	Path string `json:"path,omitempty"`
	// Cwd is the real absolute working directory.
	Cwd string `json:"cwd,omitempty"`
	// Env is the child environment built by policy ("K=V"); never logged.
	Env []string `json:"-"`
	// EnvAdded names the variables the agent added.
	EnvAdded []string `json:"env_added,omitempty"`
	// OutputLimit is the policy cap on output bytes kept for the agent.
	OutputLimit int `json:"output_limit,omitempty"`
	// Grant is the id of the grant that allowed this request, if any.
	Grant string `json:"grant,omitempty"`
	// Judged is the command text the policy judged for an agent's permission request, and
	// JudgedFrom where it was taken from ("rawInput.command", or "title" when the agent sent
	// the command only as the tool call's title). Both are "" for terminal/create.
	Judged     string `json:"judged,omitempty"`
	JudgedFrom string `json:"judged_from,omitempty"`

	// Host and Port are the destination of a network connection asked about (a question
	// built from DecideHost for the proxy; Grant makes a host grant for exactly them).
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	// Addrs are the destination's addresses as the proxy resolved them, each with why it is
	// not public when it is not ("127.0.0.1 (loopback)").
	Addrs []string `json:"addrs,omitempty"`
	// From says whose connection it is: "terminal term-3: go mod download" or "agent".
	From string `json:"from,omitempty"`
}
