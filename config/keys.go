package config

import (
	"fmt"
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
