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

// metaAttempt is what a sandboxed test program tries (SBX_META_FILES=F1:F2…) on each file:
// chmod 4777 (the setuid bit included), chown to its own uid and gid, utimes to 2001, and a
// user.acpterm extended attribute. It prints "FILE chmod=ERRNO chown=… utimes=… setxattr=…"
// per file, "ok" for a call that worked.
func metaAttempt(files string) int {
	res := func(err error) string {
		if err == nil {
			return "ok"
		}
		if e, ok := err.(unix.Errno); ok {
			return unix.ErrnoName(e)
		}
		return err.Error()
	}
	for _, f := range strings.Split(files, ":") {
		ts := []unix.Timespec{unix.NsecToTimespec(978307200e9), unix.NsecToTimespec(978307200e9)}
		fmt.Printf("%s chmod=%s chown=%s utimes=%s setxattr=%s\n", filepath.Base(f),
			res(unix.Chmod(f, 0o4777)), res(unix.Chown(f, os.Getuid(), os.Getgid())),
			res(unix.UtimesNano(f, ts)), res(unix.Setxattr(f, "user.acpterm", []byte("x"), 0)))
	}
	return 0
}

// TestMetadataOutsideRootsRefused: chmod (the setuid bit included), chown, utimes and
// setxattr on a file outside the roots fail with EROFS in the sandbox (every mount but the
// writable places is read-only; Landlock does not govern these calls) and the file is as it
// was; on a file in the root, in the temp dir and in an agent's write path they work. Outside
// the sandbox the same program changes the outside file, so the attempt is real.
func TestMetadataOutsideRootsRefused(t *testing.T) {
	base := t.TempDir()
	root, tmp, write, outside := filepath.Join(base, "root"), filepath.Join(base, "tmp"), filepath.Join(base, "agent-state"), filepath.Join(base, "outside")
	for _, d := range []string{root, tmp, write, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(spec *Spec, files ...string) string {
		t.Helper()
		cmd := exec.Command("/proc/self/exe")
		cmd.Path, _ = os.Executable()
		cmd.Env = append(os.Environ(), "SBX_META_FILES="+strings.Join(files, ":"))
		cmd.Dir = root
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if spec == nil {
			if err := cmd.Run(); err != nil {
				t.Fatalf("unsandboxed: %v %s", err, out.String())
			}
			return out.String()
		}
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Fatalf("sandboxed exit %+v %v: %s", st, ok, out.String())
		}
		if !p.Report().Layers.MountNS {
			t.Fatalf("mount_ns not in force: %+v", p.Report())
		}
		return out.String()
	}
	works := "chmod=ok chown=ok utimes=ok setxattr=ok"
	if got := run(nil, mk(outside, "control")); got != "control "+works+"\n" {
		t.Fatalf("outside the sandbox the attempt printed %q, want every call ok (the attempt itself is broken)", got)
	}
	victim := mk(outside, "victim")
	var before unix.Stat_t
	if err := unix.Stat(victim, &before); err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: tmp, Write: []string{write}, Network: NetworkOff, Seccomp: true}
	got := run(spec, victim, mk(root, "mine"), mk(tmp, "scratch"), mk(write, "state"))
	want := "victim chmod=EROFS chown=EROFS utimes=EROFS setxattr=EROFS\n" +
		"mine " + works + "\nscratch " + works + "\nstate " + works + "\n"
	if got != want {
		t.Errorf("in the sandbox the attempts printed\n%s\nwant\n%s", got, want)
	}
	var after unix.Stat_t
	if err := unix.Stat(victim, &after); err != nil {
		t.Fatal(err)
	}
	if after.Mode != before.Mode || after.Uid != before.Uid || after.Mtim != before.Mtim || after.Ctim != before.Ctim {
		t.Errorf("the outside file changed: mode %o → %o, mtime %v → %v", before.Mode, after.Mode, before.Mtim, after.Mtim)
	}
	if sz, _ := unix.Getxattr(victim, "user.acpterm", nil); sz > 0 {
		t.Errorf("the outside file got an extended attribute")
	}
}

// roRootAttempt runs in a mount namespace of its own (SBX_ROROOT=ROOT:TMP, started by
// unshare): it makes ROOT a read-only bind mount, as a root on a read-only file system is,
// runs a sandboxed write into it in required mode and prints "start ok", the write's
// result (rc=2: dash fails a redirection so) and the mount_ns layer, or the error of Start.
func roRootAttempt(arg string) int {
	root, tmp, _ := strings.Cut(arg, ":")
	if err := unix.Mount(root, root, "", unix.MS_BIND, ""); err != nil {
		fmt.Println("bind:", err)
		return 1
	}
	if err := unix.Mount("", root, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		fmt.Println("remount:", err)
		return 1
	}
	cmd := exec.Command("/bin/sh", "-c", "echo x 2>/dev/null > f; echo rc=$?")
	cmd.Dir = root
	var out strings.Builder
	cmd.Stdout = &out
	p, err := Start(&Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: tmp, Network: NetworkOff, Seccomp: true}, cmd)
	if err != nil {
		fmt.Println("start:", err)
		return 0
	}
	_ = cmd.Wait()
	fmt.Printf("start ok %s mount_ns=%v\n", strings.TrimSpace(out.String()), p.Report().Layers.MountNS)
	return 0
}

// TestRootOnReadOnlyMount: a root whose mount is read-only outside the sandbox (its flag is
// then locked in the sandbox's user namespace, so it cannot be made writable again) still
// runs in required mode, every layer in force, and stays read-only.
func TestRootOnReadOnlyMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a read-only bind mount")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed")
	}
	root, tmp := t.TempDir(), t.TempDir()
	exe, _ := os.Executable()
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", exe)
	cmd.Env = append(os.Environ(), "SBX_ROROOT="+root+":"+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "unshare failed") {
		t.Skipf("no mount namespace for the test: %s", out)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "start ok rc=2 mount_ns=true" {
		t.Errorf("got %q, want \"start ok rc=2 mount_ns=true\"", got)
	}
}
