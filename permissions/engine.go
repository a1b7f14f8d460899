package permissions

import (
	"errors"
	"fmt"

	"github.com/acpterm/acpterm/config"
)

// EngineOptions configures an Engine beyond what the config file says.
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
}

// Engine decides requests against one loaded policy. It is safe for concurrent use.
//
// File ownership inside this package: engine.go (this struct), commands*.go/shell*.go/env*.go
// (command analysis, DecideCommand, Explain), paths.go/fsio.go (roots, DecideRead/DecideWrite,
// ReadFile/WriteFile), grants.go, audit.go.
type Engine struct {
	cfg    *config.Config
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

// NewEngine compiles cfg into an Engine. It returns an error when a root cannot be opened, a
// command rule cannot be parsed, or the grants file is unreadable (wrapping ErrGrantsFile).
func NewEngine(cfg *config.Config, o EngineOptions) (*Engine, error) {
	if cfg == nil {
		return nil, fmt.Errorf("permissions: nil config")
	}
	roots, err := NewRoots(cfg.Policy.Roots)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, opts: o, roots: roots, audit: o.Audit}
	if e.cmds, err = compileCommandPolicy(cfg, roots); err != nil {
		return nil, err
	}
	if e.net, err = compileNetworkPolicy(cfg.Policy.Network); err != nil {
		return nil, err
	}
	if e.grants, err = NewGrantStore(o.GrantsFile); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGrantsFile, err)
	}
	return e, nil
}

// Config returns the configuration the engine was built from.
func (e *Engine) Config() *config.Config { return e.cfg }

// Roots returns the engine's real roots.
func (e *Engine) Roots() *Roots { return e.roots }
