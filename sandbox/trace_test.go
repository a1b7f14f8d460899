package sandbox

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// traceScript attacks the helper (PID 1 of the command's PID namespace) the ways a
// debugger would and prints one "name errno" line per attempt ("name 0" when it worked).
const traceScript = `
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, f):
    ctypes.set_errno(0)
    r = f()
    print(name, 0 if r >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
call("attach", lambda: libc.ptrace(16, 1, 0, 0))          # PTRACE_ATTACH
call("seize", lambda: libc.ptrace(0x4206, 1, 0, 0))       # PTRACE_SEIZE
buf = ctypes.create_string_buffer(8)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 8)
remote = iovec(0x400000, 8)
call("vmread", lambda: libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
call("vmwrite", lambda: libc.process_vm_writev(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
def opener(path, flags):
    def f():
        try:
            os.close(os.open(path, flags))
            return 0
        except OSError as e:
            ctypes.set_errno(e.errno)
            return -1
    return f
call("memwrite", opener("/proc/1/mem", os.O_WRONLY))
call("memread", opener("/proc/1/mem", os.O_RDONLY))
call("environ", opener("/proc/1/environ", os.O_RDONLY))
raise SystemExit(7)
`

// TestHelperNotTraceable: a sandboxed command cannot attach to, read or write the helper
// that is its PID namespace's init (seccomp refuses ptrace and process_vm_*; the helper is
// non-dumpable, so /proc/1/mem and /proc/1/environ do not open; /proc is read-only too), and the helper still
// reports the command's exit code afterwards.
func TestHelperNotTraceable(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	root := t.TempDir()
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: root, Network: NetworkOff, Seccomp: true}
	cmd := exec.Command("python3", "-c", traceScript)
	cmd.Path, _ = exec.LookPath("python3")
	cmd.Dir = root
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		// A stopped (traced) helper never reports: end it so the test fails instead of hanging.
		_ = cmd.Process.Kill()
		t.Errorf("the helper did not report within 20 s (output %q)", out.String())
	}
	_ = cmd.Wait()
	st, ok := p.Exit(5 * time.Second)
	if !ok || st.Code == nil || *st.Code != 7 {
		t.Errorf("exit %+v reported %v, want code 7 (output %q)", st, ok, out.String())
	}
	// (/proc is a read-only mount in the sandbox: a write open fails with EROFS before the
	// access check; the read opens show the helper non-dumpable.)
	want := "attach EPERM\nseize EPERM\nvmread EPERM\nvmwrite EPERM\nmemwrite EROFS\nmemread EACCES\nenviron EACCES\n"
	if out.String() != want {
		t.Errorf("attempts printed\n%s\nwant\n%s", out.String(), want)
	}
}
