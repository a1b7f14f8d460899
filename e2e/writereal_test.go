package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadlessWriteSaysWhereItLanded: an fs/write_text_file to a path that resolves elsewhere
// (/proc/self/cwd/… is acpterm's working directory, the project) is reported with the file it
// really wrote.
func TestHeadlessWriteSaysWhereItLanded(t *testing.T) {
	e := newEnv(t)
	r := e.run("--headless", "--approve", "allow", "--prompt", "write /proc/self/cwd/w4 3", "--", scriptAgent(t))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	real := filepath.Join(e.project, "w4")
	if b, err := os.ReadFile(real); err != nil || string(b) != "www" {
		t.Fatalf("%s = %q, %v", real, b, err)
	}
	if want := "[write] /proc/self/cwd/w4 (really " + real + ") (created, 3 bytes)\n"; !strings.Contains(r.stdout, want) {
		t.Fatalf("headless output lacks %q:\n%s", want, r.stdout)
	}
}
