package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// Modes offered as a config option (opencode) switch with alt+m; models offered through the
// models API (gemini-cli) switch with alt+p; the status bar says whether the mode asks, and a
// mode that does not ask keeps a warning on screen.
func TestModesAndModelsEveryWay(t *testing.T) {
	h := newHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 140, Height: 30}) // the whole status bar fits (statusLine)
	cat := acp.SessionConfigOptionCategoryMode
	opts := func(cur string) []acp.SessionConfigOption {
		return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{Id: "mode", Name: "Mode", Type: "select", Category: &cat,
			CurrentValue: acp.SessionConfigValueId(cur), Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
				{Value: "read-only", Name: "Read-only"}, {Value: "agent", Name: "Auto review"}}}}}}
	}
	models := &acpclient.ModelState{CurrentModelId: "auto", AvailableModels: []acpclient.ModelInfo{{ModelId: "auto", Name: "Auto"}, {ModelId: "gemini-2.5-pro", Name: "gemini-2.5-pro"}}}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "codex-acp", AgentVersion: "2.6", SessionID: "s-1",
		Family: acpclient.FamilyCodex, ConfigOptions: opts("read-only"), Models: models}})
	status := func() string {
		l := strings.Split(h.screenText(), "\n")
		return l[len(l)-1]
	}
	if s := status(); !strings.Contains(s, "mode Read-only (asks) · model Auto") {
		t.Fatalf("status = %q", s)
	}
	h.key("alt+m")
	h.key("alt+p")
	wantCalls(t, h.agent.take(), "mode agent", "model gemini-2.5-pro")
	// The agent (or the switch) moved to a mode that does not ask: a persistent warning.
	h.ev(acpclient.SessionUpdated{Update: acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: opts("agent")}}})
	h.ev(acpclient.ModelChanged{ModelID: "gemini-2.5-pro"})
	scr := h.screenText()
	if s := status(); !strings.Contains(s, "mode Auto review (does not ask) · model gemini-2.5-pro") {
		t.Fatalf("status = %q", s)
	}
	if !strings.Contains(scr, "⚠ mode Auto review does not ask: commands and edits skip acpterm's approval · alt+m switches") {
		t.Fatalf("no warning:\n%s", scr)
	}
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	h.ev(acpclient.TurnEnded{StopReason: "end_turn"})
	if !strings.Contains(h.screenText(), "⚠ mode Auto review does not ask") {
		t.Fatalf("the warning went away after a turn:\n%s", h.screenText())
	}
}

// A tool call that ran without asking says so on its card; output only in rawOutput is shown.
func TestCardUnaskedAndRawOutput(t *testing.T) {
	h := newHarness(t, nil)
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{AgentName: "a", SessionID: "s"}})
	h.ev(acpclient.TurnStarted{Prompt: "p"})
	h.ev(acpclient.SessionUpdated{Update: acp.StartToolCall("c1", "touch x", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress))})
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateToolCall("c1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(map[string]any{"aggregated_output": "made x\n"}))})
	h.ev(acpclient.ToolCallUnasked{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "touch x"})
	scr := h.screenText()
	for _, w := range []string{"touch x  ✓ completed", "⚠ ran without asking: no permission request reached acpterm", "made x"} {
		if !strings.Contains(scr, w) {
			t.Fatalf("screen lacks %q:\n%s", w, scr)
		}
	}
}
