package ui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders agent Markdown with glamour, one renderer per width (renderers are not cheap
// to build). Input must already be sanitised; output is styled text whose lines fit the width.
type markdown struct {
	dark, noColor bool
	renderers     map[int]*glamour.TermRenderer
}

func newMarkdown(dark, noColor bool) *markdown {
	return &markdown{dark: dark, noColor: noColor, renderers: map[int]*glamour.TermRenderer{}}
}

func (md *markdown) renderer(width int) *glamour.TermRenderer {
	if r, ok := md.renderers[width]; ok {
		return r
	}
	// With NO_COLOR the coloured styles are still used: Bubble Tea's colour profile (Ascii)
	// drops the colours and keeps bold/italic, whereas glamour's "notty" style would show the
	// Markdown markers raw.
	cfg := styles.DarkStyleConfig
	if !md.dark {
		cfg = styles.LightStyleConfig
	}
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width))
	if err != nil {
		r = nil
	}
	if len(md.renderers) > 8 { // widths change on resize; keep the map small
		clear(md.renderers)
	}
	md.renderers[width] = r
	return r
}

// render returns text rendered for width cells; plain wrapped text when glamour fails. Leading
// and trailing blank lines are removed.
func (md *markdown) render(text string, width int) string {
	width = max(width, 10)
	out := ""
	if r := md.renderer(width); r != nil {
		if s, err := r.Render(text); err == nil {
			out = s
		}
	}
	if out == "" {
		out = wrapPlain(text, width)
	}
	return trimBlankLines(out)
}

// trimBlankLines drops leading and trailing lines that are empty or only spaces and
// trims trailing spaces of each line (glamour pads lines to the wrap width).
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	start, end := 0, len(lines)
	for start < end && isBlankStyled(lines[start]) {
		start++
	}
	for end > start && isBlankStyled(lines[end-1]) {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}

func isBlankStyled(l string) bool {
	return strings.TrimSpace(stripSGR(l)) == ""
}

// wrapPlain wraps plain (or styled) text to width cells, breaking words longer than the width.
func wrapPlain(text string, width int) string {
	return ansi.Wrap(expandTabs(text), max(width, 1), " ")
}

// stripSGR removes escape sequences (our own styling) to measure or compare text.
func stripSGR(s string) string { return ansi.Strip(s) }
