package helper

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init runs the helper or the guard, and exits, when the process was started as one (the
// first argument is Arg or GuardArg); otherwise it does nothing. Go runs it before the
// program's heavy packages are initialised, so they never are in the helper (see the package
// doc). The main goroutine is locked to
// the process's first thread and never unlocked: no_new_privs, the Landlock domain and the
// canaries that confirm them are per-thread, and the command is forked from this same thread
// (see confineThread).
func init() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case Arg:
		runtime.LockOSThread()
		os.Exit(helperMain())
	case GuardArg:
		runtime.LockOSThread()
		os.Exit(guardMain())
	}
}

// helper is the state of the running helper.
type helper struct {
	req    Request
	status *os.File
	rep    Report
	tid    int // the thread the layers are applied on and the command is forked from
	// privateShm is true once /dev/shm is a tmpfs of the namespace's own (setupMounts).
	privateShm bool

	sigs     chan os.Signal // notified of supervisedSignals once notified is closed
	notified chan struct{}
}

// confineThread: why the helper confines one thread, not all of them.
//
// no_new_privs, the Landlock domain (part of a task's credentials) and a seccomp filter are
// attributes of a thread (a Linux task), and a child cloned from a thread starts with that
// thread's; execve keeps them (Landlock, prctl(2) PR_SET_NO_NEW_PRIVS, seccomp(2)). The
// helper's main goroutine is locked to its first thread from init on and never unlocked, so
// the prctl, landlock_restrict_self, the canaries that confirm them and syscall.ForkExec
// (whose clone runs on the calling thread) all happen on that thread, and the command and
// everything it starts inherit its confinement. The helper's other threads (the Go
// runtime's) keep no Landlock domain, but they run only acpterm's own code, and the command
// cannot reach them: it is a separate process, Landlock's signal and abstract-socket scopes
// cut it off from the helper's domain-less threads, and ptrace into the helper is refused.
// Confining one thread avoids the all-threads round (libcap psx signals every thread and
// waits for each), which cost most of the helper's start-up time. The seccomp filter is
// still loaded with TSYNC: a single syscall the kernel applies to every thread at once.

func (h *helper) send(m Message) {
	b, _ := json.Marshal(m)
	_, _ = h.status.Write(append(b, '\n'))
}

func (h *helper) fail(code int, format string, a ...any) int {
	h.send(Message{Error: fmt.Sprintf(format, a...)})
	return code
}

func (h *helper) missing(layer, reason string) {
	h.rep.Missing = append(h.rep.Missing, layer+": "+reason)
}

// helperMain applies the layers, confirms each with a canary, starts the command and acts
// as its init until it exits. It returns the helper's exit code.
func helperMain() int {
	h := &helper{status: os.NewFile(StatusFD, "sandbox-status"), sigs: make(chan os.Signal, 64), notified: make(chan struct{})}
	// The supervisor's signals are asked for while the layers are set up: os/signal enables
	// each through a thread of its own and waits for it, which took as long as all the layers
	// together when done just before the fork. A terminating signal that arrives meanwhile
	// ends the helper before the command starts (run), as it did when it killed the helper.
	go func() {
		signal.Notify(h.sigs, supervisedSignals...)
		close(h.notified)
	}()
	raw := os.Getenv(RequestEnv)
	_ = os.Unsetenv(RequestEnv)
	if err := json.Unmarshal([]byte(raw), &h.req); err != nil {
		return h.fail(125, "sandbox: helper: bad request: %v", err)
	}
	// No descriptor above 2 reaches the command: mark them all close-on-exec (the Go
	// runtime's own are already).
	_ = unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	spec := &h.req.Spec
	h.rep = Report{Mode: spec.Mode, Layers: Layers{Net: "on"}, Missing: append([]string{}, h.req.Missing...)}

	// Namespaces.
	if h.req.NS.User {
		if NSID("user") != h.req.Parent.User && NSID("user") != 0 {
			h.rep.Layers.UserNS = true
		} else {
			h.missing("user_ns", "not in a new user namespace")
		}
	}
	if h.req.NS.PID {
		if os.Getpid() == 1 && NSID("pid") != h.req.Parent.PID {
			h.rep.Layers.PidNS = true
		} else {
			h.missing("pid_ns", "the helper is not PID 1 of a new PID namespace")
		}
	}
	if h.req.NS.IPC {
		if id := NSID("ipc"); id != 0 && id != h.req.Parent.IPC {
			h.rep.Layers.IPCNS = true
		} else {
			h.missing("ipc_ns", "not in a new IPC namespace")
		}
	}
	if h.req.NS.Mount {
		if err := h.setupMounts(); err != nil {
			h.missing("mount_ns", err.Error())
		} else if err := h.checkMounts(); err != nil {
			h.missing("mount_ns", err.Error())
		} else {
			h.rep.Layers.MountNS = true
		}
	}
	if spec.Network == NetworkOff || spec.Network == NetworkProxy {
		if !h.req.NS.Net {
			// the parent already said why
		} else if err := checkEmptyNet(h.req.Parent.Net); err != nil {
			h.missing("net", err.Error())
		} else if spec.Network == NetworkOff {
			h.rep.Layers.Net = "off"
		} else if err := sendProxyListener(h.req.ProxyPort); err != nil {
			h.missing("net", err.Error())
		} else {
			h.rep.Layers.Net = "proxy"
		}
	}
	dir := h.req.Dir
	// Re-enter the working directory by name, so it is looked up below the new mounts
	// (a cwd inside a directory bound read-only must be the read-only one).
	if err := os.Chdir(dir); err != nil {
		return h.fail(125, "sandbox: helper: working directory %s: %v", dir, err)
	}

	// An abstract unix socket made outside the Landlock domain: connecting to it from
	// inside must fail when abstract sockets are scoped.
	abi, _ := ll.LandlockGetABIVersion()
	var abstract string
	if abi >= 6 {
		abstract = fmt.Sprintf("@acpterm-sandbox-canary-%d-%d", os.Getpid(), NSID("net"))
		if fd, err := listenAbstract(abstract); err == nil {
			defer unix.Close(fd)
		} else {
			abstract = ""
		}
	}

	// Everything from here to the fork of the command runs on this locked thread; its id
	// is checked again just before the fork (run), so a move to another thread fails closed.
	h.tid = unix.Gettid()

	// no_new_privs on this thread (see confineThread).
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		h.missing("no_new_privs", err.Error())
	} else if v, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil || v != 1 {
		h.missing("no_new_privs", "prctl(PR_GET_NO_NEW_PRIVS) did not return 1")
	} else {
		h.rep.Layers.NoNewPrivs = true
	}

	h.landlock(abi, abstract)

	if spec.Seccomp {
		if err := loadSeccomp(spec.Network == NetworkOff || spec.Network == NetworkProxy); err != nil {
			h.missing("seccomp", err.Error())
		} else if err := checkSeccomp(spec.Network == NetworkOff || spec.Network == NetworkProxy); err != nil {
			h.missing("seccomp", err.Error())
		} else {
			h.rep.Layers.Seccomp = true
		}
	}

	h.untraceable()

	if err := checkFDs(); err != nil {
		h.missing("fds", err.Error())
	} else {
		h.rep.Layers.FDsClosed = true
	}

	if spec.Mode == ModeRequired && len(h.rep.Missing) > 0 {
		return h.fail(125, "sandbox: required layer missing: %s", strings.Join(h.rep.Missing, "; "))
	}
	return h.run()
}

// landlock restricts the helper's current thread (the one the command is forked from, so
// the command inherits the domain; see confineThread) and confirms it with the canary
// file, with network off and ABI >= 4 a TCP connect, and with ABI >= 6 the abstract socket,
// each tried on that same thread.
func (h *helper) landlock(abi int, abstract string) {
	spec := &h.req.Spec
	if abi <= 0 {
		h.missing("landlock", "not available (kernel without Landlock, or disabled at boot)")
		return
	}
	h.rep.Layers.Landlock.ABI = min(abi, 7)
	presets := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}
	cfg := presets[h.rep.Layers.Landlock.ABI-1]
	if spec.Network != NetworkOff {
		cfg.HandledAccessNet = 0
	}
	writable := existing(append(append(append([]string(nil), spec.Roots...), spec.TempDir), spec.Write...))
	if h.rep.Layers.MountNS {
		writable = append(writable, existing([]string{"/dev/shm"})...) // a private tmpfs (setupMounts)
	}
	var dirs, files []string
	for _, p := range writable {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	devs := existing([]string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", spec.TTY})
	rw := landlock.RWDirs(dirs...)
	if abi >= 2 {
		rw = rw.WithRefer()
	}
	devRule := landlock.RWFiles(devs...)
	if abi >= 5 {
		devRule = devRule.WithIoctlDev()
	}
	rules := []landlock.Rule{landlock.RODirs("/"), rw, devRule}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...))
	}
	if err := restrictThread(cfg, rules); err != nil {
		h.missing("landlock", err.Error())
		h.rep.Layers.Landlock.ABI = 0
		return
	}
	if h.req.Canary == "" {
		return // the parent reported why
	}
	fd, err := unix.Open(h.req.Canary, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		h.missing("landlock", "a write outside the writable paths was not refused")
		return
	}
	if !errors.Is(err, unix.EACCES) {
		h.missing("landlock", "the canary write failed with "+err.Error()+", not EACCES")
		return
	}
	if spec.Network == NetworkOff && abi >= 4 {
		if err := tcpRefused(); err != nil {
			h.missing("landlock", err.Error())
			return
		}
	}
	if abstract != "" {
		if err := abstractRefused(abstract); err != nil {
			h.missing("landlock", err.Error())
			return
		}
	}
	h.rep.Layers.Landlock.Enforced = true
}

// restrictThread builds the Landlock ruleset for cfg and rules (go-landlock) and enforces
// it on the calling thread only (landlock_restrict_self without TSYNC; see confineThread).
// The caller holds the thread locked and has set no_new_privs on it. Errors: the ruleset
// could not be built, or the kernel refused to enforce it (E2BIG: too many stacked domains).
func restrictThread(cfg landlock.Config, rules []landlock.Rule) error {
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("the ruleset restricts nothing")
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// abstractRefused confirms Landlock refuses (EPERM) a connect to the abstract unix socket
// name (made outside the domain), with raw syscalls on the calling thread.
func abstractRefused(name string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("abstract socket canary: socket: %v", err)
	}
	defer unix.Close(fd)
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: name})
	if err == nil {
		return errors.New("an abstract unix socket outside the sandbox was reachable")
	}
	if !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("the abstract socket canary failed with %v, not EPERM", err)
	}
	return nil
}

// tcpRefused confirms Landlock refuses TCP connect (EACCES) with network off.
func tcpRefused() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("tcp canary: socket: %v", err)
	}
	defer unix.Close(fd)
	err = unix.Connect(fd, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}})
	if !errors.Is(err, unix.EACCES) {
		return fmt.Errorf("tcp connect was not refused by Landlock (got %v)", err)
	}
	return nil
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// checkFDs confirms every descriptor above 2 is close-on-exec.
func checkFDs() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil {
			continue // the directory's own descriptor, closed meanwhile
		}
		if fl&unix.FD_CLOEXEC == 0 {
			return fmt.Errorf("descriptor %d would be inherited", fd)
		}
	}
	return nil
}

// run starts the command in the helper's session and process group and waits for it,
// forwarding signals and reaping every process that ends below the helper.
func (h *helper) run() int {
	spec := &h.req.Spec
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == RequestEnv {
			continue
		}
		if slices.Contains(tempVars, name) {
			// Every variable naming a temp dir points into the session's own.
			kv = name + "=" + spec.TempDir
		}
		env = append(env, kv)
	}
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) {
		env = append(env, "TMPDIR="+spec.TempDir)
	}
	if h.rep.Layers.Net == "proxy" {
		// The proxy is the only way out: point every tool at it (set last, so they win over
		// any the command's environment had).
		env = slices.DeleteFunc(env, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return slices.Contains(h.req.ProxyEnvNames, name)
		})
		env = append(env, h.req.ProxyEnv...)
	}
	if gc := goCacheRedirect(env, spec); gc != "" {
		env = append(env, "GOCACHE="+gc)
	}
	<-h.notified
	if sig := pendingEnd(h.sigs); sig != 0 {
		return h.fail(128+int(sig), "sandbox: helper: %s before the command started", unix.SignalName(sig))
	}
	attr := &syscall.ProcAttr{
		Dir: h.req.Dir, Env: env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	gone, endAll := h.guardTree() // no PID namespace: the helper ends the tree (orphans.go)
	if tid := unix.Gettid(); tid != h.tid {
		return h.fail(125, "sandbox: helper: the command would be forked from thread %d, not %d where the layers were applied", tid, h.tid)
	}
	pid, err := syscall.ForkExec(h.req.Path, h.req.Argv, attr)
	if err != nil {
		return h.fail(127, "sandbox: exec %s: %v", h.req.Path, err)
	}
	rep := h.rep
	h.send(Message{Ready: &rep})
	var st ExitStatus
	var code int
	ok := true
	if gone == nil {
		st, code = awaitChild(pid, h.sigs)
	} else {
		// No PID namespace: the wait must also end when acpterm is gone.
		st, code, ok = superviseChild(pid, h.sigs, gone)
	}
	if ok {
		h.send(Message{Exit: &st})
	}
	endAll()
	return code
}

// pendingEnd drains sigs and returns the first signal in it that ends a Go program which
// does not ask for it (os/signal: SIGHUP, SIGINT, SIGTERM, SIGQUIT; the others are caught
// and dropped), 0 for none.
func pendingEnd(sigs chan os.Signal) syscall.Signal {
	for {
		select {
		case s := <-sigs:
			switch sig := s.(syscall.Signal); sig {
			case unix.SIGHUP, unix.SIGINT, unix.SIGTERM, unix.SIGQUIT:
				return sig
			}
		default:
			return 0
		}
	}
}

// awaitChild waits until pid, a child of this process, exits, reaping every other child
// that ends meanwhile (orphans re-parented here), with a blocking wait4 on the calling thread
// (the kernel wakes it when a child ends: no signal goes through os/signal on the way). A
// goroutine passes on the usual terminating signals from sigs to pid when it moved out of this
// process's group, as superviseChild does. It returns pid's status and the code the helper
// exits with (the child's own, 128+N for a signal); 125 and no status when wait4 fails.
func awaitChild(pid int, sigs chan os.Signal) (ExitStatus, int) {
	go func() {
		self := unix.Getpgrp()
		for s := range sigs {
			passOn(pid, self, s.(syscall.Signal))
		}
	}()
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return ExitStatus{}, 125
		}
		if got == pid {
			return exitOf(ws)
		}
	}
}

// passOn sends sig to pid when it is a terminating signal and pid is no longer in the
// supervisor's process group self (one sent to the group reached pid directly).
func passOn(pid, self int, sig syscall.Signal) {
	switch sig {
	case unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2:
		if pg, err := unix.Getpgid(pid); err == nil && pg != self {
			_ = unix.Kill(pid, sig)
		}
	}
}

// exitOf returns the ExitStatus of a wait status and the code a supervisor exits with (the
// child's own, 128+N for a signal).
func exitOf(ws unix.WaitStatus) (st ExitStatus, code int) {
	if ws.Signaled() {
		st.Signal = unix.SignalName(ws.Signal())
		if st.Signal == "" {
			st.Signal = "SIG" + strconv.Itoa(int(ws.Signal()))
		}
		return st, 128 + int(ws.Signal())
	}
	c := ws.ExitStatus()
	st.Code = &c
	return st, c
}

// supervisedSignals are the signals a supervisor (the helper, the guard) catches: SIGCHLD, and
// those whose default action would end it while its child lives on.
var supervisedSignals = []os.Signal{unix.SIGCHLD, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT,
	unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH, unix.SIGCONT, unix.SIGALRM, unix.SIGPIPE}

// superviseChild waits until pid, a child of this process, exits, reaping every other child
// that ends meanwhile (orphans re-parented here) and passing on the usual terminating signals
// to pid when it moved out of this process's group (one sent to the group reaches it
// directly). sigs must be notified of SIGCHLD and those signals. It returns pid's status, the
// code a supervisor exits with (the child's own, 128+N for a signal), and ok; it returns
// ok == false when stop closes first (nil: never) or sigs is closed.
func superviseChild(pid int, sigs chan os.Signal, stop <-chan struct{}) (st ExitStatus, code int, ok bool) {
	self := unix.Getpgrp()
	for {
		var s os.Signal
		select {
		case s, ok = <-sigs:
			if !ok {
				return ExitStatus{}, 125, false
			}
		case <-stop:
			return ExitStatus{}, 125, false
		}
		sig := s.(syscall.Signal)
		if sig != unix.SIGCHLD {
			// A signal for the group reached the command directly; one for the supervisor
			// alone (the command moved to a group of its own) is passed on.
			passOn(pid, self, sig)
			continue
		}
		for {
			var ws unix.WaitStatus
			got, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || got <= 0 {
				break
			}
			if got == pid {
				st, code = exitOf(ws)
				return st, code, true
			}
		}
	}
}

// tempVars are the environment variables that name a temporary directory (TMPDIR always
// set; the others replaced when present): TMP and TEMP (Windows-minded tools, Python's
// tempfile), TEMPDIR, and CLAUDE_CODE_TMPDIR (Claude Code's own).
var tempVars = []string{"TMPDIR", "TMP", "TEMP", "TEMPDIR", "CLAUDE_CODE_TMPDIR"}

// goCacheRedirect returns a per-session GOCACHE below the temp dir when the Go build cache
// the command would use is not writable in the sandbox (a shared compiled-object cache
// written from inside would let sandboxed code poison builds run outside it); "" when
// GOCACHE is set explicitly or is writable.
func goCacheRedirect(env []string, spec *Spec) string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	if get("GOCACHE") != "" {
		return ""
	}
	base := get("XDG_CACHE_HOME")
	if base == "" {
		if home := get("HOME"); home != "" {
			base = home + "/.cache"
		}
	}
	if base != "" {
		gc := base + "/go-build"
		for _, w := range append(append(append([]string(nil), spec.Roots...), spec.TempDir), spec.Write...) {
			if Within(gc, w) {
				return ""
			}
		}
	}
	return spec.TempDir + "/go-build"
}

// untraceable keeps the command from inspecting or changing the helper through /proc
// (/proc/1/mem, /proc/1/environ, which still holds the request): the helper becomes
// non-dumpable, so only a holder of CAP_SYS_PTRACE in its user namespace passes the
// kernel's ptrace access check, and CAP_SYS_PTRACE leaves the bounding set, so a command
// running as uid 0 does not get it at execve. The seccomp layer refuses ptrace itself.
// A failure is reported as a missing pid_ns layer (the init of the namespace is what is
// exposed).
func (h *helper) untraceable() {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		h.missing("pid_ns", "prctl(PR_SET_DUMPABLE, 0): "+err.Error())
		h.rep.Layers.PidNS = false
		return
	}
	if v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || v != 0 {
		h.missing("pid_ns", "the helper is still dumpable")
		h.rep.Layers.PidNS = false
		return
	}
	_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0)
	if v, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, unix.CAP_SYS_PTRACE, 0, 0, 0); err == nil && v == 1 && os.Geteuid() == 0 {
		h.missing("pid_ns", "CAP_SYS_PTRACE could not be dropped from the bounding set")
		h.rep.Layers.PidNS = false
	}
}

// checkSeccomp confirms ioctl(TIOCSTI) is refused with EPERM (on /dev/null, where the
// call would otherwise fail with ENOTTY and type nothing), so is ptrace(PTRACE_ATTACH) of
// pid 0 (ESRCH otherwise: no process is touched), io_uring_setup (EPERM, or ENOSYS on a
// kernel without io_uring; a ring it would have made is closed at once) and, with unixOff,
// socket(AF_UNIX) and socketpair(AF_UNIX, SOCK_DGRAM).
func checkSeccomp(unixOff bool) error {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	c := byte('x')
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	if e != unix.EPERM {
		return fmt.Errorf("ioctl(TIOCSTI) was not refused (got %v)", e)
	}
	if _, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, 0, 0, 0, 0, 0); e != unix.EPERM {
		return fmt.Errorf("ptrace(PTRACE_ATTACH) was not refused (got %v)", e)
	}
	var params [120]byte // struct io_uring_params, all zero: a valid request for one entry
	r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
	if e == 0 {
		unix.Close(int(r))
	}
	if e != unix.EPERM && e != unix.ENOSYS {
		return fmt.Errorf("io_uring_setup was not refused (got %v)", errnoName(e))
	}
	// open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE): without the filter a detached copy of the
	// root mount, free of the read-only binds and masks on it.
	root, cwd := []byte("/\x00"), unix.AT_FDCWD
	r, _, e = unix.Syscall(unix.SYS_OPEN_TREE, uintptr(cwd), uintptr(unsafe.Pointer(&root[0])), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if e == 0 {
		unix.Close(int(r))
	}
	if e != unix.EPERM && e != unix.ENOSYS {
		return fmt.Errorf("open_tree was not refused (got %v)", errnoName(e))
	}
	// mount_setattr with a size no kernel accepts: EINVAL without the filter, so the canary
	// itself never changes a mount.
	var attr unix.MountAttr
	_, _, e = unix.Syscall6(unix.SYS_MOUNT_SETATTR, uintptr(cwd), uintptr(unsafe.Pointer(&root[0])), 0,
		uintptr(unsafe.Pointer(&attr)), 0, 0)
	if e != unix.EPERM && e != unix.ENOSYS {
		return fmt.Errorf("mount_setattr was not refused (got %v)", errnoName(e))
	}
	if unixOff {
		r, _, e := unix.Syscall(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if e == 0 {
			unix.Close(int(r))
		}
		if e != unix.EPERM {
			return fmt.Errorf("socket(AF_UNIX) was not refused (got %v)", errnoName(e))
		}
		var fds [2]int32
		_, _, e = unix.Syscall6(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0, uintptr(unsafe.Pointer(&fds)), 0, 0)
		if e == 0 {
			unix.Close(int(fds[0]))
			unix.Close(int(fds[1]))
		}
		if e != unix.EPERM {
			return fmt.Errorf("socketpair(AF_UNIX, SOCK_DGRAM) was not refused (got %v)", errnoName(e))
		}
	}
	return nil
}

// errnoName is e's name ("EINVAL"), or "success" for 0.
func errnoName(e unix.Errno) string {
	if e == 0 {
		return "success"
	}
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return e.Error()
}

// LandlockABI returns the kernel's Landlock ABI version (0 and an error without Landlock).
func LandlockABI() (int, error) { return ll.LandlockGetABIVersion() }
