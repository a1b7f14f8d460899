package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/internal/proctree"
)

// Tests that run the real acpterm binary headless against each real agent.

// expectLines fails the test for every regexp no transcript line matches.
func expectLines(t *testing.T, h headlessResult, res ...string) {
	t.Helper()
	for _, re := range res {
		if !h.has(re) {
			t.Errorf("no transcript line matches %q", re)
		}
	}
	if t.Failed() {
		t.Logf("acpterm run: %s", h)
	}
}

func noLines(t *testing.T, h headlessResult, res ...string) {
	t.Helper()
	for _, re := range res {
		if i := h.index(re); i >= 0 {
			t.Errorf("transcript line %q matches %q, want none", h.Lines[i], re)
		}
	}
}

func TestHeadlessClaudeLegacyCommand(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	if err := os.WriteFile(filepath.Join(r.cwd, "existing-file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// echo and ls are read-only: the policy answers the agent's permission request.
	h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "run the command")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		"^"+regexp.QuoteMeta("[permission] execute \"`echo hello-from-agent && ls`\" → allow (policy: allow: echo)")+"$",
		`^\[terminal \S+\] started: echo hello-from-agent && ls$`,
		`^\[terminal \S+\] exit 0$`,
		`^  \| hello-from-agent$`,
		`^  \| existing-file\.txt$`,
		`^\[stop\] end_turn$`,
	)
	// terminal/output gave the agent the command's output, which it sent to the model.
	if !toolResultsContain(r.mock, "hello-from-agent") || !toolResultsContain(r.mock, "existing-file.txt") {
		t.Errorf("the model never got the command output; requests %+v", r.mock.Requests())
	}
}

func TestHeadlessClaudeLegacyAskAllow(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	// touch is covered by no rule: the policy asks and the headless user allows;
	// the approval also covers the terminal/create of the same command.
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "touch a file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		`^\[permission\] execute .*→ allow \(--approve allow`,
		`^\[terminal \S+\] started: touch created-by-agent\.txt && echo hello-from-agent && ls$`,
		`^\[terminal \S+\] exit 0$`,
		`^  \| hello-from-agent$`,
		`^\[stop\] end_turn$`,
	)
	if _, err := os.Stat(filepath.Join(r.cwd, "created-by-agent.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if n := len(h.terminalIDs()); n != 1 {
		t.Errorf("%d terminals started, want 1", n)
	}
}

func TestHeadlessClaudeLegacyWrite(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "write a file", "escape the project")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	hello := filepath.Join(r.cwd, "hello.txt")
	expectLines(t, h,
		`^\[write\] `+regexp.QuoteMeta(hello)+` \(created, 33 bytes\)$`,
		`^\[write\] `+regexp.QuoteMeta(hello)+` \(modified, 42 bytes\)$`,
		`^\[stop\] end_turn$`,
	)
	b, err := os.ReadFile(hello)
	if want := "hello from the mock model\nline 2 (edited)\n"; err != nil || string(b) != want {
		t.Errorf("hello.txt = %q (%v), want %q", b, err, want)
	}
	// The write outside the roots is refused: no file, and the agent's tool failed.
	if _, err := os.Stat(filepath.Join(r.dir, "outside.txt")); err == nil {
		t.Errorf("a write outside the roots happened")
	}
	noLines(t, h, `^\[write\] .*outside\.txt`)
}

func TestHeadlessClaudeLegacyDeny(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	h := r.headless(t, r.writeConfig(policyOpts{}), "deny", "touch a file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^\[permission\] .* → reject`, `^\[stop\] end_turn$`)
	noLines(t, h, `^\[terminal `)
	if _, err := os.Stat(filepath.Join(r.cwd, "created-by-agent.txt")); err == nil {
		t.Errorf("the denied command ran")
	}
}

func TestHeadlessClaudeLegacyTimeout(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "timeout please", "check the sleeper")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	ids := h.terminalIDs()
	if len(ids) != 2 {
		t.Fatalf("terminals %q, want 2 (the sleeper and the check)\n%s", ids, h)
	}
	// The sleeper ended by a signal (the agent's release) inside the first turn.
	killed := h.index(`^\[terminal ` + regexp.QuoteMeta(ids[0]) + `\] SIG(TERM|KILL|HUP)$`)
	firstStop := h.index(`^\[stop\] end_turn$`)
	if killed < 0 || firstStop < 0 || killed > firstStop {
		t.Errorf("the timed-out terminal did not end by a signal before the turn ended (lines %d, %d)\n%s", killed, firstStop, h)
	}
	// The second turn's `kill -0 PID` check says nothing here: each command runs in a PID
	// namespace of its own, where the sleeper's pid may name another process. It must have run.
	if !toolResultsContain(r.mock, "sleeper-alive") && !toolResultsContain(r.mock, "sleeper-gone") {
		t.Errorf("the check command did not run; requests %+v", r.mock.Requests())
	}
	if _, err := os.Stat(filepath.Join(r.cwd, "sleeper.pid")); err != nil {
		t.Fatal(err)
	}
	// The pid in sleeper.pid is the one the command saw, inside its sandbox's PID namespace;
	// on the host, look for the sleeper itself: `sleep 300` in this run's cwd.
	for _, pid := range proctree.Pids() {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
		if string(cmdline) == "sleep\x00300\x00" && cwd == r.cwd {
			t.Errorf("the timed-out command (host pid %d) is still running", pid)
		}
	}
}

// agentOwned describes an agent that runs commands itself (claude 0.23.1, codex).
type agentOwned struct {
	agent    string
	created  string // the file the touch scenario creates
	allowID  string // its allow_once option id
	rejectID string // its reject_once option id
	denyStop string // stop reason after a rejected command (codex aborts the turn)
	tail     bool   // the command output reaches the pane (codex loses the first chunk)
}

var (
	claudeNewOwned = agentOwned{claudeNew, "created-by-agent.txt", "allow", "reject", "end_turn", true}
	codexOwned     = agentOwned{codex, "created-by-codex.txt", "approved", "abort", "cancelled", false}
)

// testHeadlessAgentOwned: claude 0.23.1 and codex run commands themselves; acpterm
// shows them as agent-owned terminals and answers their permission requests
// by option kind: by policy when a rule decides, else by the (headless) user.
func testHeadlessAgentOwned(t *testing.T, a agentOwned) {
	t.Run("user", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, a.agent)
		// No rule covers touch: the policy asks, and the headless user allows.
		h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "touch a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h,
			`^\[permission\] execute ".*touch created-by.*" → `+a.allowID+` \(--approve allow`,
			`^\[terminal \S+\] started \(agent-owned\): `,
			`^\[terminal \S+\] exit 0$`,
			`^\[stop\] end_turn$`,
		)
		if a.tail {
			expectLines(t, h, `^  \| hello-from-agent$`, `^  \| `+regexp.QuoteMeta(a.created)+`$`)
		}
		if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err != nil {
			t.Errorf("the allowed command did not run: %v", err)
		}
		if !toolResultsContain(r.mock, "hello-from-agent") {
			t.Errorf("the command's output never reached the model; requests %+v", r.mock.Requests())
		}
	})
	t.Run("policy", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, a.agent)
		// The policy allows every word of the command: acpterm answers the agent
		// itself, although the headless user would deny.
		h := r.headless(t, r.writeConfig(policyOpts{Allow: []string{"touch", "echo", "ls"}}), "deny", "touch a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h, "^"+regexp.QuoteMeta(`[permission] execute "touch `+a.created+` && echo hello-from-agent && ls" → `+a.allowID+` (policy: allow: touch)`)+"$",
			`^\[stop\] end_turn$`)
		noLines(t, h, `\(--approve`)
		if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err != nil {
			t.Errorf("the policy-allowed command did not run: %v", err)
		}
	})
	t.Run("deny", func(t *testing.T) {
		t.Parallel()
		r := newRun(t, a.agent)
		// A deny rule wins over the headless user's allow.
		h := r.headless(t, r.writeConfig(policyOpts{Deny: []string{"touch"}}), "allow", "touch a file")
		if h.Code != 0 {
			t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
		}
		expectLines(t, h,
			"^"+regexp.QuoteMeta(`[permission] execute "touch `+a.created+` && echo hello-from-agent && ls" → `+a.rejectID+` (policy: deny: touch)`)+"$",
			`^\[notice\] warn: refused .*matches deny rule "touch"$`,
			`^\[stop\] `+a.denyStop+`$`,
		)
		noLines(t, h, `\(--approve`)
		if _, err := os.Stat(filepath.Join(r.cwd, a.created)); err == nil {
			t.Errorf("the policy-denied command ran")
		}
	})
}

func TestHeadlessClaudeNew(t *testing.T) { testHeadlessAgentOwned(t, claudeNewOwned) }
func TestHeadlessCodex(t *testing.T)     { testHeadlessAgentOwned(t, codexOwned) }

func TestHeadlessClaudeNewWrite(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeNew)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "write a file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^\[permission\] edit .* → allow`, `^\[stop\] end_turn$`)
	b, err := os.ReadFile(filepath.Join(r.cwd, "hello.txt"))
	if want := "hello from the mock model\nline 2 (edited)\n"; err != nil || string(b) != want {
		t.Errorf("hello.txt = %q (%v), want %q\n%s", b, err, want, h)
	}
}

func TestHeadlessCodexWrite(t *testing.T) {
	t.Parallel()
	r := newRun(t, codex)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "write a file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h, `^\[permission\] edit ".*hello\.txt" → approved \(--approve allow: fs\.write\)$`, `^\[stop\] end_turn$`)
	b, err := os.ReadFile(filepath.Join(r.cwd, "hello.txt"))
	if want := "hello from the mock model\n"; err != nil || string(b) != want {
		t.Errorf("hello.txt = %q (%v), want %q\n%s", b, err, want, h)
	}
}

func testHeadlessExample(t *testing.T, agent string) {
	t.Parallel()
	r := newRun(t, agent)
	// The example agents ask to edit /home/user/project/config.json, outside the
	// roots: the policy rejects it although the headless user would allow, the
	// agent gets the reject option and says so, and the turn ends normally.
	h := r.headless(t, r.writeConfig(policyOpts{FSWrite: "allow"}), "allow", "hello")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		`^\[tool\] edit "Modifying critical configuration file" \(pending\)$`,
		`^\[permission\] edit "Modifying critical configuration file" → reject \(policy: outside roots\)$`,
		regexp.QuoteMeta("I understand you prefer not to make that change"),
		`^\[stop\] end_turn$`,
	)
	noLines(t, h, regexp.QuoteMeta("I've successfully updated the configuration"))
}

func TestHeadlessSDKExample(t *testing.T) { testHeadlessExample(t, sdkExample) }
func TestHeadlessGoExample(t *testing.T)  { testHeadlessExample(t, goExample) }

// TestHeadlessRelativeAgentPath: `acpterm --cwd DIR -- ./agent` starts the agent
// named relative to acpterm's own directory, not to the session cwd.
func TestHeadlessRelativeAgentPath(t *testing.T) {
	t.Parallel()
	r := newRun(t, goExample)
	bin := filepath.Join(r.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(goExampleBin, filepath.Join(bin, "agent")); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--prompt", "hello"}, r.acptermArgs(r.writeConfig(policyOpts{}))...)
	args = append(args, "--", "./agent")
	cmd := exec.Command(acpterm(t), args...)
	cmd.Dir = bin
	cmd.Env = r.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("acpterm -- ./agent (from %s, --cwd %s): %v\n%s", bin, r.cwd, err, out)
	}
	if !strings.Contains(string(out), "[stop] end_turn") {
		t.Errorf("no [stop] end_turn in:\n%s", out)
	}
}

// TestHeadlessCodexLong: codex may leave a long command's tool call open (no
// completing update); acpterm closes it when the turn ends, and the output that
// did stream reached the agent-owned terminal.
func TestHeadlessCodexLong(t *testing.T) {
	t.Parallel()
	r := newRun(t, codex)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "run something long")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	expectLines(t, h,
		`^\[terminal \S+\] started \(agent-owned\): .*for i in 1 2 3 4 5`,
		`^\[stop\] end_turn$`,
	)
	// codex-acp 0.16.0 streams this command's output through _meta.terminal_output on most runs
	// but sometimes sends nothing at all after in_progress (docs/real-agents.md); what did arrive
	// must be the command's own lines, in order. Live streaming is shown by TestTUICodexLive.
	tickRx := regexp.MustCompile(`^  \| tick (\d)$`)
	prev := 0
	for _, l := range h.Lines {
		if m := tickRx.FindStringSubmatch(l); m != nil {
			n := int(m[1][0] - '0')
			if n <= prev {
				t.Errorf("tick %d after tick %d\n%s", n, prev, h)
			}
			prev = n
		}
	}
	if prev == 0 {
		t.Logf("codex streamed no output for the long command this run")
	}
	// The last status printed for the command's tool call is a final one.
	rx := regexp.MustCompile(`^\[tool\] execute ".*tick.*" \((\w+)\)$`)
	last := ""
	for _, l := range h.Lines {
		if m := rx.FindStringSubmatch(l); m != nil {
			last = m[1]
		}
	}
	if last == "" || last == "pending" || last == "in_progress" {
		t.Errorf("the command's tool call ended the session %q, want a final status\n%s", last, h)
	}
}

// TestHeadlessClaudeLegacyBackground: a background command whose output the
// agent waits for with a timeout. claude 0.17.1 then sends a second,
// concurrent terminal/wait_for_exit, terminal/kill, terminal/output and often
// two terminal/release calls for the same id: acpterm must end the process,
// answer every waiter and treat the repeated release as done, so the agent's
// tools succeed and the turn ends normally.
func TestHeadlessClaudeLegacyBackground(t *testing.T) {
	t.Parallel()
	r := newRun(t, claudeLegacy)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "run it in the background")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	ids := h.terminalIDs()
	if len(ids) != 1 {
		t.Fatalf("terminals %q, want 1\n%s", ids, h)
	}
	expectLines(t, h,
		`^\[terminal `+regexp.QuoteMeta(ids[0])+`\] started: echo bg-started; exec sleep 300$`,
		`^\[terminal `+regexp.QuoteMeta(ids[0])+`\] SIG(TERM|KILL)$`,
		`^  \| bg-started$`,
		`^Background command handled\.$`,
		`^\[stop\] end_turn$`,
	)
	noLines(t, h, `^\[error\]`, `^\[agent\]`)
	var results []string
	for _, q := range r.mock.Requests() {
		results = append(results, q.ToolResults...)
	}
	if !contains(results, "in background with id: "+ids[0]) {
		t.Errorf("the agent did not report the background id %s; tool results %q", ids[0], results)
	}
	if !contains(results, "bg-started") || contains(results, "failed") {
		t.Errorf("waiting for the background output did not succeed cleanly; tool results %q", results)
	}
}

// An empty file written through acpterm (fs/write_text_file with content ""), which the SDK's
// own request check rejects: claude-agent-acp 0.17.1's Write and gemini-cli's write_file both
// create the file, 0 bytes, asked and allowed.
func testHeadlessEmptyWrite(t *testing.T, agent string) {
	t.Parallel()
	r := newRun(t, agent)
	h := r.headless(t, r.writeConfig(policyOpts{}), "allow", "create an empty file")
	if h.Code != 0 {
		t.Fatalf("acpterm exited %d, want 0\n%s", h.Code, h)
	}
	path := filepath.Join(r.cwd, "empty.txt")
	expectLines(t, h, `^\[permission\] edit ".*empty\.txt" → \S+ \(--approve allow: fs\.write\)$`,
		`^\[write\] `+regexp.QuoteMeta(path)+` \(created, 0 bytes\)$`, `^Empty file written\.$`, `^\[stop\] end_turn$`)
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("empty.txt: %v, %v", fi, err)
	}
}

func TestHeadlessClaudeLegacyEmptyWrite(t *testing.T) { testHeadlessEmptyWrite(t, claudeLegacy) }
func TestHeadlessGeminiEmptyWrite(t *testing.T)       { testHeadlessEmptyWrite(t, gemini) }
