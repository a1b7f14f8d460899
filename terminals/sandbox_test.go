package terminals

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/sandboxtest"
	"github.com/acpterm/acpterm/sandbox"
)

// runEscapes runs the escape script in a sandboxed terminal and returns the results.
func runEscapes(t *testing.T, w *sandboxtest.World, network sandbox.Network) (map[string]string, *sandbox.Report) {
	t.Helper()
	h := newMgr(t, ManagerOptions{Sandbox: w.Spec(network)})
	term := h.start(t, StartOptions{ShellLine: sandboxtest.Script, Dir: w.Root, Env: w.Env(), Size: Size{Cols: 200, Rows: 50}})
	st := waitExit(t, term)
	out := term.Output().Text
	res, ended := sandboxtest.Results(out)
	if st.Code == nil || *st.Code != 0 || !ended {
		t.Fatalf("escape script: %v\n%s", st, out)
	}
	return res, term.Sandbox()
}

// TestSandboxedTerminalEscapesFail: each escape tried from a sandboxed terminal fails and
// changes nothing on disk; writes in the root and $TMPDIR and a git commit work.
func TestSandboxedTerminalEscapesFail(t *testing.T) {
	w := sandboxtest.New(t)
	before, gitConfig := w.Snapshot(t), w.GitConfig(t)
	res, rep := runEscapes(t, w, sandbox.NetworkOff)
	if rep == nil || !rep.Confined() || rep.Layers.Net != "off" || !rep.Layers.Seccomp || !rep.Layers.PidNS ||
		!rep.Layers.NoNewPrivs || !rep.Layers.FDsClosed || len(rep.Missing) != 0 {
		t.Fatalf("report %+v", rep)
	}
	w.Check(t, res, sandbox.NetworkOff, before, gitConfig)
}

// TestSandboxedTerminalNetworkOn: with network on, TCP to a loopback listener works and the
// other layers hold.
func TestSandboxedTerminalNetworkOn(t *testing.T) {
	w := sandboxtest.New(t)
	before, gitConfig := w.Snapshot(t), w.GitConfig(t)
	res, rep := runEscapes(t, w, sandbox.NetworkOn)
	if rep.Layers.Net != "on" {
		t.Errorf("net %s", rep.Layers.Net)
	}
	w.Check(t, res, sandbox.NetworkOn, before, gitConfig)
}

// TestUnsandboxedEscapesSucceed shows the escape script does what it says: without the
// sandbox the same attempts succeed (the world is thrown away afterwards).
func TestUnsandboxedEscapesSucceed(t *testing.T) {
	if os.Getenv("ACPTERM_TEST_SANDBOX") == "1" {
		t.Skip("the whole suite runs sandboxed")
	}
	w := sandboxtest.New(t)
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: sandboxtest.Script, Dir: w.Root, Env: w.Env()})
	waitExit(t, term)
	res, _ := sandboxtest.Results(term.Output().Text)
	for _, k := range []string{"outside", "hook", "gitconfig", "rc", "state", "audit", "config", "secret", "tcp", "tiocsti", "signal", "uring", "fd", "chmod"} {
		if res[k] != "ok" {
			t.Errorf("%s without the sandbox: %s, want ok", k, res[k])
		}
	}
}

// TestSandboxedInteractiveShell: job control, stty size after a resize, tty, vim and
// python3 work in a sandboxed pane.
func TestSandboxedInteractiveShell(t *testing.T) {
	w := sandboxtest.New(t)
	h := newMgr(t, ManagerOptions{Sandbox: w.Spec(sandbox.NetworkOff)})
	env := append(w.Env(), "PS1=$ ")
	term := h.start(t, StartOptions{Argv: []string{"bash", "--norc", "-i"}, Dir: w.Root, Env: env, Size: Size{Cols: 100, Rows: 30}})
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
	// ttyname(3) finds the pane's own pty, the only one /dev/pts shows.
	send("tty; echo pts: $(ls /dev/pts)\n")
	h.waitOutput(t, term, term.spec.TTY+"\npts: "+filepath.Base(term.spec.TTY)+"\n")
	send("python3 -c 'print(6*7)'\n")
	h.waitOutput(t, term, "42")
	if _, err := exec.LookPath("vim"); err == nil {
		send("vim -u NONE -N " + filepath.Join(w.Root, "v.txt") + "\n")
		h.waitFor(t, "vim screen", func() bool { return term.scr.alt.Load() && strings.Contains(term.Screen().Text(), "v.txt") })
		send("ihello from vim\x1b:wq\n")
		h.waitFor(t, "vim gone", func() bool { return !term.scr.alt.Load() })
		if b, _ := os.ReadFile(filepath.Join(w.Root, "v.txt")); string(b) != "hello from vim\n" {
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

// TestSandboxDenialSaid: a refused write to a protected path that the program reports is
// named for the pane, with the reason from the spec.
func TestSandboxDenialSaid(t *testing.T) {
	w := sandboxtest.New(t)
	h := newMgr(t, ManagerOptions{Sandbox: w.Spec(sandbox.NetworkOff)})
	hook := filepath.Join(w.Root, ".git", "hooks", "pre-commit")
	for _, c := range []struct{ line, want string }{
		{"echo x > " + hook, "sandbox refused a write to " + hook + " (protected, read-only)"},
		{"touch " + filepath.Join(w.Outside, "f"), "sandbox refused a write to " + filepath.Join(w.Outside, "f") + " (outside the writable paths)"},
		{"echo fine > " + filepath.Join(w.Root, "ok"), ""},
	} {
		term := h.start(t, StartOptions{ShellLine: c.line, Dir: w.Root, Env: w.Env()})
		waitExit(t, term)
		if got := term.SandboxDenial(); got != c.want {
			t.Errorf("%s: %q, want %q (output %q)", c.line, got, c.want, term.Output().Text)
		}
	}
}

// TestSandboxedGoBuildExitAndSignals: in a sandbox whose only root is the project (so the
// user's Go build cache lies outside the writable paths), `go build` works and its program
// runs; exit codes and deaths by a signal come through the helper as without it: exit 3, a
// command that sends itself SIGTERM, and Kill of a running command.
func TestSandboxedGoBuildExitAndSignals(t *testing.T) {
	if os.Getenv("ACPTERM_TEST_SANDBOX") == "1" {
		t.Skip("sandboxed in any case; the cold build is not run twice")
	}
	goBin, err := exec.LookPath("go") // go test puts GOROOT/bin first in PATH
	if err != nil {
		t.Skip("no go tool")
	}
	w := sandboxtest.New(t)
	proj := filepath.Join(w.Root, "hello")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() { println(\"built in the sandbox\") }\n", // no imports: a cold build cache compiles less
	} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pr := sandbox.ProtectedPaths([]string{w.Root}, w.Home)
	spec := &sandbox.Spec{Mode: sandbox.ModeRequired, Roots: []string{w.Root}, TempDir: w.Tmp, Network: sandbox.NetworkOff,
		Seccomp: true, ReadOnly: append(pr.ReadOnly, w.State, w.Config), Pin: pr.Pin, Mask: sandbox.SecretPaths(w.Home)}
	h := newMgr(t, ManagerOptions{Sandbox: spec})
	env := append(w.Env(), "PATH="+filepath.Dir(goBin)+":/usr/local/bin:/usr/bin:/bin", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	term := h.start(t, StartOptions{ShellLine: "go build -o hello . && ./hello", Dir: proj, Env: env})
	// The session's build cache starts empty: the runtime is compiled (minutes on a loaded
	// machine).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if st, err := term.Wait(ctx); err != nil || st.Code == nil || *st.Code != 0 {
		t.Fatalf("go build: %v %v\n%s", st, err, term.Output().Text)
	}
	if got := term.Output().Text; !strings.HasSuffix(strings.TrimRight(got, "\r\n"), "built in the sandbox") {
		t.Errorf("output %q", got)
	}
	if fi, err := os.Stat(filepath.Join(proj, "hello")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("the built program: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(w.Home, ".cache", "go-build")); err == nil {
		t.Errorf("the sandboxed build wrote the build cache below the home, outside the root")
	}

	for _, c := range []struct {
		line string
		want string
	}{{"exit 3", "exit 3"}, {"kill -TERM $$", "SIGTERM"}} {
		term := h.start(t, StartOptions{ShellLine: c.line, Dir: w.Root, Env: w.Env()})
		if st := waitExit(t, term); st.String() != c.want {
			t.Errorf("%s: %v, want %s", c.line, st, c.want)
		}
	}
	term = h.start(t, StartOptions{ShellLine: "echo started; exec sleep 100", Dir: w.Root, Env: w.Env()})
	h.waitOutput(t, term, "started")
	if err := term.Kill(); err != nil {
		t.Fatal(err)
	}
	if st := waitExit(t, term); st.String() != "SIGTERM" {
		t.Errorf("killed sleep: %v, want SIGTERM", st)
	}
}
