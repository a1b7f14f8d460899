package terminals

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
	"time"

	"github.com/acpterm/acpterm/sandbox"
)

// escapeWorld is a home with a project repository, rc files, a secret and acpterm's own
// state and config, plus a directory outside every root.
type escapeWorld struct {
	home, root, outside, state, cfg, tmp string
	listener                             net.Listener
}

func newEscapeWorld(t *testing.T) *escapeWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	w := &escapeWorld{home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"), tmp: filepath.Join(base, "tmp")}
	w.root = filepath.Join(w.home, "proj")
	w.state = filepath.Join(w.home, ".local", "state", "acpterm")
	w.cfg = filepath.Join(w.home, ".config", "acpterm")
	for _, d := range []string{w.root, w.outside, w.state, w.cfg, w.tmp, filepath.Join(w.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(w.home, ".bashrc"):            "# rc\n",
		filepath.Join(w.home, ".ssh", "id_ed25519"): "SECRET-KEY\n",
		filepath.Join(w.state, "grants.json"):       "[]\n",
		filepath.Join(w.state, "audit.jsonl"):       "",
		filepath.Join(w.cfg, "config.toml"):         "# cfg\n",
		filepath.Join(w.root, "main.go"):            "package main\n",
		filepath.Join(w.home, ".gitconfig"):         "[user]\n\tname = T\n\temail = t@example.com\n",
		filepath.Join(w.root, ".acpterm.toml"):      "# project\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", w.root)
	git.Env = append(os.Environ(), "HOME="+w.home)
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
	return w
}

func (w *escapeWorld) spec(network sandbox.Network) *sandbox.Spec {
	pr := sandbox.ProtectedPaths([]string{w.home}, w.home)
	return &sandbox.Spec{
		Mode: sandbox.ModeRequired, Roots: []string{w.home}, TempDir: w.tmp, Network: network, Seccomp: true,
		ReadOnly: append(pr.ReadOnly, w.state, w.cfg), Pin: pr.Pin, Mask: sandbox.SecretPaths(w.home),
	}
}

// snapshot hashes every file below the base directory (and lists the directories), to
// prove an attempt changed nothing.
func (w *escapeWorld) snapshot(t *testing.T, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	base := filepath.Dir(w.home)
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		for _, s := range skip {
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

// escapeScript tries each escape and each thing that must keep working, printing
// "R <name> ok|fail" per attempt.
const escapeScript = `try() { n=$1; shift; if "$@" >/dev/null 2>&1; then echo "R $n ok"; else echo "R $n fail"; fi; }
try outside sh -c 'echo x > "$OUT/evil"'
try hook sh -c 'echo "#!/bin/sh" > "$ROOT/.git/hooks/pre-commit"'
try gitconfig sh -c 'echo "[core] fsmonitor = evil" >> "$ROOT/.git/config"'
try gitrename mv "$ROOT/.git" "$ROOT/.git-old"
try gitremove rm -rf "$ROOT/.git/hooks"
try rc sh -c 'echo evil >> "$HOME/.bashrc"'
try project sh -c 'echo evil >> "$ROOT/.acpterm.toml"'
try state sh -c 'echo evil >> "$STATE/grants.json"'
try statenew sh -c 'echo evil > "$STATE/new"'
try config sh -c 'echo evil >> "$CFG/config.toml"'
try secret grep -q SECRET "$HOME/.ssh/id_ed25519"
try tcp python3 -c 'import socket,os; socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=5)'
try tiocsti python3 -c 'import fcntl,termios; fcntl.ioctl(0, termios.TIOCSTI, b"x")'
try signal kill -0 "$APID"
try fd test -e /proc/self/fd/"$FD"
try rootwrite sh -c 'echo ok > "$ROOT/new.txt"'
try tmpwrite sh -c 'echo ok > "$TMPDIR/t" && test "$TMPDIR" = "$WANTTMP"'
try commit git -C "$ROOT" -c user.name=T -c user.email=t@example.com commit -q --allow-empty -m sandboxed
echo END`

// runEscapes runs escapeScript in a sandboxed terminal and returns the results.
func runEscapes(t *testing.T, w *escapeWorld, network sandbox.Network) (map[string]string, *sandbox.Report) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	// A descriptor acpterm holds without close-on-exec: it must not reach the command.
	fd, err := syscall.Open(filepath.Join(w.outside, "..", "fdfile"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	h := newMgr(t, ManagerOptions{Sandbox: w.spec(network)})
	env := append(append([]string(nil), testEnv...), "HOME="+w.home, "ROOT="+w.root, "OUT="+w.outside,
		"STATE="+w.state, "CFG="+w.cfg, fmt.Sprintf("PORT=%d", w.listener.Addr().(*net.TCPAddr).Port),
		fmt.Sprintf("APID=%d", os.Getpid()), fmt.Sprintf("FD=%d", fd), "WANTTMP="+w.tmp)
	term := h.start(t, StartOptions{ShellLine: escapeScript, Dir: w.root, Env: env, Size: Size{Cols: 200, Rows: 50}})
	st := waitExit(t, term)
	out := term.Output().Text
	if st.Code == nil || *st.Code != 0 || !strings.Contains(out, "END") {
		t.Fatalf("escape script: %v\n%s", st, out)
	}
	res := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "R" {
			res[f[1]] = f[2]
		}
	}
	return res, term.Sandbox()
}

func TestSandboxedTerminalEscapesFail(t *testing.T) {
	w := newEscapeWorld(t)
	skip := []string{filepath.Join(w.root, ".git"), filepath.Join(w.root, "new.txt"), w.tmp, filepath.Join(filepath.Dir(w.home), "fdfile")}
	before := w.snapshot(t, skip...)
	hook := filepath.Join(w.root, ".git", "hooks", "pre-commit")
	gitConfig, _ := os.ReadFile(filepath.Join(w.root, ".git", "config"))
	res, rep := runEscapes(t, w, sandbox.NetworkOff)
	if rep == nil || !rep.Confined() || rep.Layers.Net != "off" || !rep.Layers.Seccomp || !rep.Layers.PidNS ||
		!rep.Layers.NoNewPrivs || !rep.Layers.FDsClosed || len(rep.Missing) != 0 {
		t.Fatalf("report %+v", rep)
	}
	want := map[string]string{
		"outside": "fail", "hook": "fail", "gitconfig": "fail", "gitrename": "fail", "gitremove": "fail",
		"rc": "fail", "project": "fail", "state": "fail", "statenew": "fail", "config": "fail", "secret": "fail",
		"tcp": "fail", "tiocsti": "fail", "signal": "fail", "fd": "fail",
		"rootwrite": "ok", "tmpwrite": "ok", "commit": "ok",
	}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("%s: %s, want %s", k, res[k], v)
		}
	}
	after := w.snapshot(t, skip...)
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
	if _, err := os.Stat(hook); err == nil {
		t.Errorf("%s was created", hook)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, ".git", "config")); string(b) != string(gitConfig) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	log := exec.Command("git", "-C", w.root, "log", "--format=%s")
	if out, err := log.Output(); err != nil || string(out) != "sandboxed\n" {
		t.Errorf("git log after the sandboxed commit: %q %v", out, err)
	}
}

func TestSandboxedTerminalNetworkOn(t *testing.T) {
	w := newEscapeWorld(t)
	res, rep := runEscapes(t, w, sandbox.NetworkOn)
	if res["tcp"] != "ok" || rep.Layers.Net != "on" {
		t.Errorf("tcp with network on: %s (net %s)", res["tcp"], rep.Layers.Net)
	}
	if res["outside"] != "fail" || res["tiocsti"] != "fail" {
		t.Errorf("network on loosened other layers: %v", res)
	}
}

// TestSandboxedInteractiveShell: job control, stty size after a resize, vim and python3
// work in a sandboxed pane.
func TestSandboxedInteractiveShell(t *testing.T) {
	w := newEscapeWorld(t)
	h := newMgr(t, ManagerOptions{Sandbox: w.spec(sandbox.NetworkOff)})
	env := append(append([]string(nil), testEnv...), "HOME="+w.home, "PS1=$ ")
	term := h.start(t, StartOptions{Argv: []string{"bash", "--norc", "-i"}, Dir: w.root, Env: env, Size: Size{Cols: 100, Rows: 30}})
	send := func(s string) {
		t.Helper()
		if err := term.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	send("sleep 50 &\njobs\n")
	h.waitOutput(t, term, "Running")
	send("kill %1; wait; echo job-done\n")
	h.waitOutput(t, term, "job-done")
	if err := term.Resize(Size{Cols: 91, Rows: 27}); err != nil {
		t.Fatal(err)
	}
	send("stty size\n")
	h.waitOutput(t, term, "27 91")
	send("python3 -c 'print(6*7)'\n")
	h.waitOutput(t, term, "42")
	if _, err := exec.LookPath("vim"); err == nil {
		send("vim -u NONE -N " + filepath.Join(w.root, "v.txt") + "\n")
		h.waitFor(t, "vim screen", func() bool { return term.scr.alt.Load() && strings.Contains(term.Screen().Text(), "v.txt") })
		send("ihello from vim\x1b:wq\n")
		h.waitFor(t, "vim gone", func() bool { return !term.scr.alt.Load() })
		if b, _ := os.ReadFile(filepath.Join(w.root, "v.txt")); string(b) != "hello from vim\n" {
			t.Errorf("vim wrote %q", b)
		}
	}
	send("sleep 60\n")
	// No event tells that the foreground job has exec'd: look for it.
	for deadline := time.Now().Add(30 * time.Second); !sleepInForeground(term); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sleep 60 never ran: %q %v", term.Screen().Text(), term.ownProcs())
		}
	}
	send("\x1a")
	h.waitOutput(t, term, "Stopped")
	send("fg\n")
	// No event tells that the job is back in the foreground: look at its stat (running, and
	// its group the terminal's foreground group).
	for deadline := time.Now().Add(30 * time.Second); !sleepInForeground(term); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sleep 60 never came back to the foreground: %q", term.Screen().Text())
		}
	}
	send("\x03")
	send("echo after-int $?\n")
	h.waitOutput(t, term, "after-int 130")
	send("exit 7\n")
	if st := waitExit(t, term); st.Code == nil || *st.Code != 7 {
		t.Errorf("exit %v", st)
	}
}

// sleepInForeground reports whether a "sleep" of the terminal runs (not stopped) in the
// terminal's foreground process group.
func sleepInForeground(term *Terminal) bool {
	for _, pid := range term.ownProcs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || !strings.Contains(string(b), "(sleep)") {
			continue
		}
		f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+2:])
		if len(f) > 5 && f[0] != "T" && f[2] == f[5] { // state, pgrp == tpgid
			return true
		}
	}
	return false
}
