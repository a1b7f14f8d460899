package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/acpterm/acpterm/config"
)

// KeyMap is every host key binding. Action names (the `[ui] keys` config keys) are the
// lower_snake_case names listed in keyActions; each binding can be rebound there, e.g.
// `keys = { leave_pane = ["ctrl+]"], zoom = ["ctrl+f"] }`. The default keys have one home,
// config.DefaultKeys; this package adds what the help shows for each.
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
	// Sessions opens the session picker (sessions.go); Options the config options dialog
	// (options.go).
	Sessions, Options key.Binding
	// RestartAgent starts the agent again after it exited on its own (restart.go).
	RestartAgent key.Binding
	// Queue opens the queued prompts (overlay_queue.go): edit, remove, reorder.
	Queue key.Binding

	// Answer moves the keyboard to an approval request that arrived while the user was typing
	// (it then waits, "tab answers"); it shares its key with Complete, which it wins over only
	// while such a request waits.
	Answer key.Binding

	// Approval answers by the agent's option kind (own prompts also accept a/s/S/d).
	ApproveOnce, ApproveAlways, RejectOnce, RejectAlways key.Binding

	// PaneN[i] selects pane i+1 (as numbered in the tab bar and pane titles); LastPane the pane
	// selected before the current one. Both also act while typing into a pane (panekeys.go).
	PaneN    [9]key.Binding
	LastPane key.Binding
	// Prefix acts only while typing into a pane: the key after it is a pane command (zoom,
	// next/previous/last pane, leave), as after tmux's prefix; pressed twice it is sent.
	Prefix key.Binding
	// CopyMode starts copy mode on the selected pane (copymode.go); prefix [ does too.
	CopyMode key.Binding
}

// keyDocs is what the help shows for each action: the key as written there ("" = the first
// default key) and what the action does.
var keyDocs = map[string]struct{ key, desc string }{
	"quit":               {"", "quit"},
	"interrupt":          {"", "cancel turn, clear draft or quit"},
	"cancel":             {"", "cancel turn"},
	"send":               {"", "send prompt"},
	"newline":            {"", "new line"},
	"complete":           {"", "complete /command or @file"},
	"history_prev":       {"↑", "previous prompt"},
	"history_next":       {"↓", "next prompt"},
	"next_pane":          {"", "select next pane"},
	"focus_pane":         {"", "type into selected pane"},
	"leave_pane":         {"", "leave pane"},
	"zoom":               {"", "zoom pane"},
	"scroll_up":          {"", "scroll conversation up"},
	"scroll_down":        {"pgdn", "scroll conversation down"},
	"pane_scroll_up":     {"", "scroll pane back"},
	"pane_scroll_down":   {"shift+pgdn", "scroll pane forward"},
	"pager":              {"", "open transcript in $PAGER"},
	"conversation_pager": {"", "open the conversation in $PAGER"},
	"close_pane":         {"", "close finished pane"},
	"kill_pane":          {"", "kill selected pane's command"},
	"toggle_thoughts":    {"", "show/hide thoughts"},
	"cycle_mode":         {"", "switch mode"},
	"cycle_model":        {"", "switch model"},
	"grants":             {"", "grants (revoke)"},
	"sessions":           {"", "sessions: resume, fork, delete"},
	"options":            {"", "session options (config options)"},
	"restart_agent":      {"", "restart the agent after it exited"},
	"queue":              {"", "queued prompts: edit, remove, reorder"},
	"help":               {"", "help"},
	"suspend":            {"", "suspend acpterm (fg resumes)"},
	"answer":             {"", "answer a waiting approval"},
	"approve_once":       {"", "approve once"},
	"approve_always":     {"", "select approve always (enter confirms)"},
	"reject_once":        {"", "reject once"},
	"reject_always":      {"", "select reject always (enter confirms)"},
	"pane_1":             {"alt+1…9", "select pane 1…9"},
	"last_pane":          {"", "select the last pane"},
	"prefix":             {"", "pane prefix (z n p l [ d)"},
	"copy_mode":          {"", "copy mode: scroll, search, copy"},
}

func init() {
	for i := 2; i <= 9; i++ {
		keyDocs[fmt.Sprintf("pane_%d", i)] = struct{ key, desc string }{"", fmt.Sprintf("select pane %d", i)}
	}
}

// DefaultKeyMap returns the built-in bindings (config.DefaultKeys).
func DefaultKeyMap() KeyMap {
	var km KeyMap
	defaults := config.DefaultKeys()
	for name, b := range km.keyActions() {
		if name == "focus_next" {
			continue // alias of next_pane
		}
		keys := defaults[name]
		doc := keyDocs[name]
		label := doc.key
		if label == "" && len(keys) > 0 {
			label = keys[0]
		}
		*b = key.NewBinding(key.WithKeys(keys...), key.WithHelp(label, doc.desc))
	}
	return km
}

// keyActions maps config action names (config.KeyActions) to bindings of km; "focus_next" is
// an alias of next_pane.
func (km *KeyMap) keyActions() map[string]*key.Binding {
	m := map[string]*key.Binding{
		"quit": &km.Quit, "interrupt": &km.Interrupt, "cancel": &km.Cancel,
		"send": &km.Send, "newline": &km.Newline, "complete": &km.Complete,
		"history_prev": &km.HistoryPrev, "history_next": &km.HistoryNext,
		"next_pane": &km.NextPane, "focus_pane": &km.FocusPane, "leave_pane": &km.LeavePane,
		"zoom": &km.Zoom, "scroll_up": &km.ScrollUp, "scroll_down": &km.ScrollDown,
		"pane_scroll_up": &km.PaneScrollUp, "pane_scroll_down": &km.PaneScrollDown,
		"pager": &km.Pager, "conversation_pager": &km.ConvPager, "close_pane": &km.ClosePane, "kill_pane": &km.KillPane, "toggle_thoughts": &km.ToggleThoughts,
		"cycle_mode": &km.CycleMode, "cycle_model": &km.CycleModel, "grants": &km.Grants,
		"help": &km.Help, "focus_next": &km.NextPane, "suspend": &km.Suspend, "answer": &km.Answer,
		"sessions": &km.Sessions, "options": &km.Options, "restart_agent": &km.RestartAgent, "queue": &km.Queue,
		"approve_once": &km.ApproveOnce, "approve_always": &km.ApproveAlways,
		"reject_once": &km.RejectOnce, "reject_always": &km.RejectAlways,
	}
	for i := range km.PaneN {
		m[fmt.Sprintf("pane_%d", i+1)] = &km.PaneN[i]
	}
	m["last_pane"] = &km.LastPane
	m["prefix"] = &km.Prefix
	m["copy_mode"] = &km.CopyMode
	return m
}

// applyKeys overrides bindings from the `[ui] keys` table. An unknown action name, an empty key
// list, or a key that ends up bound to two actions (an override clashing with another action's
// default counts; config.KeyClash decides) is an error naming them (config.Load catches these
// first, with positions).
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
	// A key may name one action only: with two, the first matched would win silently.
	if a, k, other, clash := config.KeyClash(keys); clash {
		pair := []string{a, other}
		sort.Strings(pair)
		return fmt.Errorf("[ui] keys: %q is bound to both %s and %s", k, pair[0], pair[1])
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
		{km.NextPane, km.paneJumpHelp(), km.FocusPane, km.LeavePane, km.Prefix, km.CopyMode, km.Zoom, km.PaneScrollUp, km.PaneScrollDown, km.ClosePane, km.KillPane, km.Pager},
		{km.ScrollUp, km.ScrollDown, km.ConvPager, km.ToggleThoughts, km.CycleMode, km.CycleModel, km.Options, km.Sessions, km.Grants, km.Queue, km.RestartAgent, km.Help},
		append([]key.Binding{km.Answer, km.ApproveOnce, km.ApproveAlways, km.RejectOnce, km.RejectAlways}, modalHelp...),
	}
}

// modalHelp lists the approval modal's fixed keys for the `?` screen: acpterm's own policy
// prompts answer with a (as above)/s/S/d (Esc denies there), and the details scroll with PgUp/PgDn.
var modalHelp = func() []key.Binding {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	return []key.Binding{
		b("s", "policy prompt: select allow for session"),
		b("S", "policy prompt: select save as rule"),
		b("d", "policy prompt: deny (also esc)"),
		b("pgdn", "approval: scroll details"),
	}
}()

// paneJumpHelp is the help's one line for the pane jump keys: pane_1's key, shown as "alt+1…9"
// by default, and the last_pane key in its text.
func (km KeyMap) paneJumpHelp() key.Binding {
	h := km.PaneN[0].Help()
	return key.NewBinding(key.WithKeys(km.PaneN[0].Keys()...), key.WithHelp(h.Key, h.Desc+" ("+km.LastPane.Help().Key+": the last)"))
}
