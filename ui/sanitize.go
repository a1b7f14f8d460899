package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// sanitize makes agent-supplied text safe to put on the real terminal: escape sequences (CSI,
// OSC, DCS, …) are removed whole, then every remaining C0 control (except \n and \t), DEL and C1
// control (U+0080–U+009F) is dropped; \r\n becomes \n. Invalid UTF-8 becomes U+FFFD.
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
	}
	return false
}

// sanitizeLine is sanitize for one-line fields (titles, labels, option names): newlines and tabs
// become spaces too.
func sanitizeLine(s string) string {
	s = sanitize(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}
