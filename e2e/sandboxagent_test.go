package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/sandboxtest"
	"github.com/acpterm/acpterm/internal/tmuxtest"
	"github.com/acpterm/acpterm/sandbox"
)

// agentEscapeRun is one run of the real binary, headless in a tmux pane (so that it has a
// controlling terminal a TIOCSTI could type into), with the scripted agent as its agent:
// prompt "self" makes the agent's own process run the escape script, prompt "term" asks
// acpterm for a terminal that runs it. Each run writes its results into the root.
type agentEscapeRun struct {
	w          *sandboxtest.World
	self, term map[string]string
	output     string // the pane after acpterm exited
	raw        string // both scripts' output, their attempts' errors included
}

// runAgentEscapes starts acpterm (config already in the World's config file) in a World whose
// home is the session's home. acpterm inherits fd 7 (without close-on-exec) from the shell
// that starts it, which also writes acpterm's pid where the escape script reads it as $APID.
// The script's variables are set in the script itself: acpterm gives a terminal an
// environment of its own, not its own environment.
func runAgentEscapes(t *testing.T, w *sandboxtest.World) agentEscapeRun {
	t.Helper()
	e := &testEnv{t: t, root: t.TempDir(), home: w.Home, project: w.Root,
		configD: filepath.Dir(w.Config), stateD: filepath.Dir(w.State)}
	e.record = filepath.Join(e.root, "record.jsonl")
	for _, d := range []string{filepath.Join(e.root, "cache"), filepath.Join(e.root, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	apid := filepath.Join(e.root, "apid")
	vars := "FD=7\nTRYLOG=/dev/stderr\n. " + apid + "\n"
	for _, kv := range w.Env() {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "ROOT", "OUT", "STATE", "CFG", "PORT":
			vars += k + "=" + shellQuote(v) + "\n"
		}
	}
	script := filepath.Join(e.root, "escapes.sh")
	if err := os.WriteFile(script, []byte(vars+sandboxtest.Script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	selfOut, termOut := filepath.Join(w.Root, "self.out"), filepath.Join(w.Root, "term.out")
	w.Skip(selfOut, termOut)
	tm := startTmux(t, e, 160, 48)
	tm.shell(fmt.Sprintf(`cd %s && sh -c 'exec 7<>"$1"; echo "APID=$$" > "$2"; shift 2; exec "$@"' sh %s %s %s --headless --approve allow --prompt %s --prompt %s -- %s; echo "acpterm-exit=$?"`,
		shellQuote(w.Root), shellQuote(filepath.Join(e.root, "fdfile")), shellQuote(apid), shellQuote(binary),
		shellQuote("self sh "+script+" > "+selfOut+" 2>&1"), shellQuote("term sh "+script+" > "+termOut+" 2>&1"),
		shellQuote(scriptAgent(t))))
	if code := tm.exitCode(); code != 0 {
		t.Fatalf("acpterm exit %d\n%s", code, tm.capture())
	}
	r := agentEscapeRun{w: w, output: tm.capture()}
	for _, f := range []struct {
		path string
		res  *map[string]string
	}{{selfOut, &r.self}, {termOut, &r.term}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatalf("%v\n%s", err, r.output)
		}
		res, ended := sandboxtest.Results(string(b))
		if !ended {
			t.Fatalf("%s: the escape script did not finish:\n%s", f.path, b)
		}
		*f.res = res
		r.raw += "--- " + filepath.Base(f.path) + ":\n" + string(b)
	}
	return r
}

// writeWorldConfig makes body acpterm's user config file in the World.
func writeWorldConfig(t *testing.T, w *sandboxtest.World, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.Config, "config.toml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxAgentEscapesFail: with [sandbox] agent = true the real binary starts the agent
// through the helper, and the agent's own process tries each escape: writes outside the
// root, into .git/hooks and .git/config, $HOME rc files, acpterm's state (grants) and config
// file; reading ~/.ssh; TIOCSTI on acpterm's terminal; signalling acpterm; using the fd
// acpterm inherited; a direct TCP connect to a loopback listener (the agent's network goes
// through acpterm's proxy only). Each fails with nothing changed on disk, while writes in
// the root and the session's $TMPDIR and a git commit work. A terminal acpterm runs for that
// agent (terminal/create) applies the same limits (network off). The audit log and acpterm's
// diagnostics log are acpterm's own writes; they must hold no "evil".
func TestSandboxAgentEscapesFail(t *testing.T) {
	w := sandboxtest.New(t)
	for _, d := range []string{".npm", ".cache"} { // the agent's state dirs acpterm creates
		if err := os.MkdirAll(filepath.Join(w.Home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.Skip(w.State) // acpterm's own log and audit log; checked below
	// The root is the project below the (temporary) home: a home directory as root is refused
	// in required mode (TestSandboxHomeRootRefused).
	config := "[policy]\nroots = [" + fmt.Sprintf("%q", w.Root) + "]\n[sandbox]\nmode = \"required\"\nagent = true\nnetwork = \"off\"\n"
	writeWorldConfig(t, w, config)
	before, gitConfig := w.Snapshot(t), w.GitConfig(t)
	r := runAgentEscapes(t, w)
	if !strings.Contains(r.output, "self exit 0") {
		t.Errorf("the agent's own run did not say its exit:\n%s", r.output)
	}
	for name, res := range map[string]map[string]string{"agent": r.self, "terminal": r.term} {
		for k, v := range sandboxtest.Want(sandbox.NetworkOff) {
			if res[k] != v {
				t.Errorf("%s: %s: %s, want %s", name, k, res[k], v)
			}
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
	if b, _ := os.ReadFile(filepath.Join(w.Root, ".git", "config")); string(b) != gitConfig {
		t.Errorf(".git/config changed:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(w.Root, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf(".git/hooks/pre-commit was created")
	}
	if b, _ := os.ReadFile(filepath.Join(w.State, "grants.json")); string(b) != `{"version": 1, "grants": []}`+"\n" {
		t.Errorf("grants.json now %q", b)
	}
	if _, err := os.Stat(filepath.Join(w.State, "new")); err == nil {
		t.Errorf("a file appeared in acpterm's state dir")
	}
	for _, f := range []string{"audit.jsonl", "acpterm.log"} {
		if b, _ := os.ReadFile(filepath.Join(w.State, f)); strings.Contains(string(b), "evil") {
			t.Errorf("%s was written by a sandboxed process:\n%s", f, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.Config, "config.toml")); string(b) != config {
		t.Errorf("config.toml now %q", b)
	}
	if out, err := exec.Command("git", "-C", w.Root, "log", "--format=%s").Output(); err != nil || string(out) != "sandboxed\nsandboxed\n" {
		t.Errorf("git log after the two sandboxed commits: %q %v", out, err)
	}
	if t.Failed() {
		t.Logf("the escape scripts said:\n%s", r.raw)
	}
}

// TestUnsandboxedAgentEscapesSucceed shows the agent's run proves something: with the
// sandbox off the same agent process does each of those things (the world is thrown away),
// but TIOCSTI: acpterm starts every agent in a session of its own, without a controlling
// terminal, so not even an unsandboxed agent can type into acpterm's terminal.
func TestUnsandboxedAgentEscapesSucceed(t *testing.T) {
	w := sandboxtest.New(t)
	writeWorldConfig(t, w, "[policy]\nroots = ["+fmt.Sprintf("%q", w.Home)+"]\n[sandbox]\nmode = \"off\"\n")
	r := runAgentEscapes(t, w)
	for _, k := range []string{"outside", "hook", "gitconfig", "rc", "state", "audit", "config", "secret", "tcp", "signal", "uring", "fd", "chmod", "rootwrite"} {
		if r.self[k] != "ok" {
			t.Errorf("agent: %s without the sandbox: %s, want ok", k, r.self[k])
		}
	}
	if r.self["tiocsti"] != "fail" || r.term["tiocsti"] != "ok" {
		t.Errorf("tiocsti without the sandbox: agent %s (want fail: no controlling terminal), terminal %s (want ok: its own pty)", r.self["tiocsti"], r.term["tiocsti"])
	}
	if r.self["tiocsti"] != "fail" || r.term["tiocsti"] != "ok" {
		t.Errorf("tiocsti without the sandbox: agent %s (want fail: no controlling terminal), terminal %s (want ok: its own pty)", r.self["tiocsti"], r.term["tiocsti"])
	}
	if t.Failed() {
		t.Logf("the escape scripts said:\n%s", r.raw)
	}
}

// TestSandboxAgentKill9TakesSetsidChild: with agent = true, a setsid child the agent's own
// process starts dies with acpterm even when acpterm is killed with SIGKILL (the agent's
// helper has a parent-death signal and is the init of the agent's PID namespace).
func TestSandboxAgentKill9TakesSetsidChild(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[sandbox]\nmode = \"required\"\nagent = true\n")
	cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", e.project,
		"--prompt", "self setsid sleep 303 </dev/null >/dev/null 2>&1 &", "--prompt", "slow", "--", scriptAgent(t))
	cmd.Env = e.vars()
	cmd.Dir = e.project
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sleeps := func() []procInfo {
		var out []procInfo
		for _, p := range e.leftovers(t) {
			if p.cmdline == "sleep 303" {
				out = append(out, p)
			}
		}
		return out
	}
	for deadline := time.Now().Add(waitTimeout); len(sleeps()) == 0; time.Sleep(tmuxtest.PollInterval) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's setsid child never ran; log:\n%s", e.logText(t))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	for len(sleeps()) > 0 {
		if time.Since(killed) > 3*time.Second {
			t.Fatalf("3 s after kill -9 of acpterm, still running: %+v", sleeps())
		}
		time.Sleep(tmuxtest.PollInterval)
	}
}
