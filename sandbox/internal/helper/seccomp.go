package helper

import (
	"errors"
	"runtime"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// lowEqual returns conditions true when the low 32 bits of argument arg equal v, whatever
// the high bits: the kernel reads an int or unsigned int argument (ioctl's request,
// socket's family) from the low half of the register, so a comparison of all 64 bits
// would let a caller slip past it by setting high bits. go-seccomp-bpf compares both halves
// for Equal; its BitsSet and BitsNotSet tests with an empty high mask look at the low half
// only, so "no bit outside v" plus "every bit of v" is an exact low-half match.
func lowEqual(arg uint32, v uint32) seccomp.ArgumentConditions {
	conds := seccomp.ArgumentConditions{{Argument: arg, Operation: seccomp.BitsNotSet, Value: uint64(^v)}}
	for b := 0; b < 32; b++ {
		if v&(1<<b) != 0 {
			conds = append(conds, seccomp.Condition{Argument: arg, Operation: seccomp.BitsSet, Value: uint64(1) << b})
		}
	}
	return conds
}

// traceSyscalls are refused outright (EPERM): with them a sandboxed process could stop
// or rewrite the helper, its PID namespace's init (ptrace, process_vm_writev), read its
// memory (process_vm_readv) or take its descriptors, the status pipe among them
// (pidfd_getfd). gdb, strace and LeakSanitizer do not work inside the sandbox.
var traceSyscalls = []string{"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"}

// uringSyscalls are refused outright (EPERM, as Docker's default profile does): io_uring
// performs operations without their system call, so no seccomp rule on that call sees
// them; IORING_OP_SOCKET (Linux 5.19) creates an AF_UNIX socket that socket(2)'s rule
// refuses, and a connect through it reaches any listener on a path (the user's tmux
// server, ssh-agent, D-Bus, Docker). Programs that use io_uring when it is there (libuv,
// liburing users) fall back to ordinary system calls, as on a kernel without it.
var uringSyscalls = []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}

// mountSyscalls are refused outright (EPERM): with the new mount API a sandboxed process
// could clone a mount without the read-only binds and masks stacked on it (open_tree with
// OPEN_TREE_CLONE and no AT_RECURSIVE: a copy of the project's mount where .git/config is
// writable, of /tmp where the masked tmux socket is reachable), or clear the read-only flag of
// a live mount (mount_setattr) and so write protected paths, or chmod and chown outside the
// roots. The helper has made every mount it needs before the filter is loaded; mount(2),
// umount2(2) and pivot_root(2), which the locked mounts of the user namespace already refuse,
// are refused too, whatever the kernel.
var mountSyscalls = []string{"open_tree", "open_tree_attr", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "mount", "umount2", "pivot_root"}

// loadSeccomp installs, on every thread, a filter refusing (EPERM) ioctl TIOCSTI and
// TIOCLINUX, the traceSyscalls, the uringSyscalls, the mountSyscalls and, with unixOff, socket(AF_UNIX) and a
// datagram socketpair(AF_UNIX) (path sockets reach
// outside an empty network namespace); and a second filter refusing every syscall of a foreign architecture
// (go-seccomp-bpf gives those its default action, here allow, and a 32-bit ioctl or
// socketcall(2) would bypass the first filter). go-seccomp-bpf itself refuses (ENOSYS)
// every x32 system call on amd64 (numbers with __X32_SYSCALL_BIT), which share the
// x86-64 architecture value.
func loadSeccomp(unixOff bool) error {
	conds := []seccomp.NameWithConditions{
		{Name: "ioctl", Conditions: lowEqual(1, unix.TIOCSTI)},
		{Name: "ioctl", Conditions: lowEqual(1, unix.TIOCLINUX)},
	}
	if unixOff {
		conds = append(conds, seccomp.NameWithConditions{Name: "socket", Conditions: lowEqual(0, unix.AF_UNIX)})
		// A datagram pair is connected only until connect(2) names another peer, and
		// sendto(2) reaches any datagram socket by its path (journald's, /dev/log): refuse
		// socketpair(AF_UNIX) of type SOCK_DGRAM or SOCK_RAW (which AF_UNIX makes a
		// datagram socket), whatever flags (SOCK_CLOEXEC, SOCK_NONBLOCK) are or-ed in: of
		// the type's low four bits, bit 1 set and bits 2 and 3 clear. Stream and seqpacket
		// pairs stay (node and libuv spawn children over them): neither can be re-aimed.
		dgram := append(lowEqual(0, unix.AF_UNIX),
			seccomp.Condition{Argument: 1, Operation: seccomp.BitsSet, Value: 0x2},
			seccomp.Condition{Argument: 1, Operation: seccomp.BitsNotSet, Value: 0xc})
		conds = append(conds, seccomp.NameWithConditions{Name: "socketpair", Conditions: dgram})
	}
	f := seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{
				{Action: seccomp.ActionErrno, NamesWithCondtions: conds},
				{Action: seccomp.ActionErrno, Names: traceSyscalls},
				{Action: seccomp.ActionErrno, Names: uringSyscalls},
				{Action: seccomp.ActionErrno, Names: mountSyscalls},
			},
		},
	}
	if err := seccomp.LoadFilter(f); err != nil {
		return err
	}
	return loadArchFilter()
}

// auditArch is this build's AUDIT_ARCH value (seccomp_data.arch).
func auditArch() (uint32, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, true
	}
	return 0, false
}

// loadArchFilter installs a four-instruction filter: a syscall whose seccomp_data.arch
// is not this build's architecture fails with EPERM.
func loadArchFilter() error {
	arch, ok := auditArch()
	if !ok {
		return errors.New("no foreign-architecture filter for " + runtime.GOARCH)
	}
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // seccomp_data.arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 1, Jf: 0, K: arch},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp)))
	if e != 0 {
		return e
	}
	return nil
}
