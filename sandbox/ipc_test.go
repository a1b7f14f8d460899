package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// shmAttempt is what a sandboxed test program tries (SBX_SHM_KEY=KEY): attach the System V
// shared memory segment with that key, print its first bytes and overwrite them. It prints
// "shm read SECRET" when it got in, else "shm shmget: ERRNO".
func shmAttempt(key string) int {
	k, _ := strconv.Atoi(key)
	id, err := unix.SysvShmGet(k, 0, 0)
	if err != nil {
		fmt.Println("shm shmget:", unix.ErrnoName(err.(unix.Errno)))
		return 0
	}
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		fmt.Println("shm shmat:", err)
		return 0
	}
	defer unix.SysvShmDetach(b)
	fmt.Printf("shm read %s\n", b[:10])
	copy(b, "OVERWRITE!")
	return 0
}

// TestIPCNamespaceHidesHostShm: a System V shared memory segment the test made outside is
// not reachable from a sandboxed program (its own IPC namespace: shmget finds no such key),
// and stays as it was; the same program outside the sandbox reads it, so the attempt is real.
func TestIPCNamespaceHidesHostShm(t *testing.T) {
	key := 0x5b000000 | os.Getpid()&0xffffff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(b)
	run := func(spec *Spec) string {
		t.Helper()
		cmd := exec.Command("/proc/self/exe")
		cmd.Path, _ = os.Executable()
		cmd.Env = append(os.Environ(), "SBX_SHM_KEY="+strconv.Itoa(key))
		root := t.TempDir()
		cmd.Dir = root
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if spec == nil {
			if err := cmd.Run(); err != nil {
				t.Fatalf("unsandboxed: %v %s", err, out.String())
			}
			return strings.TrimSpace(out.String())
		}
		spec.Roots, spec.TempDir = []string{root}, t.TempDir()
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
			t.Fatalf("sandboxed exit %+v %v: %s", st, ok, out.String())
		}
		if !p.Report().Layers.IPCNS {
			t.Fatalf("ipc_ns not in force: %+v", p.Report())
		}
		return strings.TrimSpace(out.String())
	}
	copy(b, "HOSTSECRET")
	if got := run(nil); got != "shm read HOSTSECRET" || string(b[:10]) != "OVERWRITE!" {
		t.Fatalf("outside the sandbox the attempt printed %q and left %q (the attempt itself is broken)", got, b[:10])
	}
	copy(b, "HOSTSECRET")
	for _, n := range []Network{NetworkOff, NetworkOn} {
		if got := run(&Spec{Mode: ModeRequired, Network: n, Seccomp: true}); got != "shm shmget: ENOENT" {
			t.Errorf("network %s: the sandboxed attempt printed %q, want \"shm shmget: ENOENT\"", n, got)
		}
	}
	if string(b[:10]) != "HOSTSECRET" {
		t.Errorf("the host's segment now holds %q", b[:10])
	}
}
