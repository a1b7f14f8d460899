package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

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
		name      string
		opts      []acp.PermissionOption
		key, want string
		screen    []string
	}{
		{"only always, enter", onlyAlways, "enter", `answer p1 option="" choice=""`, []string{"  A/1   Always yes", "  R/2   Always no", "› d/3   Dismiss (answer cancelled, pick nothing)", "esc dismiss"}},
		{"only always, esc", onlyAlways, "esc", `answer p1 option="" choice=""`, nil},
		{"only always, d", onlyAlways, "d", `answer p1 option="" choice=""`, nil},
		{"only always, A enter", onlyAlways, "A enter", `answer p1 option="AA" choice=""`, nil},
		{"only always, A", onlyAlways, "A", "", nil}, // selected, not answered
		{"none, enter", nil, "enter", `answer p1 option="" choice=""`, []string{"› d/1   Dismiss (answer cancelled, pick nothing)", "esc dismiss"}},
		{"none, a", nil, "a", "", []string{"Permission 1 of 1"}}, // no allow option: the editor's
	} {
		t.Run(c.name, func(t *testing.T) {
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
				return
			}
			wantCalls(t, h.agent.take(), c.want)
		})
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
	if h.m.windowTitle != "acpterm · needs approval (2)" {
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

// [ui.keys] approve_once = ["d"]: on acpterm's own prompt the shown "d Deny" still denies.
func TestOwnPromptFixedLettersWin(t *testing.T) {
	h := newHarness(t, map[string][]string{"approve_once": {"d"}})
	title := "make"
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched"},
		ToolCall: acp.ToolCallUpdate{Title: &title}})
	h.key("d")
	wantCalls(t, h.agent.take(), `answer c1 option="" choice="deny"`)
}

// What runs a leaf reads as a path, a shell builtin, or a program the policy did not find.
func TestLeafProgramLabel(t *testing.T) {
	for _, c := range []struct {
		l    permissions.Leaf
		want string
	}{
		{permissions.Leaf{Program: "/usr/bin/ls"}, "/usr/bin/ls"},
		{permissions.Leaf{Builtin: true}, "(shell builtin)"},
		{permissions.Leaf{}, "(not found on PATH)"},
	} {
		if got := leafProgram(c.l); got != c.want {
			t.Errorf("leafProgram(%+v) = %q, want %q", c.l, got, c.want)
		}
	}
}
