package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/permissions"
)

// tickerDecision is the decision for `for i in $(seq 20); do date; done; rm -rf x` as the policy
// reports it: the same allowed leaf twenty times, then one that asks.
func tickerDecision() *permissions.Decision {
	d := &permissions.Decision{Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers rm -rf x",
		Argv: []string{"/bin/sh", "-c", "for i in 1 2; do date; done; rm -rf x"}, Shell: true, Cwd: "/work"}
	for range 20 {
		d.Leaves = append(d.Leaves, permissions.Leaf{Argv: []string{"date"}, Program: "/usr/bin/date", Verdict: permissions.Allow, Rule: "builtin allow: date"})
	}
	d.Leaves = append(d.Leaves, permissions.Leaf{Argv: []string{"rm", "-rf", "x"}, Program: "/usr/bin/rm", Verdict: permissions.Ask, Rule: "unmatched", Reason: "no rule covers rm"})
	return d
}

// TestIdenticalLeavesShownOnce: twenty identical leaves are one dialog line "(×20)", after the
// asking leaf; leaves that differ in any way stay apart.
func TestIdenticalLeavesShownOnce(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	title := "ticker"
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	h.ev(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: tickerDecision(), ToolCall: acp.ToolCallUpdate{Title: &title}})
	scr := h.screenText()
	if got := strings.Count(scr, "date → /usr/bin/date"); got != 1 {
		t.Fatalf("the date leaf is listed %d times, want once:\n%s", got, scr)
	}
	if !strings.Contains(scr, "│ allow date → /usr/bin/date (×20)") {
		t.Fatalf("no (×20) on the folded leaf:\n%s", scr)
	}
	if a, b := strings.Index(scr, "ask   rm -rf x"), strings.Index(scr, "allow date"); a < 0 || b < a {
		t.Fatalf("asking leaf not listed before the folded one:\n%s", scr)
	}
}

func TestGroupLeaves(t *testing.T) {
	l := func(v permissions.Verdict, rule string, argv ...string) permissions.Leaf {
		return permissions.Leaf{Argv: argv, Program: "/usr/bin/" + argv[0], Verdict: v, Rule: rule}
	}
	in := []permissions.Leaf{
		l(permissions.Allow, "r", "echo", "a"), l(permissions.Allow, "r", "echo", "b"), l(permissions.Allow, "r", "echo", "a"),
		l(permissions.Ask, "r", "echo", "a"), l(permissions.Allow, "other", "echo", "a"), l(permissions.Allow, "r", "echo", "a"),
	}
	var got []string
	for _, g := range groupLeaves(in) {
		got = append(got, string(g.Leaf.Verdict)+" "+strings.Join(g.Leaf.Argv, " ")+" "+g.Leaf.Rule+" ×"+string(rune('0'+g.N)))
	}
	want := "allow echo a r ×3|allow echo b r ×1|ask echo a r ×1|allow echo a other ×1"
	if strings.Join(got, "|") != want {
		t.Fatalf("groups = %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestRequestTextFoldsIdenticalLeaves: the pager text counts every leaf and folds repeats.
func TestRequestTextFoldsIdenticalLeaves(t *testing.T) {
	txt := requestText(acpclient.PermissionAsked{ID: "c1", Kind: "command", Policy: tickerDecision()})
	for _, w := range []string{"commands (21; asking or denied first):", "  ask   rm -rf x → /usr/bin/rm\n", "  allow date → /usr/bin/date (×20)\n"} {
		if !strings.Contains(txt, w) {
			t.Fatalf("pager text lacks %q:\n%s", w, txt)
		}
	}
	if strings.Count(txt, "date → ") != 1 {
		t.Fatalf("date leaf repeated:\n%s", txt)
	}
}
