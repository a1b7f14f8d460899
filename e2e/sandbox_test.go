package e2e

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// TestSandboxCheckJSON: `acpterm sandbox check` (no terminal) prints the layers its canaries
// confirmed, as JSON, and exits 0 when nothing is missing.
func TestSandboxCheckJSON(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ config, net string }{{"", "proxy"}, {"[sandbox]\nnetwork = \"on\"\n", "on"}, {"[sandbox]\nnetwork = \"off\"\n", "off"}} {
		e.writeConfig(c.config)
		r := e.run("sandbox", "check", "--cwd", e.project)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		var rep struct {
			Mode   string `json:"mode"`
			Layers struct {
				Landlock struct {
					ABI      int  `json:"abi"`
					Enforced bool `json:"enforced"`
				} `json:"landlock"`
				MountNS    bool   `json:"mount_ns"`
				PidNS      bool   `json:"pid_ns"`
				IPCNS      bool   `json:"ipc_ns"`
				Net        string `json:"net"`
				Seccomp    bool   `json:"seccomp"`
				NoNewPrivs bool   `json:"no_new_privs"`
			} `json:"layers"`
			Missing []string `json:"missing"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		l := rep.Layers
		if rep.Mode != "auto" || l.Landlock.ABI < 1 || !l.Landlock.Enforced || !l.MountNS || !l.PidNS || !l.IPCNS || l.Net != c.net ||
			!l.Seccomp || !l.NoNewPrivs || rep.Missing == nil || len(rep.Missing) != 0 {
			t.Errorf("network %s: %s", c.net, r.stdout)
		}
		if !strings.Contains(r.stdout, `"missing": []`) {
			t.Errorf("missing is not an empty list:\n%s", r.stdout)
		}
	}
}

// TestSandboxRequiredRefusesAgent: in required mode with agent = true, a layer that cannot be
// confirmed (with roots = ["/"] no write can be refused, so Landlock has no canary; and "/"
// holds the home directory) stops acpterm before the agent starts, naming the layer; sandbox
// check exits 1 and lists it.
func TestSandboxRequiredRefusesAgent(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy]\nroots = [\"/\"]\n[sandbox]\nmode = \"required\"\nagent = true\n")
	r := e.run("--headless", "--demo", "--cwd", e.project, "--prompt", "hello")
	want := "acpterm: sandbox: required layer missing: home_root: root / contains your home directory " + e.home + ": " + homeWhy +
		"; use a project directory as root; landlock: no canary: no directory outside the writable paths to hold it (mode required; the agent is not started)\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}
	r = e.run("sandbox", "check", "--cwd", e.project)
	if r.code != 1 || !strings.Contains(r.stdout, `"landlock: no canary: no directory outside the writable paths to hold it"`) ||
		!strings.Contains(r.stdout, `"mode": "required"`) {
		t.Errorf("sandbox check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = e.run("--sandbox", "strict", "--demo")
	if r.code != 2 || !strings.Contains(r.stderr, `--sandbox must be off, auto or required, not "strict"`) {
		t.Errorf("--sandbox strict: exit %d %q", r.code, r.stderr)
	}
}

// TestSandboxKill9TakesSetsidChild: a command's setsid child dies with acpterm even when
// acpterm is killed with SIGKILL (the helper's parent-death signal ends its PID namespace).
func TestSandboxKill9TakesSetsidChild(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask"))
	agent := scriptAgent(t)
	cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", e.project, "--prompt",
		"term setsid sleep 301 </dev/null >/dev/null 2>&1 & sleep 302", "--", agent)
	cmd.Env = e.vars()
	cmd.Dir = e.project
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sleeps := func() []procInfo {
		var out []procInfo
		for _, p := range e.leftovers(t) {
			if p.cmdline == "sleep 301" || p.cmdline == "sleep 302" {
				out = append(out, p)
			}
		}
		return out
	}
	for deadline := time.Now().Add(waitTimeout); len(sleeps()) < 2; time.Sleep(tmuxtest.PollInterval) {
		if time.Now().After(deadline) {
			t.Fatalf("the sandboxed command never ran; log:\n%s", e.logText(t))
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

// TestTUISandboxVisible: the status bar says which layers are in force, and a command's
// approval dialog says how it will run.
func TestTUISandboxVisible(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy.commands]\nask = [\"sleep\"]\n\n[sandbox]\nnetwork = \"off\"\n")
	tm := startDemo(t, e, "long 2")
	tm.waitFor(modalReady)
	tm.waitFor("sandbox: writes only in " + e.project + ", network off")
	tm.keys("Enter")
	tm.waitMatch(regexp.MustCompile(`terminal \S+ exit 0`))
	tm.waitMatch(regexp.MustCompile(`policy config\.toml · sandbox: landlock \d · ns · net off`))
	quit(t, e, tm, 0)
}
