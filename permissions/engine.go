package permissions

import (
	"errors"
	"fmt"
	"slices"

	"github.com/acpterm/acpterm/permissions/policy"
)

// EngineOptions configures an Engine beyond its policy: the session and what acpterm knows
// about how commands run.
type EngineOptions struct {
	// Cwd is the session cwd (absolute); requests without a cwd run here.
	Cwd string
	// GrantsFile is where "always" grants the user chose to save are kept ("" = none saved).
	GrantsFile string
	// Audit receives one event per decision; nil disables the audit log.
	Audit *AuditLog
	// Headless reports that no person can answer; "ask" stays "ask" in the Decision and the
	// caller answers it.
	Headless bool
	// Getenv reads acpterm's own environment (the base of the child environment); nil = os.Getenv.
	Getenv func(string) string
	// LogFile is acpterm's diagnostics log (absolute; "" = none): protected from the agent like
	// the audit log, wherever --log puts it (Engine.Protected).
	LogFile string
	// Confined reports that commands run confined by the OS sandbox: Landlock and a mount
	// namespace confirmed in force for every command acpterm runs. Only then may an allow rule
	// cover a program that executes workspace code (go test, pytest, cargo test, npm test,
	// make …: programs.Spec.WorkspaceCode); without it such a command is asked about, with a
	// reason saying so. Set it only when the sandbox is known to be in force (fail closed).
	// It applies to terminal/create, which acpterm runs.
	Confined bool
	// AgentConfined is Confined for commands the agent's own tools run (the command of a
	// session/request_permission, CommandRequest.Dialect DialectBash): set it only when the
	// agent process itself runs confined by the OS sandbox.
	AgentConfined bool
	// Resolver is the file-system view decisions read (Lstat, Stat, Readlink, EvalSymlinks):
	// the roots, the cwd, redirect targets and file arguments, programs on the policy PATH.
	// nil: the real file system (OSResolver). A fake one lets table tests judge requests
	// without temporary directories; ReadFile and WriteFile still use the real file system.
	Resolver Resolver
}

// Engine decides requests against one policy (policy.Policy). It is safe for concurrent use.
//
// File ownership inside this package: engine.go (this struct), commands*.go/shell*.go/env*.go
// (command analysis, DecideCommand, Explain), paths.go/fsio.go (roots, DecideRead/DecideWrite,
// ReadFile/WriteFile), grants.go, audit.go.
type Engine struct {
	policy policy.Policy
	opts   EngineOptions
	roots  *Roots         // paths.go
	cmds   *commandPolicy // commands.go
	grants *GrantStore    // grants.go
	net    *networkPolicy // network.go
	audit  *AuditLog      // audit.go (may be nil)
}

// ErrGrantsFile wraps NewEngine's error when the saved grants file cannot be used (unreadable,
// not valid JSON, unsafe permissions): a problem with acpterm's state, not with the config.
var ErrGrantsFile = errors.New("grants file")

// NewEngine compiles p into an Engine (p's lists are copied: later changes to them do not
// reach the engine). It returns an error when a root cannot be opened, a command rule or host
// rule cannot be parsed, a verdict is unknown, or the grants file is unreadable (wrapping
// ErrGrantsFile).
func NewEngine(p policy.Policy, o EngineOptions) (*Engine, error) {
	p.FS.DenyRead, p.FS.DenyWrite = slices.Clone(p.FS.DenyRead), slices.Clone(p.FS.DenyWrite)
	p.Protected = slices.Clone(p.Protected)
	roots, err := newRoots(p.Roots, newFSView(o.Resolver))
	if err != nil {
		return nil, err
	}
	e := &Engine{policy: p, opts: o, roots: roots, audit: o.Audit}
	if e.cmds, err = compileCommandPolicy(p, roots); err != nil {
		return nil, err
	}
	if e.net, err = compileNetworkPolicy(p.Network); err != nil {
		return nil, err
	}
	if e.grants, err = NewGrantStore(o.GrantsFile); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGrantsFile, err)
	}
	return e, nil
}

// Policy returns the policy the engine was built from.
func (e *Engine) Policy() policy.Policy { return e.policy }

// Roots returns the engine's real roots.
func (e *Engine) Roots() *Roots { return e.roots }
