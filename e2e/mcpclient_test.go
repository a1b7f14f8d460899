package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpterm/acpterm/internal/mcptest"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reading test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpRun is acpterm running headless with the scripted agent, whose session stays open (the
// prompt "slow" waits for a cancel), and a go-sdk MCP client connected to acpterm's "acpterm"
// MCP server the way an agent connects: through the agent, which starts acpterm's stdio bridge
// as its child (the scripted agent relays a unix socket of the test to the bridge's stdio).
type mcpRun struct {
	mcptest.Client // CS is nil until connected, and again after stop
	t              *testing.T
	e              *testEnv
	cmd            *exec.Cmd
	out            *syncBuffer
	record         string // the mcpServers the agent got
	done           chan struct{}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string, what string, out *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared; acpterm's output:\n%s", what, out.String())
}

func startMCPRun(t *testing.T, e *testEnv, extraEnv []string, args ...string) *mcpRun {
	t.Helper()
	proxy := filepath.Join(e.root, "mcp.sock")
	rec := filepath.Join(e.root, "mcpservers.json")
	e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_MCP_PROXY="+proxy, "SCRIPTAGENT_MCP_RECORD="+rec)
	e.extraEnv = append(e.extraEnv, extraEnv...)
	all := append([]string{"--headless", "--cwd", e.project}, args...)
	all = append(all, "--prompt", "slow", "--", scriptAgent(t))
	r := &mcpRun{t: t, e: e, out: &syncBuffer{}, record: rec, done: make(chan struct{})}
	r.Client = mcptest.Client{TB: t, Context: r.out.String}
	r.cmd = exec.Command(binary, all...)
	r.cmd.Env = e.vars()
	r.cmd.Dir = e.project
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(r.stop)
	waitFile(t, rec, "the agent's mcpServers", r.out)
	// The scriptagent relays a stdio "acpterm" server (the bridge it started) to the socket.
	if slices.ContainsFunc(r.servers(), func(s acp.McpServer) bool { return s.Stdio != nil && s.Stdio.Name == "acpterm" }) {
		waitFile(t, proxy, "the agent's MCP relay socket", r.out)
		conn, err := net.Dial("unix", proxy)
		if err != nil {
			t.Fatal(err)
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		r.CS, err = c.Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			t.Fatalf("MCP connect through the bridge: %v\n%s", err, r.out.String())
		}
	}
	return r
}

// servers returns the mcpServers acpterm sent in session/new.
func (r *mcpRun) servers() []acp.McpServer {
	r.t.Helper()
	b, err := os.ReadFile(r.record)
	if err != nil {
		r.t.Fatal(err)
	}
	var s []acp.McpServer
	if err := json.Unmarshal(b, &s); err != nil {
		r.t.Fatalf("mcpServers %s: %v", b, err)
	}
	return s
}

// stop ends acpterm as a signal does (orderly shutdown) and waits for it.
func (r *mcpRun) stop() {
	if r.CS != nil {
		_ = r.CS.Close()
		r.CS = nil
	}
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(waitTimeout):
		_ = r.cmd.Process.Kill()
		<-r.done
		r.t.Errorf("acpterm did not end on SIGTERM; output:\n%s", r.out.String())
	}
}

// until snapshots terminal id until a row contains s.
func (r *mcpRun) until(id, s string) []string {
	r.t.Helper()
	var got []string
	for range 50 {
		got = mcptest.Screen(r.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 50}))
		if slices.ContainsFunc(got, func(row string) bool { return strings.Contains(row, s) }) {
			return got
		}
	}
	r.t.Fatalf("terminal %s never showed %q: %q", id, s, got)
	return nil
}

func act(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// TestMCPToolsThroughTheBinary drives the real binary's MCP terminal tools with the official
// go-sdk client: prompts, text and Enter, keys, resize, the alternate screen, bracketed paste,
// SGR mouse, settle deadlines, a denied start, close twice and the limits; then SIGTERM ends
// every terminal.
func TestMCPToolsThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy]\nunmatched = \"allow\"\n")
	r := startMCPRun(t, e, nil, "--approve", "allow")
	srv := r.servers()
	if len(srv) != 1 || srv[0].Stdio == nil || srv[0].Stdio.Name != "acpterm" || srv[0].Stdio.Command != binary ||
		!slices.Equal(srv[0].Stdio.Args, []string{"__mcp-bridge"}) || len(srv[0].Stdio.Env) != 2 {
		t.Fatalf("mcpServers %+v", srv)
	}
	sock := srv[0].Stdio.Env[0].Value
	if st, err := os.Stat(filepath.Dir(sock)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory %s: %v %v", filepath.Dir(sock), st.Mode(), err)
	}

	// A prompt, then text and Enter answered by python.
	m := r.OK("terminal_start", map[string]any{"command": "python3 -q", "cols": 60, "rows": 8})
	py := m["sessionId"].(string)
	r.until(py, ">>>")
	in := r.OK("terminal_input", map[string]any{"sessionId": py, "settleMs": 300, "actions": []any{
		act("type", "text", "text", "print(6*7)"), act("type", "key", "key", "Enter")}})
	if got := mcptest.Screen(in); got[0] != ">>> print(6*7)" || got[1] != "42" || in["actionsCompleted"] != 2.0 || in["inputSent"] != true {
		t.Fatalf("python: %q %v", got, in["actionsCompleted"])
	}

	// Arrow and modified keys into cat -v.
	cat := r.OK("terminal_start", map[string]any{"command": "stty -icanon -echo; echo go; cat -v", "cols": 60, "rows": 4})["sessionId"].(string)
	r.until(cat, "go")
	in = r.OK("terminal_input", map[string]any{"sessionId": cat, "actions": []any{
		act("type", "key", "key", "Up"), act("type", "key", "key", "Down"), act("type", "key", "key", "Right", "modifiers", []string{"Shift"}),
		act("type", "key", "key", "Enter")}})
	if got := mcptest.Screen(in); got[1] != "^[[A^[[B^[[1;2C" {
		t.Fatalf("cat -v: %q", got)
	}

	// Resize seen by stty size.
	stID := r.OK("terminal_start", map[string]any{"command": "stty size; read x; stty size; sleep 60", "cols": 30, "rows": 5})["sessionId"].(string)
	if got := r.until(stID, "5 30"); got[0] != "5 30" {
		t.Fatalf("stty: %q", got)
	}
	r.OK("terminal_resize", map[string]any{"sessionId": stID, "cols": 44, "rows": 7})
	if got := mcptest.Screen(r.OK("terminal_input", map[string]any{"sessionId": stID, "actions": []any{act("type", "key", "key", "Enter")}})); got[2] != "7 44" {
		t.Fatalf("stty after resize: %q", got)
	}
	r.Fail("terminal_resize", map[string]any{"sessionId": stID, "cols": 501, "rows": 7}, "INVALID_INPUT")

	// Alternate screen in and out (less).
	f := filepath.Join(e.project, "notes.txt")
	if err := os.WriteFile(f, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls := r.OK("terminal_start", map[string]any{"command": "echo before; less notes.txt; echo after; sleep 60", "cols": 40, "rows": 5})["sessionId"].(string)
	r.until(ls, "beta")
	if s := r.OK("terminal_snapshot", map[string]any{"sessionId": ls}); s["buffer"] != "alternate" {
		t.Fatalf("less: %v", s["buffer"])
	}
	r.OK("terminal_input", map[string]any{"sessionId": ls, "actions": []any{act("type", "key", "key", "q")}})
	if got := r.until(ls, "after"); got[0] != "before" || got[1] != "after" {
		t.Fatalf("after less: %q", got)
	}
	if s := r.OK("terminal_snapshot", map[string]any{"sessionId": ls}); s["buffer"] != "normal" {
		t.Fatalf("after less: %v", s["buffer"])
	}
	r.OK("terminal_close", map[string]any{"sessionId": ls})

	// Paste with bracketed paste on, and an SGR mouse click (python reporting its input).
	echo := `python3 -c '
import os, sys, tty
tty.setraw(0)
sys.stdout.write("\033[?2004h\033[?1000h\033[?1006hREADY\r\n"); sys.stdout.flush()
while True:
    sys.stdout.write(repr(os.read(0, 1024)) + "\r\n"); sys.stdout.flush()
'`
	ec := r.OK("terminal_start", map[string]any{"command": echo, "cols": 70, "rows": 6})["sessionId"].(string)
	r.until(ec, "READY")
	in = r.OK("terminal_input", map[string]any{"sessionId": ec, "actions": []any{
		act("type", "paste", "text", "one\ntwo"), act("type", "wait"),
		act("type", "mouse", "event", "click", "row", 2, "column", 5)}})
	if got := mcptest.Screen(in); got[1] != `b'\x1b[200~one\rtwo\x1b[201~'` || got[2] != `b'\x1b[<0;5;2M\x1b[<0;5;2m'` {
		t.Fatalf("paste and click: %q", got)
	}

	// A spinner never settles: settled false at the 1 s cap, SCREEN_NOT_SETTLED when strict.
	sp := r.OK("terminal_start", map[string]any{"command": `while :; do for c in - / '|'; do printf '\r%s' "$c"; sleep 0.05; done; done`, "cols": 10, "rows": 2})
	if sp["settled"] != false {
		t.Fatalf("spinner settled: %v", sp)
	}
	r.Fail("terminal_snapshot", map[string]any{"sessionId": sp["sessionId"], "settleTimeoutMs": 300}, "SCREEN_NOT_SETTLED")
	r.OK("terminal_close", map[string]any{"sessionId": sp["sessionId"]})

	// A denied start names the rule and starts nothing; limits are checked before any effect.
	d := r.Fail("terminal_start", map[string]any{"command": "sudo true", "cols": 20, "rows": 3}, "POLICY_DENIED")
	if msg := d["message"].(string); !strings.Contains(msg, "rule: ") || d["rule"] == "" {
		t.Fatalf("denial: %v", d)
	}
	many := make([]any, 257)
	for i := range many {
		many[i] = act("type", "text", "text", "x")
	}
	r.Fail("terminal_input", map[string]any{"sessionId": py, "actions": many}, "INVALID_INPUT")
	r.Fail("terminal_start", map[string]any{"command": "true", "cols": 20, "rows": 201}, "INVALID_INPUT")

	// Close twice.
	if c := r.OK("terminal_close", map[string]any{"sessionId": cat}); c["closed"] != true {
		t.Fatalf("close: %v", c)
	}
	if c := r.OK("terminal_close", map[string]any{"sessionId": cat}); c["closed"] != false {
		t.Fatalf("second close: %v", c)
	}
	list := r.OK("terminal_list", map[string]any{})["sessions"].([]any)
	if len(list) != 3 { // python, stty, the input echo
		t.Fatalf("list: %v", list)
	}

	// Headless shows each terminal; the audit log has the inputs (size and prefix only).
	for _, want := range []string{"started (agent-driven): python3 -q", "started (agent-driven): stty -icanon -echo; echo go; cat -v"} {
		if !strings.Contains(r.out.String(), want) {
			t.Fatalf("headless output lacks %q:\n%s", want, r.out.String())
		}
	}
	audit := readAudit(t, e)
	if !strings.Contains(audit, `"kind":"input"`) || !strings.Contains(audit, `"input":"text","bytes":10,"prefix":"print(6*7)"`) ||
		!strings.Contains(audit, `"input":"paste","bytes":19,"prefix":"\u001b[200~one\rtwo\u001b[2"`) {
		t.Fatalf("audit log lacks the inputs:\n%s", audit)
	}
	r.stop()
	e.waitNoLeftovers(t)
}

// TestMCPBridgeRefusesStrangers: the socket refuses a process that is not the agent's, and a
// wrong secret, even from the same user.
func TestMCPBridgeRefusesStrangers(t *testing.T) {
	e := newEnv(t)
	r := startMCPRun(t, e, nil)
	srv := r.servers()[0].Stdio
	env := os.Environ()
	for _, v := range srv.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	// The test process is no descendant of the agent: the bridge it starts is refused.
	cmd := exec.Command(binary, "__mcp-bridge")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n")
	got, _ := cmd.Output()
	if len(got) != 0 {
		t.Fatalf("a stranger's bridge got an answer: %s", got)
	}
	if !strings.Contains(e.logText(t), "not started by the agent") {
		t.Fatalf("the refusal is not logged:\n%s", e.logText(t))
	}
}

// TestMCPHTTPForHTTPAgents: an agent whose mcpCapabilities.http is true gets the loopback
// streamable-HTTP form with a bearer secret; without the secret the server answers 401.
func TestMCPHTTPForHTTPAgents(t *testing.T) {
	e := newEnv(t)
	e.writeConfig("[policy]\nunmatched = \"allow\"\n")
	r := startMCPRun(t, e, []string{"SCRIPTAGENT_MCP_HTTP=1"})
	srv := r.servers()
	if len(srv) != 1 || srv[0].Http == nil || srv[0].Http.Name != "acpterm" || !strings.HasPrefix(srv[0].Http.Url, "http://127.0.0.1:") ||
		len(srv[0].Http.Headers) != 1 || srv[0].Http.Headers[0].Name != "Authorization" {
		t.Fatalf("mcpServers %+v", srv)
	}
	resp, err := http.Post(srv[0].Http.Url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no secret: status %d", resp.StatusCode)
	}
	hdr := srv[0].Http.Headers[0].Value
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv[0].Http.Url,
		HTTPClient: &http.Client{Transport: bearer{hdr}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.CS = cs
	m := r.OK("terminal_start", map[string]any{"command": "echo over http", "cols": 20, "rows": 2})
	if got := r.until(m["sessionId"].(string), "over http"); got[0] != "over http" {
		t.Fatalf("http start: %v", m)
	}
	r.stop()
	e.waitNoLeftovers(t)
}

type bearer struct{ v string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.v)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPAskedStartAnsweredInTUI: a terminal_start the policy asks about shows the approval
// dialog in the TUI and the tool call waits; once allowed, the terminal is a pane marked
// agent-driven, the agent's typing shows in it, and what the user types into the pane is in
// the agent's next snapshot.
func TestMCPAskedStartAnsweredInTUI(t *testing.T) {
	e := newEnv(t)
	proxy := filepath.Join(e.root, "mcp.sock")
	e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_MCP_PROXY="+proxy, "SCRIPTAGENT_MCP_RECORD="+filepath.Join(e.root, "mcpservers.json"))
	tm := startTmux(t, e, 160, 48)
	tm.acpterm("--cwd", e.project, "--prompt", "slow", "--", scriptAgent(t))
	tm.waitFor("waiting")
	waitFile(t, proxy, "the agent's MCP relay socket", &syncBuffer{})
	conn, err := net.Dial("unix", proxy)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &mcpRun{t: t, e: e, out: &syncBuffer{}}
	r.Client = mcptest.Client{TB: t, CS: cs, Context: r.out.String}
	type res struct {
		m     map[string]any
		isErr bool
	}
	started := make(chan res, 1)
	go func() {
		out, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "terminal_start",
			Arguments: map[string]any{"command": "python3 -q", "cols": 60, "rows": 8}})
		if err != nil {
			started <- res{m: map[string]any{"err": err.Error()}, isErr: true}
			return
		}
		b, _ := json.Marshal(out.StructuredContent)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		started <- res{m, out.IsError}
	}()
	screen := tm.waitFor(modalReady)
	if !strings.Contains(screen, "python3 -q") {
		t.Fatalf("the approval does not show the command:\n%s", screen)
	}
	select {
	case got := <-started:
		t.Fatalf("terminal_start returned before the user answered: %v", got)
	default:
	}
	tm.keys("a")
	var got res
	select {
	case got = <-started:
	case <-time.After(waitTimeout):
		t.Fatalf("terminal_start still waits after the answer:\n%s", tm.capture())
	}
	if got.isErr {
		t.Fatalf("terminal_start: %v", got.m)
	}
	id := got.m["sessionId"].(string)
	tm.waitFor("agent-driven")
	r.until(id, ">>>")
	// The agent types: the user sees it in the pane.
	r.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		act("type", "text", "text", "print(2+3)"), act("type", "key", "key", "Enter")}})
	tm.waitFor(">>> print(2+3)")
	// The user types into the pane: the agent sees it in its next snapshot.
	tm.keys("C-g")
	tm.typeText("print(7*6)")
	tm.keys("Enter")
	tm.keys("C-]")
	if rows := r.until(id, "42"); !slices.Contains(rows, ">>> print(7*6)") {
		t.Fatalf("the user's input is not on the agent's screen: %q", rows)
	}
	_ = cs.Close()
	tm.keys("C-q")
	tm.exitCode()
	e.waitNoLeftovers(t)
}

// TestMCPForSandboxedAgent: an agent in the sandbox ([sandbox] agent = true, network through
// the proxy) has a loopback of its own, so acpterm's 127.0.0.1 HTTP server is out of its reach
// (and the sandbox makes no unix sockets, so the bridge cannot use acpterm's socket): an
// HTTP-capable agent gets the server on its own proxy listener, which it reaches from inside
// the sandbox (the secret required); an agent without HTTP MCP servers gets the stdio bridge
// pointed at the same listener, and the bridge it starts inside the sandbox answers.
func TestMCPForSandboxedAgent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's namespaces need root here (CI runs as root)")
	}
	for _, httpCap := range []bool{true, false} {
		t.Run(fmt.Sprintf("http=%v", httpCap), func(t *testing.T) {
			e := newEnv(t)
			// The agent writes its record of mcpServers in a directory of its own (e.root holds
			// the test's HOME, which no writable path may contain).
			recDir := filepath.Join(e.root, "record")
			if err := os.MkdirAll(recDir, 0o755); err != nil {
				t.Fatal(err)
			}
			rec := filepath.Join(recDir, "mcpservers.json")
			e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_MCP_RECORD="+rec)
			if httpCap {
				e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_MCP_HTTP=1")
			}
			e.writeConfig(fmt.Sprintf("[sandbox]\nmode = \"required\"\nagent = true\nagent_write = [%q]\n", recDir))
			prompt := "mcphttp"
			if !httpCap {
				prompt = "mcpstdio"
			}
			r := e.run("--headless", "--prompt", prompt, "--", scriptAgent(t))
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			b, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			var srv []acp.McpServer
			if err := json.Unmarshal(b, &srv); err != nil {
				t.Fatal(err)
			}
			if !httpCap {
				if len(srv) != 1 || srv[0].Stdio == nil || srv[0].Stdio.Command != binary || len(srv[0].Stdio.Env) != 2 ||
					!strings.HasPrefix(srv[0].Stdio.Env[0].Value, "http://127.0.0.1:") || !strings.HasSuffix(srv[0].Stdio.Env[0].Value, "/mcp-stream") {
					t.Fatalf("mcpServers %s", b)
				}
				w := "mcpstdio server acpterm, tools terminal_close terminal_input terminal_list terminal_resize terminal_snapshot terminal_start"
				if !strings.Contains(r.stdout, w) {
					t.Fatalf("headless output lacks %q:\n%s", w, r.stdout)
				}
				return
			}
			if len(srv) != 1 || srv[0].Http == nil || !strings.HasPrefix(srv[0].Http.Url, "http://127.0.0.1:") || !strings.HasSuffix(srv[0].Http.Url, "/mcp") {
				t.Fatalf("mcpServers %s", b)
			}
			// The URL is inside the agent's namespace: from here (the host) nothing answers
			// there, or something that is not acpterm's MCP server.
			if resp, err := http.Post(srv[0].Http.Url, "application/json", strings.NewReader("{}")); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusUnauthorized {
					t.Fatalf("the sandboxed agent's MCP URL %s is served on the host's loopback", srv[0].Http.Url)
				}
			}
			if w := "mcphttp without headers 401, with 200, server acpterm"; !strings.Contains(r.stdout, w) {
				t.Fatalf("headless output lacks %q:\n%s", w, r.stdout)
			}
		})
	}
}
