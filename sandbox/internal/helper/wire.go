package helper

import (
	"strings"

	"golang.org/x/sys/unix"
)

// Arg is the hidden first argument that turns the program into the sandbox helper
// (sandbox.HelperArg): this package's init then runs the helper and exits.
const Arg = "__sandbox-exec"

// GuardArg is the hidden first argument that turns the program into the agent guard
// (sandbox.GuardArg), followed by GRACE_MS PATH ARGV….
const GuardArg = "__agent-guard"

// RequestEnv is the environment variable carrying the JSON Request to the helper; the helper
// removes it before the command runs.
const RequestEnv = "ACPTERM_SANDBOX_REQUEST"

// StatusFD is the helper's end of the status pipe (the parent's cmd.ExtraFiles[0]): one JSON
// Message per line.
const StatusFD = 3

// ProxyFD is the helper's end of the socket pair the proxy listener goes back on
// (cmd.ExtraFiles[1], NetworkProxy only).
const ProxyFD = 4

// GuardFD is the guard's end of its socket pair with the parent (cmd.ExtraFiles[0]).
const GuardFD = 3

// Mode says how strictly the sandbox is applied ([sandbox] mode, --sandbox).
type Mode string

// The modes.
const (
	// ModeOff runs commands with the user's full rights (no helper).
	ModeOff Mode = "off"
	// ModeAuto applies every layer the kernel offers and reports the missing ones.
	ModeAuto Mode = "auto"
	// ModeRequired refuses to run a command when any layer is missing.
	ModeRequired Mode = "required"
)

// Network says what network a sandboxed command gets ([sandbox] network).
type Network string

// The network modes (sandbox.NetworkOn and so on say what each means).
const (
	NetworkOn    Network = "on"
	NetworkOff   Network = "off"
	NetworkProxy Network = "proxy"
)

// Spec is sandbox.Spec as the helper receives it: the same fields in the same order (package
// sandbox converts one into the other, so the compiler keeps them equal); sandbox.Spec
// documents each.
type Spec struct {
	Mode      Mode     `json:"mode"`
	Roots     []string `json:"roots"`
	TempDir   string   `json:"temp_dir"`
	Write     []string `json:"write,omitempty"`
	ReadOnly  []string `json:"read_only,omitempty"`
	Pin       []string `json:"pin,omitempty"`
	Mask      []string `json:"mask,omitempty"`
	Network   Network  `json:"network"`
	ProxyPort int      `json:"proxy_port,omitempty"`
	Seccomp   bool     `json:"seccomp"`
	TTY       string   `json:"tty,omitempty"`
	Home      string   `json:"home,omitempty"` // checked by the parent only (sandbox.HomeExposure)
}

// Landlock is the Landlock layer of a Report.
type Landlock struct {
	// ABI is the Landlock ABI version in force (0: none).
	ABI int `json:"abi"`
	// Enforced is true when a forbidden write was refused with EACCES by the canary.
	Enforced bool `json:"enforced"`
}

// Layers says which layer is in force for a sandboxed process, each confirmed by a
// canary in the helper before the command started.
type Layers struct {
	Landlock Landlock `json:"landlock"`
	// UserNS is true when the process runs in its own user namespace (its capabilities
	// reach nothing outside).
	UserNS bool `json:"user_ns"`
	// MountNS is true when the process has its own mount namespace with the protected
	// paths read-only (EROFS confirmed on each), the masked paths hidden and /dev/pts
	// holding nothing but the terminal's own pty.
	MountNS bool `json:"mount_ns"`
	// PidNS is true when the helper is PID 1 of a new PID namespace: every process in it
	// dies with the helper.
	PidNS bool `json:"pid_ns"`
	// IPCNS is true when the process has its own IPC namespace (/proc/self/ns/ipc differs
	// from acpterm's): the host's System V shared memory, semaphores and message queues and
	// its POSIX message queues are out of its reach.
	IPCNS bool `json:"ipc_ns"`
	// Net is "off" when the process is confirmed in an empty network namespace, "proxy" when
	// it is and the proxy listener was handed to acpterm, else "on".
	Net string `json:"net"`
	// Seccomp is true when the canary saw ioctl(TIOCSTI), ptrace and io_uring_setup refused
	// (and socket(AF_UNIX) with network off or proxy).
	Seccomp bool `json:"seccomp"`
	// NoNewPrivs is true when prctl(PR_GET_NO_NEW_PRIVS) returned 1.
	NoNewPrivs bool `json:"no_new_privs"`
	// FDsClosed is true when no file descriptor above 2 reaches the command.
	FDsClosed bool `json:"fds_closed"`
}

// Report is sandbox.Report as the helper sends it (the same fields: package sandbox converts
// it): what is in force, and what is missing with the reason ("layer: reason").
type Report struct {
	Mode    Mode     `json:"mode"`
	Layers  Layers   `json:"layers"`
	Missing []string `json:"missing"`
}

// ExitStatus is how the sandboxed command ended: a code or a signal name.
type ExitStatus struct {
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"` // "SIGTERM", …
}

// NSFlags are the namespaces the parent created at clone.
type NSFlags struct{ User, Mount, PID, Net, IPC bool }

// NSIDs are namespace ids (inode numbers of /proc/self/ns/*), to confirm new ones.
type NSIDs struct{ User, Mount, PID, Net, IPC uint64 }

// Request is what the parent hands to the helper in RequestEnv.
type Request struct {
	Spec Spec     `json:"spec"`
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	// Canary is a file outside every writable path (the Landlock canary); "" for none.
	Canary string `json:"canary"`
	// NS are the namespaces created at clone.
	NS NSFlags `json:"ns"`
	// Missing are the layers the parent could not set up, with the reason.
	Missing []string `json:"missing"`
	// Parent are the parent's namespace ids.
	Parent NSIDs `json:"parent"`
	// ProxyPort is the port of the proxy listener on 127.0.0.1 in the namespace
	// (NetworkProxy; Spec.ProxyPort, or the proxy's default for 0).
	ProxyPort int `json:"proxy_port,omitempty"`
	// ProxyEnv are the "K=V" variables pointing the command at the proxy listener
	// (NetworkProxy); ProxyEnvNames are every name the proxy sets, removed from the command's
	// environment first.
	ProxyEnv      []string `json:"proxy_env,omitempty"`
	ProxyEnvNames []string `json:"proxy_env_names,omitempty"`
}

// Message is one JSON line on the status pipe: the report once the command runs, an error
// instead, or the command's exit status.
type Message struct {
	Ready *Report     `json:"ready,omitempty"`
	Error string      `json:"error,omitempty"`
	Exit  *ExitStatus `json:"exit,omitempty"`
}

// NSID returns the id (inode number) of this process's namespace of kind ("user", "mnt",
// "pid", "net", "ipc"); 0 when /proc/self/ns/KIND cannot be read.
func NSID(kind string) uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/"+kind, &st) != nil {
		return 0
	}
	return st.Ino
}

// Within reports whether path p is dir or below it (both clean and absolute).
func Within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}
