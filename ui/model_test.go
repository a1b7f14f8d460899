package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
}

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

func TestApprovalKeysSendExactAnswers(t *testing.T) {
	cases := []struct {
		keys []string
		want string
	}{
		{[]string{"a"}, `answer p1 option="allow-once" choice=""`},
		{[]string{"A", "enter"}, `answer p1 option="allow-always" choice=""`},
		{[]string{"r"}, `answer p1 option="reject-once" choice=""`},
		{[]string{"R", "enter"}, `answer p1 option="reject-always" choice=""`},
		{[]string{"2", "enter"}, `answer p1 option="allow-always" choice=""`},
		{[]string{"4", "enter"}, `answer p1 option="reject-always" choice=""`},
		{[]string{"3"}, `answer p1 option="reject-once" choice=""`},
		{[]string{"enter"}, `answer p1 option="allow-once" choice=""`},
		{[]string{"esc"}, `answer p1 option="reject-once" choice=""`},
		{[]string{"A", "up", "enter"}, `answer p1 option="allow-once" choice=""`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, " "), func(t *testing.T) {
			h := newHarness(t, nil)
			h.ev(acpclient.TurnStarted{Prompt: "go"})
			h.ev(ask("p1"))
			h.agent.take()
			h.keys(c.keys[:len(c.keys)-1]...)
			wantCalls(t, h.agent.take()) // a lasting choice is only selected by its key
			h.key(c.keys[len(c.keys)-1])
			wantCalls(t, h.agent.take(), c.want)
			if h.m.pendingApprovals() != 0 || !h.m.busy || h.m.ed.value() != "" {
				t.Fatalf("pending %d busy %v editor %q", h.m.pendingApprovals(), h.m.busy, h.m.ed.value())
			}
		})
	}
}

// When the agent offers only "always" options (or none), the modal adds Dismiss ("cancelled"):
// it is the default and what Esc answers, so no "always" is ever picked without being chosen.
func TestApprovalOnlyAlwaysOptionsDefaultToDismiss(t *testing.T) {
	onlyAlways := []acp.PermissionOption{
		{OptionId: "AA", Name: "Always yes", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: "RA", Name: "Always no", Kind: acp.PermissionOptionKindRejectAlways},
	}
	for _, c := range []struct {
		opts      []acp.PermissionOption
		key, want string
		screen    []string
	}{
		{onlyAlways, "enter", `answer p1 option="" choice=""`, []string{"  A/1   Always yes", "  R/2   Always no", "› d/3   Dismiss (answer cancelled, pick nothing)", "esc dismiss"}},
		{onlyAlways, "esc", `answer p1 option="" choice=""`, nil},
		{onlyAlways, "d", `answer p1 option="" choice=""`, nil},
		{onlyAlways, "A enter", `answer p1 option="AA" choice=""`, nil},
		{onlyAlways, "A", "", nil}, // selected, not answered
		{nil, "enter", `answer p1 option="" choice=""`, []string{"› d/1   Dismiss (answer cancelled, pick nothing)", "esc dismiss"}},
		{nil, "a", "", []string{"Permission 1 of 1"}}, // no allow option: the editor's
	} {
		h := newHarness(t, nil)
		h.ev(acpclient.TurnStarted{Prompt: "go"})
		p := ask("p1")
		p.Options = c.opts
		h.ev(p)
		h.agent.take()
		scr := h.screenText()
		for _, want := range c.screen {
			if !strings.Contains(scr, want) {
				t.Errorf("options %v: screen lacks %q:\n%s", c.opts, want, scr)
			}
		}
		for _, bad := range []string{"Allow for this session", "Save as rule"} {
			if strings.Contains(scr, bad) {
				t.Errorf("options %v: an agent request shows acpterm's own choice %q", c.opts, bad)
			}
		}
		h.keys(strings.Fields(c.key)...)
		if c.want == "" {
			wantCalls(t, h.agent.take())
			continue
		}
		wantCalls(t, h.agent.take(), c.want)
	}
}

func TestApprovalQueueAndNavigation(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	h.ev(ask("p1"))
	h.ev(ask("p2"))
	scr := h.screenText()
	for _, want := range []string{"Permission 1 of 2", "Delete p1", "a/1   Allow once", "A/2   Always allow", "r/3   Reject", "R/4   Always reject", "esc reject once", "approvals 2"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	if h.m.windowTitle != "acpterm: approval needed (2) · fake" {
		t.Fatalf("title = %q", h.m.windowTitle)
	}
	h.key("down")
	h.key("down")
	h.key("enter")
	h.key("up") // p2: wraps to the last option
	h.key("enter")
	wantCalls(t, h.agent.take(), `answer p1 option="reject-once" choice=""`, `answer p2 option="reject-always" choice=""`)
	h.ev(acpclient.PermissionResolved{ID: "p1", Outcome: "reject-once", By: "user"})
	h.ev(acpclient.PermissionResolved{ID: "p2", Outcome: "reject-always", By: "user"})
	if scr := h.screenText(); strings.Contains(scr, "Permission") {
		t.Fatalf("modal still shown:\n%s", scr)
	}
}

func TestOwnPolicyPromptChoices(t *testing.T) {
	dec := &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers make",
		Argv: []string{"/bin/sh", "-c", "make && ./run"}, Shell: true, Cwd: "/work", EnvAdded: []string{"CC"},
		Leaves: []permissions.Leaf{
			{Argv: []string{"make"}, Program: "/usr/bin/make", Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers make"},
			{Argv: []string{"./run"}, Program: "/work/run", Verdict: permissions.Allow, Rule: "allow: ./run"},
		}}
	for key, want := range map[string]string{
		"a": `answer c1 option="" choice="allow_once"`, "s enter": `answer c1 option="" choice="allow_session"`,
		"S enter": `answer c1 option="" choice="save_rule"`, "d": `answer c1 option="" choice="deny"`,
		"esc": `answer c1 option="" choice="deny"`, "enter": `answer c1 option="" choice="allow_once"`,
		"3 enter": `answer c1 option="" choice="save_rule"`, "S": "", "s": "", "S d": `answer c1 option="" choice="deny"`,
	} {
		h := newHarness(t, nil)
		title := "make && ./run"
		h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: dec, ToolCall: acp.ToolCallUpdate{Title: &title}})
		if key == "a" {
			scr := h.screenText()
			for _, w := range []string{"Permission 1 of 1 · Run command?", "argv: /bin/sh -c 'make && ./run'", "cwd:  /work", "env+: CC",
				"asks: no rule covers make (unmatched)", "ask   make → /usr/bin/make", "allow ./run → /work/run",
				"a/1   Allow once", "s/2   Allow for this session", "S/3   Save as rule", "d/4   Deny"} {
				if !strings.Contains(scr, w) {
					t.Fatalf("screen lacks %q:\n%s", w, scr)
				}
			}
		}
		h.keys(strings.Fields(key)...)
		if want == "" {
			wantCalls(t, h.agent.take())
			continue
		}
		wantCalls(t, h.agent.take(), want)
	}
}

func TestEscCancelsTurnAndPromptsQueue(t *testing.T) {
	h := newHarness(t, nil)
	h.key("esc") // idle: nothing to cancel
	wantCalls(t, h.agent.take())
	h.typeText("first")
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt first")
	h.ev(acpclient.TurnStarted{Prompt: "first"})
	h.typeText("second")
	h.key("enter")
	h.typeText("third")
	h.key("enter")
	wantCalls(t, h.agent.take()) // queued, not sent
	if scr := h.screenText(); !strings.Contains(scr, "2 queued") {
		t.Fatalf("no queue marker:\n%s", scr)
	}
	h.key("esc")
	h.key("esc") // a second Esc does not cancel twice
	wantCalls(t, h.agent.take(), "cancel")
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	// Cancelling holds the queue: the queued prompts come back into the editor, unsent.
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "second\n\nthird" || len(h.m.queue) != 0 {
		t.Fatalf("after cancel: editor %q, queue %q", h.m.ed.value(), h.m.queue)
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn cancelled; the 2 queued prompts are back in the editor (enter sends them as one)") {
		t.Fatalf("no notice of the held queue:\n%s", scr)
	}
	h.key("ctrl+c") // drop them (idle with a draft)
	h.typeText("second")
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt second")
	h.ev(acpclient.TurnStarted{Prompt: "second"})
	h.typeText("third")
	h.key("enter")
	h.key("ctrl+c") // during a turn: cancel, not quit
	wantCalls(t, h.agent.take(), "cancel")
	if h.quit {
		t.Fatal("ctrl+c during a turn quit")
	}
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"}) // the agent ignored the cancel
	wantCalls(t, h.agent.take())                      // "third" is held all the same
	if h.m.ed.value() != "third" {
		t.Fatalf("editor after an ignored cancel = %q", h.m.ed.value())
	}
	h.key("enter")
	wantCalls(t, h.agent.take(), "prompt third")
	h.ev(acpclient.TurnStarted{Prompt: "third"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	h.typeText("a long draft")
	h.key("ctrl+c") // idle with a draft: the draft goes (to the history), acpterm stays
	if h.quit || !h.m.ed.empty() {
		t.Fatalf("ctrl+c with a draft: quit %v, editor %q", h.quit, h.m.ed.value())
	}
	if scr := h.screenText(); !strings.Contains(scr, "draft cleared (↑ brings it back); ctrl+c again quits") {
		t.Fatalf("no notice of the cleared draft:\n%s", scr)
	}
	h.key("up")
	if h.m.ed.value() != "a long draft" {
		t.Fatalf("up after ctrl+c: editor %q", h.m.ed.value())
	}
	h.key("ctrl+u")
	h.clock = h.clock.Add(interruptQuitGuard) // long after the ctrl+c that cancelled a turn
	h.key("ctrl+c")                           // idle, empty editor: quit
	if !h.quit {
		t.Fatal("ctrl+c when idle did not quit")
	}
}

func TestQuitKeyAndHistory(t *testing.T) {
	h := newHarness(t, map[string][]string{"quit": {"ctrl+x"}, "close_pane": {"alt+w"}})
	h.key("ctrl+q") // rebound: no longer quits
	if h.quit {
		t.Fatal("ctrl+q quit after rebinding")
	}
	h.typeText("hello")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "hello"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	h.key("up")
	if h.m.ed.value() != "hello" {
		t.Fatalf("history recall = %q", h.m.ed.value())
	}
	h.key("ctrl+x")
	if !h.quit {
		t.Fatal("rebound quit key did not quit")
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

func TestPaneResizeFollowsLayout(t *testing.T) {
	h := newHarness(t, nil)
	t1 := startPane(h, "t1")
	// 100x30, one pane, narrow: conversation on top, pane below (half of 27 rows, full width).
	if got := t1.sizes; len(got) != 1 || got[0] != (terminals.Size{Cols: 98, Rows: 11}) {
		t.Fatalf("sizes = %v", got)
	}
	t2 := startPane(h, "t2")
	if got := t1.sizes[len(t1.sizes)-1]; got != (terminals.Size{Cols: 48, Rows: 11}) {
		t.Fatalf("t1 after split = %v", got)
	}
	if got := t2.sizes; len(got) != 1 || got[0] != (terminals.Size{Cols: 48, Rows: 11}) {
		t.Fatalf("t2 sizes = %v", got)
	}
	h.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	h.screenText()
	if got := t1.sizes[len(t1.sizes)-1]; got != (terminals.Size{Cols: 118, Rows: 21}) {
		t.Fatalf("t1 wide = %v", got)
	}
	if got := t2.scr.Size(); got != (terminals.Size{Cols: 118, Rows: 22}) {
		t.Fatalf("t2 screen wide = %v", got)
	}
	// Zoom the selected pane (t2, the newest): it gets the whole main area.
	h.key("ctrl+f")
	h.screenText()
	if got := t2.sizes[len(t2.sizes)-1]; got != (terminals.Size{Cols: 198, Rows: 45}) {
		t.Fatalf("zoomed = %v", got)
	}
	n := len(t2.sizes)
	h.screenText() // unchanged layout: no resize
	if len(t2.sizes) != n {
		t.Fatalf("resized again without a change: %v", t2.sizes)
	}
}

func TestFocusedPaneGetsEveryKeyUntilLeave(t *testing.T) {
	h := newHarness(t, nil)
	ft := startPane(h, "t1")
	h.ev(acpclient.TurnStarted{Prompt: "x"})
	h.key("ctrl+g")
	if !h.m.focused {
		t.Fatal("ctrl+g did not focus the pane")
	}
	h.typeText("hi")
	h.key("enter")
	h.key("ctrl+c")
	h.key("esc")
	h.key("ctrl+q")
	h.send(tea.PasteMsg{Content: "pasted"})
	h.send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl | tea.ModCapsLock})
	h.key("ctrl+]")
	h.key("z")
	want := []string{"key h", "key i", "key enter", "key ctrl+c", "key esc", "key ctrl+q", "paste pasted", "key ctrl+c"}
	if strings.Join(ft.input, "|") != strings.Join(want, "|") {
		t.Fatalf("pane input = %q, want %q", ft.input, want)
	}
	wantCalls(t, h.agent.take()) // no cancel, no quit reached the agent
	if h.quit || h.m.focused || h.m.ed.value() != "z" {
		t.Fatalf("quit=%v focused=%v editor=%q", h.quit, h.m.focused, h.m.ed.value())
	}
	scr := h.screenText()
	if !strings.Contains(scr, "$ cat t1 · /work · running") {
		t.Fatalf("pane title missing:\n%s", scr)
	}
	code := 0
	h.ev(acpclient.TerminalExited{ID: "t1", Status: terminals.ExitStatus{Code: &code}})
	scr = h.screenText()
	if !strings.Contains(scr, "$ cat t1 · /work · exit 0 · 0s · output truncated") {
		t.Fatalf("exited pane title missing:\n%s", scr)
	}
	h.key("ctrl+g") // finished: cannot type into it
	if h.m.focused {
		t.Fatal("focused a finished pane")
	}
	h.key("ctrl+x")
	if len(h.m.panes) != 0 {
		t.Fatalf("finished pane not closed: %d panes", len(h.m.panes))
	}
}

func TestAgentOwnedPaneIsReadOnly(t *testing.T) {
	h := newHarness(t, nil)
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	t.Cleanup(func() { _ = scr.Close() })
	scr.Write([]byte("building…"))
	h.agent.screens["a1"] = scr
	h.ev(acpclient.TerminalStarted{ID: "a1", Label: "npm test", AgentOwned: true})
	h.key("ctrl+g")
	if h.m.focused {
		t.Fatal("focused a read-only pane")
	}
	out := h.screenText()
	if !strings.Contains(out, "$ npm test · running · 0s · read-only") || !strings.Contains(out, "building…") {
		t.Fatalf("screen:\n%s", out)
	}
	if got := scr.Size(); got != (terminals.Size{Cols: 98, Rows: 11}) {
		t.Fatalf("agent-owned screen size = %v", got)
	}
}

func TestGrantsViewRevokes(t *testing.T) {
	h := newHarness(t, nil)
	h.grants.list = []permissions.Grant{{ID: "g-1", Argv: []string{"go", "test"}, Prefix: true}, {ID: "g-2", Argv: []string{"make"}, Saved: true}}
	h.key("alt+g")
	scr := h.screenText()
	if !strings.Contains(scr, "› g-1  session  grant: go test …") || !strings.Contains(scr, "  g-2  saved    grant: make") {
		t.Fatalf("grants view:\n%s", scr)
	}
	h.key("down")
	h.key("d")
	if len(h.grants.list) != 1 || h.grants.list[0].ID != "g-1" {
		t.Fatalf("grants after revoke = %+v", h.grants.list)
	}
	h.key("esc")
	if h.m.findOverlay("grants") != nil {
		t.Fatal("grants view still open")
	}
}

func TestHelpShowsAllKeys(t *testing.T) {
	h := newHarness(t, map[string][]string{"leave_pane": {"ctrl+b"}})
	h.key("?")
	scr := h.screenText()
	for _, w := range []string{"ctrl+q", "quit", "ctrl+b", "leave pane", "alt+enter", "new line", "ctrl+o", "$PAGER"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("help lacks %q:\n%s", w, scr)
		}
	}
	h.key("x")
	if h.m.findOverlay("help") != nil || h.m.ed.value() != "" {
		t.Fatalf("help still open or key leaked: %v %q", h.m.overlays, h.m.ed.value())
	}
	h.typeText("why?")
	if h.m.ed.value() != "why?" || h.m.findOverlay("help") != nil {
		t.Fatalf("? inside text: %q overlays=%v", h.m.ed.value(), h.m.overlays)
	}
}

func TestStatusBarAndModeSwitch(t *testing.T) {
	h := newHarness(t, nil)
	modes := &acp.SessionModeState{CurrentModeId: "ask", AvailableModes: []acp.SessionMode{{Id: "ask", Name: "Ask"}, {Id: "code", Name: "Code"}}}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "demo", AgentVersion: "1.2", SessionID: "s-42", Modes: modes}})
	scr := h.screenText()
	last := strings.Split(scr, "\n")
	status := strings.TrimRight(last[len(last)-1], " ")
	if !strings.HasPrefix(status, " demo 1.2 · mode Ask · session s-42 · policy built-in defaults (policy only)") || !strings.HasSuffix(status, "? help") {
		t.Fatalf("status = %q", status)
	}
	h.key("alt+m")
	wantCalls(t, h.agent.take(), "mode code")
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	scr = h.screenText()
	last = strings.Split(scr, "\n")
	if !strings.Contains(last[len(last)-1], "⠋ working · demo 1.2") {
		t.Fatalf("no spinner during turn: %q", last[len(last)-1])
	}
}

func TestAgentExitBannerAndErrors(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	h.ev(acpclient.TurnEnded{Err: fmt.Errorf("agent said \x1b[31mno")})
	code := 3
	h.ev(acpclient.AgentExited{Code: &code, StderrTail: []string{"panic: boom"}})
	scr := h.screenText()
	for _, w := range []string{"✗ turn failed: agent said no", "✗ agent exited (exit 3); press ctrl+q to quit", "stderr:", "panic: boom"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("screen lacks %q:\n%s", w, scr)
		}
	}
	if h.m.agentGone != "exit 3" {
		t.Fatalf("agentGone = %q", h.m.agentGone)
	}
	h.typeText("more")
	h.key("enter")
	wantCalls(t, h.agent.take()) // nothing is sent to a dead agent
	if got := h.m.ed.value(); got != "more" || len(h.m.queue) != 0 {
		t.Fatalf("editor %q, queue %q: want the text kept, nothing queued", got, h.m.queue)
	}
	h.key("enter") // again: the same explanation is not repeated
	if scr := h.screenText(); strings.Count(scr, "✗ the agent has exited (exit 3): the prompt cannot be sent; ctrl+q quits") != 1 {
		t.Fatalf("want the explanation once on screen:\n%s", scr)
	}
}

func TestFrameIsCachedAndLinesFit(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(strings.Repeat("word ", 200))})
	h.m.redraw()
	f1 := h.m.frame
	h.m.redraw() // nothing changed: the same frame, not rebuilt
	if h.m.frame != f1 || h.m.needFrame {
		t.Fatal("frame rebuilt without a change")
	}
	if v := h.m.View(); v.Content != f1 || !v.AltScreen {
		t.Fatal("View does not return the cached frame")
	}
	startPane(h, "t1")
	startPane(h, "t2")
	h.ev(ask("p1"))
	for _, w := range []int{20, 37, 80, 119, 120, 200} {
		h.send(tea.WindowSizeMsg{Width: w, Height: 24})
		for i, l := range strings.Split(h.screenText(), "\n") {
			if lw := ansi.StringWidth(l); lw > max(w, minWindowWidth) {
				t.Fatalf("width %d: row %d is %d cells: %q", w, i, lw, l)
			}
		}
	}
}

func TestBackgroundPaneRedrawsAreThrottled(t *testing.T) {
	h := newHarness(t, nil)
	bg := startPane(h, "bg")
	fg := startPane(h, "fg")
	h.key("ctrl+g") // focus fg (the newest)
	h.m.redraw()
	var deferred int
	h.m.tick = func(d time.Duration, f func(time.Time) tea.Msg) tea.Cmd {
		if d <= 0 || d > bgFrameInterval {
			t.Fatalf("deferred redraw after %v", d)
		}
		deferred++
		return nil
	}
	frame := h.m.frame
	bg.scr.Write([]byte("background output"))
	if h.m.redraw(); h.m.frame != frame || deferred != 1 {
		t.Fatalf("background change redrawn at once (deferred=%d)", deferred)
	}
	bg.scr.Write([]byte(" more"))
	h.m.redraw()
	if deferred != 1 {
		t.Fatalf("second deferral armed: %d", deferred)
	}
	fg.scr.Write([]byte("typed"))
	h.m.redraw()
	if h.m.frame == frame || !strings.Contains(ansi.Strip(h.m.frame), "typed") || !strings.Contains(ansi.Strip(h.m.frame), "background output more") {
		t.Fatalf("focused change not drawn at once:\n%s", ansi.Strip(h.m.frame))
	}
	bg.scr.Write([]byte("!"))
	h.m.now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC) } // later than the interval
	h.send(bgRedrawMsg{})
	if !strings.Contains(ansi.Strip(h.m.frame), "background output more!") {
		t.Fatalf("deferred redraw did not draw:\n%s", ansi.Strip(h.m.frame))
	}
}

func TestFocusedPanePutsTheOthersInTheBackground(t *testing.T) {
	h := newHarness(t, nil)
	a := startPane(h, "a")
	b := startPane(h, "b")
	c := startPane(h, "c")
	if a.bg != nil || b.bg != nil || c.bg != nil {
		t.Fatalf("background set before any pane had the keyboard: %v %v %v", a.bg, b.bg, c.bg)
	}
	h.key("ctrl+g") // type into c (the newest, selected)
	if !slices.Equal(a.bg, []bool{true}) || !slices.Equal(b.bg, []bool{true}) || c.bg != nil {
		t.Fatalf("focusing c: a %v, b %v, c %v", a.bg, b.bg, c.bg)
	}
	h.key("ctrl+]") // leave the pane
	if !slices.Equal(a.bg, []bool{true, false}) || !slices.Equal(b.bg, []bool{true, false}) || c.bg != nil {
		t.Fatalf("leaving c: a %v, b %v, c %v", a.bg, b.bg, c.bg)
	}
}

func TestTypingAPromptPutsPanesInTheBackground(t *testing.T) {
	h := newHarness(t, nil)
	a := startPane(h, "a")
	b := startPane(h, "b")
	var ticks []time.Duration
	h.m.tick = func(d time.Duration, f func(time.Time) tea.Msg) tea.Cmd { ticks = append(ticks, d); return nil }
	h.typeText("fix the")
	if !slices.Equal(a.bg, []bool{true}) || !slices.Equal(b.bg, []bool{true}) {
		t.Fatalf("typing a prompt: a %v, b %v", a.bg, b.bg)
	}
	if len(ticks) != 1 || ticks[0] != typingHold {
		t.Fatalf("typing spell ticks %v, want one of %v", ticks, typingHold)
	}
	// The tick fires while the user still typed recently: re-armed for the rest of the hold.
	now := h.m.now()
	h.m.now = func() time.Time { return now.Add(typingHold / 4) }
	h.send(typingIdleMsg{})
	if len(ticks) != 2 || ticks[1] != typingHold*3/4 || len(a.bg) != 1 {
		t.Fatalf("early tick: ticks %v, a %v", ticks, a.bg)
	}
	// A hold after the last key, the panes are read at full speed again.
	h.m.now = func() time.Time { return now.Add(typingHold) }
	h.send(typingIdleMsg{})
	if !slices.Equal(a.bg, []bool{true, false}) || !slices.Equal(b.bg, []bool{true, false}) || len(ticks) != 2 {
		t.Fatalf("after the hold: a %v, b %v, ticks %v", a.bg, b.bg, ticks)
	}
	// Sending the prompt is a key too: the spell lasts a hold after the Enter.
	h.typeText(" bug")
	h.m.now = func() time.Time { return now.Add(typingHold * 3 / 2) }
	h.key("enter")
	h.m.now = func() time.Time { return now.Add(typingHold * 2) }
	h.send(typingIdleMsg{})
	if !slices.Equal(a.bg, []bool{true, false, true}) {
		t.Fatalf("half a hold after sending: a %v", a.bg)
	}
	h.m.now = func() time.Time { return now.Add(typingHold * 5 / 2) }
	h.send(typingIdleMsg{})
	if !slices.Equal(a.bg, []bool{true, false, true, false}) {
		t.Fatalf("a hold after sending: a %v", a.bg)
	}
}

func TestTooSmallWindowSaysSo(t *testing.T) {
	h := newHarness(t, nil)
	startPane(h, "a")
	for _, c := range []struct {
		w, h int
		want string
	}{{19, 24, "window 19x24"}, {60, 5, "window 60x5"}, {12, 3, "window 12x3"}} {
		h.send(tea.WindowSizeMsg{Width: c.w, Height: c.h})
		scr := h.screenText()
		if !strings.Contains(scr, "needs 20x6") || !strings.Contains(scr, c.want) {
			t.Fatalf("%dx%d:\n%s", c.w, c.h, scr)
		}
		for i, l := range strings.Split(scr, "\n") {
			if lw := ansi.StringWidth(l); lw > c.w || i >= c.h {
				t.Fatalf("%dx%d: row %d (%d cells) outside the window: %q", c.w, c.h, i, lw, l)
			}
		}
	}
	h.send(tea.WindowSizeMsg{Width: 20, Height: 6})
	if scr := h.screenText(); strings.Contains(scr, "needs 20x6") {
		t.Fatalf("20x6 is big enough:\n%s", scr)
	}
}

func TestHelpScrollsWhenTallerThanTheWindow(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.key("?")
	scr := h.screenText()
	if !strings.Contains(scr, "pgup/pgdn scroll") || !strings.Contains(scr, "send prompt") || strings.Contains(scr, "reject always") {
		t.Fatalf("help at 80x24, top:\n%s", scr)
	}
	for i := 0; i < 5; i++ {
		h.key("pgdown")
	}
	scr = h.screenText()
	if !strings.Contains(scr, "reject always") || strings.Contains(scr, "send prompt") {
		t.Fatalf("help at 80x24, scrolled to the end:\n%s", scr)
	}
	h.key("up")
	if h.m.findOverlay("help") == nil {
		t.Fatal("a scroll key closed the help")
	}
	h.key("x")
	if h.m.findOverlay("help") != nil || strings.Contains(h.screenText(), "pgup/pgdn scroll") {
		t.Fatal("another key did not close the help")
	}
	// Tall enough: no marker, everything shown.
	h.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	h.key("?")
	if scr := h.screenText(); strings.Contains(scr, "pgup/pgdn scroll") || !strings.Contains(scr, "reject always") || !strings.Contains(scr, "send prompt") {
		t.Fatalf("help at 160x48:\n%s", scr)
	}
	h.key("down") // not scrollable: any key closes, as its title says
	if h.m.findOverlay("help") != nil {
		t.Fatal("down kept a help that fits open")
	}
}

func TestNewTerminalsStartAtTheirPaneSize(t *testing.T) {
	h := newHarness(t, nil)
	h.screenText()
	predicted := func() terminals.Size {
		t.Helper()
		f, ok := h.terms[""]
		if !ok {
			t.Fatal("no default size was set")
		}
		return f.sizes[0]
	}
	want1 := predicted()
	t1 := startPane(h, "t1")
	if len(t1.sizes) == 0 || t1.sizes[0] != want1 || want1 == terminals.DefaultSize {
		t.Fatalf("predicted %v for the first pane, it got %v", want1, t1.sizes)
	}
	want2 := predicted()
	t2 := startPane(h, "t2")
	if len(t2.sizes) == 0 || t2.sizes[0] != want2 || want2 == want1 {
		t.Fatalf("predicted %v for the second pane, it got %v", want2, t2.sizes)
	}
	h.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	h.screenText()
	if got := predicted(); got == want2 || got.Cols < want2.Cols {
		t.Fatalf("prediction after growing the window: %v (was %v)", got, want2)
	}
}

func TestEveryConfigKeyActionIsBindable(t *testing.T) {
	for _, a := range config.KeyActions {
		km := DefaultKeyMap()
		if err := km.applyKeys(map[string][]string{a: {"f5"}}); err != nil {
			t.Errorf("action %q: %v", a, err)
		}
	}
	km := DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"bogus": {"f5"}}); err == nil || !strings.Contains(err.Error(), `unknown action "bogus"`) {
		t.Fatalf("unknown action error = %v", err)
	}
}

func TestApprovalKeysRebound(t *testing.T) {
	h := newHarness(t, map[string][]string{"approve_once": {"y"}, "reject_once": {"n"}})
	h.ev(ask("p1"))
	if scr := h.screenText(); !strings.Contains(scr, "y/1   Allow once") || !strings.Contains(scr, "n/3   Reject") {
		t.Fatalf("rebound keys not shown:\n%s", scr)
	}
	h.key("a") // no longer bound: the editor's, and the request waits for tab
	h.keys("tab", "n")
	wantCalls(t, h.agent.take(), `answer p1 option="reject-once" choice=""`)
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "write", Policy: &permissions.Decision{Verdict: permissions.Ask, Path: "/w/x"}})
	h.keys("tab", "y") // the editor holds "a": the request waits for tab
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="allow_once"`)
}

func TestFocusReportsAndScrolledConversationStaysPut(t *testing.T) {
	h := newHarness(t, nil)
	ft := startPane(h, "t1")
	ft.scr.Write([]byte("\x1b[?1004h")) // the program asks for focus reports
	h.key("ctrl+g")
	h.key("ctrl+]")
	if strings.Join(ft.input, "|") != `write "\x1b[I"|write "\x1b[O"` {
		t.Fatalf("focus reports = %q", ft.input)
	}
	for i := 0; i < 40; i++ {
		h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(fmt.Sprintf("line %d\n\n", i))})
		h.ev(acpclient.SessionUpdated{Update: acp.UpdateUserMessageText("u")}) // new message each time
	}
	h.screenText()
	h.key("pgup")
	before := h.screenText()
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("brand new line")})
	after := h.screenText()
	top := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
	if top(before) != top(after) || strings.Contains(after, "brand new line") {
		t.Fatalf("scrolled view moved:\nbefore %q\nafter  %q", top(before), top(after))
	}
	h.key("pgdown")
	h.key("pgdown")
	if !strings.Contains(h.screenText(), "brand new line") {
		t.Fatal("back at the end, the new line is not shown")
	}
}

func TestMouseSelectsFocusesAndScrolls(t *testing.T) {
	h := newHarness(t, nil)
	startPane(h, "t1")
	startPane(h, "t2")
	startPane(h, "t3") // 100 columns: tabbed, t3 shown
	if !h.m.lay.tabbed || h.m.selected != 2 {
		t.Fatalf("tabbed=%v selected=%d", h.m.lay.tabbed, h.m.selected)
	}
	tabs := h.m.lay.tabs
	h.send(tea.MouseClickMsg{X: tabs.Min.X + 2, Y: tabs.Min.Y, Button: tea.MouseLeft}) // first tab
	if h.m.selected != 0 || h.m.focused {
		t.Fatalf("tab click: selected=%d focused=%v", h.m.selected, h.m.focused)
	}
	h.screenText()
	in := interior(h.m.lay.panes[0].outer)
	h.send(tea.MouseClickMsg{X: in.Min.X + 1, Y: in.Min.Y + 1, Button: tea.MouseLeft}) // the selected pane: type into it
	if !h.m.focused {
		t.Fatal("click on the selected pane did not focus it")
	}
	h.send(tea.MouseClickMsg{X: 1, Y: 1, Button: tea.MouseLeft}) // the conversation: leave the pane
	if h.m.focused {
		t.Fatal("click outside did not leave the pane")
	}
}

// The modal counts through a queue: "1 of 3", then "2 of 3" after one answer, and starts over
// once the queue is empty.
func TestApprovalQueueCountsUp(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	for _, id := range []string{"p1", "p2", "p3"} {
		h.ev(ask(id))
	}
	for i, want := range []string{"Permission 1 of 3", "Permission 2 of 3", "Permission 3 of 3"} {
		if scr := h.screenText(); !strings.Contains(scr, want) {
			t.Fatalf("step %d: screen lacks %q:\n%s", i, want, scr)
		}
		h.key("a")
	}
	for _, id := range []string{"p1", "p2", "p3"} {
		h.ev(acpclient.PermissionResolved{ID: id, Outcome: "allow-once", By: "user"})
	}
	h.ev(ask("p4"))
	if scr := h.screenText(); !strings.Contains(scr, "Permission 1 of 1") {
		t.Fatalf("a new queue does not start over:\n%s", scr)
	}
}

func TestWholeFrameGolden(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "demo", AgentVersion: "1.0", SessionID: "s-1"}})
	h.ev(acpclient.TurnStarted{Prompt: "list files"})
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("Running `ls`.")})
	ft := startPane(h, "t1")
	ft.scr.Write([]byte("a.go  b.go"))
	got := strings.Split(h.screenText(), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	want := []string{
		"› list files",
		"",
		"Running \u00a0ls\u00a0.", // glamour pads inline code with no-break spaces
		"",
		"• tool call call-t1  pending",
		"  ┌ terminal · running",
		"  │ a.go  b.go",
		"╭─ $ cat t1 · /work · running · 0s · alt+k kills ──────────╮",
		"│a.go  b.go                                                │",
		"│                                                          │",
		"│                                                          │",
		"│                                                          │",
		"╰──────────────────────────────────────────────────────────╯",
		"─ working · esc cancels ────────────────────────────────────",
		"›",
		" ⠋ working · policy built-in defaults (policy only)  ? help",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range got {
			if i >= len(want) || got[i] != want[i] {
				t.Errorf("row %d = %q", i, got[i])
			}
		}
		t.Fatalf("frame:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// exfilDecision is the policy decision for the tester's request `sleep 1; echo aaaa…(84 a's);
// echo b; echo c; echo d; echo e; cat ~/.ssh/id_rsa > stolen.txt`: the asking leaf comes last.
func exfilDecision() (string, *permissions.Decision) {
	as := strings.Repeat("a", 84)
	line := "sleep 1; echo " + as + "; echo b; echo c; echo d; echo e; cat ~/.ssh/id_rsa > stolen.txt"
	allow := func(argv ...string) permissions.Leaf {
		return permissions.Leaf{Argv: argv, Program: "/usr/bin/" + argv[0], Verdict: permissions.Allow, Rule: "allow: " + argv[0]}
	}
	d := &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers cat ~/.ssh/id_rsa",
		Argv: []string{"/bin/sh", "-c", line}, Shell: true, Cwd: "/work",
		Leaves: []permissions.Leaf{
			allow("sleep", "1"), allow("echo", as), allow("echo", "b"), allow("echo", "c"), allow("echo", "d"), allow("echo", "e"),
			{Argv: []string{"cat", "/home/u/.ssh/id_rsa"}, Program: "/usr/bin/cat", Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers cat"},
		}}
	return line, d
}

// rowsOf returns the frame's rows with trailing spaces trimmed.
func rowsOf(scr string) []string {
	rows := strings.Split(scr, "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return rows
}

func TestApprovalModalShowsWholeRequestAt80x24(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	line, dec := exfilDecision()
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: dec, ToolCall: acp.ToolCallUpdate{Title: &line}})
	scr := h.screenText()
	// The asking leaf is listed first, so it is visible without scrolling.
	if !strings.Contains(scr, "│ ask   cat /home/u/.ssh/id_rsa → /usr/bin/cat") {
		t.Fatalf("asking leaf not shown first:\n%s", scr)
	}
	if !strings.Contains(scr, "more below (PgDn)") || !strings.Contains(scr, "│ pgup/pgdn scroll · ctrl+o all · enter choose · ↑/↓ move · esc deny ") {
		t.Fatalf("no more-below marker while content is hidden:\n%s", scr)
	}
	if strings.Contains(scr, "…") {
		t.Fatalf("something is cut with an ellipsis:\n%s", scr)
	}
	// Collect the body over every page: the full command, argv and all leaves appear.
	var seen []string
	for i := 0; i < 10; i++ {
		for _, r := range rowsOf(h.screenText()) {
			if a, b := strings.Index(r, "│ "), strings.LastIndex(r, " │"); a >= 0 && b > a {
				seen = append(seen, strings.TrimRight(r[a+len("│ "):b], " "))
			}
		}
		h.key("pgdown")
	}
	all := strings.Join(seen, "\n")
	for _, w := range []string{"echo " + strings.Repeat("a", 84)[:40], "cat ~/.ssh/id_rsa > stolen.txt", "allow echo e → /usr/bin/echo", "allow sleep 1 → /usr/bin/sleep",
		"cwd:  /work", "asks: no rule covers cat ~/.ssh/id_rsa (unmatched)"} {
		if !strings.Contains(all, w) {
			t.Fatalf("never shown: %q\n%s", w, all)
		}
	}
	// Joined back together, the wrapped argv rows hold every character of the shell line.
	var argv string
	for i, r := range seen {
		if strings.HasPrefix(r, "argv: ") {
			argv = r
			for _, c := range seen[i+1:] {
				if !strings.HasPrefix(c, "      ") {
					break
				}
				argv += c
			}
			break
		}
	}
	nospace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	if want := "argv:/bin/sh-c'" + nospace(line) + "'"; nospace(argv) != want {
		t.Fatalf("argv rows = %q, want %q", nospace(argv), want)
	}
	scr = h.screenText()
	if !strings.Contains(scr, "more above (PgUp)") || strings.Contains(scr, "more below") {
		t.Fatalf("at the end: want only the more-above marker:\n%s", scr)
	}
	h.key("pgup")
	h.key("home")
	if scr := h.screenText(); strings.Contains(scr, "more above") {
		t.Fatalf("home did not return to the top:\n%s", scr)
	}
	h.key("a")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="allow_once"`)
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

func TestKillPaneKey(t *testing.T) {
	h := newHarness(t, nil)
	ft := startPane(h, "term-1")
	scr := h.screenText()
	if r := rowWith(scr, "$ cat term-1"); !strings.Contains(r, "╭─ $ cat term-1 · /work · running · 0s · alt+k kills ") {
		t.Fatalf("pane title lacks the kill hint: %q\n%s", r, scr)
	}
	h.key("alt+k")
	if strings.Join(ft.input, ",") != "kill" {
		t.Fatalf("terminal input = %q, want a kill", ft.input)
	}
	if scr := h.screenText(); rowWith(scr, "killing cat term-1") == "" {
		t.Fatalf("no killing banner:\n%s", scr)
	}
	h.ev(acpclient.TerminalExited{ID: "term-1", Status: terminals.ExitStatus{Signal: "SIGTERM"}})
	ft.input = nil
	h.key("alt+k") // finished: nothing to kill
	if len(ft.input) != 0 {
		t.Fatalf("killed a finished pane: %q", ft.input)
	}
	if scr := h.screenText(); rowWith(scr, "pane cat term-1 has already finished (SIGTERM)") == "" || strings.Contains(scr, "alt+k kills") {
		t.Fatalf("finished pane: want the banner and no hint:\n%s", scr)
	}
	help := newHarness(t, nil)
	help.key("?")
	if scr := help.screenText(); !strings.Contains(scr, "alt+k") || !strings.Contains(scr, "kill selected pane's command") {
		t.Fatalf("help lacks the kill key:\n%s", scr)
	}
	re := newHarness(t, map[string][]string{"kill_pane": {"ctrl+y"}})
	ft2 := startPane(re, "term-2")
	re.key("alt+k")
	re.key("ctrl+y")
	if strings.Join(ft2.input, ",") != "kill" { // alt+k went to the editor
		t.Fatalf("rebound kill: input %q", ft2.input)
	}
}

func TestSecondEscKillsTurnTerminals(t *testing.T) {
	h := newHarness(t, nil)
	old := startPane(h, "term-0") // started before the turn: left alone
	h.typeText("go")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	yes := startPane(h, "term-1")
	done := startPane(h, "term-2")
	h.ev(acpclient.TerminalExited{ID: "term-2", Status: terminals.ExitStatus{Code: new(int)}})
	h.agent.take()
	h.key("esc")
	wantCalls(t, h.agent.take(), "cancel")
	if r := rowWith(h.screenText(), "cancelling…"); !strings.HasPrefix(r, "─ cancelling… · esc again kills 1 terminal ─") {
		t.Fatalf("separator = %q", r)
	}
	h.key("esc") // the agent ignored session/cancel
	wantCalls(t, h.agent.take())
	if strings.Join(yes.input, ",") != "kill" || len(old.input) != 0 || len(done.input) != 0 {
		t.Fatalf("kills: turn pane %q, older pane %q, finished pane %q", yes.input, old.input, done.input)
	}
	if r := rowWith(h.screenText(), "cancelling…"); !strings.HasPrefix(r, "─ cancelling… · killing 1 terminal ─") {
		t.Fatalf("separator = %q", r)
	}
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	if r := rowWith(h.screenText(), "cancelling"); r != "" {
		t.Fatalf("still cancelling after the turn ended: %q", r)
	}
}

func TestOwnPromptFooterAndHelpListPolicyKeys(t *testing.T) {
	h := newHarness(t, nil)
	title := "make"
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: &permissions.Decision{Verdict: permissions.Ask, Reason: "no rule covers make"},
		ToolCall: acp.ToolCallUpdate{Title: &title}})
	scr := h.screenText()
	if r := rowWith(scr, "enter choose"); !strings.Contains(r, "│ enter choose · ↑/↓ move · esc deny ") {
		t.Fatalf("own prompt footer = %q", r)
	}
	if strings.Contains(scr, "reject") {
		t.Fatalf("own prompt mentions reject:\n%s", scr)
	}
	h.key("esc")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="deny"`)

	h.key("?")
	scr = h.screenText()
	for _, w := range []string{"s    policy prompt: select allow for session", "S    policy prompt: select save as rule", "tab  answer a waiting approval",
		"d    policy prompt: deny (also esc)", "pgdn approval: scroll details", "a    approve once", "alt+k      kill selected pane's command"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("help lacks %q:\n%s", w, scr)
		}
	}
}

func TestKeyClashesAreErrors(t *testing.T) {
	// The config package checks clashes against its copy of the defaults: it must be this one.
	km := DefaultKeyMap()
	for name, b := range km.keyActions() {
		if name == "focus_next" {
			continue
		}
		if got, want := strings.Join(b.Keys(), " "), strings.Join(config.DefaultKeys[name], " "); got != want {
			t.Errorf("action %s: ui binds %q, config.DefaultKeys has %q", name, got, want)
		}
	}
	if len(config.DefaultKeys) != len(km.keyActions())-1 {
		t.Errorf("config.DefaultKeys has %d actions, ui %d", len(config.DefaultKeys), len(km.keyActions())-1)
	}
	if a, k, o, clash := config.KeyClash(nil); clash {
		t.Fatalf("defaults clash: %s %q %s", a, k, o)
	}
	if a, k, o, clash := config.KeyClash(map[string][]string{"zoom": {"ctrl+q"}}); !clash || a != "zoom" || k != "ctrl+q" || o != "quit" {
		t.Fatalf("KeyClash(zoom=ctrl+q) = %s %q %s %v", a, k, o, clash)
	}
	if _, _, _, clash := config.KeyClash(map[string][]string{"zoom": {"ctrl+q"}, "quit": {"ctrl+w"}}); clash {
		t.Fatal("quit moved away: no clash")
	}

	km = DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"zoom": {"ctrl+q"}}); err == nil || err.Error() != `[ui] keys: "ctrl+q" is bound to both quit and zoom` {
		t.Fatalf("applyKeys(zoom=ctrl+q) = %v", err)
	}
	km = DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"zoom": {"ctrl+q"}, "quit": {"ctrl+w"}}); err != nil {
		t.Fatalf("swap: %v", err)
	}
	// The model shows the error (Run's callers get it from config.Load first, exit 2).
	h := newHarness(t, map[string][]string{"zoom": {"ctrl+q"}})
	if scr := h.screenText(); rowWith(scr, `[ui] keys: "ctrl+q" is bound to both quit and zoom`) == "" {
		t.Fatalf("no clash banner:\n%s", scr)
	}
}

func TestApprovalFullRequestInPager(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	line, dec := exfilDecision()
	dec.EnvAdded = []string{"FOO"}
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: dec, ToolCall: acp.ToolCallUpdate{Title: &line}})
	cmd := h.m.handleKey(keyMsg("ctrl+o"))
	if cmd == nil || h.m.pendingApprovals() != 1 {
		t.Fatalf("ctrl+o in the modal: cmd %v, pending %d", cmd, h.m.pendingApprovals())
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "acpterm-request-*.txt"))
	if len(files) != 1 {
		t.Fatalf("request files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	as := strings.Repeat("a", 84)
	want := "Permission request c1 (command)\n" +
		"title:   " + line + "\n" +
		"verdict: ask\n" +
		"reason:  no rule covers cat ~/.ssh/id_rsa (unmatched)\n" +
		"argv:    /bin/sh -c '" + line + "'\n" +
		"  [0] /bin/sh\n  [1] -c\n  [2] " + line + "\n" +
		"cwd:     /work\n" +
		"env added: FOO\n" +
		"\ncommands (7; asking or denied first):\n" +
		"  ask   cat /home/u/.ssh/id_rsa → /usr/bin/cat\n        unmatched: no rule covers cat\n" +
		"  allow sleep 1 → /usr/bin/sleep\n        allow: sleep\n" +
		"  allow echo " + as + " → /usr/bin/echo\n        allow: echo\n" +
		"  allow echo b → /usr/bin/echo\n        allow: echo\n" +
		"  allow echo c → /usr/bin/echo\n        allow: echo\n" +
		"  allow echo d → /usr/bin/echo\n        allow: echo\n" +
		"  allow echo e → /usr/bin/echo\n        allow: echo\n"
	if string(b) != want {
		t.Fatalf("request text:\n%s\nwant:\n%s", b, want)
	}
}

func TestAgentOwnedPaneTitleFollowsRetitle(t *testing.T) {
	h := newHarness(t, nil)
	scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
	t.Cleanup(func() { _ = scr.Close() })
	h.agent.screens["a1"] = scr
	h.ev(acpclient.TerminalStarted{ID: "a1", ToolCallID: "c1", Label: "Terminal", AgentOwned: true})
	titleRow := func() string {
		for _, r := range strings.Split(h.screenText(), "\n") {
			if strings.Contains(r, "$ ") {
				return strings.TrimRight(r, " ")
			}
		}
		return ""
	}
	if got, want := titleRow(), "╭─ $ Terminal · running · 0s · read-only ──────────────────────────────────────────────────────────╮"; got != want {
		t.Fatalf("title row before = %q, want %q", got, want)
	}
	h.ev(acpclient.TerminalRetitled{ID: "a1", Label: "go test ./...\x1b[2J"})
	if got, want := titleRow(), "╭─ $ go test ./... · running · 0s · read-only ─────────────────────────────────────────────────────╮"; got != want {
		t.Fatalf("title row after = %q, want %q", got, want)
	}
	h.ev(acpclient.TerminalRetitled{ID: "nope", Label: "ignored"})
	if got, want := titleRow(), "╭─ $ go test ./... · running · 0s · read-only ─────────────────────────────────────────────────────╮"; got != want {
		t.Fatalf("title row after unknown id = %q, want %q", got, want)
	}
}

// The approval modal shows a command's hidden characters (a carriage return that would start the
// line over, a right-to-left override) as escapes.
func TestApprovalRevealsHiddenCharacters(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	p := ask("p1")
	title := "touch safe_looking\rrm -f Makefile \u202eexe.txt"
	p.ToolCall.Title = &title
	h.ev(p)
	if scr := h.screenText(); !strings.Contains(scr, `touch safe_looking\rrm -f Makefile \u202eexe.txt`) {
		t.Fatalf("the modal hides characters of the title:\n%s", scr)
	}
}

// An own prompt whose decision cannot become a grant (a build runner, a shell …) offers only
// allow once and deny, and says why; s and S do nothing.
func TestOwnPromptWithoutGrantOffersNoAlways(t *testing.T) {
	h := newHarness(t, nil)
	h.grants.canGrant = errors.New(`grant refused for "make": make is a build runner executing workspace recipes`)
	title := "make"
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "runner: make", Reason: "make runs the Makefile"},
		ToolCall: acp.ToolCallUpdate{Title: &title}})
	scr := h.screenText()
	for _, want := range []string{"a/1   Allow once", "d/2   Deny", `no "always": grant refused for "make": make is a build runner executing workspace recipes`} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	for _, bad := range []string{"Allow for this session", "Save as rule"} {
		if strings.Contains(scr, bad) {
			t.Fatalf("screen offers %q:\n%s", bad, scr)
		}
	}
	h.key("s") // no choice: typing, the editor's
	h.key("S")
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "sS" {
		t.Fatalf("editor = %q", h.m.ed.value())
	}
	h.keys("tab", "2")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="deny"`)
}

// alt+o opens the conversation in $PAGER even while a pane is selected (ctrl+o then opens the
// pane's transcript).
func TestConversationPagerWithPanes(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "list files"})
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("Here is the listing.")})
	ft := startPane(h, "t1")
	ft.scr.Write([]byte("a.go  b.go"))
	if h.m.selectedPane() == nil {
		t.Fatal("no pane selected")
	}
	if cmd := h.m.handleKey(keyMsg("alt+o")); cmd == nil {
		t.Fatal("alt+o did nothing")
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "acpterm-conversation-*.txt"))
	if len(files) != 1 {
		t.Fatalf("conversation files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(b), "› list files") || !strings.Contains(string(b), "Here is the listing.") {
		t.Fatalf("conversation file = %q, %v", b, err)
	}
}

// At 40 columns the help box keeps its right border: lines too long are cut with "…".
func TestHelpFitsNarrowWindow(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 40, Height: 30})
	h.key("?")
	scr := h.screenText()
	var keysRow, killRow string
	for _, r := range strings.Split(scr, "\n") {
		if strings.Contains(r, "Keys ·") {
			keysRow = r
		}
		if strings.Contains(r, "alt+k") {
			killRow = r
		}
	}
	if !regexp.MustCompile(`│ Keys · other keys close +│`).MatchString(keysRow) || !strings.Contains(killRow, "kill selected pane's c… │") {
		t.Fatalf("help box cut at 40 columns:\n%s", scr)
	}
}

// Number keys pick options 1–9 only: a tenth option shows no number (pressing 1 picks the first).
func TestApprovalMoreThanNineOptions(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	p := ask("p1")
	p.Options = nil
	for i := 1; i <= 11; i++ {
		p.Options = append(p.Options, acp.PermissionOption{OptionId: acp.PermissionOptionId(fmt.Sprintf("o%d", i)), Name: fmt.Sprintf("Choice %d", i), Kind: acp.PermissionOptionKindAllowOnce})
	}
	h.ev(p)
	scr := h.screenText()
	for _, want := range []string{"  9     Choice 9", "        Choice 10", "        Choice 11"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "10    Choice 10") {
		t.Fatalf("option 10 shows a number key:\n%s", scr)
	}
}

// An agent that ignores the cancel and ends the turn with end_turn: the prompt queued behind the
// cancelled turn is held all the same.
func TestCancelIgnoredByAgentStillHoldsQueue(t *testing.T) {
	h := newHarness(t, nil)
	h.typeText("first")
	h.key("enter")
	h.ev(acpclient.TurnStarted{Prompt: "first"})
	h.typeText("rm -rf everything please")
	h.key("enter")
	h.key("esc")
	wantCalls(t, h.agent.take(), "prompt first", "cancel")
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	wantCalls(t, h.agent.take())
	if h.m.ed.value() != "rm -rf everything please" {
		t.Fatalf("editor = %q", h.m.ed.value())
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn ended (end_turn) after you cancelled it; the queued prompt is back in the editor") {
		t.Fatalf("no notice:\n%s", scr)
	}
}

// [ui.keys] approve_once = ["d"]: on acpterm's own prompt the shown "d Deny" still denies.
func TestOwnPromptFixedLettersWin(t *testing.T) {
	h := newHarness(t, map[string][]string{"approve_once": {"d"}})
	title := "make"
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched"},
		ToolCall: acp.ToolCallUpdate{Title: &title}})
	h.key("d")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="deny"`)
}

// Two quick ctrl+c during a turn: the first cancels it; if the turn ended in between, the second
// does not quit (a third, or one a second later, does).
func TestDoubleCtrlCDoesNotQuit(t *testing.T) {
	h := newHarness(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.m.now = func() time.Time { return now }
	h.typeText("go")
	h.send(keyMsg("enter"))
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	h.send(keyMsg("ctrl+c"))
	h.ev(acpclient.CancelRequested{})
	h.ev(acpclient.TurnEnded{StopReason: "cancelled"})
	now = now.Add(200 * time.Millisecond)
	h.send(keyMsg("ctrl+c"))
	if h.quit {
		t.Fatal("the second quick ctrl+c quit")
	}
	if scr := h.screenText(); !strings.Contains(scr, "turn stopped; ctrl+c again quits") {
		t.Fatalf("no notice:\n%s", scr)
	}
	now = now.Add(200 * time.Millisecond)
	h.send(keyMsg("ctrl+c"))
	if !h.quit {
		t.Fatal("the third ctrl+c did not quit")
	}
}
