package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ptsAttempt is what a sandboxed test program tries (SBX_PTS_VICTIM=PATH): open another
// terminal's pty slave PATH read-only (as a keystroke thief would), then its own terminal
// by the name ttyname finds for its standard input. It prints "victim ERRNO|opened" and
// "own NAME ERRNO|opened" lines.
func ptsAttempt(victim string) int {
	open := func(p string, flags int) string {
		fd, err := unix.Open(p, flags|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return unix.ErrnoName(err.(unix.Errno))
		}
		unix.Close(fd)
		return "opened"
	}
	fmt.Println("victim", open(victim, unix.O_RDONLY))
	name, err := os.Readlink("/proc/self/fd/0")
	if err != nil {
		fmt.Println("own readlink:", err)
		return 0
	}
	var fdSt, pathSt unix.Stat_t
	if unix.Fstat(0, &fdSt) != nil || unix.Stat(name, &pathSt) != nil || fdSt.Ino != pathSt.Ino || fdSt.Rdev != pathSt.Rdev {
		fmt.Println("own", name, "is not this terminal")
		return 0
	}
	fmt.Println("own", name, open(name, unix.O_RDWR))
	return 0
}

// TestOtherPtysHidden: a sandboxed program cannot open another terminal's pty slave (here
// one the test owns) even read-only: /dev/pts shows only its own, which it opens by the name
// ttyname(3) would give. Outside the sandbox the same program opens the other one.
func TestOtherPtysHidden(t *testing.T) {
	vm, vs, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer vm.Close()
	defer vs.Close()
	run := func(sandboxed bool) string {
		t.Helper()
		om, os_, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer om.Close()
		cmd := exec.Command("/proc/self/exe")
		cmd.Path, _ = os.Executable()
		cmd.Env = append(os.Environ(), "SBX_PTS_VICTIM="+vs.Name())
		root := t.TempDir()
		cmd.Dir = root
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os_, os_, os_
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		var p *Process
		if sandboxed {
			spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true, TTY: os_.Name()}
			p, err = Start(spec, cmd)
		} else {
			err = cmd.Start()
		}
		os_.Close()
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		buf := make([]byte, 4096)
		for {
			_ = om.SetReadDeadline(time.Now().Add(20 * time.Second))
			n, err := om.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break // EIO: every slave descriptor closed
			}
		}
		_ = cmd.Wait()
		if p != nil {
			if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
				t.Fatalf("sandboxed exit %+v %v: %s", st, ok, out.String())
			}
		}
		return strings.ReplaceAll(strings.TrimSpace(out.String()), "\r\n", "\n")
	}
	got := run(false)
	if !strings.HasPrefix(got, "victim opened\nown /dev/pts/") || !strings.HasSuffix(got, " opened") {
		t.Fatalf("outside the sandbox the attempt printed %q (the attempt itself is broken)", got)
	}
	got = run(true)
	if !strings.HasPrefix(got, "victim ENOENT\nown /dev/pts/") || !strings.HasSuffix(got, " opened") || strings.Count(got, "\n") != 1 {
		t.Errorf("in the sandbox the attempt printed %q, want the victim's pty ENOENT and its own opened", got)
	}
}
