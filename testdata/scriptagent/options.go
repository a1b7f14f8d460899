package main

import (
	"fmt"
	"os"

	"github.com/coder/acp-go-sdk"
)

// optionsScenario is the extra config options of scenario "options": claude's effort (a select
// of category thought_level) and a boolean.
func optionsScenario(effort string, brief bool) []acp.SessionConfigOption {
	if effort == "" {
		effort = "medium"
	}
	cat := acp.SessionConfigOptionCategoryThoughtLevel
	return []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: "effort", Name: "Effort", Type: "select", Category: &cat,
			CurrentValue: acp.SessionConfigValueId(effort), Description: acp.Ptr("How long the model thinks"),
			Options: acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{
				{Value: "low", Name: "Low"}, {Value: "medium", Name: "Medium"}, {Value: "high", Name: "High"}}}}},
		{Boolean: &acp.SessionConfigOptionBoolean{Id: "brief", Name: "Brief answers", Type: "boolean", CurrentValue: brief}},
	}
}

// setOption sets effort or brief; false for any other option.
func (a *agent) setOption(p acp.SetSessionConfigOptionRequest) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case p.ValueId != nil && p.ValueId.ConfigId == "effort":
		a.effort = string(p.ValueId.Value)
		fmt.Fprintf(os.Stderr, "set_config_option effort=%s\n", a.effort)
	case p.Boolean != nil && p.Boolean.ConfigId == "brief":
		a.brief = p.Boolean.Value
		fmt.Fprintf(os.Stderr, "set_config_option brief=%v\n", a.brief)
	default:
		return false
	}
	return true
}
