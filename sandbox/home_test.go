package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHomeRootRefusedInRequired: with the home directory as root (or a parent of it, or as a
// further writable path), required mode refuses to start a command that would create a
// missing shell start-up file there, naming the path, why and what to do, and nothing is
// created; auto mode runs it, the report says what is missing, and the command really
// creates the file (what the refusal prevents).
func TestHomeRootRefusedInRequired(t *testing.T) {
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	home := filepath.Join(base, "home")
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	why := "shell start-up files there that do not exist yet (.profile, .zshrc, .config/fish/config.fish, …) could be created and run outside the sandbox"
	for _, c := range []struct {
		roots, write []string
		want         string
	}{
		{[]string{home}, nil, "home_root: root " + home + " is your home directory: " + why + "; use a project directory as root"},
		{[]string{proj, base}, nil, "home_root: root " + base + " contains your home directory " + home + ": " + why + "; use a project directory as root"},
		{[]string{proj}, []string{home}, "home_root: writable path " + home + " is your home directory: " + why + "; grant a directory below it instead"},
	} {
		rc := filepath.Join(home, ".zshrc")
		spec := &Spec{Mode: ModeRequired, Roots: c.roots, Write: c.write, TempDir: base, Network: NetworkOn, Seccomp: true, Home: home}
		cmd := exec.Command("/bin/sh", "-c", "echo evil > "+rc)
		cmd.Dir = proj
		if _, err := Start(spec, cmd); err == nil || err.Error() != "sandbox: required layer missing: "+c.want {
			t.Fatalf("roots %v write %v: err %v\nwant %s", c.roots, c.write, err, c.want)
		}
		if _, err := os.Lstat(rc); !os.IsNotExist(err) {
			t.Fatalf("%s exists after the refusal (%v)", rc, err)
		}
		spec.Mode = ModeAuto
		cmd = exec.Command("/bin/sh", "-c", "echo evil > "+rc)
		cmd.Dir = proj
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if st, ok := p.Exit(time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Fatalf("auto: exit %+v %v", st, ok)
		}
		r := p.Report()
		if len(r.Missing) != 1 || r.Missing[0] != c.want {
			t.Errorf("auto: missing %q\nwant [%s]", r.Missing, c.want)
		}
		if !strings.HasSuffix(r.Summary(), " · missing home_root") {
			t.Errorf("auto: summary %q", r.Summary())
		}
		if !r.Layers.Landlock.Enforced || !r.Layers.MountNS || r.Confined() {
			t.Errorf("auto: landlock %v, mount ns %v, confined %v; want true, true, false (the home is exposed)",
				r.Layers.Landlock.Enforced, r.Layers.MountNS, r.Confined())
		}
		if b, err := os.ReadFile(rc); string(b) != "evil\n" {
			t.Errorf("auto: the command did not create %s (%q %v): the refusal proves nothing", rc, b, err)
		}
		_ = os.Remove(rc)
	}
	// A root below the home directory exposes nothing.
	if got := HomeExposure(&Spec{Roots: []string{proj}, Write: []string{filepath.Join(home, ".cache")}, Home: home}); got != nil {
		t.Errorf("project root: %q", got)
	}
}
