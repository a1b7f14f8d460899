package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpterm/acpterm/sandbox/internal/helper"
)

// Mode says how strictly the sandbox is applied ([sandbox] mode, --sandbox). It is the
// helper's own type (the helper reads it from the request).
type Mode = helper.Mode

// The modes.
const (
	// ModeOff runs commands with the user's full rights (no helper).
	ModeOff = helper.ModeOff
	// ModeAuto applies every layer the kernel offers and reports the missing ones.
	ModeAuto = helper.ModeAuto
	// ModeRequired refuses to run a command when any layer is missing.
	ModeRequired = helper.ModeRequired
)

// ParseMode returns the Mode named s. Errors: any other string.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeOff, ModeAuto, ModeRequired:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not one of off, auto, required", s)
}

// Network says what network a sandboxed command gets ([sandbox] network). It is the
// helper's own type (the helper reads it from the request).
type Network = helper.Network

// The network modes.
const (
	// NetworkOn leaves the network as it is for acpterm.
	NetworkOn = helper.NetworkOn
	// NetworkOff runs the command in an empty network namespace (only a loopback
	// interface that is down), with TCP bind/connect refused by Landlock (ABI >= 4) and
	// unix sockets refused by seccomp, so nothing outside the sandbox is reachable.
	NetworkOff = helper.NetworkOff
	// NetworkProxy runs the command in an empty network namespace whose only way out is
	// acpterm's network proxy: before any restriction the helper brings the namespace's
	// loopback up, listens on 127.0.0.1:ProxyPort there and hands that listener to acpterm
	// (Process.Listener), which serves it; the command gets HTTP_PROXY, HTTPS_PROXY,
	// ALL_PROXY and NO_PROXY pointing at it. Unix sockets are refused by seccomp as with off,
	// so no socket path leads out either; TCP inside the namespace reaches only its own
	// loopback (a test server the command starts) and the proxy listener.
	NetworkProxy = helper.NetworkProxy
)

// ParseNetwork returns the Network named s. Errors: any other string.
func ParseNetwork(s string) (Network, error) {
	switch n := Network(s); n {
	case NetworkOn, NetworkOff, NetworkProxy:
		return n, nil
	}
	return "", fmt.Errorf("sandbox network %q is not one of off, on, proxy", s)
}

// Spec is what a sandboxed process may do. Paths are absolute; the ones that do not exist
// are skipped (a missing masked or protected path has nothing to protect, a missing
// writable one grants nothing).
type Spec struct {
	// Mode is ModeAuto or ModeRequired (ModeOff means: do not use the sandbox at all).
	Mode Mode `json:"mode"`
	// Roots are the directories the process may write in (Landlock), below the protected
	// paths, which are read-only.
	Roots []string `json:"roots"`
	// TempDir is the private per-session temporary directory; writable, and TMPDIR points there.
	TempDir string `json:"temp_dir"`
	// Write are further writable directories or files (an agent's own state dirs).
	Write []string `json:"write,omitempty"`
	// ReadOnly are paths bound read-only in the mount namespace even when they lie in a
	// root: what git runs code from (see ProtectedPaths), .acpterm.toml, shell rc files,
	// acpterm's own config and state.
	ReadOnly []string `json:"read_only,omitempty"`
	// Pin are directories bound onto themselves, still writable, so they cannot be renamed
	// or removed (every git directory: see Protected.Pin).
	Pin []string `json:"pin,omitempty"`
	// Mask are paths hidden in the mount namespace: a directory becomes an empty
	// read-only tmpfs, a file reads as /dev/null. See SecretPaths.
	Mask []string `json:"mask,omitempty"`
	// Network is NetworkOn, NetworkOff or NetworkProxy.
	Network Network `json:"network"`
	// ProxyPort is the port of the proxy listener on 127.0.0.1 inside the namespace
	// (NetworkProxy); 0 means netproxy.DefaultForwardPort (3128).
	ProxyPort int `json:"proxy_port,omitempty"`
	// Seccomp refuses ioctl(TIOCSTI) and ioctl(TIOCLINUX) (nothing can type into a
	// terminal), the tracing syscalls, io_uring (whose IORING_OP_SOCKET would bypass the
	// socket(2) rule), syscalls of a foreign architecture, and, with network off or proxy,
	// unix sockets.
	Seccomp bool `json:"seccomp"`
	// TTY is the terminal's own pty slave (writable, ioctls allowed); "" for none.
	TTY string `json:"tty,omitempty"`
	// Home is the user's home directory, whose start-up files no root may expose (see
	// HomeExposure); "" means $HOME of the calling process.
	Home string `json:"home,omitempty"`
}

// Validate checks the spec for what the helper cannot work without. Errors name the field.
func (s *Spec) Validate() error {
	switch s.Mode {
	case ModeAuto, ModeRequired:
	default:
		return fmt.Errorf("sandbox: spec mode %q is not auto or required", s.Mode)
	}
	switch s.Network {
	case NetworkOn, NetworkOff, NetworkProxy:
	default:
		return fmt.Errorf("sandbox: spec network %q is not on, off or proxy", s.Network)
	}
	if s.ProxyPort < 0 || s.ProxyPort > 65535 {
		return fmt.Errorf("sandbox: spec proxy port %d is not between 1 and 65535", s.ProxyPort)
	}
	if s.TempDir == "" || !strings.HasPrefix(s.TempDir, "/") {
		return fmt.Errorf("sandbox: spec temp dir %q is not an absolute path", s.TempDir)
	}
	if s.Home != "" && !strings.HasPrefix(s.Home, "/") {
		return fmt.Errorf("sandbox: spec home %q is not an absolute path", s.Home)
	}
	for _, list := range [][]string{s.Roots, s.Write, s.ReadOnly, s.Pin, s.Mask} {
		for _, p := range list {
			if !strings.HasPrefix(p, "/") {
				return fmt.Errorf("sandbox: spec path %q is not absolute", p)
			}
		}
	}
	return nil
}

// Landlock is the Landlock layer of a Report: ABI is the Landlock ABI version in force (0:
// none), Enforced is true when a forbidden write was refused with EACCES by the canary. It
// is the helper's own type (the helper fills it in).
type Landlock = helper.Landlock

// Layers says which layer is in force for a sandboxed process, each confirmed by a canary in
// the helper before the command started: Landlock; UserNS (its own user namespace), MountNS
// (its own mount namespace, protected paths read-only, masked paths hidden), PidNS (the
// helper is PID 1 of a new PID namespace), IPCNS (its own IPC namespace), Net ("off", "proxy" or "on"), Seccomp
// (TIOCSTI, ptrace and io_uring refused), NoNewPrivs, FDsClosed (no descriptor above 2 reaches the
// command). It is the helper's own type (the helper fills it in).
type Layers = helper.Layers

// Report is what the helper found in force, and what is missing with the reason.
type Report struct {
	Mode    Mode     `json:"mode"`
	Layers  Layers   `json:"layers"`
	Missing []string `json:"missing"` // "layer: reason", e.g. "pid_ns: clone: operation not permitted"
}

// Confined reports whether writes are confined: Landlock enforced, the mount namespace
// (read-only protected paths) in force, and no root exposing the home directory (HomeLayer:
// a start-up file that does not exist yet could be created there). The policy may treat
// commands that run workspace code as contained only then.
func (r *Report) Confined() bool {
	if r == nil || !r.Layers.Landlock.Enforced || !r.Layers.MountNS {
		return false
	}
	for _, m := range r.Missing {
		if strings.HasPrefix(m, HomeLayer+":") {
			return false
		}
	}
	return true
}

// Complete reports whether nothing the spec asked for is missing.
func (r *Report) Complete() bool { return r != nil && len(r.Missing) == 0 }

// Summary renders the layers in force for a status bar, e.g.
// "sandbox: landlock 7 · ns · net off" (ns: mount, PID and IPC namespaces) or
// "sandbox: landlock 7 · mount+ipc ns · net on · missing pid_ns".
func (r *Report) Summary() string {
	if r == nil {
		return "sandbox: off"
	}
	parts := []string{}
	if r.Layers.Landlock.Enforced {
		parts = append(parts, fmt.Sprintf("landlock %d", r.Layers.Landlock.ABI))
	}
	if r.Layers.MountNS && r.Layers.PidNS && r.Layers.IPCNS {
		parts = append(parts, "ns")
	} else {
		var ns []string
		for _, l := range []struct {
			on   bool
			name string
		}{{r.Layers.MountNS, "mount"}, {r.Layers.PidNS, "pid"}, {r.Layers.IPCNS, "ipc"}} {
			if l.on {
				ns = append(ns, l.name)
			}
		}
		if len(ns) > 0 {
			parts = append(parts, strings.Join(ns, "+")+" ns")
		}
	}
	parts = append(parts, "net "+r.Layers.Net)
	if len(r.Missing) > 0 {
		names := make([]string, 0, len(r.Missing))
		for _, m := range r.Missing {
			name, _, _ := strings.Cut(m, ":")
			names = append(names, name)
		}
		parts = append(parts, "missing "+strings.Join(names, ","))
	}
	return "sandbox: " + strings.Join(parts, " · ")
}

// resolve returns p with symlinks resolved; for a path that does not exist yet, its
// nearest existing ancestor resolved and the rest appended.
func resolve(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == "/" || dir == p {
		return p
	}
	return filepath.Join(resolve(strings.TrimSuffix(dir, "/")), base)
}

// MayRead reports whether a process under s can read p: false when p is at or below a
// masked path (symlinks resolved). For services acpterm performs on behalf of a sandboxed
// process, so that they never reach further than the process itself.
func (s *Spec) MayRead(p string) bool {
	r := resolve(p)
	for _, m := range s.Mask {
		if within(r, m) || within(p, m) {
			return false
		}
	}
	return true
}

// MayWrite reports whether a process under s can write p: at or below a root, the temp
// dir or a Write path, and not at or below a read-only or masked path (symlinks resolved).
func (s *Spec) MayWrite(p string) bool { return s.WriteRefusal(p) == "" }

// WriteRefusal says why a process under s cannot write p: "protected, read-only" (at or
// below a read-only or masked path), "outside the writable paths"; "" when it can.
func (s *Spec) WriteRefusal(p string) string {
	r := resolve(p)
	for _, list := range [][]string{s.ReadOnly, s.Mask} {
		for _, ro := range list {
			if within(r, ro) || within(p, ro) {
				return "protected, read-only"
			}
		}
	}
	for _, list := range [][]string{s.Roots, {s.TempDir}, s.Write} {
		for _, w := range list {
			if within(r, w) {
				return ""
			}
		}
	}
	return "outside the writable paths"
}

// Denial looks in a sandboxed program's output for a refused write the sandbox explains: a
// "Read-only file system" or "Permission denied" message naming an absolute path that s does
// not let the program write. It returns "sandbox refused a write to PATH (REASON)" for the
// last such message, or "". The kernel does not report Landlock or read-only denials to the
// parent; the program's own error message is what says it hit one.
func (s *Spec) Denial(output string) string {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-500; i-- {
		line := lines[i]
		if !strings.Contains(line, "Read-only file system") && !strings.Contains(line, "Permission denied") {
			continue
		}
		fields := strings.Fields(line)
		for j := len(fields) - 1; j >= 0; j-- { // the file is named last ("sh: cannot create P: …")
			p := strings.Trim(fields[j], "'\"`‘’“”:,;()[]")
			if !strings.HasPrefix(p, "/") || p == "/" {
				continue
			}
			if why := s.WriteRefusal(p); why != "" {
				return "sandbox refused a write to " + p + " (" + why + ")"
			}
		}
	}
	return ""
}
