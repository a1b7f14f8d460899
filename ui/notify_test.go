package ui

import (
	"errors"
	"slices"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
)

func TestDesktopEscape(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"}, "osc9"},
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=WezTerm"}, "osc9"},
		{[]string{"TERM=xterm-kitty"}, "osc9"},
		{[]string{"TERM=xterm-ghostty"}, "osc9"},
		{[]string{"TERM=foot"}, "osc777"},
		{[]string{"TERM=rxvt-unicode-256color"}, "osc777"},
		{[]string{"TERM=xterm-256color"}, ""},
		{[]string{"TERM=tmux-256color", "TERM_PROGRAM=tmux"}, ""},
		{[]string{"TERM=xterm-kitty", "TMUX=/tmp/tmux-0/default,1,0"}, ""},
		{[]string{"TERM=screen"}, ""},
	} {
		if got := desktopEscape(c.env); got != c.want {
			t.Errorf("desktopEscape(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}

func TestNotifierSequences(t *testing.T) {
	cfg := config.Default(t.TempDir())
	cfg.UI.Notify = []string{"bell", "osc9", "osc777"}
	n := newNotifier(cfg, nil)
	got := n.sequences("approval needed: rm -rf build; then\x1b[31m\nmore")
	want := "\a" + "\x1b]9;acpterm: approval needed: rm -rf build; then more\a" +
		"\x1b]777;notify;acpterm;approval needed: rm -rf build  then more\a"
	if got != want {
		t.Fatalf("sequences = %q\nwant        %q", got, want)
	}
	cfg.UI.Notify = []string{"desktop"}
	if got := newNotifier(cfg, []string{"TERM=foot"}).sequences("x"); got != "\x1b]777;notify;acpterm;x\a" {
		t.Fatalf("desktop on foot = %q", got)
	}
	if got := newNotifier(cfg, []string{"TERM=xterm"}).sequences("x"); got != "" {
		t.Fatalf("desktop on an unknown terminal = %q, want nothing", got)
	}
	cfg.UI.Notify = nil
	if n := newNotifier(cfg, nil); n.sequences("x") != "" || n.title {
		t.Fatalf("notify = [] still notifies: %+v", n)
	}
}

// notifyHarness is a harness whose model notifies by every channel, turns counting from 10s.
func notifyHarness(t *testing.T) *harness {
	h := newHarness(t, nil)
	cfg := config.Default(t.TempDir())
	cfg.UI.Notify = []string{"bell", "title", "osc9"}
	h.m.notif = newNotifier(cfg, nil)
	return h
}

func TestNotifyApprovalAndTitle(t *testing.T) {
	h := notifyHarness(t)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1"}})
	if h.m.windowTitle != "acpterm" {
		t.Fatalf("idle title = %q", h.m.windowTitle)
	}
	h.ev(acpclient.TurnStarted{Prompt: "go"})
	title := "Delete build"
	h.ev(acpclient.PermissionAsked{ID: "p1", Kind: "agent", ToolCall: acp.ToolCallUpdate{ToolCallId: "t1", Title: &title},
		Options: []acp.PermissionOption{{OptionId: "once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}}})
	if want := []string{"\a\x1b]9;acpterm: approval needed: Delete build\a"}; !slices.Equal(h.m.notices, want) {
		t.Fatalf("notices = %q, want %q", h.m.notices, want)
	}
	if h.m.windowTitle != "acpterm · needs approval" {
		t.Fatalf("title with an approval open = %q", h.m.windowTitle)
	}
	h.key("a")
	h.ev(acpclient.PermissionResolved{ID: "p1", Outcome: "once", By: "user"})
	if h.m.windowTitle != "acpterm" {
		t.Fatalf("title after the answer = %q", h.m.windowTitle)
	}
	if len(h.m.notices) != 1 {
		t.Fatalf("answering notified again: %q", h.m.notices)
	}
}

func TestNotifyTurnEndAfterThreshold(t *testing.T) {
	h := notifyHarness(t)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1"}})
	h.ev(acpclient.TurnStarted{Prompt: "quick"})
	h.clock = h.clock.Add(9 * time.Second)
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	if len(h.m.notices) != 0 || h.m.windowTitle != "acpterm" {
		t.Fatalf("a 9 s turn notified: %q, title %q", h.m.notices, h.m.windowTitle)
	}
	h.ev(acpclient.TurnStarted{Prompt: "long"})
	h.clock = h.clock.Add(12 * time.Second)
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	if want := []string{"\a\x1b]9;acpterm: prompt turn finished after 12s\a"}; !slices.Equal(h.m.notices, want) {
		t.Fatalf("notices = %q, want %q", h.m.notices, want)
	}
	if h.m.windowTitle != "acpterm · turn finished" {
		t.Fatalf("title after a long turn = %q", h.m.windowTitle)
	}
	h.typeText("x")
	if h.m.windowTitle != "acpterm" {
		t.Fatalf("title after a key = %q", h.m.windowTitle)
	}
	h.ev(acpclient.TurnStarted{Prompt: "fails"})
	h.clock = h.clock.Add(10 * time.Second)
	h.ev(acpclient.TurnEnded{Err: errors.New("boom")})
	if got := h.m.notices[len(h.m.notices)-1]; got != "\a\x1b]9;acpterm: prompt turn failed after 10s\a" || h.m.windowTitle != "acpterm · turn failed" {
		t.Fatalf("failed turn: notice %q, title %q", got, h.m.windowTitle)
	}
}

func TestNotifyElicitationAndCrash(t *testing.T) {
	h := notifyHarness(t)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1"}})
	h.ev(acpclient.ElicitationAsked{ID: "e1", Elicitation: acpclient.Elicitation{Mode: "form", Message: "Which colour?",
		Fields: []acpclient.ElicitationField{{Name: "c", Type: acpclient.FieldString}}}})
	if want := []string{"\a\x1b]9;acpterm: the agent asks: Which colour?\a"}; !slices.Equal(h.m.notices, want) {
		t.Fatalf("notices = %q, want %q", h.m.notices, want)
	}
	if h.m.windowTitle != "acpterm · question" {
		t.Fatalf("title with a question open = %q", h.m.windowTitle)
	}
	h.ev(acpclient.ElicitationResolved{ID: "e1", Action: "cancel", By: "cancel"})
	code := 2
	h.ev(acpclient.AgentExited{Code: &code})
	if got := h.m.notices[len(h.m.notices)-1]; got != "\a\x1b]9;acpterm: agent exited (exit 2)\a" {
		t.Fatalf("crash notice = %q", got)
	}
	if h.m.windowTitle != "acpterm · agent exited" {
		t.Fatalf("title after the crash = %q", h.m.windowTitle)
	}
}

func TestNotifyTitleOff(t *testing.T) {
	h := newHarness(t, nil)
	cfg := config.Default(t.TempDir())
	cfg.UI.Notify = []string{"bell"}
	h.m.notif = newNotifier(cfg, nil)
	title := "x"
	h.ev(acpclient.PermissionAsked{ID: "p1", Kind: "agent", ToolCall: acp.ToolCallUpdate{ToolCallId: "t1", Title: &title}})
	if h.m.windowTitle != "" || !slices.Equal(h.m.notices, []string{"\a"}) {
		t.Fatalf("bell only: title %q, notices %q", h.m.windowTitle, h.m.notices)
	}
}
