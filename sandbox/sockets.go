package sandbox

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// ControlSockets returns the existing unix sockets (and socket directories) through which a
// process can have a command run outside the sandbox, to be masked (Spec.Mask) whatever the
// network mode: with network "on" seccomp lets unix sockets be made, and Landlock up to ABI 8
// does not govern connect(2) to a path socket. They are tmux's and screen's server sockets
// (`tmux run-shell`, `screen -X exec` run any command as the user), the systemd user
// manager's and the D-Bus session and system buses (`systemd-run`, or any D-Bus service that
// starts programs), and the Docker, containerd and Podman APIs (root on the host). ssh-agent
// and gpg-agent sockets stay: they sign with keys they never give out, and git over ssh
// needs them. uid is the effective uid acpterm runs as; getenv gives TMUX_TMPDIR and
// XDG_RUNTIME_DIR (the session bus is looked for at its usual path there).
func ControlSockets(getenv func(string) string, uid int) []string {
	id := strconv.Itoa(uid)
	tmuxBase := getenv("TMUX_TMPDIR")
	if tmuxBase == "" {
		tmuxBase = "/tmp"
	}
	run := getenv("XDG_RUNTIME_DIR")
	if run == "" {
		run = "/run/user/" + id
	}
	cands := []string{
		filepath.Join(tmuxBase, "tmux-"+id), "/tmp/tmux-" + id,
		filepath.Join(run, "bus"), filepath.Join(run, "systemd"), filepath.Join(run, "docker.sock"),
		filepath.Join(run, "podman"), filepath.Join(run, "screen"),
		"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/run/systemd/private",
		"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
		"/run/podman/podman.sock",
	}
	if u, err := user.LookupId(id); err == nil {
		cands = append(cands, "/run/screen/S-"+u.Username, "/var/run/screen/S-"+u.Username)
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range cands {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		} else {
			continue
		}
		if seen[p] {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
