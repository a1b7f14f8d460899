package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/acpclient"
)

// Switching the session's mode and model (the cycle_mode and cycle_model keys), whichever way
// the agent offers them.

// cycleMode switches to the next session mode, however the agent offers modes (the modes API
// or a mode config option; acpclient SetMode, from a Cmd).
func (m *Model) cycleMode() tea.Cmd {
	ms := m.state.Modes()
	if len(ms.Options) < 2 {
		m.addBanner("info", "the agent offers no modes to switch")
		return nil
	}
	next := nextOption(ms)
	agent := m.d.agent
	return func() tea.Msg {
		if err := agent.SetMode(next); err != nil {
			return cmdErrMsg{"switch mode", err}
		}
		return nil
	}
}

// nextOption is the option after the current one (the first when the current one is unknown).
func nextOption(ms acpclient.Modes) string {
	next := ms.Options[0].ID
	for i, o := range ms.Options {
		if o.ID == ms.Current {
			next = ms.Options[(i+1)%len(ms.Options)].ID
		}
	}
	return next
}

// cycleModel switches to the next model: the "model" config option (SetConfigOption) or, when
// the agent offers models through the models API (gemini-cli), session/set_model (SetModel).
func (m *Model) cycleModel() tea.Cmd {
	ms := m.state.Models()
	if len(ms.Options) < 2 {
		m.addBanner("info", "the agent offers no models to switch")
		return nil
	}
	next := nextOption(ms)
	agent, cfgID := m.d.agent, ms.ConfigID
	return func() tea.Msg {
		var err error
		if cfgID != "" {
			err = agent.SetConfigOption(cfgID, next)
		} else {
			err = agent.SetModel(next)
		}
		if err != nil {
			return cmdErrMsg{"switch model", err}
		}
		return nil
	}
}
