package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/sandbox/internal/helper"
)

// marked returns the pids whose environment holds SBX_MARK=mark.
func marked(mark string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(env, []byte("\x00SBX_MARK="+mark+"\x00")) || bytes.HasPrefix(env, []byte("SBX_MARK="+mark+"\x00")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestKilledParentTakesEverything: SIGKILL of the process that started the helper ends
// the helper (parent-death signal) and with it every process of its PID namespace, a
// setsid child included, within 3 s.
func TestKilledParentTakesEverything(t *testing.T) { killedParentTakesEverything(t, false) }

// TestKilledParentTakesEverythingWithoutPidNS: the same without any namespace (auto mode,
// the kernel refusing them): the helper, a subreaper that sees acpterm go through its status
// pipe, ends the tree itself.
func TestKilledParentTakesEverythingWithoutPidNS(t *testing.T) { killedParentTakesEverything(t, true) }

func killedParentTakesEverything(t *testing.T, noPidNS bool) {
	mark := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	parent := exec.Command("/proc/self/exe")
	parent.Env = append(os.Environ(), "SBX_FAKE_ACPTERM="+mark)
	if noPidNS {
		parent.Env = append(parent.Env, "SBX_FAKE_NOPIDNS=1")
	}
	out, _ := parent.StdoutPipe()
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Wait()
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "ready" {
		_ = parent.Process.Kill()
		t.Fatalf("fake acpterm said %q", sc.Text())
	}
	pids := marked(mark)
	var sleeps int
	var fds []int
	for _, pid := range pids {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			sleeps++
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err == nil {
			fds = append(fds, fd)
		}
	}
	if sleeps != 1 || len(fds) < 3 { // helper, sh, sleep
		_ = parent.Process.Kill()
		t.Fatalf("before the kill: %d marked processes (%d sleep)", len(fds), sleeps)
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, fd := range fds {
		var n int
		var err error
		for {
			left := max(time.Until(deadline), 0)
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, err = unix.Poll(p, int(left.Milliseconds())); err != unix.EINTR {
				break
			}
		}
		unix.Close(fd)
		if err != nil || n != 1 {
			t.Errorf("a sandboxed process was still running 3 s after SIGKILL of its acpterm (%v)", err)
		}
	}
}

// TestCheckReportsEveryLayer runs the helper on `true` and checks the report.
func TestCheckReportsEveryLayer(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: tmp, Network: NetworkOff, Seccomp: true}
	cmd := exec.Command("/bin/true")
	cmd.Dir = root
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	st, ok := p.Exit(time.Second)
	if !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("exit %+v %v", st, ok)
	}
	rep := p.Report()
	b, _ := json.Marshal(rep)
	want := `{"mode":"required","layers":{"landlock":{"abi":7,"enforced":true},"user_ns":true,"mount_ns":true,"pid_ns":true,"ipc_ns":true,"net":"off","seccomp":true,"no_new_privs":true,"fds_closed":true},"missing":[]}`
	if abi, _ := helper.LandlockABI(); abi != 7 {
		t.Skipf("Landlock ABI %d (the expected report is for 7)", abi)
	}
	if string(b) != want {
		t.Errorf("report\n%s\nwant\n%s", b, want)
	}
	if got := rep.Summary(); got != "sandbox: landlock 7 · ns · net off" {
		t.Errorf("summary %q", got)
	}
}

// TestExitStatusThroughHelper: the command's own code and signal come back, though the
// helper (a PID namespace's init) cannot die by a signal.
func TestExitStatusThroughHelper(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct{ line, code, signal string }{{"exit 3", "3", ""}, {"kill -TERM $$", "", "SIGTERM"}} {
		spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: root, Network: NetworkOn, Seccomp: true}
		cmd := exec.Command("/bin/sh", "-c", c.line)
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		st, ok := p.Exit(time.Second)
		got := st.Signal
		if st.Code != nil {
			got = strconv.Itoa(*st.Code)
		}
		if !ok || got != c.code+c.signal {
			t.Errorf("%s: %+v %v", c.line, st, ok)
		}
	}
}

// TestRequiredRefusesWithoutLayer: in required mode a protection that cannot be had (here:
// root "/" holds the home directory, and leaves Landlock no canary) fails Start with an
// error naming it; auto mode runs and reports both missing.
func TestRequiredRefusesWithoutLayer(t *testing.T) {
	root := t.TempDir()
	spec := &Spec{Mode: ModeRequired, Roots: []string{"/"}, TempDir: root, Network: NetworkOn, Seccomp: true}
	cmd := exec.Command("/bin/true")
	_, err := Start(spec, cmd)
	if err == nil || !strings.HasPrefix(err.Error(), "sandbox: required layer missing: home_root: root / contains your home directory ") {
		t.Fatalf("err %v", err)
	}
	spec.Mode = ModeAuto
	cmd = exec.Command("/bin/true")
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if r := p.Report(); r.Layers.Landlock.Enforced || len(r.Missing) != 2 || !strings.HasPrefix(r.Missing[0], "home_root: ") ||
		!strings.HasPrefix(r.Missing[1], "landlock: no canary") {
		t.Errorf("auto report %+v", r)
	}
}
