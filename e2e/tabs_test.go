package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTUIPaneStripOverflow: at 80×24 six panes do not fit in the tab bar; it shows the selected
// (newest) one with "+N more" for the rest, names each by its tool call's title rather than its
// command line, and ctrl+t walks the selection through the hidden ones.
func TestTUIPaneStripOverflow(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	tm := startTmux(t, e, 80, 24)
	tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
	args := []string{"--demo", "--cwd", e.project}
	for i := 0; i < 6; i++ {
		args = append(args, "--prompt", "color")
	}
	tm.acpterm(args...)
	screen := tm.waitMatch(regexp.MustCompile(`(?m)^ \+(\d) more │ .*6 Print colours · exit 0`))
	if screen[1] != "3" && screen[1] != "4" {
		t.Fatalf("hidden count %s:\n%s", screen[1], tm.capture())
	}
	s := tm.capture()
	for _, bad := range []string{"printf", `\033`} {
		for _, row := range strings.Split(s, "\n") {
			if strings.Contains(row, " more │") && strings.Contains(row, bad) {
				t.Fatalf("the tab bar shows the command line (%q):\n%s", bad, s)
			}
		}
	}
	// ctrl+t selects the next pane: from the last one, the first, shown with its right-hand
	// neighbours and "+N more" after them.
	tm.keys("C-t")
	tm.waitMatch(regexp.MustCompile(`(?m)^ 1 Print colours · exit 0 │ 2 Print colours · exit 0 │.* \+\d more`))
	quit(t, e, tm, 0)
}
