package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestTUIDiffSideBySideFrom160: at 160 columns the approval dialog of a file write shows its
// diff side by side (old line numbers and text on the left, new on the right); at 120 columns
// the same diff is unified.
func TestTUIDiffSideBySideFrom160(t *testing.T) {
	for _, c := range []struct {
		cols int
		want *regexp.Regexp
		not  *regexp.Regexp
	}{
		{160, regexp.MustCompile(`(?m)│ 1 - the old first line\s+│ 1 \+ # acpterm demo\s+│`), regexp.MustCompile(`(?m)^\s*│\s*-the old first line`)},
		{120, regexp.MustCompile(`(?m)│ -the old first line\s+│\n.*│ \+# acpterm demo\s+│`), regexp.MustCompile(`1 - the old first line`)},
	} {
		t.Run(strconv.Itoa(c.cols), func(t *testing.T) {
			e := newEnv(t)
			e.writeConfig(demoConfig("ask"))
			if err := os.WriteFile(filepath.Join(e.project, "demo.md"), []byte("the old first line\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tm := startTmux(t, e, c.cols, 48)
			tm.shell("stty -g > " + shellQuote(filepath.Join(e.home, "stty.before")))
			tm.acpterm("--demo", "--cwd", e.project, "--prompt", "write")
			tm.waitFor(modalReady)
			screen := tm.waitMatch(c.want)
			if s := tm.capture(); c.not.MatchString(s) {
				t.Fatalf("at %d columns the diff is drawn the other way (%v):\n%s", c.cols, screen, s)
			}
			tm.keys("a")
			tm.waitFor("wrote ")
			quit(t, e, tm, 0)
		})
	}
}
