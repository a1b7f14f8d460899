package acpclient

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The children list names exactly our live and zombie children, and nothing after Wait.
func TestReaperChildrenList(t *testing.T) {
	r := newOrphanReaper("x", 0)
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"); err != nil {
		t.Skipf("no children files (CONFIG_PROC_CHILDREN): %v", err)
	}
	live := exec.Command("sleep", "600")
	dead := exec.Command("sh", "-c", "exit 7")
	for _, c := range []*exec.Cmd{live, dead} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	waitZombie(t, r, dead.Process.Pid)
	pids, ok := r.proc.Children()
	if !ok || !slices.Contains(pids, live.Process.Pid) || !slices.Contains(pids, dead.Process.Pid) {
		t.Fatalf("children() = %v %v, want %d and %d among them", pids, ok, live.Process.Pid, dead.Process.Pid)
	}
	if err := dead.Wait(); err == nil || dead.ProcessState.ExitCode() != 7 {
		t.Fatalf("Wait: %v (code %d), want exit status 7", err, dead.ProcessState.ExitCode())
	}
	_ = live.Process.Kill()
	_ = live.Wait()
	pids, _ = r.proc.Children()
	if slices.Contains(pids, live.Process.Pid) || slices.Contains(pids, dead.Process.Pid) {
		t.Errorf("children() after Wait = %v, still has %d or %d", pids, live.Process.Pid, dead.Process.Pid)
	}
}

// A zombie child that is unmarked and outside the agent's groups belongs to whoever started it
// (os/exec here, a terminal in acpterm): a sweep must leave it alone, whether it reads the
// children list or scans /proc.
func TestReaperLeavesUnattributedZombie(t *testing.T) {
	for _, fullScan := range []bool{false, true} {
		t.Run("fullScan="+strconv.FormatBool(fullScan), func(t *testing.T) {
			r := newOrphanReaper("x", 0)
			r.noChildren = fullScan
			dead := exec.Command("sh", "-c", "exit 7")
			if err := dead.Start(); err != nil {
				t.Fatal(err)
			}
			waitZombie(t, r, dead.Process.Pid)
			if left := r.sweep(false); left != 0 {
				t.Errorf("sweep() = %d, want 0 attributable processes", left)
			}
			if err := dead.Wait(); err == nil || dead.ProcessState.ExitCode() != 7 {
				t.Fatalf("os/exec's Wait after a sweep: %v (code %d), want exit status 7", err, dead.ProcessState.ExitCode())
			}
		})
	}
}

// The same inside a PID namespace, where /proc shows 0 as the group and session of every
// process whose group or session leader is outside it (a CI container: acpterm's group and
// session, and so the zombie's, read 0). Zero must attribute nothing. Needs root and unshare(1).
func TestReaperLeavesUnattributedZombieInPIDNamespace(t *testing.T) {
	if os.Getenv("ACPTERM_TEST_IN_PIDNS") != "" {
		t.Skip("already inside the namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Getuid() != 0 {
		t.Skipf("needs root and unshare(1) (uid %d, %v)", os.Getuid(), err)
	}
	cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", os.Args[0],
		"-test.run=^TestReaperLeavesUnattributedZombie$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "ACPTERM_TEST_IN_PIDNS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("unshare failed")) {
			t.Skipf("no PID namespaces here: %s", out)
		}
		t.Fatalf("in a PID namespace: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestReaperLeavesUnattributedZombie/fullScan=true")) {
		t.Fatalf("the test did not run inside the namespace:\n%s", out)
	}
	// The premise: inside, our own group reads 0.
	probe := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "sh", "-c", "cut -d' ' -f5,6 /proc/self/stat")
	if b, err := probe.Output(); err != nil || string(b) != "0 0\n" {
		t.Errorf("group and session inside the namespace = %q %v, want \"0 0\"", b, err)
	}
}

func waitZombie(t *testing.T, r *orphanReaper, pid int) {
	t.Helper()
	deadline := time.Now().Add(evTimeout)
	for {
		if st, ok := r.proc.Stat(pid); ok && st.State == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not become a zombie", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeAgentOrphans plays an agent (marked environment, own process group, reaped by os/exec)
// that leaves n marked orphans, re-parented to the test process (a subreaper), which live
// until the returned function is called. It returns the agent's and the orphans' pids.
func fakeAgentOrphans(t *testing.T, nonce string, n int) (agent int, orphans []int, release func()) {
	t.Helper()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// An asynchronous list's stdin is /dev/null, so the orphan reads the pipe as fd 3.
	script := strings.Repeat("cat <&3 >/dev/null 2>&1 & echo $!\n", n)
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), agentMarkerVar+"="+nonce)
	cmd.ExtraFiles = []*os.File{pr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	if err := cmd.Wait(); err != nil {
		pw.Close()
		t.Fatalf("fake agent: %v", err)
	}
	for _, f := range strings.Fields(out.String()) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			pw.Close()
			t.Fatalf("fake agent printed %q", out.String())
		}
		orphans = append(orphans, pid)
	}
	if len(orphans) != n {
		pw.Close()
		t.Fatalf("fake agent printed %q, want %d pids", out.String(), n)
	}
	t.Cleanup(func() {
		pw.Close()
		for _, pid := range orphans {
			_ = unix.Kill(pid, unix.SIGKILL)
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil) // ECHILD once reaped by the reaper
		}
	})
	return cmd.Process.Pid, orphans, func() { pw.Close() }
}

// fakeAgentOrphan is fakeAgentOrphans with one orphan.
func fakeAgentOrphan(t *testing.T, nonce string) (agent, orphan int, release func()) {
	t.Helper()
	agent, orphans, release := fakeAgentOrphans(t, nonce, 1)
	return agent, orphans[0], release
}

func waitGone(t *testing.T, pid int, sweep func()) {
	t.Helper()
	deadline := time.Now().Add(evTimeout)
	for !procGone(pid) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			t.Fatalf("orphan %d not reaped: %s", pid, b)
		}
		if sweep != nil {
			sweep()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A marked orphan re-parented to us is left alone while it lives and reaped once it exits,
// both by the children-list sweep and by the full /proc scan it falls back to.
func TestReaperSweepReapsOrphan(t *testing.T) {
	for _, fullScan := range []bool{false, true} {
		t.Run("fullScan="+strconv.FormatBool(fullScan), func(t *testing.T) {
			nonce := newMarker()
			agent, orphan, release := fakeAgentOrphan(t, nonce)
			r := newOrphanReaper(nonce, agent)
			r.noChildren = fullScan
			r.sweep(false)
			st, ok := r.proc.Stat(orphan)
			if !ok || st.PPid != os.Getpid() || st.State == 'Z' || !r.marked(orphan) {
				t.Fatalf("orphan %d: %+v %v, want a live marked child of %d", orphan, st, ok, os.Getpid())
			}
			if !r.seen[orphan] || !r.groups[st.Pgrp] {
				t.Errorf("sweep did not learn the live orphan: seen %v groups %v", r.seen, r.groups)
			}
			release()
			waitGone(t, orphan, func() { r.sweep(false) })
			if r.seen[orphan] {
				t.Errorf("reaped orphan %d still in seen", orphan)
			}
		})
	}
}

// run reaps orphans promptly after they exit, on their SIGCHLD: the periodic sweep is an hour
// away, so only the signals can trigger it. Eight orphans exit at once: the signals of the
// burst coalesce and the trailing sweep reaps those the first sweep found still alive.
func TestReaperRunReapsOnSIGCHLD(t *testing.T) {
	nonce := newMarker()
	sigs := watchSIGCHLD()
	agent, orphans, release := fakeAgentOrphans(t, nonce, 8)
	r := newOrphanReaper(nonce, agent)
	final, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		r.run(sigs, final, sweepGap, time.Hour)
	}()
	defer func() {
		close(final)
		<-done
	}()
	for _, pid := range orphans {
		if procGone(pid) {
			t.Fatalf("orphan %d gone before it was released", pid)
		}
	}
	release()
	for _, pid := range orphans {
		waitGone(t, pid, nil)
	}
}

// finish kills and reaps a live marked orphan (the agent is gone).
func TestReaperFinishKillsOrphan(t *testing.T) {
	nonce := newMarker()
	agent, orphan, _ := fakeAgentOrphan(t, nonce)
	r := newOrphanReaper(nonce, agent)
	r.finish(evTimeout)
	if !procGone(orphan) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(orphan) + "/stat")
		t.Fatalf("orphan %d survived finish: %s", orphan, b)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(orphan, &ws, unix.WNOHANG, nil); !errors.Is(err, unix.ECHILD) {
		t.Errorf("wait4(%d) after finish: %v, want ECHILD", orphan, err)
	}
}
