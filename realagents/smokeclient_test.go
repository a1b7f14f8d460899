package realagents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// smokeClient is a minimal ACP client used to validate the mocks against the
// real agents without acpterm: it records everything, answers permission
// requests by option kind, confines fs/* to the session cwd and runs
// terminal/* commands with os/exec (no PTY).
type smokeClient struct {
	cwd     string
	pick    acp.PermissionOptionKind // the option kind chosen for every permission request
	changed chan struct{}

	mu      sync.Mutex
	log     []string // "method detail" of every agent→client call and update, in order
	updates []string // JSON of every session/update
	perms   []acp.RequestPermissionRequest
	creates []acp.CreateTerminalRequest
	writes  []acp.WriteTextFileRequest
	terms   map[string]*smokeTerm
	nterm   int
}

func newSmokeClient(cwd string, pick acp.PermissionOptionKind) *smokeClient {
	return &smokeClient{cwd: cwd, pick: pick, changed: make(chan struct{}, 1), terms: map[string]*smokeTerm{}}
}

func (c *smokeClient) note(s string) {
	c.mu.Lock()
	c.log = append(c.log, s)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *smokeClient) Log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

func (c *smokeClient) inside(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("path %q is not absolute", p)
	}
	p = filepath.Clean(p)
	if p != c.cwd && !strings.HasPrefix(p, c.cwd+"/") {
		return "", fmt.Errorf("path %q is outside the session cwd %s", p, c.cwd)
	}
	return p, nil
}

func (c *smokeClient) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.note("fs/read_text_file " + p.Path)
	path, err := c.inside(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	lines := strings.SplitAfter(string(b), "\n")
	start, end := 0, len(lines)
	if p.Line != nil && *p.Line > 1 {
		start = min(*p.Line-1, len(lines))
	}
	if p.Limit != nil && *p.Limit > 0 && start+*p.Limit < end {
		end = start + *p.Limit
	}
	return acp.ReadTextFileResponse{Content: strings.Join(lines[start:end], "")}, nil
}

func (c *smokeClient) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.writes = append(c.writes, p)
	c.mu.Unlock()
	c.note("fs/write_text_file " + p.Path)
	path, err := c.inside(p.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	return acp.WriteTextFileResponse{}, os.WriteFile(path, []byte(p.Content), 0o644)
}

func (c *smokeClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	c.mu.Unlock()
	var kinds []string
	for _, o := range p.Options {
		kinds = append(kinds, string(o.OptionId)+"="+string(o.Kind))
	}
	c.note(fmt.Sprintf("session/request_permission %s %v", p.ToolCall.ToolCallId, kinds))
	for _, o := range p.Options {
		if o.Kind == c.pick {
			return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
				Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
}

func (c *smokeClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	b, _ := json.Marshal(n.Update)
	c.mu.Lock()
	c.updates = append(c.updates, string(b))
	c.mu.Unlock()
	c.note("session/update " + truncate(string(b), 300))
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// smokeTerm is one terminal/create command: /bin/sh -c for a whole line, in
// its own process group.
type smokeTerm struct {
	cmd   *exec.Cmd
	limit int
	done  chan struct{}
	mu    sync.Mutex
	out   []byte
	trunc bool
	code  int
	sig   string
	rel   bool
}

func (t *smokeTerm) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, p...)
	if t.limit > 0 && len(t.out) > t.limit {
		t.out = t.out[len(t.out)-t.limit:]
		t.trunc = true
	}
	return len(p), nil
}

func (t *smokeTerm) kill() {
	select {
	case <-t.done:
		return
	default:
	}
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
}

func (c *smokeClient) CreateTerminal(_ context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	c.note(fmt.Sprintf("terminal/create %q args=%q", p.Command, p.Args))
	dir := c.cwd
	if p.Cwd != nil && *p.Cwd != "" {
		dir = *p.Cwd
	}
	var cmd *exec.Cmd
	if len(p.Args) == 0 {
		cmd = exec.Command("/bin/sh", "-c", p.Command)
	} else {
		cmd = exec.Command(p.Command, p.Args...)
	}
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &smokeTerm{cmd: cmd, done: make(chan struct{})}
	if p.OutputByteLimit != nil {
		t.limit = *p.OutputByteLimit
	}
	cmd.Stdout, cmd.Stderr = t, t
	if err := cmd.Start(); err != nil {
		return acp.CreateTerminalResponse{}, err
	}
	go func() {
		err := cmd.Wait()
		t.mu.Lock()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.sig = "SIG" + strings.ToUpper(strings.TrimPrefix(ws.Signal().String(), "signal "))
			}
		}
		t.code = cmd.ProcessState.ExitCode()
		t.mu.Unlock()
		close(t.done)
		c.note("(terminal exited)")
	}()
	c.mu.Lock()
	c.nterm++
	id := fmt.Sprintf("term-%d", c.nterm)
	c.terms[id] = t
	c.creates = append(c.creates, p)
	c.mu.Unlock()
	return acp.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *smokeClient) term(id string) (*smokeTerm, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.terms[id]
	if !ok {
		return nil, fmt.Errorf("unknown terminal %q", id)
	}
	return t, nil
}

func (t *smokeTerm) exit() *acp.TerminalExitStatus {
	select {
	case <-t.done:
	default:
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sig != "" {
		s := t.sig
		return &acp.TerminalExitStatus{Signal: &s}
	}
	code := t.code
	return &acp.TerminalExitStatus{ExitCode: &code}
}

func (c *smokeClient) KillTerminal(_ context.Context, p acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	c.note("terminal/kill " + p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, err
	}
	t.kill()
	return acp.KillTerminalResponse{}, nil
}

func (c *smokeClient) TerminalOutput(_ context.Context, p acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	c.note("terminal/output " + p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, err
	}
	ex := t.exit()
	t.mu.Lock()
	defer t.mu.Unlock()
	return acp.TerminalOutputResponse{Output: string(t.out), Truncated: t.trunc, ExitStatus: ex}, nil
}

func (c *smokeClient) ReleaseTerminal(_ context.Context, p acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	c.note("terminal/release " + p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acp.ReleaseTerminalResponse{}, err
	}
	t.kill() // ACP: release kills a running command; idempotent
	t.mu.Lock()
	t.rel = true
	t.mu.Unlock()
	return acp.ReleaseTerminalResponse{}, nil
}

func (c *smokeClient) WaitForTerminalExit(ctx context.Context, p acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	c.note("terminal/wait_for_exit " + p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}
	ex := t.exit()
	return acp.WaitForTerminalExitResponse{ExitCode: ex.ExitCode, Signal: ex.Signal}, nil
}

func (c *smokeClient) closeTerminals() {
	c.mu.Lock()
	ts := make([]*smokeTerm, 0, len(c.terms))
	for _, t := range c.terms {
		ts = append(ts, t)
	}
	c.mu.Unlock()
	for _, t := range ts {
		t.kill()
	}
}

// smokeSession is a real agent process connected to a smokeClient.
type smokeSession struct {
	r      *run
	c      *smokeClient
	cmd    *exec.Cmd
	conn   *acp.ClientSideConnection
	stdin  io.WriteCloser
	sid    acp.SessionId
	init   acp.InitializeResponse
	exited chan struct{}
}

// startSmoke spawns the agent in its own process group, initializes with fs,
// terminal and _meta.terminal_output, and opens a session in r.cwd.
func startSmoke(t *testing.T, r *run, pick acp.PermissionOptionKind) *smokeSession {
	t.Helper()
	argv := agentArgv(r.agent)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.cwd
	cmd.Env = r.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := os.Create(filepath.Join(r.dir, "agent.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", r.agent, err)
	}
	s := &smokeSession{r: r, c: newSmokeClient(r.cwd, pick), cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); stderr.Close(); close(s.exited) }()
	t.Cleanup(s.stop)
	s.conn = acp.NewClientSideConnection(s.c, stdin, stdout)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s.init, err = s.conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{
			Fs:       acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
			Meta:     map[string]any{"terminal_output": true},
		},
		ClientInfo: &acp.Implementation{Name: "realagents-smoke", Version: "0"},
	})
	if err != nil {
		t.Fatalf("%s initialize: %v\n%s", r.agent, err, s.stderrTail())
	}
	ns, err := s.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: r.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("%s session/new: %v\n%s", r.agent, err, s.stderrTail())
	}
	s.sid = ns.SessionId
	return s
}

func (s *smokeSession) stderrTail() string {
	b, _ := os.ReadFile(filepath.Join(s.r.dir, "agent.stderr"))
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return "agent stderr (tail):\n" + string(b)
}

// prompt sends one prompt and returns its stop reason.
func (s *smokeSession) prompt(t *testing.T, text string) acp.StopReason {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), turnTimeout)
	defer cancel()
	resp, err := s.conn.Prompt(ctx, acp.PromptRequest{SessionId: s.sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatalf("%s session/prompt %q: %v\ncalls:\n%s\n%s", s.r.agent, text, err, strings.Join(s.c.Log(), "\n"), s.stderrTail())
	}
	return resp.StopReason
}

// stop closes stdin, then SIGTERMs the agent's process group, then SIGKILLs it.
func (s *smokeSession) stop() {
	_ = s.stdin.Close()
	pgid := s.cmd.Process.Pid
	select {
	case <-s.exited:
	case <-time.After(500 * time.Millisecond):
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-s.exited
	s.c.closeTerminals()
	<-s.conn.Done()
}
