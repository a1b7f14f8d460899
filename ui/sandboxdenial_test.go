package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// When a sandboxed command exits having reported a refused write, its pane's bottom border
// says which path and why; a command without one shows no warning.
func TestSandboxDenialOnPaneBorder(t *testing.T) {
	for _, c := range []struct{ denial, want string }{
		{"sandbox refused a write to /p/.git/hooks/pre-commit (protected, read-only)", "⚠ sandbox refused a write to /p/.git/hooks/pre-commit (protected, read-only)"},
		{"", ""},
	} {
		h := newHarness(t, nil)
		scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
		t.Cleanup(func() { _ = scr.Close() })
		scr.Write([]byte("sh: 1: cannot create /p/.git/hooks/pre-commit: Read-only file system"))
		h.terms["term-1"] = &fakeTerm{scr: scr, denial: c.denial}
		h.ev(acpclient.TerminalStarted{ID: "term-1", ToolCallID: "call-term-1", Label: "echo x > .git/hooks/pre-commit", Cwd: "/p"})
		if out := h.screenText(); strings.Contains(out, "⚠") {
			t.Fatalf("a warning before the exit:\n%s", out)
		}
		one := 1
		h.ev(acpclient.TerminalExited{ID: "term-1", Status: terminals.ExitStatus{Code: &one}})
		out := h.screenText()
		if c.want == "" {
			if strings.Contains(out, "⚠") {
				t.Errorf("a warning without a denial:\n%s", out)
			}
			continue
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("the pane lacks %q:\n%s", c.want, out)
		}
	}
}
