package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// keyModifiers are the modifier names Bubble Tea v2 key strings use ("ctrl+alt+x").
var keyModifiers = map[string]bool{
	"ctrl": true, "alt": true, "shift": true, "meta": true, "hyper": true, "super": true,
}

// namedKeys are the non-printable key names Bubble Tea v2 spells in key strings (f1–f63 are
// checked separately).
var namedKeys = map[string]bool{
	"enter": true, "tab": true, "backspace": true, "escape": true, "esc": true, "space": true,
	"up": true, "down": true, "left": true, "right": true, "begin": true, "find": true,
	"insert": true, "delete": true, "select": true, "pgup": true, "pgdown": true, "home": true,
	"end": true, "kpenter": true, "kpequal": true, "kpmul": true, "kpplus": true, "kpcomma": true,
	"kpminus": true, "kpperiod": true, "kpdiv": true, "kp0": true, "kp1": true, "kp2": true,
	"kp3": true, "kp4": true, "kp5": true, "kp6": true, "kp7": true, "kp8": true, "kp9": true,
}

// CheckKey validates a key string as Bubble Tea v2 spells it (tea.KeyPressMsg.String()):
// zero or more distinct modifiers (ctrl, alt, shift, meta, hyper, super) joined by "+", then one
// key: a name (enter, tab, esc, space, up, pgdown, f1–f63, …) or a single printable character
// ("a", "]", "?", "+"). Errors name the problem, e.g. `"ctrl+foo": unknown key "foo"`.
func CheckKey(s string) error {
	if s == "" {
		return fmt.Errorf("empty key name")
	}
	parts := strings.Split(s, "+")
	// A trailing "+" key: "ctrl++" splits into ["ctrl", "", ""]; "+" into ["", ""].
	if strings.HasSuffix(s, "+") && len(parts) >= 2 && parts[len(parts)-1] == "" && parts[len(parts)-2] == "" {
		parts = append(parts[:len(parts)-2], "+")
	}
	seen := map[string]bool{}
	for i, p := range parts {
		last := i == len(parts)-1
		if !last {
			if !keyModifiers[p] {
				if p == "" {
					return fmt.Errorf("%q: empty part before \"+\"", s)
				}
				return fmt.Errorf("%q: unknown modifier %q (ctrl, alt, shift, meta, hyper or super)", s, p)
			}
			if seen[p] {
				return fmt.Errorf("%q: modifier %q given twice", s, p)
			}
			seen[p] = true
			continue
		}
		if keyModifiers[p] {
			return fmt.Errorf("%q: a key must follow the modifier %q", s, p)
		}
		if namedKeys[p] {
			return nil
		}
		if n, ok := strings.CutPrefix(p, "f"); ok {
			if v, err := strconv.Atoi(n); err == nil && v >= 1 && v <= 63 {
				return nil
			}
		}
		if r, size := utf8.DecodeRuneInString(p); size == len(p) && r != utf8.RuneError && unicode.IsPrint(r) && r != ' ' {
			return nil
		}
		if p == "" {
			return fmt.Errorf("%q: missing key after \"+\"", s)
		}
		return fmt.Errorf("%q: unknown key %q", s, p)
	}
	return nil
}

// DefaultKeys returns the built-in bindings of every [ui.keys] action (KeyActions; focus_next
// is an alias of next_pane and has none of its own): action → keys as Bubble Tea spells them.
// This is their one home: the ui package's DefaultKeyMap is built from it. The map is a fresh
// copy on every call.
func DefaultKeys() map[string][]string {
	m := make(map[string][]string, len(defaultKeys))
	for a, ks := range defaultKeys {
		m[a] = slices.Clone(ks)
	}
	return m
}

// defaultKeys holds the bindings DefaultKeys returns.
var defaultKeys = map[string][]string{
	"quit": {"ctrl+q"}, "interrupt": {"ctrl+c"}, "cancel": {"esc"},
	"send": {"enter"}, "newline": {"alt+enter", "shift+enter", "ctrl+j"}, "complete": {"tab"},
	"history_prev": {"up", "ctrl+p"}, "history_next": {"down", "ctrl+n"},
	"next_pane": {"ctrl+t"}, "focus_pane": {"ctrl+g"}, "leave_pane": {"ctrl+]"}, "zoom": {"ctrl+f"},
	"scroll_up": {"pgup"}, "scroll_down": {"pgdown"},
	"pane_scroll_up":   {"shift+pgup", "alt+pgup", "alt+up"},
	"pane_scroll_down": {"shift+pgdown", "alt+pgdown", "alt+down"},
	"pager":            {"ctrl+o"}, "conversation_pager": {"alt+o"}, "close_pane": {"ctrl+x"}, "kill_pane": {"alt+k"},
	"toggle_thoughts": {"alt+t"}, "cycle_mode": {"alt+m"}, "cycle_model": {"alt+p"}, "grants": {"alt+g"},
	"sessions": {"alt+r"}, "options": {"alt+c"}, "restart_agent": {"ctrl+r"}, "queue": {"alt+q"},
	"suspend": {"ctrl+z"},
	"help":    {"?", "f1"}, "answer": {"tab"}, "approve_once": {"a"}, "approve_always": {"A"}, "reject_once": {"r"},
	"reject_always": {"R"},
	"pane_1":        {"alt+1"}, "pane_2": {"alt+2"}, "pane_3": {"alt+3"}, "pane_4": {"alt+4"}, "pane_5": {"alt+5"},
	"pane_6": {"alt+6"}, "pane_7": {"alt+7"}, "pane_8": {"alt+8"}, "pane_9": {"alt+9"},
	"last_pane": {"alt+0"}, "prefix": {"ctrl+b"}, "copy_mode": {"alt+v"},
}

// sharedKeys are pairs of actions that may be bound to the same key because they never act at
// the same moment: answer acts only while an approval request waits for the user to move to it,
// and wins over complete then.
var sharedKeys = map[[2]string]bool{{"answer", "complete"}: true, {"complete", "answer"}: true}

// KeyClash finds a key bound to two actions once the overrides in keys (action → keys, as in
// [ui.keys]) are applied over DefaultKeys: an action listed in keys loses its default keys, every
// other action keeps them. It returns the overriding action whose key clashes, the key, and the
// other action (in sorted action order, so the answer is stable); ok is false when every key
// names one action. focus_next counts as next_pane; the pairs in sharedKeys may share a key.
func KeyClash(keys map[string][]string) (action, key, other string, ok bool) {
	canon := func(a string) string {
		if a == "focus_next" {
			return "next_pane"
		}
		return a
	}
	eff := map[string][]string{}
	for a, ks := range defaultKeys {
		eff[a] = ks
	}
	overridden := map[string]string{} // canonical action → name used in keys
	names := make([]string, 0, len(keys))
	for a := range keys {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		eff[canon(a)] = keys[a]
		overridden[canon(a)] = a
	}
	acts := make([]string, 0, len(eff))
	for a := range eff {
		acts = append(acts, a)
	}
	// Overridden actions first, so the clash is reported on the binding the user wrote.
	sort.Slice(acts, func(i, j int) bool {
		_, oi := overridden[acts[i]]
		_, oj := overridden[acts[j]]
		if oi != oj {
			return oi
		}
		return acts[i] < acts[j]
	})
	owner := map[string]string{}
	for _, a := range acts {
		for _, k := range eff[a] {
			if o, dup := owner[k]; dup && o != a && !sharedKeys[[2]string{o, a}] {
				name := a
				if n, ok := overridden[a]; ok {
					name = n
				}
				oname := o
				if n, ok := overridden[o]; ok {
					oname = n
				}
				return oname, k, name, true
			}
			owner[k] = a
		}
	}
	return "", "", "", false
}
