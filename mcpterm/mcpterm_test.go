package mcpterm

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/acpterm/acpterm/internal/mcptest"
	"github.com/acpterm/acpterm/terminals"
)

func TestMain(m *testing.M) {
	if os.Getenv("MCPTERM_SERVE_STDIO") == "1" {
		// BenchmarkCompare runs this test binary as a stdio MCP server (the service alone in
		// its process, as the peer it is compared with).
		os.Exit(serveStdio())
	}
	goleak.VerifyTestMain(m)
}

func serveStdio() int {
	m := terminals.NewManager(terminals.ManagerOptions{})
	defer m.Close()
	dir, err := os.MkdirTemp("", "mcpterm-serve-")
	if err != nil {
		return 1
	}
	defer os.RemoveAll(dir)
	svc := New(Options{Launch: directLauncher(m), Cwd: dir, Shell: "/bin/sh"})
	defer svc.Close()
	if err := svc.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// env is a small, predictable environment for the test programs.
var testEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=/tmp", "LANG=C.UTF-8"}

// directLauncher starts every request without a policy (the policy path is tested through
// acpclient and the real binary).
func directLauncher(m *terminals.Manager) Launcher {
	return func(_ context.Context, l Launch) (*terminals.Terminal, error) {
		env := slices.Clone(testEnv)
		for k, v := range l.Env {
			env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
			if v != nil {
				env = append(env, k+"="+*v)
			}
		}
		return m.Start(terminals.StartOptions{Argv: l.Argv, Dir: l.Cwd, Env: env, Size: l.Size, KillGrace: 500 * time.Millisecond})
	}
}

// client is a go-sdk client session connected to a Service (Call, OK, Fail) and the helpers
// the tests build on it.
type client struct {
	mcptest.Client
	t *testing.T
}

// connect runs a Service over in-memory transports with a go-sdk client.
func connect(t *testing.T, launch func(*terminals.Manager) Launcher) (*client, *Service, *[]string) {
	t.Helper()
	m := terminals.NewManager(terminals.ManagerOptions{MaxLive: 12})
	var audited []string
	svc := New(Options{Launch: launch(m), Cwd: t.TempDir(), Shell: "/bin/sh",
		Audit: func(id, kind string, n int, prefix string) {
			audited = append(audited, kind+":"+itoa(n)+":"+prefix)
		}})
	st, ct := mcp.NewInMemoryTransports()
	srv, done := svc.NewServer()
	ctx, cancel := context.WithCancel(context.Background())
	srvDone := make(chan struct{})
	go func() {
		defer close(srvDone)
		_ = srv.Run(ctx, st)
		done()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-srvDone
		svc.Close()
		_ = m.Close()
	})
	return &client{Client: mcptest.Client{TB: t, CS: cs}, t: t}, svc, &audited
}

func (c *client) start(cmd string, cols, rows int, extra map[string]any) (string, map[string]any) {
	c.t.Helper()
	args := map[string]any{"command": cmd, "cols": cols, "rows": rows}
	for k, v := range extra {
		args[k] = v
	}
	m := c.OK("terminal_start", args)
	return m["sessionId"].(string), m
}

// waitScreen snapshots until a row satisfies want (programs start at their own pace).
func (c *client) waitScreen(id string, want func([]string) bool) []string {
	c.t.Helper()
	var rows []string
	for range 40 {
		m := c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 50})
		if rows = mcptest.Screen(m); want(rows) {
			return rows
		}
	}
	c.t.Fatalf("screen never matched: %q", rows)
	return nil
}

// waitStatus snapshots until the terminal's status is want.
func (c *client) waitStatus(id, want string) map[string]any {
	c.t.Helper()
	var m map[string]any
	for range 40 {
		if m = c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 50}); m["status"] == want {
			return m
		}
	}
	c.t.Fatalf("terminal %s never %s: %v", id, want, m)
	return nil
}

func contains(s string) func([]string) bool {
	return func(rows []string) bool {
		return slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, s) })
	}
}

func TestStartSnapshotOfAPrompt(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, m := c.start(`printf '\033[1;32mREADY\033[0m> '; read x; echo "got $x"; sleep 30`, 20, 3, nil)
	if mcptest.Screen(m)[0] != "READY>" { // a slow machine: the shell had not printed yet
		c.waitScreen(id, contains("READY>"))
		m = c.OK("terminal_snapshot", map[string]any{"sessionId": id})
	}
	rows := mcptest.Screen(m)
	if len(rows) != 3 || rows[0] != "READY>" || rows[1] != "" || rows[2] != "" {
		t.Fatalf("screen %q", rows)
	}
	if m["status"] != "running" || m["buffer"] != "normal" || m["settled"] != true || m["cols"] != 20.0 || m["rows"] != 3.0 {
		t.Fatalf("snapshot %v", m)
	}
	cur := m["cursor"].(map[string]any)
	if cur["row"] != 1.0 || cur["column"] != 8.0 || cur["visible"] != true {
		t.Fatalf("cursor %v", cur)
	}
	spans := m["spans"].([]any)
	if len(spans) != 1 {
		t.Fatalf("spans %v", spans)
	}
	sp := spans[0].(map[string]any)
	if sp["row"] != 1.0 || sp["startColumn"] != 1.0 || sp["endColumn"] != 5.0 || sp["styleId"] != "s1" {
		t.Fatalf("span %v", sp)
	}
	st := m["styles"].(map[string]any)["s1"].(map[string]any)
	if st["bold"] != true || st["foreground"].(map[string]any)["kind"] != "palette" || st["foreground"].(map[string]any)["index"] != 2.0 {
		t.Fatalf("style %v", st)
	}
	if mouse := m["mouse"].(map[string]any); mouse["tracking"] != "none" || mouse["encoding"] != "legacy" {
		t.Fatalf("mouse %v", mouse)
	}
	_, text, isErr := c.Call("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0})
	if isErr {
		t.Fatalf("terminal_snapshot: error %s", text)
	}
	for _, want := range []string{"\n1: READY>\n2: \n3: \n", "spans (row: column[-column]=style):\n1: 1-5=s1", "sessionId " + id} {
		if !strings.Contains(text, want) {
			t.Fatalf("readable text lacks %q:\n%s", want, text)
		}
	}
	in := c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "key", "key": "Enter"}}})
	if in["actionsCompleted"] != 2.0 || in["inputSent"] != true {
		t.Fatalf("input result %v", in)
	}
	if rows := mcptest.Screen(in); rows[1] != "got hi" {
		t.Fatalf("after input: %q", rows)
	}
}

func TestTextAndEnterIntoPython(t *testing.T) {
	c, _, audited := connect(t, directLauncher)
	id, _ := c.start("python3 -q", 60, 10, nil)
	c.waitScreen(id, contains(">>>"))
	m := c.OK("terminal_input", map[string]any{"sessionId": id, "settleMs": 300, "actions": []any{
		map[string]any{"type": "text", "text": "print(6*7)"}, map[string]any{"type": "key", "key": "Enter"}}})
	rows := mcptest.Screen(m)
	if rows[0] != ">>> print(6*7)" || rows[1] != "42" || rows[2] != ">>>" {
		t.Fatalf("screen %q", rows)
	}
	if !slices.Equal(*audited, []string{"text:10:print(6*7)", "key:1:\r"}) {
		t.Fatalf("audited %q", *audited)
	}
}

func TestArrowKeysIntoCatV(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, _ := c.start("stty -icanon -echo; echo go; cat -v", 60, 5, nil)
	c.waitScreen(id, contains("go"))
	m := c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "key", "key": "Up"}, map[string]any{"type": "key", "key": "Left", "modifiers": []string{"Ctrl"}},
		map[string]any{"type": "key", "key": "F5"}, map[string]any{"type": "key", "key": "Tab", "modifiers": []string{"Shift"}},
		map[string]any{"type": "key", "key": "x", "modifiers": []string{"Alt"}}, map[string]any{"type": "key", "key": "Enter"}}})
	if rows := mcptest.Screen(m); rows[1] != "^[[A^[[1;5D^[[15~^[[Z^[x" {
		t.Fatalf("screen %q", rows)
	}
}

func TestResizeSeenByStty(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, _ := c.start("stty size; read x; stty size; sleep 30", 30, 6, nil)
	if rows := c.waitScreen(id, contains(" ")); rows[0] != "6 30" {
		t.Fatalf("start: %q", rows)
	}
	r := c.OK("terminal_resize", map[string]any{"sessionId": id, "cols": 50, "rows": 8})
	if r["cols"] != 50.0 || r["rows"] != 8.0 || len(mcptest.Screen(r)) != 8 {
		t.Fatalf("resize result %v", r)
	}
	in := c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{map[string]any{"type": "key", "key": "Enter"}}})
	if rows := mcptest.Screen(in); rows[2] != "8 50" {
		t.Fatalf("after resize: %q", rows)
	}
	c.Fail("terminal_resize", map[string]any{"sessionId": id, "cols": 1, "rows": 8}, CodeInvalidInput)
	c.Fail("terminal_resize", map[string]any{"sessionId": id, "cols": 501, "rows": 8}, CodeInvalidInput)
	c.Fail("terminal_resize", map[string]any{"sessionId": id, "cols": 80, "rows": 201}, CodeInvalidInput)
}

func TestAlternateScreenInAndOut(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	dir := t.TempDir()
	f := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(f, []byte("first line\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, _ := c.start("echo before; less "+f+"; echo after; sleep 30", 40, 6, nil)
	rows := c.waitScreen(id, contains("second line"))
	m := c.OK("terminal_snapshot", map[string]any{"sessionId": id})
	if m["buffer"] != "alternate" || rows[0] != "first line" {
		t.Fatalf("in less: buffer %v screen %q", m["buffer"], rows)
	}
	c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{map[string]any{"type": "key", "key": "q"}}})
	if rows := c.waitScreen(id, contains("after")); rows[0] != "before" || rows[1] != "after" {
		t.Fatalf("after q: %q", rows)
	}
	if s := c.OK("terminal_snapshot", map[string]any{"sessionId": id}); s["buffer"] != "normal" {
		t.Fatalf("after q: %v", s["buffer"])
	}
}

// echoInput is a python program that switches on a mode, prints READY and then the repr of
// every read of its input.
const echoInput = `python3 -c '
import os, sys, tty
tty.setraw(0)
sys.stdout.write(sys.argv[1].encode().decode("unicode_escape") + "READY\r\n"); sys.stdout.flush()
while True:
    b = os.read(0, 1024)
    sys.stdout.write(repr(b) + "\r\n"); sys.stdout.flush()
' `

func TestPasteWithBracketedPaste(t *testing.T) {
	c, _, audited := connect(t, directLauncher)
	id, _ := c.start(echoInput+`'\033[?2004h'`, 80, 6, nil)
	c.waitScreen(id, contains("READY"))
	m := c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "paste", "text": "a\nb\r\nc"}}})
	if rows := mcptest.Screen(m); rows[1] != `b'\x1b[200~a\rb\rc\x1b[201~'` {
		t.Fatalf("screen %q", rows)
	}
	if len(*audited) != 1 || (*audited)[0] != "paste:17:\x1b[200~a\rb\rc\x1b[201" {
		t.Fatalf("audited %q", *audited)
	}
}

func TestMouseClickSGR(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, _ := c.start(echoInput+`'\033[?1000h\033[?1006h'`, 80, 6, nil)
	c.waitScreen(id, contains("READY"))
	m := c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0})
	if mouse := m["mouse"].(map[string]any); mouse["tracking"] != "vt200" || mouse["encoding"] != "sgr" {
		t.Fatalf("mouse %v", mouse)
	}
	in := c.OK("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "mouse", "event": "click", "row": 3, "column": 7, "button": "right", "modifiers": []string{"Ctrl"}},
		map[string]any{"type": "wait"},
		map[string]any{"type": "mouse", "event": "scroll", "row": 1, "column": 1, "direction": "down", "count": 2}}})
	rows := mcptest.Screen(in)
	if rows[1] != `b'\x1b[<18;7;3M\x1b[<18;7;3m'` || rows[2] != `b'\x1b[<65;1;1M\x1b[<65;1;1M'` {
		t.Fatalf("screen %q", rows)
	}
	c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "mouse", "event": "click", "row": 7, "column": 1}}}, CodeInvalidInput)
}

func TestMouseWithoutReportingFails(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, _ := c.start("sleep 30", 20, 4, map[string]any{"settleMs": 0})
	m := c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "text", "text": "x"},
		map[string]any{"type": "mouse", "event": "click", "row": 1, "column": 1}}}, CodeUnsupportedInput)
	if m["actionsCompleted"] != 1.0 || m["inputSent"] != true || m["failedActionIndex"] != 1.0 || m["latestSnapshot"] == nil {
		t.Fatalf("error %v", m)
	}
}

func TestSettleOnASpinner(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	// A frame every 50 ms without forking: /bin/sleep's fork and exec can take longer than
	// the 250 ms quiet period on a loaded machine (the spinner then really was quiet), so bash
	// waits with its read builtin on a pipe nobody writes to.
	spin := `exec bash -c 'exec 3<> <(:); while :; do for c in - x "|" /; do printf "\r%s" "$c"; read -t 0.05 -u 3; done; done'`
	begin := time.Now()
	_, m := c.start(spin, 20, 3, nil)
	if m["settled"] != false {
		t.Fatalf("a spinner settled: %v", m)
	}
	if d := time.Since(begin); d < time.Second {
		t.Fatalf("returned after %v, before the 1 s cap", d)
	}
	id := m["sessionId"].(string)
	e := c.Fail("terminal_snapshot", map[string]any{"sessionId": id, "settleTimeoutMs": 300}, CodeNotSettled)
	if e["sessionId"] != id || e["latestSnapshot"].(map[string]any)["settled"] != false {
		t.Fatalf("error %v", e)
	}
	if m := c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0}); m["settled"] != true {
		t.Fatalf("settleMs 0: %v", m)
	}
	c.Fail("terminal_snapshot", map[string]any{"sessionId": id, "settleTimeoutMs": 100}, CodeInvalidInput) // < 250 ms quiet
}

func TestSynchronizedOutputHoldsSettlement(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	e := c.Fail("terminal_start", map[string]any{"command": `printf '\033[?2026hdrawing'; sleep 30`, "cols": 20, "rows": 3,
		"settleMs": 100, "settleTimeoutMs": 400}, CodeNotSettled)
	id, _ := e["sessionId"].(string)
	latest := e["latestSnapshot"].(map[string]any)
	if id == "" || mcptest.Screen(latest)[0] != "drawing" || latest["settled"] != false {
		t.Fatalf("error %v", e)
	}
	// The session stays available after a strict timeout.
	if m := c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 0}); m["settled"] != false {
		t.Fatalf("snapshot during a synchronized redraw: %v", m)
	}
}

func TestCloseTwiceAndExitStatus(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	id, _ := c.start("echo bye; exit 3", 20, 3, nil)
	m := c.waitStatus(id, "exited")
	if m["status"] != "exited" || m["exitCode"] != 3.0 || mcptest.Screen(m)[0] != "bye" {
		t.Fatalf("exited: %v", m)
	}
	c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{map[string]any{"type": "text", "text": "x"}}}, CodeSessionExited)
	l := c.OK("terminal_list", map[string]any{})
	ss := l["sessions"].([]any)
	if len(ss) != 1 || ss[0].(map[string]any)["status"] != "exited" || ss[0].(map[string]any)["command"] != "echo bye; exit 3" {
		t.Fatalf("list %v", l)
	}
	r := c.OK("terminal_close", map[string]any{"sessionId": id})
	if r["closed"] != true || r["sessionId"] != id {
		t.Fatalf("close %v", r)
	}
	r = c.OK("terminal_close", map[string]any{"sessionId": id})
	if r["closed"] != false {
		t.Fatalf("second close %v", r)
	}
	e := c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{map[string]any{"type": "text", "text": "x"}}}, CodeSessionNotFound)
	if e["actionsCompleted"] != 0.0 || e["inputSent"] != false {
		t.Fatalf("missing-session input %v", e)
	}
	// A killed process reports its signal.
	id2, _ := c.start("kill -TERM $$", 20, 3, map[string]any{"login": false})
	m = c.waitStatus(id2, "exited")
	if m["status"] != "exited" || m["signal"] != 15.0 || m["exitCode"] != nil {
		t.Fatalf("signalled: %v", m)
	}
}

func TestCloseKillsTheProcessGroup(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	dir := t.TempDir()
	pidf := filepath.Join(dir, "pid")
	id, _ := c.start("sleep 300 & echo $! > "+pidf+"; wait", 20, 3, nil)
	var b []byte
	var err error
	for range 500 { // the shell writes it at its own pace
		if b, err = os.ReadFile(pidf); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	c.OK("terminal_close", map[string]any{"sessionId": id})
	// Gone, or a zombie left for its parent to reap: dead either way.
	if st, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
		t.Fatalf("background child %s survived the close: %s", pid, st)
	}
}

func TestStrictArgumentsAndLimits(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 20, "rows": 3, "colour": 1}, CodeInvalidInput)
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 1, "rows": 3}, CodeInvalidInput)
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 20, "rows": 0}, CodeInvalidInput)
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 20, "rows": 3, "env": map[string]any{"TERM": "vt100"}}, CodeInvalidInput)
	c.Fail("terminal_start", map[string]any{"command": "", "cols": 20, "rows": 3}, CodeInvalidInput)
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 20.5, "rows": 3}, CodeInvalidInput)
	id, _ := c.start("cat", 20, 3, map[string]any{"settleMs": 0})
	many := make([]any, MaxActions+1)
	for i := range many {
		many[i] = map[string]any{"type": "text", "text": "x"}
	}
	e := c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": many}, CodeInvalidInput)
	if e["inputSent"] != false || e["actionsCompleted"] != 0.0 {
		t.Fatalf("batch error %v", e)
	}
	c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{}}, CodeInvalidInput)
	big := strings.Repeat("y", MaxPayload/2+1)
	c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{
		map[string]any{"type": "text", "text": big}, map[string]any{"type": "paste", "text": big}}}, CodeInvalidInput)
	// A bad action anywhere rejects the batch before anything is sent.
	for _, bad := range []map[string]any{
		{"type": "key", "key": "Enter", "modifiers": []string{"Ctrl"}},
		{"type": "key", "key": "a", "modifiers": []string{"Shift"}},
		{"type": "key", "key": "1", "modifiers": []string{"Ctrl"}},
		{"type": "key", "key": "enter"},
		{"type": "key", "key": "Up", "modifiers": []string{"Alt", "Alt"}},
		{"type": "text", "text": "x", "extra": true},
		{"type": "raw", "bytes": []int{1, 256}},
		{"type": "mouse", "event": "drag", "row": 1, "column": 1},
		{"type": "wait", "settleMs": 300, "settleTimeoutMs": 200},
		{"type": "focus"},
		{"type": "beep"},
	} {
		e := c.Fail("terminal_input", map[string]any{"sessionId": id, "actions": []any{map[string]any{"type": "text", "text": "SENT"}, bad}}, CodeInvalidInput)
		if e["inputSent"] != false {
			t.Fatalf("%v: %v", bad, e)
		}
	}
	if rows := mcptest.Screen(c.mustSnap(id)); rows[0] != "" {
		t.Fatalf("rejected batches sent input: %q", rows)
	}
	// Eight terminals per connection, exited ones included.
	for range MaxSessions - 1 {
		c.start("true", 20, 3, map[string]any{"settleMs": 0})
	}
	c.Fail("terminal_start", map[string]any{"command": "true", "cols": 20, "rows": 3}, CodeSessionLimit)
}

func (c *client) mustSnap(id string) map[string]any {
	c.t.Helper()
	m := c.OK("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 100})
	return m
}

func TestResultTooLarge(t *testing.T) {
	c, _, _ := connect(t, directLauncher)
	// Every cell of a 500x200 screen in its own colour: more than 8 MiB of spans and styles.
	// Row by row, each one followed by a cursor position request whose answer comes back only
	// once the emulator has parsed the row: the output never outruns the screen (a flood
	// would be skipped ahead to its last lines).
	gen := `python3 -c '
import os, sys, time, tty
tty.setraw(0)
sys.stdout.write("\033[H")
for r in range(200):
    row = "\033[48;5;%dm" % r + "".join("\033[38;5;%dm\u2588" % (c % 256) for c in range(500))
    sys.stdout.write(row + ("\r\n" if r < 199 else "") + "\033[6n"); sys.stdout.flush()
    reply = b""
    while not reply.endswith(b"R"):
        reply += os.read(0, 64)
time.sleep(30)
'`
	m, _, isErr := c.Call("terminal_start", map[string]any{"command": gen, "cols": 500, "rows": 200, "settleMs": 500, "settleTimeoutMs": 30000})
	if !isErr || m["code"] != CodeResultTooLarge {
		t.Fatalf("want RESULT_TOO_LARGE, got %v", keys(m))
	}
	if m["limitBytes"] != float64(MaxResultBytes) || m["resultBytes"].(float64) <= float64(MaxResultBytes) || m["cols"] != 500.0 || m["status"] != "running" {
		t.Fatalf("error %v", m)
	}
	if _, ok := m["screen"]; ok {
		t.Fatal("screen included")
	}
	id := m["sessionId"].(string)
	r := c.OK("terminal_resize", map[string]any{"sessionId": id, "cols": 100, "rows": 20})
	if r["cols"] != 100.0 || len(mcptest.Screen(r)) != 20 {
		t.Fatalf("recovery by resize: %v", keys(r))
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k, v := range m {
		if k == "screen" || k == "spans" || k == "styles" {
			out = append(out, k)
			continue
		}
		out = append(out, k+"="+jsonText(v))
	}
	slices.Sort(out)
	return out
}
