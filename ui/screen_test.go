package ui

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

func testScreen(t *testing.T, w, h int) (*screen, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	s := newScreen(strings.NewReader(""), out, []string{"TERM=xterm-256color"})
	s.setProfile(colorprofile.TrueColor)
	s.setSize(w, h)
	return s, out
}

func canvasWith(w, h int, lines ...string) *lipgloss.Canvas {
	c := lipgloss.NewCanvas(w, h)
	for y, l := range lines {
		drawText(c, uv.Rect(0, y, w, 1), l)
	}
	return c
}

func TestScreenStartAndCloseSequences(t *testing.T) {
	s, out := testScreen(t, 20, 4)
	if err := s.start(ansi.RequestBackgroundColor); err != nil {
		t.Fatal(err)
	}
	want := pushTitle + ansi.SetModeAltScreenSaveCursor + ansi.ResetModeTextCursorEnable + ansi.SetModeBracketedPaste +
		ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr + ansi.SetModifyOtherKeys2 + ansi.PushKittyKeyboard(1) +
		ansi.RequestBackgroundColor
	if got := out.String(); got != want {
		t.Fatalf("start wrote %q, want %q", got, want)
	}
	out.Reset()
	s.setTitle("acpterm · x")
	if got := out.String(); got != ansi.SetWindowTitle("acpterm · x") {
		t.Fatalf("title wrote %q", got)
	}
	out.Reset()
	s.close()
	want = ansi.ResetModifyOtherKeys + ansi.PopKittyKeyboard(1) +
		ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr +
		ansi.ResetModeBracketedPaste + ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen +
		ansi.SetModeTextCursorEnable + ansi.ResetModeAltScreenSaveCursor +
		ansi.SetWindowTitle("") + popTitle
	if got := out.String(); got != want {
		t.Fatalf("close wrote %q, want %q", got, want)
	}
	out.Reset()
	s.close()
	s.writeNotice("\a")
	s.draw(canvasWith(20, 4, "late"), nil)
	if out.Len() != 0 {
		t.Fatalf("a closed screen wrote %q", out.String())
	}
}

func TestScreenDrawsOnlyChanges(t *testing.T) {
	s, out := testScreen(t, 20, 4)
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	c := canvasWith(20, 4, "hello world", "second line")
	s.draw(c, nil)
	first := out.String()
	if !strings.Contains(first, "hello world") || !strings.Contains(first, "second line") {
		t.Fatalf("first frame %q lacks its text", first)
	}
	out.Reset()
	s.draw(c, nil)
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}
	c2 := canvasWith(20, 4, "hello there", "second line")
	s.draw(c2, nil)
	if got := out.String(); got != ansi.CursorPosition(7, 1)+"there" {
		t.Fatalf("changed cells written as %q, want only \"there\" at column 7", got)
	}
	// Showing the cursor: moved there and enabled, after the cells.
	out.Reset()
	s.draw(c2, tea.NewCursor(3, 1))
	if got := out.String(); got != ansi.CursorPosition(4, 2)+ansi.SetModeTextCursorEnable {
		t.Fatalf("showing the cursor wrote %q", got)
	}
	// A change while the cursor is shown hides it during the paint.
	out.Reset()
	s.draw(canvasWith(20, 4, "hello there", "second LINE"), tea.NewCursor(3, 1))
	got := out.String()
	if !strings.HasPrefix(got, ansi.ResetModeTextCursorEnable) || !strings.HasSuffix(got, ansi.SetModeTextCursorEnable) ||
		!strings.Contains(ansi.Strip(got), "LINE") {
		t.Fatalf("paint with a shown cursor wrote %q", got)
	}
	// Synchronized output wraps a paint once the terminal reported it.
	s.syncd = true
	out.Reset()
	s.draw(canvasWith(20, 4, "x"), nil)
	got = out.String()
	if !strings.HasPrefix(got, ansi.SetModeSynchronizedOutput) || !strings.HasSuffix(got, ansi.ResetModeSynchronizedOutput) {
		t.Fatalf("synchronized paint wrote %q", got)
	}
}

func TestScreenResizeRepaintsWhole(t *testing.T) {
	s, out := testScreen(t, 20, 4)
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	c := canvasWith(30, 6, "keep me")
	s.draw(c, nil)
	out.Reset()
	s.setSize(30, 6)
	s.draw(c, nil)
	got := out.String()
	if !strings.Contains(got, ansi.EraseEntireScreen) && !strings.Contains(got, "\x1b[2J") {
		t.Fatalf("frame after a resize did not clear the screen: %q", got)
	}
	if !strings.Contains(got, "keep me") {
		t.Fatalf("frame after a resize did not repaint: %q", got)
	}
}

func TestScreenExecSuspendsAroundTheCommand(t *testing.T) {
	s, out := testScreen(t, 20, 4)
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	s.draw(canvasWith(20, 4, "before"), nil)
	out.Reset()
	var cmdOut bytes.Buffer
	c := &screenExec{Cmd: exec.Command("sh", "-c", "printf pager-ran"), scr: s}
	c.SetStdout(&cmdOut)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if cmdOut.String() != "pager-ran" {
		t.Fatalf("command output %q", cmdOut.String())
	}
	got := out.String()
	leave := strings.Index(got, ansi.ResetModeAltScreenSaveCursor)
	enter := strings.Index(got, ansi.SetModeAltScreenSaveCursor)
	pop, push := strings.Index(got, popTitle), strings.LastIndex(got, pushTitle)
	if leave < 0 || enter < leave || strings.Contains(got, ansi.SetWindowTitle("")) || pop < 0 || push < pop {
		t.Fatalf("suspend/resume wrote %q", got)
	}
	out.Reset()
	s.draw(canvasWith(20, 4, "before"), nil)
	if !strings.Contains(out.String(), "before") {
		t.Fatalf("the frame after resume was not repainted whole: %q", out.String())
	}
}

func TestPagerTextTrimsAndEndsWithNewline(t *testing.T) {
	for in, want := range map[string]string{
		"hi there      \nsecond  ":  "hi there\nsecond\n",
		"one\n\n\n":                 "one\n",
		"":                          "\n",
		"  indented stays\n  x  \n": "  indented stays\n  x\n",
	} {
		if got := pagerText(in); got != want {
			t.Errorf("pagerText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProcStatOfSelf(t *testing.T) {
	st, ok := procStat(os.Getpid())
	sid, _ := unix.Getsid(0)
	if !ok || st.ppid != os.Getppid() || st.pgrp != syscall.Getpgrp() || st.sid != sid {
		t.Fatalf("procStat(self) = %+v, %v; want ppid %d pgrp %d sid %d", st, ok, os.Getppid(), syscall.Getpgrp(), sid)
	}
	if _, ok := procStat(-1); ok {
		t.Fatal("procStat of no process succeeded")
	}
}
