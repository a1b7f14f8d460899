package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

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
