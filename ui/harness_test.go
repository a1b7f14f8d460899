package ui

// The test harness: fakes for the agent, client-owned terminals and grants, and a harness that
// runs the root Model's Update synchronously (every Cmd it returns is run and its message fed
// back) so a test sends keys and agent events and reads the frame as plain rows.

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// fakeAgent records the calls the model makes (from its Cmds).
type fakeAgent struct {
	mu      sync.Mutex
	calls   []string
	screens map[string]*terminals.Screen
	info    acpclient.Info // what Info returns
}

func (f *fakeAgent) rec(s string)       { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }
func (f *fakeAgent) Prompt(text string) { f.rec("prompt " + text) }
func (f *fakeAgent) Cancel()            { f.rec("cancel") }
func (f *fakeAgent) Answer(id string, a acpclient.Answer) {
	f.rec(fmt.Sprintf("answer %s option=%q choice=%q", id, a.OptionID, a.Choice))
}
func (f *fakeAgent) SetMode(id string) error { f.rec("mode " + id); return nil }
func (f *fakeAgent) SetConfigOption(id, value string) error {
	f.rec("config " + id + "=" + value)
	return nil
}
func (f *fakeAgent) SetModel(id string) error { f.rec("model " + id); return nil }
func (f *fakeAgent) Info() acpclient.Info     { return f.info }
func (f *fakeAgent) Screen(id string) (*terminals.Screen, bool) {
	s, ok := f.screens[id]
	return s, ok
}

func (f *fakeAgent) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// fakeTerm is a client-owned terminal: a real Screen, recorded input and sizes.
type fakeTerm struct {
	scr   *terminals.Screen
	input []string
	sizes []terminals.Size
	exit  *terminals.ExitStatus
	bg    []bool // SetBackground calls in order
	// denial is what SandboxDenial answers (a write the sandbox refused, said at exit).
	denial string
}

func (t *fakeTerm) SandboxDenial() string { return t.denial }

func (t *fakeTerm) Label() string        { return "cat" }
func (t *fakeTerm) Dir() string          { return "/work" }
func (t *fakeTerm) StartedAt() time.Time { return time.Time{} }
func (t *fakeTerm) Output() terminals.Output {
	return terminals.Output{Text: t.scr.Text(), Truncated: true}
}
func (t *fakeTerm) Exit() (terminals.ExitStatus, bool) {
	if t.exit == nil {
		return terminals.ExitStatus{}, false
	}
	return *t.exit, true
}
func (t *fakeTerm) Resize(s terminals.Size) error {
	t.sizes = append(t.sizes, s)
	t.scr.Resize(s)
	return nil
}
func (t *fakeTerm) SendKey(k uv.KeyPressEvent) error {
	t.input = append(t.input, "key "+uv.Key(k).String())
	return nil
}
func (t *fakeTerm) Paste(s string) error { t.input = append(t.input, "paste "+s); return nil }
func (t *fakeTerm) Write(p []byte) error {
	t.input = append(t.input, fmt.Sprintf("write %q", p))
	return nil
}
func (t *fakeTerm) SendMouse(m uv.MouseEvent) error {
	t.input = append(t.input, fmt.Sprintf("mouse %v", m))
	return nil
}
func (t *fakeTerm) Release() error            { return nil }
func (t *fakeTerm) Kill() error               { t.input = append(t.input, "kill"); return nil }
func (t *fakeTerm) Screen() *terminals.Screen { return t.scr }
func (t *fakeTerm) SetBackground(on bool)     { t.bg = append(t.bg, on) }

type fakeTerms map[string]*fakeTerm

// SetDefaultSize records the size under the key "" (no terminal has that id).
func (f fakeTerms) SetDefaultSize(s terminals.Size) {
	f[""] = &fakeTerm{sizes: []terminals.Size{s}}
}

func (f fakeTerms) Get(id string) (paneTerm, bool) {
	t, ok := f[id]
	return t, ok
}

type fakeGrants struct {
	list     []permissions.Grant
	canGrant error // what CanGrant answers
}

func (g *fakeGrants) CanGrant(permissions.Decision) error { return g.canGrant }

func (g *fakeGrants) Grants() []permissions.Grant { return append([]permissions.Grant(nil), g.list...) }
func (g *fakeGrants) Revoke(id string) error {
	for i, x := range g.list {
		if x.ID == id {
			g.list = append(g.list[:i], g.list[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("no grant %s", id)
}

type harness struct {
	t      *testing.T
	m      *Model
	agent  *fakeAgent
	terms  fakeTerms
	grants *fakeGrants
	quit   bool
	clock  time.Time // what h.m.now returns (unless a test replaces h.m.now)
}

func newHarness(t *testing.T, keys map[string][]string) *harness {
	t.Helper()
	h := &harness{t: t, agent: &fakeAgent{screens: map[string]*terminals.Screen{}}, terms: fakeTerms{}, grants: &fakeGrants{}}
	cfg := config.Default(t.TempDir())
	cfg.UI.Keys = keys
	h.m = newModel(deps{agent: h.agent, terms: h.terms, cfg: cfg, grants: h.grants, agentName: "fake"})
	h.m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	h.clock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.m.now = func() time.Time { return h.clock }
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	return h
}

// send runs Update and then every Cmd it returned, synchronously (their messages are fed back
// except Quit, which is recorded).
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case tea.QuitMsg:
		h.quit = true
	default:
		if fmt.Sprintf("%T", msg) == "tea.rawMsg" {
			return // the bell
		}
		h.send(msg)
	}
}

func (h *harness) ev(e acpclient.Event) { h.send(acpEventMsg{e}) }

// key sends one key.
func (h *harness) key(s string) {
	h.t.Helper()
	h.send(keyMsg(s))
}

// keys sends keys in order.
func (h *harness) keys(ks ...string) {
	h.t.Helper()
	for _, k := range ks {
		h.send(keyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// keyMsg builds the KeyPressMsg Bubble Tea delivers for a key name like "ctrl+c" or "A".
func keyMsg(s string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "backspace": tea.KeyBackspace, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown}
	var k tea.KeyPressMsg
	for _, part := range strings.Split(s, "+") {
		switch part {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		default:
			if c, ok := named[part]; ok {
				k.Code = c
			} else {
				k.Code = []rune(part)[0]
				if k.Mod == 0 {
					k.Text = part
				}
			}
		}
	}
	return k
}

// screenText renders a frame and returns it as plain rows.
func (h *harness) screenText() string {
	h.m.needFrame = true
	h.m.redraw()
	return ansi.Strip(h.m.frame)
}

var demoOptions = []acp.PermissionOption{
	{OptionId: "allow-once", Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce},
	{OptionId: "allow-always", Name: "Always allow", Kind: acp.PermissionOptionKindAllowAlways},
	{OptionId: "reject-once", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	{OptionId: "reject-always", Name: "Always reject", Kind: acp.PermissionOptionKindRejectAlways},
}

func ask(id string) acpclient.PermissionAsked {
	title := "Delete " + id
	return acpclient.PermissionAsked{ID: id, Kind: "agent", Options: demoOptions,
		ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId("call-" + id), Title: &title}}
}

func wantCalls(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func startPane(h *harness, id string) *fakeTerm {
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	h.t.Cleanup(func() { _ = scr.Close() })
	ft := &fakeTerm{scr: scr}
	h.terms[id] = ft
	h.ev(acpclient.TerminalStarted{ID: id, ToolCallID: "call-" + id, Label: "cat " + id, Cwd: "/work"})
	h.screenText()
	return ft
}

// rowsOf returns the frame's rows with trailing spaces trimmed.
func rowsOf(scr string) []string {
	rows := strings.Split(scr, "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return rows
}

// rowWith returns the first frame row containing s (trailing spaces trimmed), or "".
func rowWith(scr, s string) string {
	for _, r := range rowsOf(scr) {
		if strings.Contains(r, s) {
			return r
		}
	}
	return ""
}
