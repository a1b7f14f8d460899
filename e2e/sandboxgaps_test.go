package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// TestSandboxAgentWithoutPidNSKill9TakesSetsidChild: with agent = true in auto mode on a
// kernel that refuses PID namespaces (acpterm runs in a user namespace whose
// user.max_pid_namespaces is 0, so every namespace the helper asks for is refused and auto
// mode goes on without them), a setsid child of the agent, and one of a sandboxed terminal's
// command, still die within 3 s of acpterm being killed with SIGKILL: each helper is then a
// subreaper that sees acpterm go and ends its tree itself. acpterm says the PID namespace is
// missing.
func TestSandboxAgentWithoutPidNSKill9TakesSetsidChild(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare(1) not installed")
	}
	if probe, err := exec.Command(unshare, "-U", "-r", "sh", "-c", "echo 0 > /proc/sys/user/max_pid_namespaces").CombinedOutput(); err != nil {
		t.Skipf("no user namespace with a settable user.max_pid_namespaces: %v %s", err, probe)
	}
	e := newEnv(t)
	e.writeConfig("[sandbox]\nmode = \"auto\"\nagent = true\n")
	cmd := exec.Command(unshare, "-U", "-r", "sh", "-c", `echo 0 > /proc/sys/user/max_pid_namespaces && exec "$@"`, "sh",
		binary, "--headless", "--approve", "allow", "--cwd", e.project,
		"--prompt", "self setsid sleep 305 </dev/null >/dev/null 2>&1 &",
		"--prompt", "term setsid sleep 306 </dev/null >/dev/null 2>&1 & sleep 307", "--", scriptAgent(t))
	cmd.Env = e.vars()
	cmd.Dir = e.project
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sleeps := func() []procInfo {
		var out []procInfo
		for _, p := range e.leftovers(t) {
			if p.cmdline == "sleep 305" || p.cmdline == "sleep 306" || p.cmdline == "sleep 307" {
				out = append(out, p)
			}
		}
		return out
	}
	for deadline := time.Now().Add(waitTimeout); len(sleeps()) < 3; time.Sleep(tmuxtest.PollInterval) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent's and the terminal's children never all ran (%+v); stderr:\n%s\nlog:\n%s", sleeps(), stderr.String(), e.logText(t))
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
	if !strings.Contains(stderr.String(), "acpterm: warning: sandbox: not in force: ") || !strings.Contains(stderr.String(), "; pid_ns: ") {
		t.Errorf("acpterm did not say the PID namespace is missing; stderr:\n%s", stderr.String())
	}
}

// homeWhy is why a root holding the home directory is a missing protection, as acpterm says it.
const homeWhy = "shell start-up files there that do not exist yet (.profile, .zshrc, .config/fish/config.fish, …) could be created and run outside the sandbox"

// TestSandboxHomeRootRefused: with the home directory as root, required mode refuses the
// command that would create a missing ~/.zshrc (nothing is created) and refuses to start a
// sandboxed agent, naming the root, why and what to do; `sandbox check` lists it as missing
// and exits 1. In auto mode the command runs, acpterm warns, and the ~/.zshrc the command
// created is moved into the quarantine.
func TestSandboxHomeRootRefused(t *testing.T) {
	e := newEnv(t)
	zshrc := filepath.Join(e.home, ".zshrc")
	missing := "home_root: root " + e.home + " is your home directory: " + homeWhy + "; use a project directory as root"
	base := strings.Replace(demoConfig("ask"), "[policy]\n", "[policy]\nroots = ["+fmt.Sprintf("%q", e.home)+"]\n", 1)
	e.writeConfig(base + "[sandbox]\nmode = \"required\"\n")
	// A script, so that the policy's text check (which knows ~/.zshrc) does not see the write.
	if err := os.WriteFile(filepath.Join(e.home, "plant.sh"), []byte("echo evil > \"$HOME/.zshrc\" && echo wrote\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := "term sh ./plant.sh"
	r := e.run("--headless", "--approve", "allow", "--cwd", e.home, "--prompt", prompt, "--", scriptAgent(t))
	if !strings.Contains(r.stderr, "acpterm: warning: sandbox: required layer missing: "+missing+" (every command will be refused)\n") {
		t.Errorf("required: no warning naming the root; exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "sandbox: required layer missing: "+missing) || strings.Contains(r.stdout, "wrote") {
		t.Errorf("required: the command was not refused with the reason:\n%s", r.stdout)
	}
	if _, err := os.Lstat(zshrc); !os.IsNotExist(err) {
		t.Errorf("required: %s exists (%v)", zshrc, err)
	}
	r = e.run("sandbox", "check", "--cwd", e.home)
	if b, _ := json.Marshal(missing); r.code != 1 || !strings.Contains(r.stdout, string(b)) {
		t.Errorf("sandbox check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = e.run("--headless", "--sandbox-agent", "--cwd", e.home, "--prompt", "hello", "--", scriptAgent(t))
	if want := "acpterm: sandbox: required layer missing: " + missing + " (mode required; the agent is not started)\n"; r.code != 1 || r.stderr != want {
		t.Errorf("agent: exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}

	e.writeConfig(base + "[sandbox]\nmode = \"auto\"\n")
	r = e.run("--headless", "--approve", "allow", "--cwd", e.home, "--prompt", prompt, "--", scriptAgent(t))
	if !strings.Contains(r.stderr, "acpterm: warning: sandbox: not in force: "+missing+"\n") {
		t.Errorf("auto: no warning naming the root; stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "wrote") || !strings.Contains(r.stdout, "sandbox: removed "+zshrc+", created by the sandboxed command (moved to ") {
		t.Errorf("auto: the created %s was not said removed:\n%s", zshrc, r.stdout)
	}
	if _, err := os.Lstat(zshrc); !os.IsNotExist(err) {
		t.Errorf("auto: %s is still there (%v)", zshrc, err)
	}
	// Commands do not count as confined, so a program that runs workspace code is asked
	// about whatever the allow rules say.
	e.writeConfig(strings.Replace(base, "allow = [", "allow = [\"go test\", ", 1) + "[sandbox]\nmode = \"auto\"\n")
	r = e.run("policy", "check", "--cwd", e.home, "--", "go test ./...")
	if !strings.Contains(r.stdout, "verdict:    ask\nrule:       runner: go test\n") ||
		!strings.Contains(r.stdout, " · missing home_root (commands do not run confined)\n") {
		t.Errorf("auto: policy check of go test:\n%s%s", r.stdout, r.stderr)
	}
}

// TestTUISandboxHomeRootVisible: in auto mode with a root that holds the home directory,
// the status bar says the protection is missing and a banner says which root, why and what
// to do.
func TestTUISandboxHomeRootVisible(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy]\nroots = [" + fmt.Sprintf("%q", e.root) + "]\n[sandbox]\nmode = \"auto\"\n")
	tm := startDemo(t, e)
	tm.waitMatch(regexp.MustCompile(`sandbox: landlock \d · ns · net proxy · missing home_root`))
	tm.waitFor("home_root: root " + e.root + " contains your home directory")
	quit(t, e, tm, 0)
}

// TestSandboxProjectFilesProtected: the real binary, headless, runs a sandboxed script that
// tries to change an existing .envrc and .vscode/tasks.json (both fail, nothing changes) and
// creates a missing .hg/hgrc and .idea/workspace.xml: once the terminal ended those are in
// the quarantine and the output says so.
func TestSandboxProjectFilesProtected(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\n")
	files := map[string]string{".envrc": "export A=1\n", ".vscode/tasks.json": "{}\n"}
	for f, c := range files {
		p := filepath.Join(e.project, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := "echo 'touch /tmp/pwned' >> .envrc || echo refused envrc\n" +
		"echo '{\"tasks\":[]}' > .vscode/tasks.json || echo refused tasks\n" +
		"mkdir -p .hg .idea && echo '[hooks]' > .hg/hgrc && echo '<project/>' > .idea/workspace.xml && echo planted\n"
	if err := os.WriteFile(filepath.Join(e.project, "plant.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--approve", "allow", "--cwd", e.project, "--prompt", "term sh ./plant.sh", "--", scriptAgent(t))
	for _, s := range []string{"refused envrc", "refused tasks", "planted"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the output lacks %q (exit %d):\n%s\n%s", s, r.code, r.stdout, r.stderr)
		}
	}
	for f, c := range files {
		if b, _ := os.ReadFile(filepath.Join(e.project, f)); string(b) != c {
			t.Errorf("%s changed: %q", f, b)
		}
	}
	q := filepath.Join(e.stateD, "acpterm", "quarantine")
	for _, f := range []string{".hg/hgrc", ".idea/workspace.xml"} {
		p := filepath.Join(e.project, f)
		if !strings.Contains(r.stdout, "sandbox: removed "+p+", created by the sandboxed command (moved to "+q+"/") {
			t.Errorf("the output does not say %s was removed:\n%s", p, r.stdout)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still in the project (%v)", p, err)
		}
	}
}

// TestSandboxCreatedConfigWorktreeGoneWhileRunning: the real binary, headless, runs a
// sandboxed script that creates .git/config.worktree (which the host's git would read) and
// then blocks reading a fifo. While it still blocks, the file is already gone from the
// repository (moved into the quarantine) and acpterm has said so; then the test lets the
// script finish.
func TestSandboxCreatedConfigWorktreeGoneWhileRunning(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\n")
	git := exec.Command("git", "-C", e.project, "init", "-q")
	git.Env = e.vars()
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	fifo := filepath.Join(e.root, "go.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config.worktree && echo created && read x < " + fifo +
		" && if test -e .git/config.worktree; then echo still there; else echo gone for the command too; fi\n"
	if err := os.WriteFile(filepath.Join(e.project, "plant.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--headless", "--approve", "allow", "--cwd", e.project, "--prompt", "term sh ./plant.sh", "--", scriptAgent(t))
	cmd.Env, cmd.Dir = e.vars(), e.project
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	worktree := filepath.Join(e.project, ".git", "config.worktree")
	notice := "sandbox: removed " + worktree + ", created by the sandboxed command (moved to " + filepath.Join(e.stateD, "acpterm", "quarantine") + "/"
	var seen []string
	timeout := time.After(waitTimeout)
	for !slices.ContainsFunc(seen, func(l string) bool { return strings.Contains(l, notice) }) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("acpterm ended before saying the file was removed:\n%s\n%s", strings.Join(seen, "\n"), stderr.String())
			}
			seen = append(seen, l)
		case <-timeout:
			t.Fatalf("no notice while the command runs:\n%s", strings.Join(seen, "\n"))
		}
	}
	// The command still blocks on the fifo: nobody has opened it for writing yet.
	if _, err := os.Lstat(worktree); !os.IsNotExist(err) {
		t.Errorf("%s still exists while the command runs (%v)", worktree, err)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("go\n")
	f.Close()
	for l := range lines {
		seen = append(seen, l)
	}
	_ = cmd.Wait()
	all := strings.Join(seen, "\n")
	if !strings.Contains(all, "gone for the command too") || strings.Count(all, notice) != 1 {
		t.Errorf("output after the command ended:\n%s", all)
	}
	if i, j := strings.Index(all, notice), strings.Index(all, "gone for the command too"); i > j {
		t.Errorf("the notice came after the command's end:\n%s", all)
	}
}

// TestSandboxedAgentCreatedFileGoneWhileRunning: a sandboxed agent's own process creates
// .git/config.worktree; the agent's next prompt, in the same session, waits (at most 5 s) for
// it to be gone and finds it gone: it was moved into the quarantine while the agent still
// runs, and acpterm said so then, once.
func TestSandboxedAgentCreatedFileGoneWhileRunning(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\n")
	git := exec.Command("git", "-C", e.project, "init", "-q")
	git.Env = e.vars()
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	r := e.run("--headless", "--sandbox-agent", "--approve", "allow", "--cwd", e.project,
		"--prompt", "self printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config.worktree",
		"--prompt", "self i=0; while test -e .git/config.worktree && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; test ! -e .git/config.worktree",
		"--", scriptAgent(t))
	worktree := filepath.Join(e.project, ".git", "config.worktree")
	notice := "sandbox: removed " + worktree + ", created by the sandboxed command (moved to " + filepath.Join(e.stateD, "acpterm", "quarantine") + "/"
	if strings.Count(r.stdout, "self exit 0") != 2 || strings.Count(r.stdout, notice) != 1 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Index(r.stdout, notice) > strings.LastIndex(r.stdout, "self exit 0") {
		t.Errorf("the notice came only after the agent's second command:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, notice) || !strings.Contains(r.stdout, ") (by the sandboxed agent)") {
		t.Errorf("the notice does not say the agent made it:\n%s", r.stdout)
	}
}
