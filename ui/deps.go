package ui

import (
	"context"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// agentAPI is the part of *acpclient.Client the model uses. Tests substitute a recorder.
// Every method except Info and Screen is called only from a tea.Cmd (it may block).
type agentAPI interface {
	Prompt(text string)
	Cancel()
	Answer(requestID string, a acpclient.Answer)
	AnswerElicitation(id string, a acpclient.ElicitationAnswer) error
	SessionList(ctx context.Context) ([]acpclient.SessionEntry, string, error)
	OpenSession(ctx context.Context, id string) error
	ForkSession(ctx context.Context, id string) error
	DeleteSession(ctx context.Context, id string) error
	SetMode(id string) error
	SetConfigOption(id, value string) error
	SetModel(id string) error
	Info() acpclient.Info
	Screen(terminalID string) (*terminals.Screen, bool)
}

// paneTerm is the part of *terminals.Terminal a pane uses.
type paneTerm interface {
	Label() string
	Dir() string
	StartedAt() time.Time
	Exit() (terminals.ExitStatus, bool)
	Output() terminals.Output
	Resize(s terminals.Size) error
	Write(p []byte) error
	SendKey(k uv.KeyPressEvent) error
	Paste(s string) error
	SendMouse(m uv.MouseEvent) error
	Release() error
	Kill() error
	Screen() *terminals.Screen
	SetBackground(on bool)
}

// termsAPI looks up client-owned terminals by id and sets the size new ones start with.
type termsAPI interface {
	Get(id string) (paneTerm, bool)
	SetDefaultSize(s terminals.Size)
}

// grantsAPI lists and revokes this session's "always" grants, and says whether a decision can
// become one (permissions.Engine.CanGrant: the approval modal offers "allow for this session" and
// "save as rule" only then).
type grantsAPI interface {
	Grants() []permissions.Grant
	Revoke(id string) error
	CanGrant(d permissions.Decision) error
}

// deps is what newModel needs; Run builds it from Options, tests from fakes.
type deps struct {
	agent     agentAPI
	terms     termsAPI
	cfg       *config.Config
	grants    grantsAPI // nil: no grants view
	agentName string
	polling   bool // no Wake wired: poll pane versions while panes are live
	// sandbox is the status-bar summary of the sandbox ("sandbox: landlock 7 · ns · net off");
	// "" means none was given (the bar says "policy only").
	sandbox string
	// sandboxScope is how commands run, for the approval dialog ("writes only in ~/p, network off").
	sandboxScope string
	// restart starts the exited agent again and reopens session resume ("" a new session),
	// returning the new agent (restart.go); nil: no restart is offered.
	restart func(resume string) (agentAPI, error)
}

type clientAgent struct{ c *acpclient.Client }

func (a clientAgent) Prompt(text string)                     { a.c.Prompt(text) }
func (a clientAgent) Cancel()                                { a.c.Cancel() }
func (a clientAgent) Answer(id string, ans acpclient.Answer) { a.c.Answer(id, ans) }
func (a clientAgent) SetMode(id string) error                { return a.c.SetMode(id) }
func (a clientAgent) SessionList(ctx context.Context) ([]acpclient.SessionEntry, string, error) {
	return a.c.SessionList(ctx)
}
func (a clientAgent) OpenSession(ctx context.Context, id string) error {
	return a.c.OpenSession(ctx, id)
}
func (a clientAgent) ForkSession(ctx context.Context, id string) error {
	return a.c.ForkSession(ctx, id)
}
func (a clientAgent) DeleteSession(ctx context.Context, id string) error {
	return a.c.DeleteSession(ctx, id)
}
func (a clientAgent) AnswerElicitation(id string, ans acpclient.ElicitationAnswer) error {
	return a.c.AnswerElicitation(id, ans)
}
func (a clientAgent) SetConfigOption(id, v string) error         { return a.c.SetConfigOption(id, v) }
func (a clientAgent) SetModel(id string) error                   { return a.c.SetModel(id) }
func (a clientAgent) Info() acpclient.Info                       { return a.c.Info() }
func (a clientAgent) Screen(id string) (*terminals.Screen, bool) { return a.c.Screen(id) }

type managerTerms struct{ m *terminals.Manager }

func (t managerTerms) SetDefaultSize(s terminals.Size) { t.m.SetDefaultSize(s) }

func (t managerTerms) Get(id string) (paneTerm, bool) {
	term, ok := t.m.Get(id)
	if !ok || term == nil {
		return nil, false
	}
	return term, true
}

func engineGrants(e *permissions.Engine) grantsAPI {
	if e == nil {
		return nil
	}
	return e
}
