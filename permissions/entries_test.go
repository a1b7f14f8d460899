package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// TestRemoveLinkItself: rm, unlink and mv's sources act on a symlink itself, so a link inside a
// root that points outside is judged by where it is; following it (rm -r link/, mv's
// destination) and links inside protected directories are still checked as before.
func TestRemoveLinkItself(t *testing.T) {
	f := newCmdFixtureFS(t, config.Commands{Allow: []string{"rm", "mv", "unlink"}}, config.FS{Read: "allow", Write: "allow"})
	for link, target := range map[string]string{"escape_link": "/etc", "ssh_link": filepath.Join(f.home, ".ssh")} {
		if err := os.Symlink(target, filepath.Join(f.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(f.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/tmp", filepath.Join(f.root, ".git", "hooks", "l")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		script string
		want   Verdict
		reason string
	}{
		{"rm escape_link", Allow, `matches allow rule "rm"`},
		{"rm -f ssh_link && unlink escape_link", Allow, `matches allow rule "rm"`},
		{"mv escape_link moved_link", Allow, `matches allow rule "mv"`},
		{"mv -t sub escape_link", Allow, `matches allow rule "mv"`},
		{"rm -r escape_link/", Deny, "rm writes escape_link/: write denied"},
		{"mv x escape_link", Deny, "mv writes escape_link: write denied"},
		{"rm .git/hooks/l", Deny, "rm writes .git/hooks/l: write of " + f.root + "/.git/hooks/l denied: protected path"},
		{"rm ../x", Deny, "outside the roots"},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: "bash", Args: []string{"-c", c.script}})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.script, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
		}
	}
}
