package acpclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file access the policy refuses is reported to the user with a Notice naming the path, the
// reason and the rule (as a refused terminal/create is), not only to the agent.
func TestRefusedFileAccessNotice(t *testing.T) {
	h := start(t, setup{})
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(h.dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(h.dir, ".git", "hooks", "pre-commit")
	for _, c := range []struct{ prompt, agent, notice string }{
		{"write " + filepath.Join(out, "x.txt") + " 3",
			"write error code=-32603 message=acpterm policy denied write of " + out + "/x.txt: ",
			`refused write of "` + out + `/x.txt": write denied: outside the roots or denied: ` + out + `/x.txt is outside the roots ` + h.dir + ` (rule: outside roots)`},
		{"write " + filepath.Join(h.dir, "link", "x.txt") + " 3",
			"write error code=-32603 message=acpterm policy denied write of " + h.dir + "/link/x.txt: ",
			`refused write of "` + h.dir + `/link/x.txt": write denied: outside the roots or denied: ` + h.dir + `/link/x.txt (really ` + out + `/x.txt) is outside the roots ` + h.dir + ` (rule: outside roots)`},
		{"write " + hook + " 3",
			"write error code=-32603 message=acpterm policy denied write of " + hook + ": ",
			`refused write of "` + hook + `": write of ` + hook + ` denied: protected path: git hooks (.git/hooks) run code on git commands (rule: protected)`},
		{"read " + filepath.Join(h.dir, "link", "y"),
			"read error code=-32603 message=acpterm policy denied read of " + h.dir + "/link/y: ",
			`refused read of "` + h.dir + `/link/y": read denied: outside the roots or denied: ` + h.dir + `/link/y (really ` + out + `/y) is outside the roots ` + h.dir + ` (rule: outside roots)`},
	} {
		h.mu.Lock()
		from := len(h.events)
		h.mu.Unlock()
		h.turn(c.prompt)
		if got := h.lastAgentText(); !strings.HasPrefix(got, c.agent) {
			t.Errorf("%s: agent saw %q, want prefix %q", c.prompt, got, c.agent)
		}
		var notices []string
		for _, e := range h.snapshot()[from:] {
			if n, ok := e.(Notice); ok {
				notices = append(notices, n.Level+": "+n.Text)
			}
		}
		if want := "warn: " + c.notice; len(notices) != 1 || notices[0] != want {
			t.Errorf("%s: notices %q\nwant [%q]", c.prompt, notices, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused write happened: %v", err)
	}
	if _, err := os.Stat(hook); !os.IsNotExist(err) {
		t.Errorf("the hook was written: %v", err)
	}
}

// A write the user refuses is the user's own decision: no notice.
func TestUserRefusedWriteHasNoNotice(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("write " + filepath.Join(h.dir, "w.txt") + " 3")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if n := countEvents[Notice](h.snapshot()); n != 0 {
		t.Errorf("%d notices for the user's own refusal", n)
	}
}
