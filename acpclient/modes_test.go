package acpclient

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/config"
)

func modesOf(cur string, ids ...string) Modes {
	ms := Modes{Current: cur}
	for _, id := range ids {
		ms.Options = append(ms.Options, ModeOption{ID: id, Name: id})
	}
	return ms
}

// The mode table: for each agent family, the mode acpterm switches to among the modes the real
// agent offers, and what each offered mode does.
func TestModeTable(t *testing.T) {
	copilotURI := "https://agentclientprotocol.com/protocol/session-modes#"
	cases := []struct {
		family   string
		offered  Modes
		want     string
		asks     map[string]Asks
		askedEnv bool
	}{
		{FamilyClaude, modesOf("auto", "auto", "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"), "default",
			map[string]Asks{"default": AsksYes, "plan": AsksYes, "auto": AsksNo, "acceptEdits": AsksNo, "dontAsk": AsksNo, "bypassPermissions": AsksNo}, false},
		{FamilyCodex, modesOf("agent", "read-only", "workspace-write", "agent", "agent-full-access"), "read-only",
			map[string]Asks{"read-only": AsksYes, "workspace-write": AsksNo, "agent": AsksNo, "agent-full-access": AsksNo}, false},
		// codex-acp 0.16
		{FamilyCodex, modesOf("read-only", "read-only", "auto", "full-access"), "read-only",
			map[string]Asks{"read-only": AsksYes, "auto": AsksNo, "full-access": AsksNo}, false},
		{FamilyGemini, modesOf("default", "default", "autoEdit", "yolo", "plan"), "default",
			map[string]Asks{"default": AsksYes, "plan": AsksYes, "autoEdit": AsksNo, "yolo": AsksNo}, false},
		{FamilyOpencode, modesOf("build", "build", "plan"), "build",
			map[string]Asks{"build": AsksYes, "plan": AsksYes}, true},
		{FamilyCopilot, modesOf(copilotURI+"agent", copilotURI+"agent", copilotURI+"plan", copilotURI+"autopilot"), copilotURI + "agent",
			map[string]Asks{copilotURI + "agent": AsksYes, copilotURI + "plan": AsksYes, copilotURI + "autopilot": AsksNo}, false},
	}
	for _, c := range cases {
		got, ok := ApprovingMode(c.family, c.offered)
		if !ok || got != c.want {
			t.Errorf("%s: ApprovingMode = %q, %v; want %q", c.family, got, ok, c.want)
		}
		for id, want := range c.asks {
			if a := ModeAsks(c.family, id, c.askedEnv); a != want {
				t.Errorf("%s: ModeAsks(%q) = %d, want %d", c.family, id, a, want)
			}
		}
	}
	// opencode started without acpterm's permission settings ([agent] mode = "agent"): its build
	// mode asks only where the user's own config says so.
	if a := ModeAsks(FamilyOpencode, "build", false); a != AsksUnknown {
		t.Errorf("opencode build without OPENCODE_PERMISSION: %d, want unknown", a)
	}
	// Unknown agents are never switched; well-known "acts alone" names still warn.
	if id, ok := ApprovingMode("", modesOf("x", "default", "yolo")); ok {
		t.Errorf("unknown family switched to %q", id)
	}
	if a := ModeAsks("", "yolo", false); a != AsksNo {
		t.Errorf("unknown agent's yolo: %d", a)
	}
	if a := ModeAsks("", "default", false); a != AsksUnknown {
		t.Errorf("unknown agent's default: %d", a)
	}
	// A family whose preferred mode is not offered is not switched.
	if id, ok := ApprovingMode(FamilyCodex, modesOf("agent", "agent", "agent-full-access")); ok {
		t.Errorf("codex without read-only switched to %q", id)
	}
}

func TestFamilyOf(t *testing.T) {
	cases := []struct {
		name string
		cmd  []string
		want string
	}{
		{"@agentclientprotocol/claude-agent-acp", []string{"node", "/x/dist/index.js"}, FamilyClaude},
		{"", []string{"npx", "-y", "@zed-industries/claude-agent-acp"}, FamilyClaude},
		{"codex-acp", nil, FamilyCodex},
		{"gemini-cli", []string{"gemini", "--acp"}, FamilyGemini},
		{"OpenCode", []string{"opencode", "acp"}, FamilyOpencode},
		{"", []string{"/home/u/.cache/a/opencode/node_modules/opencode-linux-x64/bin/opencode", "acp"}, FamilyOpencode},
		{"Copilot", []string{"copilot", "--acp"}, FamilyCopilot},
		{"scriptagent", []string{"/tmp/scriptagent"}, ""},
	}
	for _, c := range cases {
		if got := FamilyOf(c.name, c.cmd); got != c.want {
			t.Errorf("FamilyOf(%q, %q) = %q, want %q", c.name, c.cmd, got, c.want)
		}
	}
}

// Modes offered as a config option (opencode) and models offered through the models API (gemini)
// are found the same way as the other forms.
func TestModesAndModelsOf(t *testing.T) {
	cat := acp.SessionConfigOptionCategoryMode
	opts := []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{Id: "mode", Name: "Session Mode", Type: "select", Category: &cat,
		CurrentValue: "build", Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
			{Value: "build", Name: "build"}, {Value: "plan", Name: "plan"}}}}}}
	ms := ModesOf(nil, "", opts)
	if ms.ConfigID != "mode" || ms.Current != "build" || len(ms.Options) != 2 || ms.Options[1].ID != "plan" {
		t.Errorf("modes from config option = %+v", ms)
	}
	api := &acp.SessionModeState{CurrentModeId: "default", AvailableModes: []acp.SessionMode{{Id: "default", Name: "Default"}, {Id: "yolo", Name: "YOLO"}}}
	if ms := ModesOf(api, "yolo", opts); ms.ConfigID != "" || ms.Current != "yolo" || ms.Name("yolo") != "YOLO" {
		t.Errorf("modes API = %+v", ms)
	}
	models := &ModelState{CurrentModelId: "auto", AvailableModels: []ModelInfo{{ModelId: "auto", Name: "Auto"}, {ModelId: "gemini-2.5-pro", Name: "gemini-2.5-pro"}}}
	if m := ModelsOf(models, opts); m.ConfigID != "" || m.Current != "auto" || len(m.Options) != 2 {
		t.Errorf("models API = %+v", m)
	}
	if m := ModelsOf(nil, opts); len(m.Options) != 0 {
		t.Errorf("no models: %+v", m)
	}
}

// A tool call that acts and ran without any permission request is flagged (event, State, audit
// record of kind "unasked"); one the agent asked about is not.
func TestUnaskedToolCallFlagged(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	h := start(t, setup{opts: withAudit(t, logPath)})
	h.turn("metaretitle")
	h.c.Prompt("perm")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	h.c.Answer(ask.ID, Answer{Choice: AllowOnce})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	var flagged []ToolCallUnasked
	for _, e := range h.snapshot() {
		if u, ok := e.(ToolCallUnasked); ok {
			flagged = append(flagged, u)
		}
	}
	if len(flagged) != 1 || flagged[0] != (ToolCallUnasked{ToolCallID: "toolu_2", Kind: acp.ToolKindExecute, Title: "`ls -la`"}) {
		t.Fatalf("unasked = %+v, want only toolu_2", flagged)
	}
	h.mu.Lock()
	tc, _ := h.state.ToolCall("toolu_2")
	other, _ := h.state.ToolCall("call-perm")
	h.mu.Unlock()
	if !tc.Unasked || other.Unasked {
		t.Errorf("State: toolu_2 unasked=%v, call-perm unasked=%v", tc.Unasked, other.Unasked)
	}
	var rec map[string]any
	for _, m := range auditLines(t, logPath) {
		if m["kind"] == "unasked" {
			if rec != nil {
				t.Errorf("two unasked records")
			}
			rec = m
		}
	}
	if rec == nil || rec["verdict"] != "allow" || rec["by"] != "agent" || rec["req"] != "tool_call#toolu_2" ||
		fmt.Sprint(rec["argv"]) != "[ls -la]" || rec["reason"] != "tool call toolu_2 (execute) ran without asking: `ls -la`" {
		t.Errorf("audit record = %v", rec)
	}
}

// [agent] mode = a mode id switches to it at start; an unknown id is a warning and changes
// nothing.
func TestConfiguredModeChosenAtStart(t *testing.T) {
	t.Run("known", testConfiguredMode)
	t.Run("unknown", testConfiguredModeUnknown)
}

func testConfiguredMode(t *testing.T) {
	h := start(t, setup{opts: func(o *Options) { o.Mode = "plan" }})
	if got := h.c.Info().Modes.CurrentModeId; got != "plan" {
		t.Fatalf("mode = %q, want plan", got)
	}
	h.turn("echo x")
	var notes []string
	for _, e := range h.snapshot() {
		if n, ok := e.(Notice); ok {
			notes = append(notes, n.Level+": "+n.Text)
		}
	}
	if want := `info: mode Default → Plan ([agent] mode = "plan")`; !slices.Contains(notes, want) {
		t.Errorf("notices %q, want %q", notes, want)
	}
}

func testConfiguredModeUnknown(t *testing.T) {
	h2 := start(t, setup{opts: func(o *Options) { o.Mode = "yolo" }})
	if got := h2.c.Info().Modes.CurrentModeId; got != "default" {
		t.Fatalf("mode = %q, want default", got)
	}
	h2.turn("echo x")
	found := false
	for _, e := range h2.snapshot() {
		if n, ok := e.(Notice); ok && n.Text == `[agent] mode = "yolo" is not one of the agent's modes (default, plan); the agent's mode "default" stays` {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning for the unknown mode: %s", summarize(h2.snapshot()))
	}
}

// An execute permission request that carries its command only in the title (gemini-cli) is
// judged by that command: a deny rule answers it without asking; an allow rule allows it.
func TestPermissionCommandFromTitle(t *testing.T) {
	t.Run("deny", func(t *testing.T) {
		h := start(t, setup{policy: func(p *config.Policy) { p.Commands.Deny = append(p.Commands.Deny, "rm") }})
		h.turn("permtitle rm -rf build")
		if got := h.lastAgentText(); got != "permission selected reject" {
			t.Errorf("agent saw %q", got)
		}
		if n := countEvents[PermissionAsked](h.snapshot()); n != 0 {
			t.Errorf("asked %d times", n)
		}
	})
	t.Run("allow", func(t *testing.T) {
		h := start(t, setup{})
		h.turn("permtitle ls -la")
		if got := h.lastAgentText(); got != "permission selected allow" {
			t.Errorf("agent saw %q", got)
		}
	})
}

// Policy roots besides the cwd go to an agent that advertises additionalDirectories, and only
// to such an agent.
func TestRootsSentAsAdditionalDirectories(t *testing.T) {
	extra := t.TempDir()
	for _, c := range []struct{ scenario, want string }{{"dirs", fmt.Sprintf("additionalDirectories=[%q]", extra)}, {"", "additionalDirectories=[]"}} {
		t.Run("scenario="+c.scenario, func(t *testing.T) {
			h := start(t, setup{scenario: c.scenario, policy: func(p *config.Policy) { p.Roots = append(p.Roots, extra) }})
			h.turn("echo x")
			tail := strings.Join(h.c.StderrTail(), "\n")
			if !strings.Contains(tail, "session/new cwd="+h.dir+" mcpServers=0 "+c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, tail)
			}
		})
	}
}

// session_info_update _meta errors and notices (codex-acp's retries) become Notices.
func TestMetaNotices(t *testing.T) {
	got := metaNotices(map[string]any{"codex": map[string]any{"threadStatus": "active",
		"error": map[string]any{"message": "Reconnecting... 2/5", "willRetry": true}}})
	if len(got) != 1 || got[0] != (Notice{Level: "warning", Text: "agent: Reconnecting... 2/5"}) {
		t.Errorf("retry: %+v", got)
	}
	got = metaNotices(map[string]any{"codex": map[string]any{"error": map[string]any{"message": "stream disconnected", "willRetry": false}}})
	if len(got) != 1 || got[0] != (Notice{Level: "error", Text: "agent: stream disconnected"}) {
		t.Errorf("final: %+v", got)
	}
	got = metaNotices(map[string]any{"notice": map[string]any{"severity": "warning", "title": "Auto mode unavailable", "description": "Using Accept edits instead."}})
	if len(got) != 1 || got[0] != (Notice{Level: "warning", Text: "agent: Auto mode unavailable: Using Accept edits instead."}) {
		t.Errorf("notice: %+v", got)
	}
	if got := metaNotices(map[string]any{"codex": map[string]any{"threadStatus": "idle"}}); len(got) != 0 {
		t.Errorf("status only: %+v", got)
	}
}
