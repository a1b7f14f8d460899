package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// With [ui] mouse = false the screen asks for no mouse tracking (the terminal keeps its own
// selection); leaving still resets the modes, whatever a pager left.
func TestScreenNoMouse(t *testing.T) {
	s, out := testScreen(t, 20, 4)
	s.noMouse = true
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	want := pushTitle + ansi.SetModeAltScreenSaveCursor + ansi.ResetModeTextCursorEnable + ansi.SetModeBracketedPaste +
		ansi.SetModifyOtherKeys2 + ansi.PushKittyKeyboard(1)
	if got := out.String(); got != want {
		t.Fatalf("start wrote %q, want %q", got, want)
	}
	out.Reset()
	s.close()
	if got := out.String(); !strings.Contains(got, ansi.ResetModeMouseButtonEvent) {
		t.Fatalf("close wrote %q", got)
	}
}
