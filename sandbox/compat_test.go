package sandbox

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// i386SocketProgram is the machine code of a static i386 program that calls
// socketcall(SYS_SOCKET, {AF_UNIX, SOCK_STREAM, 0}) through int 0x80 and exits (int 0x80
// exit) with 200 when it got a socket, with the errno when it did not; should exit itself be
// refused, it runs into hlt and dies by SIGSEGV.
//
//	push $0; push $1; push $1; mov %esp,%ecx; mov $1,%ebx; mov $102,%eax; int $0x80
//	test %eax,%eax; js fail; mov $200,%ebx; jmp out
//	fail: mov %eax,%ebx; neg %ebx
//	out: mov $1,%eax; int $0x80; hlt
var i386SocketProgram = []byte{
	0x6a, 0x00, 0x6a, 0x01, 0x6a, 0x01, 0x89, 0xe1, 0xbb, 0x01, 0x00, 0x00,
	0x00, 0xb8, 0x66, 0x00, 0x00, 0x00, 0xcd, 0x80, 0x85, 0xc0, 0x78, 0x07,
	0xbb, 0xc8, 0x00, 0x00, 0x00, 0xeb, 0x04, 0x89, 0xc3, 0xf7, 0xdb, 0xb8,
	0x01, 0x00, 0x00, 0x00, 0xcd, 0x80, 0xf4,
}

// elf32 wraps code in a minimal ELF32 i386 executable: the 52-byte header, one PT_LOAD
// program header (read and execute) mapping the whole file at 0x08048000, entry right after
// the headers.
func elf32(code []byte) []byte {
	const base, hdrs = 0x08048000, 52 + 32
	size := uint32(hdrs + len(code))
	b := make([]byte, 0, size)
	b = append(b, 0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	le := binary.LittleEndian
	b = le.AppendUint16(b, 2) // ET_EXEC
	b = le.AppendUint16(b, 3) // EM_386
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, base+hdrs) // entry
	b = le.AppendUint32(b, 52)        // phoff
	b = le.AppendUint32(b, 0)         // shoff
	b = le.AppendUint32(b, 0)         // flags
	b = le.AppendUint16(b, 52)        // ehsize
	b = le.AppendUint16(b, 32)        // phentsize
	b = le.AppendUint16(b, 1)         // phnum
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 1) // PT_LOAD
	b = le.AppendUint32(b, 0) // offset
	b = le.AppendUint32(b, base)
	b = le.AppendUint32(b, base)
	b = le.AppendUint32(b, size)
	b = le.AppendUint32(b, size)
	b = le.AppendUint32(b, 5) // PF_R|PF_X
	b = le.AppendUint32(b, 0x1000)
	return append(b, code...)
}

// TestI386SyscallsRefused: a 32-bit program's system calls (int 0x80: socketcall makes an
// AF_UNIX socket without the 64-bit socket(2) the seccomp rule watches) are all refused in
// the sandbox, exit included, so it dies at its hlt; outside the sandbox the same program
// gets its socket and exits 200. Skipped on a kernel that cannot run i386 programs.
func TestI386SyscallsRefused(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("an i386 program runs on amd64 only")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "sock32")
	if err := os.WriteFile(prog, elf32(i386SocketProgram), 0o755); err != nil {
		t.Fatal(err)
	}
	err := exec.Command(prog).Run()
	var ee *exec.ExitError
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skip("this kernel does not run i386 programs (no IA32 emulation)")
	}
	if !errors.As(err, &ee) || ee.ExitCode() != 200 {
		t.Fatalf("outside the sandbox the i386 program ended with %v, want exit status 200 (the attempt itself is broken)", err)
	}
	for _, n := range []Network{NetworkOff, NetworkOn} {
		root := t.TempDir()
		cmd := exec.Command(prog)
		cmd.Dir = root
		spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: t.TempDir(), Network: n, Seccomp: true}
		p, err := Start(spec, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		st, ok := p.Exit(5 * time.Second)
		if !ok || st.Signal != "SIGSEGV" {
			got := st.Signal
			if st.Code != nil {
				got = "exit status " + strconv.Itoa(*st.Code)
			}
			t.Errorf("network %s: the sandboxed i386 program ended with %q (reported %v), want SIGSEGV (every int 0x80 refused)", n, got, ok)
		}
	}
}
