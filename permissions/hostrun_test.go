package permissions

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHostRunFilesProtected: fs/write_text_file and a redirect to a file a host tool runs when
// its directory is opened (.envrc, .vscode/tasks.json …) are refused in the root and below it;
// a file of a similar name is not.
func TestHostRunFilesProtected(t *testing.T) {
	f := newCorpusFixture(t)
	for _, rel := range []string{".envrc", "sub/.envrc", ".vscode/tasks.json", ".hg/hgrc", ".nvim.lua", "mise.toml"} {
		d := f.e.DecideWrite(filepath.Join(f.root, rel))
		if d.Verdict != Deny || d.Rule != "protected" || !strings.Contains(d.Reason, "is run by a tool on your machine") {
			t.Errorf("write %s: %s %s %q", rel, d.Verdict, d.Rule, d.Reason)
		}
	}
	if d := f.e.DecideCommand(CommandRequest{Command: "echo x > .envrc"}); d.Verdict != Deny {
		t.Errorf("redirect to .envrc: %s %q", d.Verdict, d.Reason)
	}
	if d := f.e.DecideWrite(filepath.Join(f.root, "envrc.md")); d.Rule == "protected" {
		t.Errorf("envrc.md: %s %q", d.Rule, d.Reason)
	}
}
