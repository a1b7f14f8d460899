// Package sandboxtest holds the escape attempts the sandbox tests of terminals and acpclient
// share: a home with a project repository, rc files, a secret and acpterm's own state and
// config; a directory outside every root; a loopback listener; and a shell script that tries
// each escape (and each thing that must keep working) and prints one "R name ok|fail" line
// per attempt.
package sandboxtest

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpterm/acpterm/sandbox"
)

// World is the file tree and listener the escape script runs against.
type World struct {
	Home, Root, Outside, State, Config, Tmp string
	// FD is a descriptor the test process holds without close-on-exec: it must not reach
	// a sandboxed program.
	FD       int
	listener net.Listener
	skip     []string
}

// New builds a World below t.TempDir() (skipping the test without git or python3).
func New(t *testing.T) *World {
	t.Helper()
	for _, p := range []string{"git", "python3"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	w := &World{Home: filepath.Join(base, "home"), Outside: filepath.Join(base, "outside"), Tmp: filepath.Join(base, "tmp")}
	w.Root = filepath.Join(w.Home, "proj")
	w.State = filepath.Join(w.Home, ".local", "state", "acpterm")
	w.Config = filepath.Join(w.Home, ".config", "acpterm")
	for _, d := range []string{w.Root, w.Outside, w.State, w.Config, w.Tmp, filepath.Join(w.Home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(w.Home, ".bashrc"):            "# rc\n",
		filepath.Join(w.Home, ".ssh", "id_ed25519"): "SECRET-KEY\n",
		filepath.Join(w.State, "grants.json"):       `{"version": 1, "grants": []}` + "\n",
		filepath.Join(w.State, "audit.jsonl"):       "",
		filepath.Join(w.Config, "config.toml"):      "# cfg\n",
		filepath.Join(w.Root, "main.go"):            "package main\n",
		filepath.Join(w.Home, ".gitconfig"):         "[user]\n\tname = T\n\temail = t@example.com\n",
		filepath.Join(w.Root, ".acpterm.toml"):      "# project\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", w.Root)
	git.Env = append(os.Environ(), "HOME="+w.Home)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	w.listener = l
	fdPath := filepath.Join(base, "fdfile")
	fd, err := syscall.Open(fdPath, syscall.O_CREAT|syscall.O_RDWR, 0o600) // no O_CLOEXEC on purpose
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	w.FD = fd
	w.skip = []string{filepath.Join(w.Root, ".git"), filepath.Join(w.Root, "new.txt"), w.Tmp, fdPath}
	return w
}

// Skip adds paths (and what lies below them) to those Snapshot leaves out: files the test's
// own acpterm writes while it runs (its log, audit log, session temp dir).
func (w *World) Skip(paths ...string) { w.skip = append(w.skip, paths...) }

// Spec is the sandbox acpterm would use for a session rooted at Home (so the rc files,
// state and config lie inside the root and only the mount namespace protects them).
func (w *World) Spec(network sandbox.Network) *sandbox.Spec {
	pr := sandbox.ProtectedPaths([]string{w.Home}, w.Home)
	return &sandbox.Spec{
		Mode: sandbox.ModeRequired, Roots: []string{w.Home}, TempDir: w.Tmp, Network: network, Seccomp: true,
		ReadOnly: append(pr.ReadOnly, w.State, w.Config), Pin: pr.Pin, Mask: sandbox.SecretPaths(w.Home),
	}
}

// Env is the environment the escape script needs, on top of a PATH. WANTTMP is the temp
// dir $TMPDIR must name; a test that runs acpterm itself drops it (then $TMPDIR must be an
// acpterm session temp dir).
func (w *World) Env() []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + w.Home, "ROOT=" + w.Root,
		"OUT=" + w.Outside, "STATE=" + w.State, "CFG=" + w.Config, "WANTTMP=" + w.Tmp,
		fmt.Sprintf("PORT=%d", w.listener.Addr().(*net.TCPAddr).Port),
		fmt.Sprintf("APID=%d", os.Getpid()), fmt.Sprintf("FD=%d", w.FD)}
}

// Script tries each escape and each thing that must keep working, printing
// "R <name> ok|fail" per attempt, then "END". It stops at once (no END) when one of the
// variables Env sets is missing, so that no attempt aims at a path below "/". $TRYLOG, when
// set, receives the attempts' error output.
// (Each result starts a new line: a character typed in by a working TIOCSTI is echoed.)
const Script = `: "${HOME:?}" "${ROOT:?}" "${OUT:?}" "${STATE:?}" "${CFG:?}" "${PORT:?}" "${APID:?}" "${FD:?}"
export HOME ROOT OUT STATE CFG PORT APID FD
try() { n=$1; shift; if "$@" >/dev/null 2>>"${TRYLOG:-/dev/null}"; then printf '\nR %s ok\n' $n; else printf '\nR %s fail\n' $n; fi; }
try outside sh -c 'echo x > "$OUT/evil"'
try chmod chmod 700 "$OUT"
try hook sh -c 'echo "#!/bin/sh" > "$ROOT/.git/hooks/pre-commit"'
try gitconfig sh -c 'echo "[core] fsmonitor = evil" >> "$ROOT/.git/config"'
try gitrename mv "$ROOT/.git" "$ROOT/.git-old"
try gitremove rm -rf "$ROOT/.git/hooks"
try rc sh -c 'echo evil >> "$HOME/.bashrc"'
try project sh -c 'echo evil >> "$ROOT/.acpterm.toml"'
try state sh -c 'echo evil >> "$STATE/grants.json"'
try statenew sh -c 'echo evil > "$STATE/new"'
try audit sh -c 'echo evil >> "$STATE/audit.jsonl"'
try config sh -c 'echo evil >> "$CFG/config.toml"'
try secret grep -q SECRET "$HOME/.ssh/id_ed25519"
try tcp python3 -c 'import socket,os; socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=5)'
try tiocsti python3 -c 'import fcntl,termios,os; fd=os.open("/dev/tty", os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b"x")'
try signal kill -0 "$APID"
try uring python3 -c 'import ctypes; l=ctypes.CDLL(None, use_errno=True); p=ctypes.create_string_buffer(120); raise SystemExit(0 if l.syscall(425, 1, p) >= 0 else 1)'
try fd test -e /proc/self/fd/"$FD"
try rootwrite sh -c 'echo ok > "$ROOT/new.txt"'
try tmpwrite sh -c 'test -n "$TMPDIR" && echo ok > "$TMPDIR/t" && case "$TMPDIR" in ${WANTTMP:-*/acpterm-session-*}) ;; *) false ;; esac'
try commit git -C "$ROOT" -c user.name=T -c user.email=t@example.com commit -q --allow-empty -m sandboxed
echo END`

// Want is what Script must print in a sandbox with network off; with network on, tcp is
// "ok". tiocsti needs a controlling terminal: without one (an agent on pipes) it fails
// whatever the sandbox does, and the seccomp layer's own canary covers it.
func Want(network sandbox.Network) map[string]string {
	w := map[string]string{
		"outside": "fail", "chmod": "fail", "hook": "fail", "gitconfig": "fail", "gitrename": "fail", "gitremove": "fail",
		"rc": "fail", "project": "fail", "state": "fail", "statenew": "fail", "audit": "fail", "config": "fail", "secret": "fail",
		"tcp": "fail", "tiocsti": "fail", "signal": "fail", "uring": "fail", "fd": "fail",
		"rootwrite": "ok", "tmpwrite": "ok", "commit": "ok",
	}
	if network == sandbox.NetworkOn {
		w["tcp"] = "ok"
	}
	return w
}

// Results parses Script's output; ok is false when it did not reach END.
func Results(out string) (map[string]string, bool) {
	res := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "R" {
			res[f[1]] = f[2]
		}
	}
	return res, strings.Contains(out, "END")
}

// Snapshot hashes every file of the World (and lists its directories) but the ones the
// script may change (the repository's .git, new.txt, the temp dir), to prove the escapes
// changed nothing.
func (w *World) Snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(filepath.Dir(w.Home), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		for _, s := range w.skip {
			if p == s || strings.HasPrefix(p, s+"/") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			out[p] = "dir"
			return nil
		}
		b, _ := os.ReadFile(p)
		out[p] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	return out
}

// Check compares the results with Want and the World with the snapshot taken before, and
// checks the repository: no hook, .git/config as before, the sandboxed commit there.
func (w *World) Check(t *testing.T, res map[string]string, network sandbox.Network, before map[string]string, gitConfig string) {
	t.Helper()
	for k, v := range Want(network) {
		if res[k] != v {
			t.Errorf("%s: %s, want %s", k, res[k], v)
		}
	}
	after := w.Snapshot(t)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Root, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf(".git/hooks/pre-commit was created")
	}
	if b, _ := os.ReadFile(filepath.Join(w.Root, ".git", "config")); string(b) != gitConfig {
		t.Errorf(".git/config changed:\n%s", b)
	}
	log := exec.Command("git", "-C", w.Root, "log", "--format=%s")
	if out, err := log.Output(); err != nil || string(out) != "sandboxed\n" {
		t.Errorf("git log after the sandboxed commit: %q %v", out, err)
	}
}

// GitConfig returns the repository's .git/config now.
func (w *World) GitConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Root, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
