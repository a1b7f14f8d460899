package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mountAPIAttempt is what a sandboxed test program tries (SBX_MOUNTAPI=ROOT:OUTSIDE): with
// open_tree(OPEN_TREE_CLONE) a detached copy of ROOT's mount, free of the read-only binds on
// it, through which it appends to .git/config; then mount_setattr clearing MOUNT_ATTR_RDONLY
// on OUTSIDE's mount, and a chmod of OUTSIDE/f. It prints "open_tree=… config=… setattr=…
// chmod=…", "ok" for a call that worked.
func mountAPIAttempt(arg string) int {
	root, outside, _ := strings.Cut(arg, ":")
	res := func(err error) string {
		if err == nil {
			return "ok"
		}
		if e, ok := err.(unix.Errno); ok {
			return unix.ErrnoName(e)
		}
		return err.Error()
	}
	config := "-"
	fd, err := unix.OpenTree(unix.AT_FDCWD, root, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err == nil {
		f, ferr := unix.Openat(fd, ".git/config", unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		if ferr == nil {
			_, ferr = unix.Write(f, []byte("[core]\n\tfsmonitor = planted\n"))
			unix.Close(f)
		}
		config = res(ferr)
		unix.Close(fd)
	}
	setattr := res(unix.MountSetattr(unix.AT_FDCWD, outside, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}))
	fmt.Printf("open_tree=%s config=%s setattr=%s chmod=%s\n", res(err), config, setattr, res(unix.Chmod(filepath.Join(outside, "f"), 0o4777)))
	return 0
}

// TestMountAPIRefused: the new mount API cannot undo the mount namespace's protections. In
// the sandbox open_tree and mount_setattr fail with EPERM, .git/config in the root stays as
// it was and a chmod outside the roots stays EROFS; outside the sandbox, in a mount namespace
// of its own where ROOT/.git/config is a read-only bind as in the sandbox, the same program
// writes .git/config through the clone, so the attempt is real.
func TestMountAPIRefused(t *testing.T) {
	base := t.TempDir()
	root, tmp, outside := filepath.Join(base, "root"), filepath.Join(base, "tmp"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, ".git"), tmp, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(root, ".git", "config")
	const orig = "[core]\n\tbare = false\n"
	for _, f := range []string{cfg, filepath.Join(outside, "f")} {
		if err := os.WriteFile(f, []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	self, _ := os.Executable()
	arg := "SBX_MOUNTAPI=" + root + ":" + outside
	// The control: unshare -m, bind .git/config read-only, then the attempt.
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	ctl := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2"`, "sh", cfg, self)
	ctl.Env = append(os.Environ(), arg)
	out, err := ctl.CombinedOutput()
	if err != nil {
		t.Skipf("no mount namespace for the control run: %v %s", err, out)
	}
	if got := string(out); !strings.HasPrefix(got, "open_tree=ok config=ok") {
		t.Fatalf("outside the sandbox the attempt printed %q, want the clone to write .git/config (the attempt itself is broken)", got)
	}
	for _, f := range []string{cfg, filepath.Join(outside, "f")} { // as they were before the control
		if err := os.WriteFile(f, []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pr := ProtectedPaths([]string{root}, filepath.Join(base, "home"))
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: tmp, Network: NetworkOff, Seccomp: true, ReadOnly: pr.ReadOnly, Pin: pr.Pin}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), arg)
	cmd.Dir = root
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("sandboxed exit %+v %v: %s", st, ok, buf.String())
	}
	if want := "open_tree=EPERM config=- setattr=EPERM chmod=EROFS\n"; buf.String() != want {
		t.Errorf("in the sandbox the attempt printed %q, want %q", buf.String(), want)
	}
	for _, f := range []string{cfg, filepath.Join(outside, "f")} {
		b, err := os.ReadFile(f)
		st, _ := os.Stat(f)
		if err != nil || string(b) != orig || st.Mode().Perm() != 0o644 || st.Mode()&os.ModeSetuid != 0 {
			t.Errorf("%s changed: %q %v %v", f, b, st.Mode(), err)
		}
	}
}
