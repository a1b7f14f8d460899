package ui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// palette is the small set of semantic colour tokens every style is built from. A nil colour
// means "terminal default".
type palette struct {
	fg, dim, subtle, accent, accent2, success, warn, errc, border, borderFocus, statusBg, statusFg, selBg color.Color
}

func darkPalette() palette {
	return palette{
		fg: lipgloss.Color("#DDDDDD"), dim: lipgloss.Color("#808080"), subtle: lipgloss.Color("#5F5F5F"),
		accent: lipgloss.Color("#7AA2F7"), accent2: lipgloss.Color("#BB9AF7"),
		success: lipgloss.Color("#9ECE6A"), warn: lipgloss.Color("#E0AF68"), errc: lipgloss.Color("#F7768E"),
		border: lipgloss.Color("#4E4E4E"), borderFocus: lipgloss.Color("#7AA2F7"),
		statusBg: lipgloss.Color("#303030"), statusFg: lipgloss.Color("#D0D0D0"), selBg: lipgloss.Color("#3A3F5A"),
	}
}

func lightPalette() palette {
	return palette{
		fg: lipgloss.Color("#1F1F1F"), dim: lipgloss.Color("#6C6C6C"), subtle: lipgloss.Color("#A8A8A8"),
		accent: lipgloss.Color("#2E5BBA"), accent2: lipgloss.Color("#7A3DB8"),
		success: lipgloss.Color("#2E7D32"), warn: lipgloss.Color("#9A6700"), errc: lipgloss.Color("#C62828"),
		border: lipgloss.Color("#B0B0B0"), borderFocus: lipgloss.Color("#2E5BBA"),
		statusBg: lipgloss.Color("#E4E4E4"), statusFg: lipgloss.Color("#1F1F1F"), selBg: lipgloss.Color("#D6E0F5"),
	}
}

// Styles is every style the UI uses, built from one palette (styles live only here).
type Styles struct {
	Dark    bool // built for a dark background
	NoColor bool // NO_COLOR: attributes only

	Text, Dim, Bold, Accent, Error, Warn, Success lipgloss.Style
	UserLabel, UserText, AgentLabel, Thought      lipgloss.Style
	ToolTitle, ToolMeta                           lipgloss.Style
	StatusPending, StatusRunning, StatusDone      lipgloss.Style
	StatusFailed, StatusCancelled                 lipgloss.Style
	Banner, NoticeBanner                          lipgloss.Style

	DiffHeader, DiffHunk, DiffAdd, DiffDel, DiffCtx lipgloss.Style

	PaneBorder, PaneBorderFocus, PaneTitle, PaneTitleFocus lipgloss.Style

	StatusBar, StatusItem, StatusKey lipgloss.Style

	Modal, ModalTitle, ModalKey, ModalSelected, ModalOption lipgloss.Style

	Editor, EditorPrompt lipgloss.Style

	BorderColor, BorderFocusColor color.Color
}

// newStyles builds the theme for a dark or light background; noColor drops every colour (the
// NO_COLOR convention) and keeps bold/faint/reverse so roles stay distinguishable.
func newStyles(dark, noColor bool) *Styles {
	p := darkPalette()
	if !dark {
		p = lightPalette()
	}
	if noColor {
		p = palette{}
	}
	fg := func(c color.Color) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c != nil {
			s = s.Foreground(c)
		}
		return s
	}
	s := &Styles{Dark: dark, NoColor: noColor, BorderColor: p.border, BorderFocusColor: p.borderFocus}
	s.Text = fg(p.fg)
	s.Dim = fg(p.dim).Faint(noColor)
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.Accent = fg(p.accent).Bold(true)
	s.Error = fg(p.errc).Bold(true)
	s.Warn = fg(p.warn)
	s.Success = fg(p.success)
	s.UserLabel = fg(p.accent).Bold(true)
	s.UserText = fg(p.fg)
	s.AgentLabel = fg(p.accent2).Bold(true)
	s.Thought = fg(p.dim).Italic(true).Faint(noColor)
	s.ToolTitle = fg(p.fg).Bold(true)
	s.ToolMeta = fg(p.dim).Faint(noColor)
	s.StatusPending = fg(p.dim)
	s.StatusRunning = fg(p.warn).Bold(true)
	s.StatusDone = fg(p.success)
	s.StatusFailed = fg(p.errc).Bold(true)
	s.StatusCancelled = fg(p.dim)
	s.Banner = fg(p.errc).Bold(true)
	s.NoticeBanner = fg(p.warn)
	s.DiffHeader = fg(p.fg).Bold(true)
	s.DiffHunk = fg(p.accent)
	s.DiffAdd = fg(p.success)
	s.DiffDel = fg(p.errc)
	s.DiffCtx = fg(p.dim)
	s.PaneBorder = fg(p.border)
	s.PaneBorderFocus = fg(p.borderFocus).Bold(true)
	s.PaneTitle = fg(p.dim)
	s.PaneTitleFocus = fg(p.fg).Bold(true)
	bar := lipgloss.NewStyle()
	if p.statusBg != nil {
		bar = bar.Background(p.statusBg).Foreground(p.statusFg)
	} else {
		bar = bar.Reverse(true)
	}
	s.StatusBar = bar
	s.StatusItem = bar
	s.StatusKey = bar.Bold(true)
	s.Modal = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if p.warn != nil {
		s.Modal = s.Modal.BorderForeground(p.warn)
	}
	s.ModalTitle = fg(p.warn).Bold(true)
	s.ModalKey = fg(p.accent).Bold(true)
	s.ModalOption = fg(p.fg)
	s.ModalSelected = lipgloss.NewStyle().Bold(true).Reverse(noColor)
	if p.selBg != nil {
		s.ModalSelected = s.ModalSelected.Background(p.selBg)
	}
	s.Editor = lipgloss.NewStyle()
	s.EditorPrompt = fg(p.accent).Bold(true)
	return s
}

// truncate cuts s (which may hold SGR styling) to at most w cells, adding "…" when cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// expandTabs replaces tabs with spaces to the next multiple of 4 cells (plain text only).
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += ansi.StringWidth(string(r))
	}
	return b.String()
}
