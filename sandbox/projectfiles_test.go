package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProjectFilesProtected: the files a host tool runs code from when the directory is
// opened (direnv's .envrc, .hg/hgrc, .vscode/tasks.json …) are read-only to a sandboxed
// command where they exist, in the root and in a nested repository's working tree: each
// write fails and nothing changes. Where they are missing the command can create them, and
// the sweep moves each into the quarantine, saying so.
func TestProjectFilesProtected(t *testing.T) {
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	root, home, q := filepath.Join(base, "proj"), filepath.Join(base, "home"), filepath.Join(base, "state", "quarantine")
	sub := filepath.Join(root, "sub")
	for _, d := range []string{filepath.Join(root, ".hg"), filepath.Join(root, ".vscode"), filepath.Join(root, ".idea"),
		filepath.Join(sub, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	existing := []string{".envrc", ".hg/hgrc", ".vscode/tasks.json", ".idea/workspace.xml", ".exrc", "sub/.envrc", "sub/.nvimrc"}
	for _, f := range existing {
		if err := os.WriteFile(filepath.Join(root, f), []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pr := ProtectedPaths([]string{root}, home)
	for _, f := range existing {
		if !slices.Contains(pr.ReadOnly, filepath.Join(root, f)) {
			t.Errorf("%s is not protected: %q", f, pr.ReadOnly)
		}
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: base, Network: NetworkOn, Seccomp: true,
		ReadOnly: pr.ReadOnly, Pin: pr.Pin, Home: home}
	created := []string{".vscode/settings.json", ".nvim.lua", "mise.toml", ".mise.toml", "sub/.exrc", "sub/.vscode/tasks.json"}
	watch := NewWatch(WatchCandidates(spec, home, nil), spec.Roots)
	line := "fails=0\n"
	for _, f := range existing {
		line += "if echo evil >> " + f + "; then echo wrote " + f + "; else fails=$((fails+1)); fi\n"
	}
	line += "mkdir -p sub/.vscode\n"
	for _, f := range created {
		line += "echo evil > " + f + " || echo CREATEFAIL " + f + "\n"
	}
	line += `echo "failed $fails"`
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = root
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if st, ok := p.Exit(time.Second); !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("exit %+v %v: %s", st, ok, out.String())
	}
	if got := out.String(); !strings.HasSuffix(got, "failed 7\n") || strings.Contains(got, "wrote") || strings.Contains(got, "CREATEFAIL") {
		t.Errorf("output:\n%s", got)
	}
	for _, f := range existing {
		if b, _ := os.ReadFile(filepath.Join(root, f)); string(b) != "# "+f+"\n" {
			t.Errorf("%s changed: %q", f, b)
		}
	}
	var msgs []string
	for _, s := range watch.Sweep(q) {
		msgs = append(msgs, s.Message)
	}
	for _, f := range created {
		p := filepath.Join(root, f)
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still in the project (%v)", f, err)
		}
		prefix := "sandbox: removed " + p + ", created by the sandboxed command (moved to " + q + "/"
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, prefix) }) {
			t.Errorf("no message says %s was removed: %q", f, msgs)
		}
	}
	if len(msgs) != len(created) {
		t.Errorf("%d messages, want %d: %q", len(msgs), len(created), msgs)
	}
}
