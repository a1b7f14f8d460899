package sandbox

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// guarded starts sh -c script below the guard in dir with env, its stdout and stderr piped.
func guarded(t *testing.T, script, dir string, env []string) (*exec.Cmd, *Process, io.Reader, io.Reader) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Guard(cmd, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, p, out, errOut
}

// TestGuardIsTransparent: the command below the guard gets the environment and working directory it was given, writes to the same stdout and stderr, and
// its exit code comes back both as the guard's and through Exit.
func TestGuardIsTransparent(t *testing.T) {
	dir := t.TempDir()
	cmd, p, out, errOut := guarded(t, `echo "$GUARD_VAR $(pwd) $(cat /proc/$PPID/cmdline | tr '\0' ' ')"; echo to-stderr >&2; exit 3`,
		dir, []string{"GUARD_VAR=v1", "PATH=" + os.Getenv("PATH")})
	stdout, _ := io.ReadAll(out)
	stderr, _ := io.ReadAll(errOut)
	err := cmd.Wait()
	real, _ := filepath.EvalSymlinks(dir)
	wantOut := "v1 " + real + " acpterm-agent-guard " + GuardArg + " 1000 /bin/sh /bin/sh -c "
	if !strings.HasPrefix(string(stdout), wantOut) || string(stderr) != "to-stderr\n" {
		t.Errorf("stdout %q (want prefix %q), stderr %q", stdout, wantOut, stderr)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("guard's status %v, want exit 3", err)
	}
	st, ok := p.Exit(time.Second)
	if !ok || st.Code == nil || *st.Code != 3 || st.Signal != "" {
		t.Errorf("Exit() = %+v, %v; want code 3", st, ok)
	}
}

// TestGuardReportsSignalAndPassesGroupSignals: SIGTERM to the guard's process group reaches
// the command (in the same group) and the guard survives it to report "SIGTERM".
func TestGuardReportsSignalAndPassesGroupSignals(t *testing.T) {
	cmd, p, out, _ := guarded(t, `echo up; exec sleep 300`, t.TempDir(), os.Environ())
	buf := make([]byte, 3)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "up\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := unix.Kill(-cmd.Process.Pid, unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(unix.SIGTERM) {
		t.Errorf("guard's status %v, want exit %d", err, 128+int(unix.SIGTERM))
	}
	if st, ok := p.Exit(time.Second); !ok || st.Signal != "SIGTERM" || st.Code != nil {
		t.Errorf("Exit() = %+v, %v; want SIGTERM", st, ok)
	}
}

// TestGuardHoldsNoStdout: the guard keeps no copy of the command's stdout, so closing it in
// the command is EOF for the reader while the command still runs; when the command exits,
// the guard kills what it left behind (a setsid sleep) before it exits.
func TestGuardHoldsNoStdout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd, _, out, _ := guarded(t, `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > `+pidFile+`; exec >&-; exec sleep 300`,
		t.TempDir(), os.Environ())
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(out); done <- b }()
	select {
	case b := <-done:
		if len(b) != 0 {
			t.Errorf("stdout %q, want nothing", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no EOF on stdout after the command closed it")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	sleepPid, _ := strconv.Atoi(string(bytes.TrimSpace(b)))
	if st, ok := proctree.ReadStat(sleepPid); !ok || st.State == 'Z' {
		t.Fatalf("the setsid sleep %d is not running before the end", sleepPid)
	}
	_ = unix.Kill(-cmd.Process.Pid, unix.SIGTERM)
	_ = cmd.Wait()
	if st, ok := proctree.ReadStat(sleepPid); ok {
		t.Errorf("the setsid sleep %d is still there after the command and its guard exited (state %c)", sleepPid, st.State)
	}
}
