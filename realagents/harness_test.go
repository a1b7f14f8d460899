package realagents

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The pinned agents. install-agents.sh puts the npm ones in agentsDir(); the Go
// SDK's example agent is built from the module cache into a temp dir.
const (
	claudeLegacy = "claude-legacy" // @zed-industries/claude-agent-acp 0.17.1: client terminals and fs
	claudeNew    = "claude"        // @zed-industries/claude-agent-acp 0.23.1: runs commands itself
	codex        = "codex"         // @zed-industries/codex-acp 0.16.0
	sdkExample   = "sdk-example"   // example agent of @agentclientprotocol/sdk 0.17.0
	goExample    = "go-example"    // example agent of github.com/coder/acp-go-sdk v0.13.5

	claudeCurrent = "claude-current" // @agentclientprotocol/claude-agent-acp 0.101.0
	codexCurrent  = "codex-current"  // @agentclientprotocol/codex-acp 2.6.0 (codex 0.166)
	gemini        = "gemini"         // @google/gemini-cli 0.61.0 (gemini --acp)
	opencode      = "opencode"       // opencode-ai 1.18.33 (opencode acp)
)

// Generous per-step timeouts: the Claude agents take ~2 s to start, more under load.
const (
	startTimeout = 60 * time.Second
	turnTimeout  = 90 * time.Second
)

var (
	setupOnce    sync.Once
	setupErr     error // install failed although node/npm exist: tests fail
	nodeSkip     string
	goExampleBin string // path of the built Go example agent
	repoRoot     string
	workDir      string // temp dir for binaries built once per package run
)

func agentsDir() string {
	if d := os.Getenv("ACPT_AGENTS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "acpterm-agents")
}

// setup installs the pinned agents (when node and npm exist) and builds the
// Go example agent. It runs once per package run.
func setup() {
	setupOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			setupErr = err
			return
		}
		repoRoot = filepath.Dir(wd)
		workDir, err = os.MkdirTemp("", "acpterm-realagents-bin-")
		if err != nil {
			setupErr = err
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(workDir, "go-example-agent"),
			"github.com/coder/acp-go-sdk/example/agent").CombinedOutput()
		if err != nil {
			setupErr = fmt.Errorf("building the acp-go-sdk example agent: %v\n%s", err, out)
			return
		}
		goExampleBin = filepath.Join(workDir, "go-example-agent")
		_, nodeErr := exec.LookPath("node")
		_, npmErr := exec.LookPath("npm")
		if nodeErr != nil || npmErr != nil {
			nodeSkip = "node and npm are needed for the npm agents (install Node.js >= 18; .ci/run does)"
			return
		}
		cmd := exec.Command(filepath.Join(repoRoot, "scripts", "install-agents.sh"))
		cmd.Env = append(os.Environ(), "ACPT_AGENTS_DIR="+agentsDir())
		out, err = cmd.CombinedOutput()
		if err != nil {
			setupErr = fmt.Errorf("scripts/install-agents.sh failed although node and npm exist: %v\n%s", err, out)
		}
	})
}

func teardown() {
	if workDir != "" {
		_ = os.RemoveAll(workDir)
	}
}

// requireAgent skips when the agent needs node/npm and they are absent, and
// fails when the install failed.
func requireAgent(t *testing.T, agent string) {
	t.Helper()
	setup()
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	if agent != goExample && nodeSkip != "" {
		t.Skip(nodeSkip)
	}
}

func codexPlatform() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return runtime.GOOS + "-" + arch
}

// agentArgv is the command line that starts an agent.
func agentArgv(agent string) []string {
	nm := func(a string) string { return filepath.Join(agentsDir(), a, "node_modules") }
	switch agent {
	case claudeLegacy, claudeNew:
		return []string{"node", filepath.Join(nm(agent), "@zed-industries", "claude-agent-acp", "dist", "index.js")}
	case codex:
		// the native binary: the npm shim in .bin does not forward signals
		return []string{filepath.Join(nm(codex), "@zed-industries", "codex-acp-"+codexPlatform(), "bin", "codex-acp")}
	case sdkExample:
		return []string{"node", filepath.Join(nm(claudeNew), "@agentclientprotocol", "sdk", "dist", "examples", "agent.js")}
	case claudeCurrent:
		return []string{"node", filepath.Join(nm(agent), "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")}
	case codexCurrent:
		return []string{"node", filepath.Join(nm(agent), "@agentclientprotocol", "codex-acp", "dist", "index.js")}
	case gemini:
		return []string{"node", filepath.Join(nm(agent), "@google", "gemini-cli", "bundle", "gemini.js"), "--acp"}
	case opencode:
		// the native binary: the npm shim would be one more process in between
		return []string{filepath.Join(nm(agent), "opencode-"+codexPlatform(), "bin", "opencode"), "acp"}
	case goExample:
		return []string{goExampleBin}
	}
	panic("unknown agent " + agent)
}

// run is one test's sandbox: a private dir holding HOME, TMPDIR and the
// session cwd, and the mock model the agent talks to.
type run struct {
	t     *testing.T
	agent string
	dir   string // per-test dir; every process we start mentions it (env, cwd)
	cwd   string // session cwd (dir/work)
	home  string
	mock  *mockLLM // nil for the SDK example agents
	// extraArgs are more acpterm flags for the next runs (--resume ID, --answer K=V …).
	extraArgs []string
	// extraEnv are more variables for the processes we spawn; they win over env()'s own.
	extraEnv []string
}

// newRun prepares a sandbox for agent, starts its mock (if it uses a model)
// and registers a cleanup that checks no process mentioning the dir survives.
func newRun(t *testing.T, agent string) *run {
	t.Helper()
	requireAgent(t, agent)
	dir, err := os.MkdirTemp("", "acpt-ra-")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	r := &run{t: t, agent: agent, dir: dir, cwd: filepath.Join(dir, "work"), home: filepath.Join(dir, "home")}
	for _, d := range []string{r.cwd, r.home, filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	switch agent {
	case claudeLegacy, claudeNew, claudeCurrent:
		sc, err := loadScript("claude.json")
		if err != nil {
			t.Fatal(err)
		}
		r.mock = newAnthropicMock(sc, r.cwd)
	case codex:
		sc, err := loadScript("codex.json")
		if err != nil {
			t.Fatal(err)
		}
		r.mock = newOpenAIMock(sc, r.cwd)
		// danger-full-access: codex's read-only sandbox needs bubblewrap and user
		// namespaces, which CI containers lack; approvals still come from
		// approval_policy "untrusted" (only known-safe commands run unasked).
		if err := r.writeCodexConfig("gpt-5.3-codex", "untrusted", "danger-full-access"); err != nil {
			t.Fatal(err)
		}
	case codexCurrent:
		sc, err := loadScript("codex_current.json")
		if err != nil {
			t.Fatal(err)
		}
		r.mock = newOpenAIMock(sc, r.cwd)
		// The kit's configuration: codex-acp 2.6 refuses "untrusted"; the session mode decides
		// the sandbox and whether the client is asked.
		if err := r.writeCodexConfig("gpt-5.5", "on-request", "read-only"); err != nil {
			t.Fatal(err)
		}
	case gemini:
		sc, err := loadScript("gemini.json")
		if err != nil {
			t.Fatal(err)
		}
		r.mock = newGeminiMock(sc, r.cwd)
	case opencode:
		sc, err := loadScript("opencode.json")
		if err != nil {
			t.Fatal(err)
		}
		r.mock = newChatMock(sc, r.cwd)
		if err := r.writeOpencodeConfig(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if r.mock != nil {
			if errs := r.mock.Errors(); len(errs) > 0 {
				t.Errorf("mock model saw protocol problems: %q", errs)
			}
		}
		if left := waitNoProcesses(dir, 10*time.Second); len(left) > 0 {
			t.Errorf("processes left behind after the run (killed now):\n%s", strings.Join(left, "\n"))
			killProcesses(dir)
		}
		if r.mock != nil {
			r.mock.Close()
		}
		if t.Failed() {
			t.Logf("run dir kept for inspection: %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return r
}

// writeOpencodeConfig writes opencode's user config: a custom OpenAI-compatible provider
// ("mock") whose one model is the default, at the mock's chat-completions API. Nothing about
// permissions: opencode's own defaults apply.
func (r *run) writeOpencodeConfig() error {
	dir := filepath.Join(r.home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`{"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
 "model": "mock/mock-model", "small_model": "mock/mock-model",
 "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
  "options": {"baseURL": "%s/v1", "apiKey": "sk-mock"},
  "models": {"mock-model": {"name": "Mock Model", "tool_call": true}, "mock-large": {"name": "Mock Large", "tool_call": true}}}}}
`, r.mock.URL())
	return os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(cfg), 0o644)
}

// writeCodexConfig writes CODEX_HOME/config.toml pointing codex at the mock.
func (r *run) writeCodexConfig(model, approval, sandbox string) error {
	ch := filepath.Join(r.dir, "codex-home")
	if err := os.MkdirAll(ch, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`model = %q
model_provider = "mock"
approval_policy = %q
sandbox_mode = %q

[model_providers.mock]
name = "Mock Responses API"
base_url = "%s/v1"
env_key = "MOCK_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000
`, model, approval, sandbox, r.mock.URL())
	return os.WriteFile(filepath.Join(ch, "config.toml"), []byte(cfg), 0o644)
}

// clearedEnv are variables that could send model traffic elsewhere or change
// how the agents behave (IS_SANDBOX makes claude-agent-acp pass a flag Claude
// Code refuses as root).
var clearedEnv = []string{"IS_SANDBOX", "OPENCODE_", "ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "AZURE_OPENAI",
	"AWS_", "GOOGLE_", "VERTEX", "GEMINI_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
	"https_proxy", "all_proxy", "NO_PROXY", "no_proxy", "XDG_", "HOME=", "TMPDIR=", "ACPT_", "MOCK_"}

// env is the environment for the process we spawn (the agent, or acpterm which
// passes it on to the agent).
func (r *run) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		drop := false
		for _, p := range clearedEnv {
			if strings.HasPrefix(kv, p) {
				drop = true
				break
			}
		}
		if !drop {
			env = append(env, kv)
		}
	}
	tmp := filepath.Join(r.dir, "tmp")
	env = append(env,
		"HOME="+r.home, "TMPDIR="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(r.home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(r.home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(r.home, ".local", "state"),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		"ACPT_AGENTS_DIR="+agentsDir(),
	)
	switch r.agent {
	case claudeLegacy, claudeNew, claudeCurrent:
		env = append(env, "CLAUDE_CONFIG_DIR="+filepath.Join(r.home, ".claude"), "CLAUDE_CODE_TMPDIR="+tmp,
			"ANTHROPIC_BASE_URL="+r.mock.URL(), "ANTHROPIC_API_KEY=sk-ant-mock-key")
	case codex, codexCurrent:
		env = append(env, "CODEX_HOME="+filepath.Join(r.dir, "codex-home"), "MOCK_OPENAI_KEY=sk-mock")
	case gemini:
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+r.mock.URL(), "GEMINI_API_KEY=mock-key")
	case opencode:
		env = append(env, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1")
	}
	return append(env, r.extraEnv...) // os/exec keeps the last value of a repeated name
}

// processesMentioning lists live processes (not zombies, not this test process)
// whose command line, cwd or environment mentions dir, as "PID cmdline".
func processesMentioning(dir string) (out []string, pids []int) {
	needle := []byte(dir)
	return scanProcesses(func(cmdline, environ []byte, cwd string) bool {
		return bytes.Contains(cmdline, needle) || bytes.Contains(environ, needle) ||
			cwd == dir || strings.HasPrefix(cwd, dir+"/")
	})
}

// loopsIn lists live processes running in dir (their cwd) whose command line
// contains word.
func loopsIn(dir, word string) []string {
	out, _ := scanProcesses(func(cmdline, _ []byte, cwd string) bool {
		return (cwd == dir || strings.HasPrefix(cwd, dir+"/")) && bytes.Contains(cmdline, []byte(word))
	})
	return out
}

func scanProcesses(match func(cmdline, environ []byte, cwd string) bool) (out []string, pids []int) {
	ents, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		p := filepath.Join("/proc", e.Name())
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		environ, _ := os.ReadFile(filepath.Join(p, "environ"))
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		if match(cmdline, environ, cwd) {
			out = append(out, fmt.Sprintf("%d %s (cwd %s)", pid, strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "), cwd))
			pids = append(pids, pid)
		}
	}
	return out, pids
}

// waitNoProcesses polls until no process mentions dir or the timeout passes
// (processes being killed take a moment to be reaped); it returns the survivors.
func waitNoProcesses(dir string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		left, _ := processesMentioning(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func killProcesses(dir string) {
	_, pids := processesMentioning(dir)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitFor polls cond until it holds or timeout passes. It is used where the
// condition is outside this process (files, /proc); in-process events use channels.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
