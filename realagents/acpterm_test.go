package realagents

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce  sync.Once
	acptermBin string
	buildErr   error
)

// acpterm builds the acpterm binary from the repository once per package run.
func acpterm(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		acptermBin = filepath.Join(workDir, "acpterm")
		cmd := exec.Command("go", "build", "-o", acptermBin, ".")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build acpterm: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return acptermBin
}

// policyOpts is the per-test acpterm config.
type policyOpts struct {
	Allow     []string // [policy.commands] allow
	Deny      []string
	Unmatched string // default "ask"
	FSWrite   string // default "ask"
	Mode      string // [agent] mode; "" leaves acpterm's default (the asking mode)
	// SandboxAgent runs the agent itself in the sandbox ([sandbox] mode = "required",
	// agent = true) with network = "on": the agent reaches its mock model API and acpterm's
	// MCP server on the loopback directly (through the proxy is the network tests' concern).
	SandboxAgent bool
	Roots        []string // [policy] roots besides the session cwd
}

// writeConfig writes an acpterm config confined to the session cwd and returns its path.
func (r *run) writeConfig(p policyOpts) string {
	r.t.Helper()
	if p.Unmatched == "" {
		p.Unmatched = "ask"
	}
	if p.FSWrite == "" {
		p.FSWrite = "ask"
	}
	q := func(list []string) string {
		var s []string
		for _, x := range list {
			s = append(s, fmt.Sprintf("%q", x))
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	cfg := ""
	if p.Mode != "" {
		cfg = fmt.Sprintf("[agent]\nmode = %q\n\n", p.Mode)
	}
	cfg += fmt.Sprintf(`[policy]
roots = %s
unmatched = %q

[policy.commands]
allow = %s
deny = %s

[policy.fs]
read = "allow"
write = %q
`, q(append([]string{r.cwd}, p.Roots...)), p.Unmatched, q(p.Allow), q(p.Deny), p.FSWrite)
	if p.SandboxAgent {
		cfg += "\n[sandbox]\nmode = \"required\"\nagent = true\nnetwork = \"on\"\n"
	}
	path := filepath.Join(r.dir, "acpterm.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// acptermArgs is the acpterm command line for this run (everything before the prompts).
func (r *run) acptermArgs(config string) []string {
	return append([]string{"--cwd", r.cwd, "--config", config,
		"--log", filepath.Join(r.dir, "acpterm.log"), "--audit-log", filepath.Join(r.dir, "audit.jsonl"),
		"--trace", filepath.Join(r.dir, "trace.jsonl")}, r.extraArgs...)
}

// headlessResult is one finished `acpterm --headless` run.
type headlessResult struct {
	Out   string // stdout: the transcript
	Err   string // stderr
	Code  int
	Lines []string
}

func (h headlessResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", h.Code, h.Out, h.Err)
}

// has reports whether some transcript line matches the regexp.
func (h headlessResult) has(re string) bool {
	return h.index(re) >= 0
}

// index is the first transcript line matching re, or -1.
func (h headlessResult) index(re string) int {
	rx := regexp.MustCompile(re)
	for i, l := range h.Lines {
		if rx.MatchString(l) {
			return i
		}
	}
	return -1
}

// headless runs `acpterm --headless --approve approve --prompt P... -- AGENT` in
// the sandbox and waits for it to exit (SIGTERM, then SIGKILL, after timeout).
func (r *run) headless(t *testing.T, config, approve string, prompts ...string) headlessResult {
	t.Helper()
	args := append([]string{"--headless", "--approve", approve}, r.acptermArgs(config)...)
	for _, p := range prompts {
		args = append(args, "--prompt", p)
	}
	args = append(args, "--")
	args = append(args, agentArgv(r.agent)...)
	cmd := exec.Command(acpterm(t), args...)
	cmd.Dir = r.cwd
	cmd.Env = r.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timeout := startTimeout + time.Duration(len(prompts))*turnTimeout
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			err = <-done
		}
		t.Errorf("acpterm did not finish within %v (stopped it)", timeout)
	}
	res := headlessResult{Out: stdout.String(), Err: stderr.String(), Code: 0}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	res.Lines = strings.Split(res.Out, "\n")
	if testing.Verbose() {
		t.Logf("acpterm --headless: %s", res)
	}
	return res
}

// terminalIDs returns the ids of the "[terminal ID] started…" lines.
func (h headlessResult) terminalIDs() []string {
	rx := regexp.MustCompile(`^\[terminal (\S+)\] started`)
	var ids []string
	for _, l := range h.Lines {
		if m := rx.FindStringSubmatch(l); m != nil {
			ids = append(ids, m[1])
		}
	}
	return ids
}
