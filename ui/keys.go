package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every host key binding. Action names (the `[ui] keys` config keys) are the
// lower_snake_case names listed in keyActions; each binding can be rebound there, e.g.
// `keys = { leave_pane = ["ctrl+]"], zoom = ["ctrl+f"] }`.
type KeyMap struct {
	Quit, Interrupt, Cancel          key.Binding
	Send, Newline, Complete          key.Binding
	HistoryPrev, HistoryNext         key.Binding
	NextPane, FocusPane, LeavePane   key.Binding
	Zoom, ScrollUp, ScrollDown       key.Binding
	PaneScrollUp, PaneScrollDown     key.Binding
	Pager, ClosePane, ToggleThoughts key.Binding
	KillPane, ConvPager              key.Binding
	CycleMode, CycleModel, Grants    key.Binding
	Help, Suspend                    key.Binding

	// Approval modal answers by the agent's option kind (own prompts also accept a/s/S/d).
	ApproveOnce, ApproveAlways, RejectOnce, RejectAlways key.Binding
}

// DefaultKeyMap returns the built-in bindings.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Quit:           b([]string{"ctrl+q"}, "ctrl+q", "quit"),
		Interrupt:      b([]string{"ctrl+c"}, "ctrl+c", "cancel turn, clear draft or quit"),
		Cancel:         b([]string{"esc"}, "esc", "cancel turn"),
		Send:           b([]string{"enter"}, "enter", "send prompt"),
		Newline:        b([]string{"alt+enter", "shift+enter", "ctrl+j"}, "alt+enter", "new line"),
		Complete:       b([]string{"tab"}, "tab", "complete /command or @file"),
		HistoryPrev:    b([]string{"up", "ctrl+p"}, "↑", "previous prompt"),
		HistoryNext:    b([]string{"down", "ctrl+n"}, "↓", "next prompt"),
		NextPane:       b([]string{"ctrl+t"}, "ctrl+t", "select next pane"),
		FocusPane:      b([]string{"ctrl+g"}, "ctrl+g", "type into selected pane"),
		LeavePane:      b([]string{"ctrl+]"}, "ctrl+]", "leave pane"),
		Zoom:           b([]string{"ctrl+f"}, "ctrl+f", "zoom pane"),
		ScrollUp:       b([]string{"pgup"}, "pgup", "scroll conversation up"),
		ScrollDown:     b([]string{"pgdown"}, "pgdn", "scroll conversation down"),
		PaneScrollUp:   b([]string{"shift+pgup", "alt+pgup", "alt+up"}, "shift+pgup", "scroll pane back"),
		PaneScrollDown: b([]string{"shift+pgdown", "alt+pgdown", "alt+down"}, "shift+pgdn", "scroll pane forward"),
		Pager:          b([]string{"ctrl+o"}, "ctrl+o", "open transcript in $PAGER"),
		ConvPager:      b([]string{"alt+o"}, "alt+o", "open the conversation in $PAGER"),
		ClosePane:      b([]string{"ctrl+x"}, "ctrl+x", "close finished pane"),
		KillPane:       b([]string{"alt+k"}, "alt+k", "kill selected pane's command"),
		ToggleThoughts: b([]string{"alt+t"}, "alt+t", "show/hide thoughts"),
		CycleMode:      b([]string{"alt+m"}, "alt+m", "switch mode"),
		CycleModel:     b([]string{"alt+p"}, "alt+p", "switch model"),
		Grants:         b([]string{"alt+g"}, "alt+g", "grants (revoke)"),
		Help:           b([]string{"?", "f1"}, "?", "help"),
		Suspend:        b([]string{"ctrl+z"}, "ctrl+z", "suspend acpterm (fg resumes)"),
		ApproveOnce:    b([]string{"a"}, "a", "approve once"),
		ApproveAlways:  b([]string{"A"}, "A", "approve always"),
		RejectOnce:     b([]string{"r"}, "r", "reject once"),
		RejectAlways:   b([]string{"R"}, "R", "reject always"),
	}
}

// keyActions maps config action names (config.KeyActions) to bindings of km; "focus_next" is
// an alias of next_pane.
func (km *KeyMap) keyActions() map[string]*key.Binding {
	return map[string]*key.Binding{
		"quit": &km.Quit, "interrupt": &km.Interrupt, "cancel": &km.Cancel,
		"send": &km.Send, "newline": &km.Newline, "complete": &km.Complete,
		"history_prev": &km.HistoryPrev, "history_next": &km.HistoryNext,
		"next_pane": &km.NextPane, "focus_pane": &km.FocusPane, "leave_pane": &km.LeavePane,
		"zoom": &km.Zoom, "scroll_up": &km.ScrollUp, "scroll_down": &km.ScrollDown,
		"pane_scroll_up": &km.PaneScrollUp, "pane_scroll_down": &km.PaneScrollDown,
		"pager": &km.Pager, "conversation_pager": &km.ConvPager, "close_pane": &km.ClosePane, "kill_pane": &km.KillPane, "toggle_thoughts": &km.ToggleThoughts,
		"cycle_mode": &km.CycleMode, "cycle_model": &km.CycleModel, "grants": &km.Grants,
		"help": &km.Help, "focus_next": &km.NextPane, "suspend": &km.Suspend,
		"approve_once": &km.ApproveOnce, "approve_always": &km.ApproveAlways,
		"reject_once": &km.RejectOnce, "reject_always": &km.RejectAlways,
	}
}

// applyKeys overrides bindings from the `[ui] keys` table. An unknown action name, an empty key
// list, or a key that ends up bound to two actions (an override clashing with another action's
// default counts) is an error naming them (config.Load catches these first, with positions).
func (km *KeyMap) applyKeys(keys map[string][]string) error {
	acts := km.keyActions()
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ks := keys[name]
		b, ok := acts[name]
		if !ok {
			return fmt.Errorf("[ui] keys: unknown action %q (known: %s)", name, strings.Join(knownActions(acts), ", "))
		}
		if len(ks) == 0 {
			return fmt.Errorf("[ui] keys.%s: empty key list", name)
		}
		for _, k := range ks {
			if strings.TrimSpace(k) == "" {
				return fmt.Errorf("[ui] keys.%s: empty key name", name)
			}
		}
		desc := b.Help().Desc
		b.SetKeys(ks...)
		b.SetHelp(ks[0], desc)
	}
	// A key may name one action only: with two, the first matched would win silently (config
	// .Load reports the same clash with its file position; this guards other callers).
	owner := map[string]string{}
	for _, name := range knownActions(acts) {
		if name == "focus_next" {
			continue // alias of next_pane
		}
		for _, k := range acts[name].Keys() {
			if o, dup := owner[k]; dup {
				return fmt.Errorf("[ui] keys: %q is bound to both %s and %s", k, o, name)
			}
			owner[k] = name
		}
	}
	return nil
}

func knownActions(acts map[string]*key.Binding) []string {
	out := make([]string, 0, len(acts))
	for n := range acts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// lockMods are modifier bits that say nothing about the key's meaning (CapsLock, NumLock,
// ScrollLock); Bubble Tea v2's keyboard enhancements can report them, so they are masked before
// matching and forwarding.
const lockMods = tea.ModCapsLock | tea.ModNumLock | tea.ModScrollLock

// normKey returns k with lock modifiers masked.
func normKey(k tea.KeyPressMsg) tea.KeyPressMsg {
	k.Mod &^= lockMods
	return k
}

// fullHelp groups every binding by area, for the `?` screen.
func (km KeyMap) fullHelp() [][]key.Binding {
	return [][]key.Binding{
		{km.Send, km.Newline, km.Complete, km.HistoryPrev, km.HistoryNext, km.Cancel, km.Interrupt, km.Quit, km.Suspend},
		{km.NextPane, km.FocusPane, km.LeavePane, km.Zoom, km.PaneScrollUp, km.PaneScrollDown, km.ClosePane, km.KillPane, km.Pager},
		{km.ScrollUp, km.ScrollDown, km.ConvPager, km.ToggleThoughts, km.CycleMode, km.CycleModel, km.Grants, km.Help},
		append([]key.Binding{km.ApproveOnce, km.ApproveAlways, km.RejectOnce, km.RejectAlways}, modalHelp...),
	}
}

// modalHelp lists the approval modal's fixed keys for the `?` screen: acpterm's own policy
// prompts answer with a (as above)/s/S/d (Esc denies there), and the details scroll with PgUp/PgDn.
var modalHelp = func() []key.Binding {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	return []key.Binding{
		b("s", "policy prompt: allow for session"),
		b("S", "policy prompt: save as rule"),
		b("d", "policy prompt: deny (also esc)"),
		b("pgdn", "approval: scroll details"),
	}
}()
