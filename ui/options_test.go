package ui

import (
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

func testConfigOptions(effort string, fast bool) []acp.SessionConfigOption {
	cat := acp.SessionConfigOptionCategoryThoughtLevel
	return []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: "model", Name: "Model", Type: "select", CurrentValue: "opus",
			Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{{Value: "opus", Name: "Opus"}, {Value: "sonnet", Name: "Sonnet"}}}}},
		{Select: &acp.SessionConfigOptionSelect{Id: "effort", Name: "Effort", Type: "select", Category: &cat, CurrentValue: acp.SessionConfigValueId(effort),
			Description: acp.Ptr("How hard the model thinks"),
			Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
				{Value: "low", Name: "Low"}, {Value: "medium", Name: "Medium"}, {Value: "high", Name: "High"}}}}},
		{Boolean: &acp.SessionConfigOptionBoolean{Id: "fast", Name: "Fast mode", Type: "boolean", CurrentValue: fast}},
	}
}

func TestOptionsDialog(t *testing.T) {
	h := newHarness(t, nil)
	h.key("alt+c")
	if scr := h.screenText(); !strings.Contains(scr, "the agent offers no session options") {
		t.Fatalf("no banner:\n%s", scr)
	}
	h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "s1", ConfigOptions: testConfigOptions("medium", false)}})
	h.key("alt+c")
	scr := h.screenText()
	for _, want := range []string{"Session options", "› Model      ‹ Opus ›", "Effort     ‹ Medium ›", "Fast mode  off",
		"↑↓ option · ←→ change · space toggle · esc close"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("dialog lacks %q:\n%s", want, scr)
		}
	}
	h.key("down")
	if scr := h.screenText(); !strings.Contains(scr, "thought_level · How hard the model thinks · values: Low, Medium, High") {
		t.Fatalf("no description:\n%s", scr)
	}
	h.send(keyMsg("right"))
	wantCalls(t, h.agent.take(), "config effort=high")
	if scr := h.screenText(); !strings.Contains(scr, "setting…") {
		t.Fatalf("no pending mark:\n%s", scr)
	}
	// The agent's complete new list is what the dialog shows.
	h.ev(acpclient.SessionUpdated{Update: acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{
		SessionUpdate: "config_option_update", ConfigOptions: testConfigOptions("high", false)}}})
	if scr := h.screenText(); !strings.Contains(scr, "Effort     ‹ High ›") || strings.Contains(scr, "setting…") {
		t.Fatalf("after the update:\n%s", scr)
	}
	h.key("down")
	h.send(space())
	wantCalls(t, h.agent.take(), "config fast=true")
	h.key("esc")
	if strings.Contains(h.screenText(), "Session options") {
		t.Fatal("dialog still open")
	}
}
