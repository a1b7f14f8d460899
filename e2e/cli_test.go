package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCLIVersionAndHelp(t *testing.T) {
	e := newEnv(t)
	r := e.run("--version")
	if r.code != 0 || !regexp.MustCompile(`^acpterm \S+\n$`).MatchString(r.stdout) || r.stderr != "" {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = e.run("--help")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "acpterm runs an AI coding agent") ||
		!strings.Contains(r.stdout, "  --approve MODE    headless answer") || !strings.Contains(r.stdout, "acpterm audit verify [FILE]") {
		t.Fatalf("--help: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestCLIUsageAndConfigErrorsExit2(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--frobnicate"}, "acpterm: flag provided but not defined: -frobnicate\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--approve", "sometimes", "--", "x"}, "acpterm: --approve must be deny or allow, not \"sometimes\"\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--cwd", e.project}, "acpterm: no agent: name one after \"--\" (acpterm -- AGENT [ARGS...]), set [agent] command in " + filepath.Join(e.configD, "acpterm", "config.toml") + ", or try --demo\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--cwd", filepath.Join(e.root, "nope"), "--demo"}, "acpterm: --cwd \"" + filepath.Join(e.root, "nope") + "\" does not exist\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--headless", "--cwd", e.project, "--", "agent"}, "acpterm: --headless needs at least one --prompt\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--demo", "--cwd", e.project}, "acpterm: the interactive mode needs a terminal on stdin and stdout; use --headless with --prompt for scripts\nRun 'acpterm --help' for usage.\n"},
	} {
		r := e.run(c.args...)
		if r.code != 2 || r.stderr != c.stderr || r.stdout != "" {
			t.Errorf("acpterm %q: exit %d\nstderr %q\nwant 2, %q", c.args, r.code, r.stderr, c.stderr)
		}
	}
	// A config error names the file and line, and nothing starts.
	cfg := e.writeConfig("[policy]\nunmatched = \"sometimes\"\n")
	r := e.run("--headless", "--demo", "--cwd", e.project, "--prompt", "echo hi")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "acpterm: config: "+cfg+":2:") || !strings.Contains(r.stderr, "unmatched") {
		t.Fatalf("bad config: exit %d, stderr %q", r.code, r.stderr)
	}
	if len(e.leftovers(t)) != 0 {
		t.Fatalf("processes left: %+v", e.leftovers(t))
	}
}

// decision is the subset of `policy check` JSON the tests read.
type decision struct {
	Verdict    string   `json:"verdict"`
	Rule       string   `json:"rule"`
	Reason     string   `json:"reason"`
	Constructs []string `json:"constructs"`
	Argv       []string `json:"argv"`
	Cwd        string   `json:"cwd"`
	Leaves     []struct {
		Argv    []string `json:"argv"`
		Verdict string   `json:"verdict"`
		Rule    string   `json:"rule"`
	} `json:"leaves"`
}

func TestPolicyCheck(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.root, "policy.toml")
	if err := os.WriteFile(cfg, []byte("[policy.commands]\nallow = [\"go test\"]\nask = [\"git push\"]\ndeny = [\"rm\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same rules without the sandbox: workspace-code runners are asked whatever the rules.
	unconfined := filepath.Join(e.root, "unconfined.toml")
	if err := os.WriteFile(unconfined, []byte("[policy.commands]\nallow = [\"go test\"]\n\n[sandbox]\nmode = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg     string
		args    []string
		verdict string
		rule    string
	}{
		{cfg, []string{"go", "test", "./..."}, "allow", "allow: go test"}, // workspace code, confined by the sandbox
		{unconfined, []string{"go", "test", "./..."}, "ask", "runner: go test"},
		{unconfined, []string{"make"}, "ask", "runner: make"},
		{cfg, []string{"git", "push", "--force"}, "ask", "ask: git push"},
		{cfg, []string{"rm", "-rf", "build"}, "deny", "deny: rm"},
		{cfg, []string{"ls -la && rm -rf build"}, "deny", "deny: rm"}, // one word with shell syntax: a shell line
		{cfg, []string{"make"}, "ask", "unmatched"},
		{cfg, []string{"tar", "-xf", "a.tar"}, "ask", "launch: tar -x"}, // the members are not on the line
	} {
		args := append([]string{"policy", "check", "--json", "--config", c.cfg, "--cwd", e.project, "--"}, c.args...)
		r := e.run(args...)
		var d decision
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 {
			t.Errorf("policy check %q: exit %d, %v\nstdout %s\nstderr %s", c.args, r.code, err, r.stdout, r.stderr)
			continue
		}
		if d.Verdict != c.verdict || d.Rule != c.rule || d.Reason == "" || len(d.Leaves) == 0 {
			t.Errorf("policy check %q = %+v; want verdict %s, rule %q", c.args, d, c.verdict, c.rule)
		}
	}
	// The shell line is reported as one leaf per simple command.
	r := e.run("policy", "check", "--json", "--config", cfg, "--cwd", e.project, "--", "ls -la && rm -rf build")
	var d decision
	_ = json.Unmarshal([]byte(r.stdout), &d)
	if len(d.Leaves) != 2 || d.Leaves[0].Verdict != "allow" || d.Leaves[1].Verdict != "deny" || strings.Join(d.Leaves[1].Argv, " ") != "rm -rf build" {
		t.Errorf("leaves = %+v", d.Leaves)
	}
	// Without --json: a summary for a person, each leaf with its verdict and reason.
	r = e.run("policy", "check", "--config", cfg, "--cwd", e.project, "--", "ls -la && rm -rf build")
	want := "verdict:    deny\n" +
		"rule:       deny: rm\n" +
		"reason:     leaf 2 `rm -rf build`: matches deny rule \"rm\"\n" +
		"runs:       /bin/sh -c 'ls -la && rm -rf build'\n" +
		"cwd:        " + e.project + "\n" +
		"leaves:\n" +
		"  1. allow ls -la  (via sh -c)\n" +
		"           allow: ls: matches allow rule \"ls\"\n" +
		"  2. deny  rm -rf build  (via sh -c)\n" +
		"           deny: rm: matches deny rule \"rm\"\n"
	// Then the sandbox the verdict assumed, as the session's own check finds it.
	sandboxLine := regexp.MustCompile(`\nsandbox:    landlock \d+ · ns · net proxy \(commands run confined\)\n$`)
	if loc := sandboxLine.FindStringIndex(r.stdout); loc != nil {
		r.stdout = r.stdout[:loc[0]+1]
	} else {
		t.Errorf("summary lacks the sandbox line:\n%s", r.stdout)
	}
	if r.code != 0 || r.stdout != want {
		t.Errorf("summary: exit %d\n%s\nwant\n%s\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
	// A construct that is not on the allow-list is named.
	r = e.run("policy", "check", "--config", cfg, "--cwd", e.project, "--", "echo $((1+2))")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "verdict:    ask\nrule:       construct: arithmetic expansion\n") || !strings.Contains(r.stdout, "constructs: arithmetic expansion\n") {
		t.Errorf("construct summary: exit %d\n%s", r.code, r.stdout)
	}

	// Usage and config errors exit 2.
	if r := e.run("policy", "check", "--cwd", e.project); r.code != 2 || !strings.Contains(r.stderr, "no command given") {
		t.Errorf("no command: exit %d, stderr %q", r.code, r.stderr)
	}
	bad := filepath.Join(e.root, "bad.toml")
	if err := os.WriteFile(bad, []byte("[policy]\nbogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("policy", "check", "--config", bad, "--", "ls"); r.code != 2 || !strings.Contains(r.stderr, bad+":2:") {
		t.Errorf("bad config: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAuditVerify(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("allow"))
	audit := filepath.Join(e.stateD, "acpterm", "audit.jsonl")
	// A headless run makes decisions (a terminal and a write), each one audited.
	if r := e.headless(nil, "color", "write"); r.code != 0 {
		t.Fatalf("headless run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	n := bytes.Count(data, []byte("\n"))
	if n < 2 {
		t.Fatalf("audit log has %d lines, want at least 2:\n%s", n, data)
	}
	r := e.run("audit", "verify")
	if want := "ok: " + strconv.Itoa(n) + " events, hash chain intact: " + audit + "\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("audit verify: exit %d, stdout %q, want %q; stderr %q", r.code, r.stdout, want, r.stderr)
	}
	// Tampering with the first line breaks the chain at line 2: exit 1, the line is named.
	lines := strings.SplitAfter(string(data), "\n")
	lines[0] = strings.Replace(lines[0], `"allow"`, `"deny"`, 1)
	if lines[0] == strings.SplitAfter(string(data), "\n")[0] {
		t.Fatalf("first audit line has no \"allow\" to alter: %s", lines[0])
	}
	tampered := filepath.Join(e.root, "tampered.jsonl")
	if err := os.WriteFile(tampered, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("audit", "verify", tampered)
	if r.code != 1 || !strings.Contains(r.stderr, "line 1") || r.stdout != "" {
		t.Fatalf("tampered: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The last record of the real log, edited: only the head file can tell; exit 1.
	last := strings.SplitAfter(string(data), "\n")
	last[n-1] = strings.Replace(last[n-1], `"seq"`, `"seq" `, 1)
	if err := os.WriteFile(audit, []byte(strings.Join(last, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("audit", "verify"); r.code != 1 || !strings.Contains(r.stderr, "last record") {
		t.Fatalf("last line edited: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A copy without its head file fails: its last records could have been changed.
	copied := filepath.Join(e.root, "copied.jsonl")
	if err := os.WriteFile(copied, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("audit", "verify", copied)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "the head file "+copied+".head is missing") {
		t.Fatalf("no head file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// An empty log whose head names records that are gone fails too.
	emptied := filepath.Join(e.root, "emptied.jsonl")
	if err := os.WriteFile(emptied, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(emptied+".head", []byte(`{"seq":3,"hash":"`+strings.Repeat("a", 64)+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("audit", "verify", emptied)
	if r.code != 1 || !strings.Contains(r.stderr, "the log is empty but its head file says seq 3") || !strings.Contains(r.stderr, emptied+".1 it would continue is missing") {
		t.Fatalf("emptied log with head: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := e.run("audit", "verify", filepath.Join(e.root, "missing.jsonl")); r.code != 2 {
		t.Fatalf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestLogAndAuditFlags: --log and --audit-log replace the state-dir defaults.
func TestLogAndAuditFlags(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("allow"))
	logf, audit := filepath.Join(e.root, "my.log"), filepath.Join(e.root, "logs", "my-audit.jsonl")
	r := e.headless([]string{"--log", logf, "--audit-log", audit}, "write")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(logf); err != nil || !strings.Contains(string(b), `msg="acpterm: start"`) {
		t.Fatalf("--log file: %v\n%s", err, b)
	}
	if r := e.run("audit", "verify", audit); r.code != 0 || !strings.HasPrefix(r.stdout, "ok: ") {
		t.Fatalf("audit verify %s: exit %d, %q %q", audit, r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{"acpterm.log", "audit.jsonl"} {
		if _, err := os.Stat(filepath.Join(e.stateD, "acpterm", p)); err == nil {
			t.Errorf("%s was written to the state dir although a flag named another file", p)
		}
	}
}

// TestREADMEConfigExampleIsValid: the config reference in README.md loads, and means what it says.
func TestREADMEConfigExampleIsValid(t *testing.T) {
	e := newEnv(t)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The example config file: the toml block that sets [agent] (the first one shows the
	// built-in defaults, checked by config's tests).
	var m [][]byte
	for _, b := range regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllSubmatch(readme, -1) {
		if bytes.HasPrefix(b[1], []byte("[agent]\n")) {
			m = b
		}
	}
	if m == nil {
		t.Fatal("README.md has no ```toml block starting with [agent]")
	}
	// The example's root must exist: point it at the test's project dir.
	body := strings.ReplaceAll(string(m[1]), "~/src/project", e.project)
	cfg := filepath.Join(e.root, "readme.toml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	// go test is allowed by the example's rule once commands run confined, as the README says;
	// the summary's last line says whether they do here.
	goTest := "runner: go test"
	if r := e.run("policy", "check", "--config", cfg, "--cwd", e.project, "--", "true"); strings.HasSuffix(r.stdout, "(commands run confined)\n") {
		goTest = "allow: go test"
	}
	for cmd, want := range map[string]string{"git push": "ask: git push", "rm -rf x": "deny: rm", "go test ./...": goTest, "curl x": "deny: curl"} {
		r := e.run("policy", "check", "--json", "--config", cfg, "--cwd", e.project, "--", cmd)
		var d decision
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 || d.Rule != want {
			t.Errorf("%s: exit %d, rule %q (want %q), %v; stderr %s", cmd, r.code, d.Rule, want, err, r.stderr)
		}
	}
}

// TestStartErrorIsSanitized: an agent that dies at start writing escape sequences to stderr
// (a window title, colours, a bidi override): the error acpterm prints quotes its stderr without
// them, so they cannot reach the user's terminal.
func TestStartErrorIsSanitized(t *testing.T) {
	e := newEnv(t)
	agent := filepath.Join(e.root, "evil.sh")
	script := "#!/bin/sh\nprintf 'fatal: \\033]2;HACKED-TITLE\\007\\033[41mRED\\342\\200\\256txt\\n' >&2\nexit 1\n"
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--cwd", e.project, "--prompt", "hi", "--", agent)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stderr, "\x1b\x07\u202e") || !strings.Contains(r.stderr, "fatal: REDtxt") {
		t.Fatalf("stderr %q: want the agent's text without escape sequences", r.stderr)
	}
}

// TestGrantsFileProblems: a saved grant acpterm would no longer make is skipped with a warning
// and the session runs; a grants file that is not valid JSON stops the start with exit 1 (a
// problem with acpterm's state, not a usage error) naming the file.
func TestGrantsFileProblems(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.stateD, "acpterm", "grants.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"version":1,"grants":[{"id":"g-make","argv":["make"],"created":"2026-11-29T00:00:00Z"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--demo", "--cwd", e.project, "--prompt", "echo hi")
	want := "acpterm: warning: grants file " + file + ": grant g-make (make) ignored: make runs scripts from workspace files the agent can edit (package.json, Makefile …)\n"
	if r.code != 0 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
	if err := os.WriteFile(file, []byte(`{"version":1,"grants":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("--headless", "--demo", "--cwd", e.project, "--prompt", "echo hi")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "acpterm: policy: grants file: ") || !strings.Contains(r.stderr, file) ||
		!strings.HasSuffix(r.stderr, "(move the file aside to start without saved grants)\n") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestAgentStartFailureHint: an agent that refuses session/new gets a readable error (its
// message, not the JSON-RPC error as JSON), its last stderr lines and the log's path.
func TestAgentStartFailureHint(t *testing.T) {
	e := newEnv(t)
	e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_SCENARIO=session-refused")
	r := e.run("--headless", "--cwd", e.project, "--prompt", "echo hi", "--", scriptAgent(t))
	log := filepath.Join(e.stateD, "acpterm", "acpterm.log")
	head := `acpterm: start agent "` + scriptAgent(t) + `": acpclient: session/new: the agent failed: Internal error: Query closed before response received (error -32603)
the agent's last stderr lines:
  initialize: `
	tail := `
  scriptagent: no credentials found
  scriptagent: run ` + "`scriptagent login`" + ` first
the agent's whole stderr is in acpterm's log: ` + log + "\n"
	// The first stderr line (the scripted agent's report of the client's capabilities) is
	// only checked for its start.
	if r.code != 1 || !strings.HasPrefix(r.stderr, head) || !strings.HasSuffix(r.stderr, tail) || strings.Count(r.stderr, "\n") != 6 {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s…%s", r.code, r.stderr, head, tail)
	}
	if !strings.Contains(e.logText(t), "scriptagent: no credentials found") {
		t.Fatal("the log does not hold the agent's stderr")
	}
}
