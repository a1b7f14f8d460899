package acpclient

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/config"
)

func isTurnEnded(e Event) bool { _, ok := e.(TurnEnded); return ok }

func TestHandshakeEchoAndEarlyUpdates(t *testing.T) {
	h := start(t, setup{})
	info := h.c.Info()
	if info.AgentName != "scriptagent" || info.AgentVersion != "1.2.3" || info.SessionID != "sess-1" || info.ProtocolVersion != 1 {
		t.Fatalf("info = %+v", info)
	}
	if info.Modes == nil || info.Modes.CurrentModeId != "default" || len(info.ConfigOptions) != 1 {
		t.Fatalf("modes %+v config %+v", info.Modes, info.ConfigOptions)
	}
	from := 0
	if _, ok := h.waitFor(&from, "SessionStarted", func(e Event) bool { return true }).(SessionStarted); !ok {
		t.Fatalf("first event is not SessionStarted: %s", summarize(h.snapshot()))
	}
	// available_commands_update was sent before the session/new response (an agent may do that; the client must keep it).
	ev := h.waitFor(&from, "SessionUpdated", func(e Event) bool { _, ok := e.(SessionUpdated); return ok }).(SessionUpdated)
	if u := ev.Update.AvailableCommandsUpdate; u == nil || len(u.AvailableCommands) != 1 || u.AvailableCommands[0].Name != "init" {
		t.Fatalf("early update = %+v", ev.Update)
	}
	end := h.turn("echo hello world")
	if end.StopReason != "end_turn" || end.Err != nil {
		t.Fatalf("TurnEnded = %+v", end)
	}
	if got := h.lastAgentText(); got != "hello world" {
		t.Errorf("agent text = %q", got)
	}
	h.mu.Lock()
	if len(h.state.Commands) != 1 || h.state.Messages[0].Role != RoleUser || h.state.Messages[0].Text != "echo hello world" {
		t.Errorf("state commands %+v messages %+v", h.state.Commands, h.state.Messages)
	}
	h.mu.Unlock()
	tail := strings.Join(h.c.StderrTail(), "\n")
	for _, want := range []string{
		"initialize: terminal=true fs=true/true meta.terminal_output=true client=acpterm",
		"session/new cwd=" + h.dir + " mcpServers=0 additionalDirectories=[]",
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr tail lacks %q:\n%s", want, tail)
		}
	}
}

func TestFloodOf2000Updates(t *testing.T) {
	h := start(t, setup{})
	end := h.turn("flood 2000")
	if end.StopReason != "end_turn" {
		t.Fatalf("TurnEnded = %+v", end)
	}
	n := 0
	for _, e := range h.snapshot() {
		if su, ok := e.(SessionUpdated); ok && su.Update.AgentMessageChunk != nil {
			n++
		}
	}
	if n != 2000 {
		t.Errorf("got %d agent chunks, want 2000", n)
	}
	var want strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got := h.lastAgentText(); got != want.String() {
		t.Errorf("assembled text has %d bytes, want %d (order or loss)", len(got), want.Len())
	}
	// The connection survived: another turn works.
	if end := h.turn("echo still here"); end.StopReason != "end_turn" || h.lastAgentText() != "still here" {
		t.Errorf("after flood: %+v %q", end, h.lastAgentText())
	}
}

func TestFiveMiBMessage(t *testing.T) {
	h := start(t, setup{})
	const size = 5 << 20
	end := h.turn(fmt.Sprintf("big %d", size))
	if end.StopReason != "end_turn" {
		t.Fatalf("TurnEnded = %+v", end)
	}
	got := h.lastAgentText()
	if len(got) != size || strings.Trim(got, "x") != "" {
		t.Errorf("message: %d bytes, want %d of 'x'", len(got), size)
	}
}

func TestCrashMidTurn(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("crash")
	from := 0
	ex := h.waitFor(&from, "AgentExited", func(e Event) bool { _, ok := e.(AgentExited); return ok }).(AgentExited)
	if ex.Code == nil || *ex.Code != 7 || ex.Signal != "" || ex.Expected {
		t.Errorf("AgentExited = %+v", ex)
	}
	if n := len(ex.StderrTail); n == 0 || ex.StderrTail[n-1] != "scriptagent: segmentation fault (simulated)" {
		t.Errorf("stderr tail = %q", ex.StderrTail)
	}
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	var ee *AgentExitError
	if !errors.As(end.Err, &ee) || ee.Code == nil || *ee.Code != 7 {
		t.Fatalf("TurnEnded.Err = %v", end.Err)
	}
	if !strings.Contains(end.Err.Error(), "agent exited with status 7; last stderr: ") ||
		!strings.Contains(end.Err.Error(), "segmentation fault (simulated)") {
		t.Errorf("error text = %q", end.Err.Error())
	}
	// A prompt after death ends at once with the same error.
	if end := h.turn("echo x"); !errors.As(end.Err, &ee) {
		t.Errorf("prompt after death: %+v", end)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state.Exited == nil || h.state.Busy {
		t.Errorf("state exited %v busy %v", h.state.Exited, h.state.Busy)
	}
}

func TestKilledBySignal(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("killself")
	from := 0
	ex := h.waitFor(&from, "AgentExited", func(e Event) bool { _, ok := e.(AgentExited); return ok }).(AgentExited)
	if ex.Code != nil || ex.Signal != "SIGKILL" {
		t.Errorf("AgentExited = %+v", ex)
	}
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.Err == nil || !strings.Contains(end.Err.Error(), "agent was killed by SIGKILL") {
		t.Errorf("TurnEnded = %+v", end)
	}
}

func TestCrashBeforeInitialize(t *testing.T) {
	_, err := startErr(t, setup{scenario: "crash-before-init"})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	for _, want := range []string{"initialize failed", "agent exited with status 3", "scriptagent: giving up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// An agent that prints its usage on stdout and exits: the start error quotes those lines (they
// are not JSON-RPC, so they are otherwise only in the log).
func TestUsageOnStdoutQuotedInStartError(t *testing.T) {
	_, err := startErr(t, setup{scenario: "usage-on-stdout"})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	want := `agent exited with status 1; on stdout, which must carry only JSON-RPC, it printed: "Usage: scriptagent [--acp] [--model NAME]" | "  --acp   speak the Agent Client Protocol on stdio"`
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q lacks %q", err, want)
	}
}

func TestNeverAnswersInitialize(t *testing.T) {
	_, err := startErr(t, setup{scenario: "never-init", opts: func(o *Options) { o.InitTimeout = 700 * time.Millisecond }})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	want := fmt.Sprintf("agent %q did not answer initialize within 700ms", agentBin)
	if err.Error() != "acpclient: "+want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestProtocolVersionChecked(t *testing.T) {
	_, err := startErr(t, setup{scenario: "version2"})
	if err == nil || err.Error() != "acpclient: agent speaks ACP protocol version 2; acpterm speaks only version 1" {
		t.Errorf("error = %v", err)
	}
}

func TestAuthenticateWhenRequired(t *testing.T) {
	h := start(t, setup{scenario: "auth"})
	if h.c.Info().SessionID != "sess-1" || len(h.c.Info().AuthMethods) != 1 {
		t.Errorf("info = %+v", h.c.Info())
	}
}

func TestStderrFlood(t *testing.T) {
	h := start(t, setup{scenario: "stderr-flood", env: []string{"SCRIPTAGENT_LINES=100000"}})
	if end := h.turn("echo ok"); end.StopReason != "end_turn" || h.lastAgentText() != "ok" {
		t.Fatalf("turn after stderr flood: %+v", end)
	}
	// The drain is asynchronous: wait until the lines written after the flood arrived.
	var tail []string
	for deadline := time.Now().Add(evTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		tail = h.c.StderrTail()
		if strings.HasPrefix(tail[len(tail)-1], "session/new") {
			break
		}
	}
	if len(tail) != StderrTailLines {
		t.Fatalf("tail has %d lines", len(tail))
	}
	found := false
	for _, l := range tail {
		found = found || l == "stderr line 100000"
	}
	if !found || tail[0] == "stderr line 1" {
		t.Errorf("tail does not end the flood: first %q", tail[0])
	}
}

func TestUnknownUpdatesIgnored(t *testing.T) {
	h := start(t, setup{})
	end := h.turn("unknown")
	if end.StopReason != "end_turn" {
		t.Fatalf("TurnEnded = %+v", end)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var texts []string
	for _, m := range h.state.Messages {
		texts = append(texts, m.Role+":"+m.Text)
	}
	want := []string{"user:unknown", "agent:after-unknown"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("messages = %q, want %q", texts, want)
	}
	for _, e := range h.events {
		if su, ok := e.(SessionUpdated); ok {
			if k, known := UpdateKind(su.Update); !known {
				t.Errorf("unknown kind %q was emitted", k)
			}
		}
	}
}

func TestOpenToolCallClosedAtTurnEnd(t *testing.T) {
	h := start(t, setup{})
	h.turn("open")
	h.mu.Lock()
	defer h.mu.Unlock()
	tc, ok := h.state.ToolCall("call-open")
	if !ok || tc.Status != StatusIncomplete {
		t.Errorf("tool call = %+v", tc)
	}
}

func TestSetModeAndConfigOption(t *testing.T) {
	h := start(t, setup{})
	if err := h.c.SetMode("plan"); err != nil {
		t.Fatal(err)
	}
	if err := h.c.SetMode("nope"); err == nil || !strings.Contains(err.Error(), "not one of the agent's modes") {
		t.Errorf("SetMode(nope) = %v", err)
	}
	if err := h.c.SetConfigOption("model", "smart"); err != nil {
		t.Fatal(err)
	}
	if err := h.c.SetConfigOption("colour", "red"); err == nil {
		t.Error("SetConfigOption(colour) succeeded")
	}
	if err := h.c.SetModel("m2"); err != nil {
		t.Fatal(err)
	}
	if err := h.c.SetModel("m9"); err == nil {
		t.Error("SetModel(m9) succeeded")
	}
	info := h.c.Info()
	if info.Models == nil || info.Models.CurrentModelId != "m2" {
		t.Errorf("models = %+v", info.Models)
	}
	if info.Modes.CurrentModeId != "plan" || info.ConfigOptions[0].Select.CurrentValue != "smart" {
		t.Errorf("info modes %+v options %+v", info.Modes, info.ConfigOptions[0].Select)
	}
	h.turn("echo sync") // events of the calls are in the stream before this turn's
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state.Mode != "plan" || h.state.ConfigOptions[0].Select.CurrentValue != "smart" {
		t.Errorf("state mode %q options %+v", h.state.Mode, h.state.ConfigOptions)
	}
}

func TestLoadSessionReplays(t *testing.T) {
	h := start(t, setup{scenario: "load", opts: func(o *Options) { o.LoadSession = "old-7" }})
	if h.c.Info().SessionID != "old-7" {
		t.Fatalf("session = %q", h.c.Info().SessionID)
	}
	h.turn("echo new")
	if _, ok := h.snapshot()[0].(SessionStarted); !ok {
		t.Errorf("replayed updates came before SessionStarted: %s", summarize(h.snapshot()[:3]))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var texts []string
	for _, m := range h.state.Messages {
		texts = append(texts, m.Role+":"+m.Text)
	}
	if got := strings.Join(texts, "|"); got != "user:old question|agent:old answer|user:echo new|agent:new" {
		t.Errorf("messages = %s", got)
	}
}

// An agent that answers session/load before it replays the history (gemini-cli 0.61): the
// first new prompt still goes after the whole replay.
func TestLoadSessionLateReplay(t *testing.T) {
	h := start(t, setup{scenario: "load-late", opts: func(o *Options) { o.LoadSession = "old-8" }})
	h.turn("echo new")
	h.mu.Lock()
	defer h.mu.Unlock()
	var texts []string
	for _, m := range h.state.Messages {
		texts = append(texts, m.Role+":"+m.Text)
	}
	if got := strings.Join(texts, "|"); got != "user:old question|agent:old answer|user:echo new|agent:new" {
		t.Errorf("messages = %s", got)
	}
}

func TestPromptEmbedsFiles(t *testing.T) {
	h := start(t, setup{})
	if err := os.WriteFile(filepath.Join(h.dir, "notes.txt"), []byte("remember"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.turn("blocks look at @notes.txt and @missing.txt")
	want := "text|resource:file://" + filepath.Join(h.cfg.Policy.Roots[0], "notes.txt") + ":remember"
	if got := h.lastAgentText(); got != want && got != "text|resource:file://"+filepath.Join(h.dir, "notes.txt")+":remember" {
		t.Errorf("blocks = %q, want %q", got, want)
	}
}

// A mention of a file whose path has spaces, written "@dir\ with\ space/f.txt" (as the TUI
// completes it), is embedded like any other.
func TestPromptEmbedsFileWithSpaces(t *testing.T) {
	h := start(t, setup{})
	dir := filepath.Join(h.dir, "dir with space")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("spaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "bin#1.dat"), []byte{0x7f, 'E', 'L', 'F', 0, 0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	h.turn(`blocks read @dir\ with\ space/f.txt, please, and @bin#1.dat`)
	got := h.lastAgentText()
	// URIs are percent-encoded; the binary file goes as a link, not as text.
	if !strings.HasPrefix(got, "text|resource:file://") || !strings.Contains(got, "/dir%20with%20space/f.txt:spaced|") ||
		!strings.HasSuffix(got, "|link:file://"+filepath.ToSlash(h.dir)+"/bin%231.dat") {
		t.Errorf("blocks = %q, want the spaced file embedded and the binary one linked", got)
	}
}

func TestMentionWords(t *testing.T) {
	got := mentionWords("see  @a\\ b/c.txt\tand @d\n")
	if want := []string{"see", `@a\ b/c.txt`, "and", "@d"}; !slices.Equal(got, want) {
		t.Errorf("mentionWords = %q, want %q", got, want)
	}
}

func TestCloseStopsAgentIgnoringSIGTERM(t *testing.T) {
	h := start(t, setup{scenario: "ignore-term", opts: func(o *Options) {
		o.StdinGrace, o.KillGrace = 100*time.Millisecond, 300*time.Millisecond
	}})
	h.c.Close()
	from := 0
	ex := h.waitFor(&from, "AgentExited", func(e Event) bool { _, ok := e.(AgentExited); return ok }).(AgentExited)
	if ex.Signal != "SIGKILL" || !ex.Expected {
		t.Errorf("AgentExited = %+v", ex)
	}
}

func TestCloseKillsTheAgentsGroup(t *testing.T) {
	h := start(t, setup{scenario: "child"})
	var pid int
	for _, l := range h.c.StderrTail() {
		fmt.Sscanf(l, "child pid %d", &pid)
	}
	if pid == 0 {
		t.Fatalf("no child pid in %q", h.c.StderrTail())
	}
	h.c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			break // gone (or a zombie of init, i.e. dead)
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the agent still runs: %s", pid, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTurnFailureAndRefusal(t *testing.T) {
	h := start(t, setup{})
	end := h.turn("fail")
	if end.Err == nil || !strings.Contains(end.Err.Error(), "scripted failure") || end.StopReason != "" {
		t.Errorf("fail: %+v", end)
	}
	if end := h.turn("refuse"); end.StopReason != string(acp.StopReasonRefusal) || end.Err != nil {
		t.Errorf("refuse: %+v", end)
	}
	// ACP requires stopReason: a response without one is a failed turn, not "unknown".
	if end := h.turn("nostop"); end.StopReason != "" || end.Err == nil ||
		end.Err.Error() != "the agent's session/prompt response has no stopReason (ACP requires one)" {
		t.Errorf("nostop: %+v", end)
	}
}

// Messages beyond the SDK's 10 MiB line limit: a session/update is handled by the
// wire reader and arrives intact; an oversized request is answered with an error instead of
// killing the connection.
func TestOversizedLines(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.FS.Write = "allow" }})
	const size = 11 << 20
	if end := h.turn(fmt.Sprintf("big %d", size)); end.StopReason != "end_turn" || len(h.lastAgentText()) != size {
		t.Fatalf("11 MiB update: %+v, %d bytes", end, len(h.lastAgentText()))
	}
	p := filepath.Join(h.dir, "huge.txt")
	end := h.turn(fmt.Sprintf("write %s %d", p, size))
	got := h.lastAgentText()
	if end.StopReason != "end_turn" || !strings.HasPrefix(got, "write error code=-32600 message=Invalid request: agent message of ") ||
		!strings.HasSuffix(got, " bytes exceeds the 10 MiB line limit") {
		t.Fatalf("oversized write: %+v %q", end, got)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("oversized write reached the disk: %v", err)
	}
	if end := h.turn("echo alive"); end.StopReason != "end_turn" || h.lastAgentText() != "alive" {
		t.Errorf("connection after oversized request: %+v %q", end, h.lastAgentText())
	}
}

func procGone(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return os.IsNotExist(err)
}

// Processes of the agent's tree re-parented to acpterm (a subreaper once a terminals.Manager
// exists) are reaped while the agent runs, and killed and reaped when it is gone.
func TestAgentOrphansReaped(t *testing.T) {
	h := start(t, setup{})
	var short, long int
	h.turn("orphan 0.2")
	fmt.Sscanf(h.lastAgentText(), "orphan %d", &short)
	h.turn("orphan 600")
	fmt.Sscanf(h.lastAgentText(), "orphan %d", &long)
	if short == 0 || long == 0 {
		t.Fatalf("no pids: %q", h.lastAgentText())
	}
	deadline := time.Now().Add(evTimeout)
	for !procGone(short) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", short))
			t.Fatalf("orphan %d not reaped while the agent runs: %s", short, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if procGone(long) {
		t.Fatalf("the long orphan %d is already gone", long)
	}
	h.c.Close()
	if !procGone(long) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", long))
		t.Errorf("orphan %d survived Close: %s", long, b)
	}
}

// An agent that closes its stdout but stays alive can no longer talk: it is stopped and the
// turn ends with an error.
func TestAgentClosesStdout(t *testing.T) {
	h := start(t, setup{opts: func(o *Options) { o.KillGrace = 500 * time.Millisecond }})
	h.c.Prompt("closeout")
	from := 0
	ex := h.waitFor(&from, "AgentExited", func(e Event) bool { _, ok := e.(AgentExited); return ok }).(AgentExited)
	if ex.Signal != "SIGTERM" || ex.Expected {
		t.Errorf("AgentExited = %+v", ex)
	}
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.Err == nil || !strings.Contains(end.Err.Error(), "agent was killed by SIGTERM") {
		t.Errorf("TurnEnded = %+v", end)
	}
	if _, err := h.c.ListSessions(t.Context()); !errors.Is(err, ErrNotSupported) {
		t.Errorf("ListSessions = %v", err)
	}
}

// An agent that does not end a cancelled turn is given up on after CancelTimeout (the
// fallback): the turn ends "cancelled" with an error, and the client stays usable.
func TestCancelTimeoutFallback(t *testing.T) {
	h := start(t, setup{opts: func(o *Options) { o.CancelTimeout = 300 * time.Millisecond }})
	h.c.Prompt("stubborn")
	from := 0
	h.waitFor(&from, "agent chunk", func(e Event) bool { su, ok := e.(SessionUpdated); return ok && su.Update.AgentMessageChunk != nil })
	h.c.Cancel()
	end := h.waitFor(&from, "TurnEnded", isTurnEnded).(TurnEnded)
	if end.StopReason != "cancelled" || end.Err == nil {
		t.Errorf("TurnEnded = %+v", end)
	}
}
