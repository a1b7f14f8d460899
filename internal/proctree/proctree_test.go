package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseChildren(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"4242 ", []int{4242}},
		{"17 4242 1000001 ", []int{17, 4242, 1000001}},
		{"17 4242\n", []int{17, 4242}},
		{"17  x 0 -3 12345678901 99 ", []int{17, 99}},
	} {
		got := ParseChildren([]byte(c.in), []int{5})
		if want := append([]int{5}, c.want...); !slices.Equal(got, want) {
			t.Errorf("ParseChildren(%q) = %v, want %v", c.in, got, want)
		}
	}
}

func TestParseStat(t *testing.T) {
	st, ok := ParseStat([]byte("4242 (a) b (c)) Z 17 4000 3999 34816 4000 4194560 116 0 0 0\n"))
	if want := (Stat{State: 'Z', PPid: 17, Pgrp: 4000, Sid: 3999}); !ok || st != want {
		t.Errorf("parseStat = %+v %v, want %+v", st, ok, want)
	}
	st, ok = ParseStat([]byte("1 (init) S 0 1 1\n"))
	if want := (Stat{State: 'S', PPid: 0, Pgrp: 1, Sid: 1}); !ok || st != want {
		t.Errorf("parseStat short = %+v %v, want %+v", st, ok, want)
	}
	for _, bad := range []string{"", "12 (x", "12 (x) S 1 2", "12 (x) S 1 two 3 4", "12 (x) SS 1 2 3 4"} {
		if st, ok := ParseStat([]byte(bad)); ok {
			t.Errorf("ParseStat(%q) = %+v, want failure", bad, st)
		}
	}
	// Our own stat, read through a Reader's buffer.
	var r Reader
	st, ok = r.Stat(os.Getpid())
	sid, _ := unix.Getsid(0)
	if want := (Stat{State: st.State, PPid: os.Getppid(), Pgrp: syscall.Getpgrp(), Sid: sid}); !ok || st != want {
		t.Errorf("Reader.Stat(self) = %+v %v, want %+v", st, ok, want)
	}
}

func TestEnvLookup(t *testing.T) {
	env := []byte("A=1\x00ACPTERM_AGENT=abc\x00ACPTERM_AGENTX=no\x00B=\x00")
	for _, c := range []struct {
		name, want string
		found      bool
	}{
		{"ACPTERM_AGENT", "abc", true},
		{"ACPTERM_AGENTX", "no", true},
		{"B", "", true},
		{"ACPTERM", "", false},
		{"C", "", false},
	} {
		v, ok := EnvLookup(env, c.name)
		if string(v) != c.want || ok != c.found {
			t.Errorf("EnvLookup(%q) = %q %v, want %q %v", c.name, v, ok, c.want, c.found)
		}
	}
}

// FindMarked finds a live child by its marker value, and KillAndReap ends and reaps exactly it.
func TestFindMarkedKillAndReap(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), "PROCTREE_TEST=x1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	other.Env = append(os.Environ(), "PROCTREE_TEST=x2")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	pids := FindMarked("PROCTREE_TEST", func(v string) bool { return v == "x1" }, 0, 0)
	if !slices.Equal(pids, []int{cmd.Process.Pid}) {
		t.Fatalf("FindMarked = %v, want [%d]", pids, cmd.Process.Pid)
	}
	KillAndReap(pids, 3e9)
	if _, ok := ReadStat(cmd.Process.Pid); ok {
		t.Fatalf("pid %d still exists after KillAndReap", cmd.Process.Pid)
	}
	if st, ok := ReadStat(other.Process.Pid); !ok || st.State == 'Z' {
		t.Fatalf("the unmarked sibling was touched: %+v %v", st, ok)
	}
	if Alive([]int{cmd.Process.Pid}) || !Alive([]int{other.Process.Pid}) {
		t.Fatal("Alive disagrees with ReadStat")
	}
}

// TestDescendants: a shell and the sleep it started are both below this process; the sleep is
// not below itself.
func TestDescendants(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 300 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var sleepPid int
	if _, err := fmt.Fscan(out, &sleepPid); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(sleepPid, syscall.SIGKILL)
	got := Descendants(os.Getpid())
	slices.Sort(got)
	want := []int{cmd.Process.Pid, sleepPid}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Descendants(self) = %v, want %v", got, want)
	}
	if d := Descendants(sleepPid); len(d) != 0 {
		t.Errorf("Descendants(sleep) = %v, want none", d)
	}
}
