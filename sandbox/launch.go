package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/netproxy"
	"github.com/acpterm/acpterm/sandbox/internal/helper"
)

// HelperArg is the hidden first argument that turns the program into the sandbox helper:
// Start re-executes /proc/self/exe with it. Every program linking this package handles it
// before main: the helper runs, and exits, from the init of package sandbox/internal/helper,
// which is initialised before the program's heavier packages (so a test binary serves as
// the helper too).
const HelperArg = helper.Arg

// setupBound is how long Start waits for the helper to report its layers.
const setupBound = 30 * time.Second

// ExitStatus is how the sandboxed command ended: Code (nil for a signal) or Signal, a
// signal name ("SIGTERM"). It is the helper's own type (the helper reports it).
type ExitStatus = helper.ExitStatus

// Process is a command started through the helper.
type Process struct {
	report   Report
	listener net.Listener // NetworkProxy: the listener in the command's network namespace
	lines    *bufio.Reader
	status   *os.File

	mu   sync.Mutex
	exit *ExitStatus
	done chan struct{} // status pipe at EOF
}

// Done returns a channel closed when the helper's status pipe has closed: the helper has
// exited (or was killed) and Exit no longer waits. The helper may not be reaped yet (the
// kernel tears its namespaces down first).
func (p *Process) Done() <-chan struct{} { return p.done }

// Report returns the layers in force for the command (confirmed before it started).
func (p *Process) Report() Report { return p.report }

// Listener returns the proxy listener made in the command's network namespace
// (NetworkProxy, when Report().Layers.Net is "proxy"): a TCP listener on 127.0.0.1:ProxyPort
// there, whose connections are the command's only way out. The caller serves it (Proxy.Serve
// in package netproxy) and must close it when the command ended: it keeps the namespace
// alive. nil for other network modes.
func (p *Process) Listener() net.Listener { return p.listener }

// recvListener receives one descriptor over the proxy socket pair (sent before the helper's
// report, so it is already queued) and makes a listener of it.
func recvListener(f *os.File) (net.Listener, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(int(f.Fd()), buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("no descriptor in the message (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("expected one descriptor (%v)", err)
	}
	lf := os.NewFile(uintptr(fds[0]), "sandbox-proxy-listener")
	defer lf.Close()
	return net.FileListener(lf)
}

// Exit returns the command's own exit status, once the helper has reported it (after the
// helper was reaped; waits at most bound for the report). False when the helper died
// without reporting (killed with SIGKILL: then the kernel killed the command as well).
func (p *Process) Exit(bound time.Duration) (ExitStatus, bool) {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.status.SetReadDeadline(time.Now())
		<-p.done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exit == nil {
		return ExitStatus{}, false
	}
	return *p.exit, true
}

func (p *Process) readRest() {
	defer close(p.done)
	defer p.status.Close()
	for {
		line, err := p.lines.ReadBytes('\n')
		if len(line) > 0 {
			var m helper.Message
			if json.Unmarshal(line, &m) == nil && m.Exit != nil {
				p.mu.Lock()
				p.exit = m.Exit
				p.mu.Unlock()
			}
		}
		if err != nil {
			return
		}
	}
}

var (
	nsMu     sync.Mutex
	nsProbed bool   // probeNS ran
	nsBroken string // why namespaces could not be created (auto mode then goes without)
)

// probeNS returns why the kernel refuses the helper's namespaces ("" when it grants them),
// finding out once per process by starting /bin/true in all of them (user, mount, PID,
// IPC, network): an exec.Cmd cannot be started again after the kernel refused its clone, so Start
// must know before it starts the caller's.
func probeNS() string {
	nsMu.Lock()
	defer nsMu.Unlock()
	if nsProbed || nsBroken != "" {
		return nsBroken
	}
	nsProbed = true
	path := "/bin/true"
	if _, err := os.Stat(path); err != nil {
		path = "/usr/bin/true"
	}
	probe := exec.Command(path)
	probe.SysProcAttr = nsAttr(nil, helper.NSFlags{User: true, Mount: true, PID: true, Net: true, IPC: true})
	if err := probe.Start(); err != nil {
		if isNSError(err) {
			nsBroken = nsReason(err)
		}
		return nsBroken // any other failure (no true) leaves it to the helper's own start
	}
	_ = probe.Wait()
	return ""
}

// nsAttr returns base (nil: none) with a parent-death signal of SIGKILL and the clone flags
// and identity mappings for the namespaces of want.
func nsAttr(base *syscall.SysProcAttr, want helper.NSFlags) *syscall.SysProcAttr {
	attr := syscall.SysProcAttr{}
	if base != nil {
		attr = *base
	}
	attr.Pdeathsig = syscall.SIGKILL
	attr.Cloneflags = cloneFlags(want)
	if want.User {
		uid, gid := os.Geteuid(), os.Getegid()
		size := 1
		if uid == 0 {
			size = 1<<32 - 1 // root keeps every uid as it is: files keep their owners
		}
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: size}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: size}}
		if uid == 0 {
			attr.GidMappings[0] = syscall.SysProcIDMap{ContainerID: 0, HostID: 0, Size: size}
		}
		attr.GidMappingsEnableSetgroups = uid == 0
	}
	return &attr
}

// Start runs cmd through the sandbox helper under spec. The caller fills cmd as for a
// plain start (Path, Args, Dir, Env, Stdin/Stdout/Stderr, SysProcAttr with Setsid/Setctty);
// cmd.ExtraFiles must be empty. Start turns it into the exec of the helper (/proc/self/exe
// HelperArg) in new user, mount, PID, IPC and (network off or proxy) network namespaces with a parent-
// death signal of SIGKILL, waits until the helper has applied and confirmed each layer,
// and returns once the command runs. cmd.Wait then reaps the helper; Process.Exit gives
// the command's own status.
//
// Errors: an invalid spec; in ModeRequired a missing layer ("sandbox: required layer
// missing: pid_ns: user namespaces are disabled: …"), a root that exposes the home directory
// included (HomeExposure: refused before the helper starts); the helper failing to start or
// to exec the command.
func Start(spec *Spec, cmd *exec.Cmd) (*Process, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: start: cmd.ExtraFiles must be empty")
	}
	req := helper.Request{Spec: helper.Spec(*spec), Path: cmd.Path, Argv: cmd.Args, Dir: cmd.Dir, Parent: currentNS()}
	if spec.Network == NetworkProxy {
		req.ProxyPort = spec.ProxyPort
		if req.ProxyPort == 0 {
			req.ProxyPort = netproxy.DefaultForwardPort
		}
		req.ProxyEnv, req.ProxyEnvNames = netproxy.Env(req.ProxyPort), netproxy.EnvNames
	}
	if exposed := HomeExposure(spec); len(exposed) > 0 {
		if spec.Mode == ModeRequired {
			return nil, fmt.Errorf("sandbox: required layer missing: %s", strings.Join(exposed, "; "))
		}
		req.Missing = append(req.Missing, exposed...)
	}
	canary, err := canaryFile(spec)
	if err != nil {
		req.Missing = append(req.Missing, "landlock: no canary: "+err.Error())
	}
	req.Canary = canary
	if req.Dir == "" {
		req.Dir, _ = os.Getwd()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: status pipe: %w", err)
	}
	defer w.Close()
	base := cmd.SysProcAttr
	if base == nil {
		base = &syscall.SysProcAttr{}
	}
	env := make([]string, 0, len(cmd.Env)+1)
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, helper.RequestEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{"acpterm-sandbox", HelperArg}
	cmd.ExtraFiles = []*os.File{w}
	var proxyEnd *os.File // our end of the socket pair the proxy listener comes back on
	if spec.Network == NetworkProxy {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("sandbox: proxy socket pair: %w", err)
		}
		proxyEnd = os.NewFile(uintptr(fds[0]), "sandbox-proxy")
		child := os.NewFile(uintptr(fds[1]), "sandbox-proxy-helper")
		defer child.Close()
		defer func() {
			if proxyEnd != nil {
				proxyEnd.Close()
			}
		}()
		cmd.ExtraFiles = append(cmd.ExtraFiles, child) // the helper's proxyFD
	}

	broken := probeNS()
	want := helper.NSFlags{User: true, Mount: true, PID: true, IPC: true, Net: spec.Network == NetworkOff || spec.Network == NetworkProxy}
	if broken != "" {
		if spec.Mode == ModeRequired {
			r.Close()
			return nil, fmt.Errorf("sandbox: required layer missing: mount_ns: %s", broken)
		}
		want = helper.NSFlags{}
		req.Missing = append(req.Missing, nsMissing(spec, broken)...)
	}
	req.NS = want
	b, err := json.Marshal(req)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: encode request: %w", err)
	}
	cmd.Env = append(env, helper.RequestEnv+"="+string(b))
	cmd.SysProcAttr = nsAttr(base, want)
	if err := cmd.Start(); err != nil {
		r.Close()
		if want != (helper.NSFlags{}) && isNSError(err) {
			// The probe passed, this clone did not (a namespace limit reached meanwhile): an
			// exec.Cmd cannot be started twice, so this command fails; the next ones go without.
			reason := nsReason(err)
			nsMu.Lock()
			nsBroken = reason
			nsMu.Unlock()
			if spec.Mode == ModeRequired {
				return nil, fmt.Errorf("sandbox: required layer missing: mount_ns: %s", reason)
			}
			return nil, fmt.Errorf("sandbox: start helper: %s (the next commands run without namespaces)", reason)
		}
		return nil, fmt.Errorf("sandbox: start helper: %w", err)
	}
	_ = w.Close()
	p, m, err := awaitReady(cmd, r, "the helper", "report its layers")
	if err != nil {
		return nil, err
	}
	p.report = Report(*m.Ready)
	if p.report.Layers.Net == "proxy" {
		// The helper sent the listener before its report: it is waiting in the pair.
		ln, err := recvListener(proxyEnd)
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			r.Close()
			return nil, fmt.Errorf("sandbox: the proxy listener did not arrive: %w", err)
		}
		p.listener = ln
	}
	go p.readRest()
	return p, nil
}

// nsMissing names the layers lost when no namespace can be created.
func nsMissing(spec *Spec, reason string) []string {
	out := []string{"user_ns: " + reason, "mount_ns: " + reason, "pid_ns: " + reason, "ipc_ns: " + reason}
	if spec.Network == NetworkOff || spec.Network == NetworkProxy {
		out = append(out, "net: "+reason)
	}
	return out
}

func cloneFlags(f helper.NSFlags) uintptr {
	var fl uintptr
	if f.User {
		fl |= unix.CLONE_NEWUSER
	}
	if f.Mount {
		fl |= unix.CLONE_NEWNS
	}
	if f.PID {
		fl |= unix.CLONE_NEWPID
	}
	if f.Net {
		fl |= unix.CLONE_NEWNET
	}
	if f.IPC {
		fl |= unix.CLONE_NEWIPC
	}
	return fl
}

// isNSError reports whether a start failure is the kernel refusing the namespaces.
func isNSError(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.EACCES)
}

// nsReason explains why namespaces could not be created, naming the kernel setting at
// fault when one is.
func nsReason(err error) string {
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "user namespaces are disabled: kernel.unprivileged_userns_clone=0"
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "user namespaces are restricted by AppArmor: kernel.apparmor_restrict_unprivileged_userns=1"
	case read("/proc/sys/user/max_user_namespaces") == "0":
		return "user namespaces are disabled: user.max_user_namespaces=0"
	}
	return "creating namespaces failed: " + err.Error()
}

// currentNS returns this process's namespace ids (inode numbers of /proc/self/ns/*).
func currentNS() helper.NSIDs {
	n := helper.NSID
	return helper.NSIDs{User: n("user"), Mount: n("mnt"), PID: n("pid"), Net: n("net"), IPC: n("ipc")}
}

// canaryFile returns a file the sandboxed process must not be able to open for writing:
// an empty file acpterm creates in the first of the temp dir, /var/tmp, /dev/shm and
// ~/.cache that no writable or protected path of spec covers.
func canaryFile(spec *Spec) (string, error) {
	home, _ := os.UserHomeDir()
	cands := []string{os.TempDir(), "/var/tmp", "/dev/shm"}
	if home != "" {
		cands = append(cands, filepath.Join(home, ".cache"))
	}
	covered := func(p string) bool {
		for _, list := range [][]string{spec.Roots, {spec.TempDir}, spec.Write, spec.ReadOnly, spec.Mask} {
			for _, w := range list {
				if within(p, w) || within(w, p) {
					return true
				}
			}
		}
		return false
	}
	name := fmt.Sprintf("acpterm-sandbox-canary-%d", os.Geteuid())
	for _, d := range cands {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		} else {
			continue
		}
		p := filepath.Join(d, name)
		if covered(p) {
			continue
		}
		f, err := os.OpenFile(p, os.O_RDONLY|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		return p, nil
	}
	return "", errors.New("no directory outside the writable paths to hold it")
}

// within reports whether p is dir or below it.
func within(p, dir string) bool { return helper.Within(p, dir) }

// awaitReady reads the first message of a started helper or guard (cmd) from its status
// end: the report that the command runs. It returns the Process reading the rest of status and
// that message. Errors (after killing and reaping cmd and closing status): the message's own
// error, no message within setupBound ("sandbox: WHO did not WHAT within 30s"), or the status
// end closing first. who names the process ("the helper"), what the step it missed.
func awaitReady(cmd *exec.Cmd, status *os.File, who, what string) (*Process, helper.Message, error) {
	p := &Process{lines: bufio.NewReader(status), status: status, done: make(chan struct{})}
	_ = status.SetReadDeadline(time.Now().Add(setupBound))
	line, rerr := p.lines.ReadBytes('\n')
	_ = status.SetReadDeadline(time.Time{})
	var m helper.Message
	if rerr == nil {
		rerr = json.Unmarshal(line, &m)
	}
	if rerr == nil && m.Ready != nil {
		return p, m, nil
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	status.Close()
	switch {
	case m.Error != "":
		return nil, m, errors.New(m.Error)
	case errors.Is(rerr, os.ErrDeadlineExceeded):
		return nil, m, fmt.Errorf("sandbox: %s did not %s within %v", who, what, setupBound)
	default:
		return nil, m, fmt.Errorf("sandbox: %s ended before the command started (%v)", who, rerr)
	}
}
