package ui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// sanitize makes agent-supplied text safe to put on the real terminal: escape sequences (CSI,
// OSC, DCS, …) are removed whole, then every remaining C0 control (except \n and \t), DEL, C1
// control (U+0080–U+009F) and bidirectional embedding, override or isolate (U+202A–U+202E,
// U+2066–U+2069: "Trojan Source" reordering, CVE-2021-42574) is dropped; \r\n becomes \n.
// Invalid UTF-8 becomes U+FFFD.
func sanitize(s string) string {
	if s == "" {
		return s
	}
	if strings.ContainsRune(s, 0x1b) || strings.ContainsRune(s, 0x9b) {
		s = ansi.Strip(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	clean := true
	for _, r := range s {
		if isUnsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !isUnsafeRune(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isUnsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// revealLine is sanitizeLine for what a person approves (the approval modal and its $PAGER
// text: titles, commands, paths, option names): control and invisible formatting characters
// are shown as escapes instead of dropped — \n \r \t, \xNN for other C0/DEL/C1 controls
// (an escape sequence shows as \x1b[…), \uNNNN for Unicode format characters (category Cf:
// bidi overrides, zero-width spaces, soft hyphens) — so that no part of the text can hide
// itself: a carriage return that would start the line over, a right-to-left override that
// would reverse it. Invalid UTF-8 becomes U+FFFD.
func revealLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	plain := true
	for _, r := range s {
		if isUnsafeRune(r) || r == '\n' || r == '\t' || unicode.Is(unicode.Cf, r) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r) || isUnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SafeText is text from the agent (or quoting it, like an error carrying its stderr) made safe
// to print on the user's terminal outside the TUI: sanitize's rules (escape sequences, control
// characters and bidi overrides removed; newlines and tabs kept).
func SafeText(s string) string { return sanitize(s) }

// sanitizeLine is sanitize for one-line fields (titles, labels, option names): newlines and tabs
// become spaces too.
func sanitizeLine(s string) string {
	s = sanitize(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}
