package mcpterm

import (
	"encoding/json"
	"fmt"
	"image/color"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/terminals"
)

// colorOut is a colour in a style: a palette index or an RGB value "#rrggbb".
type colorOut struct {
	Kind  string `json:"kind"`
	Index *int   `json:"index,omitempty"`
	Value string `json:"value,omitempty"`
}

// styleOut is one entry of a snapshot's style legend; absent attributes are terminal defaults.
type styleOut struct {
	Foreground    *colorOut `json:"foreground,omitempty"`
	Background    *colorOut `json:"background,omitempty"`
	Bold          bool      `json:"bold,omitempty"`
	Dim           bool      `json:"dim,omitempty"`
	Italic        bool      `json:"italic,omitempty"`
	Underline     bool      `json:"underline,omitempty"`
	Blink         bool      `json:"blink,omitempty"`
	Inverse       bool      `json:"inverse,omitempty"`
	Invisible     bool      `json:"invisible,omitempty"`
	Strikethrough bool      `json:"strikethrough,omitempty"`
}

type spanOut struct {
	Row         int    `json:"row"`
	StartColumn int    `json:"startColumn"`
	EndColumn   int    `json:"endColumn"`
	StyleID     string `json:"styleId"`
}

type cursorOut struct {
	Row     int  `json:"row"`
	Column  int  `json:"column"`
	Visible bool `json:"visible"`
}

type mouseOut struct {
	Tracking string `json:"tracking"`
	Encoding string `json:"encoding"`
}

type historyOut struct {
	Lines          []string `json:"lines"`
	AvailableLines int      `json:"availableLines"`
}

// snapshotOut is a terminal snapshot as the tools return it. Coordinates are 1-based cells;
// span endpoints are inclusive.
type snapshotOut struct {
	SessionID string               `json:"sessionId"`
	Status    string               `json:"status"` // running or exited
	ExitCode  *int                 `json:"exitCode,omitempty"`
	Signal    *int                 `json:"signal,omitempty"`
	Cols      int                  `json:"cols"`
	Rows      int                  `json:"rows"`
	Buffer    string               `json:"buffer"` // normal or alternate
	Screen    []string             `json:"screen"`
	Cursor    cursorOut            `json:"cursor"`
	Styles    map[string]*styleOut `json:"styles"`
	Spans     []spanOut            `json:"spans"`
	Mouse     mouseOut             `json:"mouse"`
	History   *historyOut          `json:"history,omitempty"`
	Settled   bool                 `json:"settled"`
}

// status fills the process status fields from a terminal's exit.
func (o *snapshotOut) status(ex *terminals.ExitStatus) {
	o.Status = "running"
	if ex == nil {
		return
	}
	o.Status = "exited"
	if ex.Signal != "" {
		if n := signalNumber(ex.Signal); n > 0 {
			o.Signal = &n
		}
		return
	}
	if ex.Code != nil {
		c := *ex.Code
		o.ExitCode = &c
	}
}

// render turns a screen snapshot into the tools' form. history < 0 means no history was asked.
func render(id string, s terminals.Snapshot, history int, ex *terminals.ExitStatus, settled bool) *snapshotOut {
	o := &snapshotOut{
		SessionID: id, Cols: s.Size.Cols, Rows: s.Size.Rows, Buffer: "normal", Screen: s.Lines,
		Cursor:  cursorOut{Row: s.Cursor.Y + 1, Column: s.Cursor.X + 1, Visible: s.CursorVisible},
		Styles:  map[string]*styleOut{},
		Spans:   make([]spanOut, 0, len(s.Spans)),
		Mouse:   mouseOut{Tracking: s.Modes.Tracking.String(), Encoding: s.Modes.MouseEncoding()},
		Settled: settled,
	}
	o.status(ex)
	if s.Alt {
		o.Buffer = "alternate"
	}
	ids := map[styleKey]string{}
	for _, sp := range s.Spans {
		k := keyOf(sp.Style)
		id, ok := ids[k]
		if !ok {
			id = "s" + strconv.Itoa(len(ids)+1)
			ids[k] = id
			o.Styles[id] = styleOf(sp.Style)
		}
		o.Spans = append(o.Spans, spanOut{Row: sp.Row + 1, StartColumn: sp.Start + 1, EndColumn: sp.End + 1, StyleID: id})
	}
	if history > 0 || (history == 0 && s.History != nil) {
		lines := s.History
		if lines == nil {
			lines = []string{}
		}
		o.History = &historyOut{Lines: lines, AvailableLines: s.HistoryAvail}
	}
	return o
}

// styleKey is a comparable form of a cell style (uv.Style holds colour interfaces).
type styleKey struct {
	fg, bg, ul  colorKey
	attrs, line uint8
}

type colorKey struct {
	kind uint8 // 0 default, 1 palette, 2 RGBA
	v    uint32
}

func keyOfColor(c color.Color) colorKey {
	if c == nil {
		return colorKey{}
	}
	if i, ok := terminals.PaletteIndex(c); ok {
		return colorKey{1, uint32(i)}
	}
	r, g, b, a := c.RGBA()
	return colorKey{2, (r>>8)<<24 | (g>>8)<<16 | (b>>8)<<8 | a>>8}
}

func keyOf(st uv.Style) styleKey {
	return styleKey{keyOfColor(st.Fg), keyOfColor(st.Bg), keyOfColor(st.UnderlineColor), st.Attrs, uint8(st.Underline)}
}

func styleOf(st uv.Style) *styleOut {
	a := st.Attrs
	return &styleOut{
		Foreground: colorOf(st.Fg), Background: colorOf(st.Bg),
		Bold: a&uv.AttrBold != 0, Dim: a&uv.AttrFaint != 0, Italic: a&uv.AttrItalic != 0,
		Underline: st.Underline != ansi.UnderlineNone, Blink: a&(uv.AttrBlink|uv.AttrRapidBlink) != 0,
		Inverse: a&uv.AttrReverse != 0, Invisible: a&uv.AttrConceal != 0, Strikethrough: a&uv.AttrStrikethrough != 0,
	}
}

func colorOf(c color.Color) *colorOut {
	if c == nil {
		return nil
	}
	if i, ok := terminals.PaletteIndex(c); ok {
		return &colorOut{Kind: "palette", Index: &i}
	}
	r, g, b, _ := c.RGBA()
	return &colorOut{Kind: "rgb", Value: fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)}
}

// readable renders a snapshot for people and models: a header line of state (the given
// metadata first), then one numbered line per screen row, the style legend, the spans as
// "row: column[-column]=styleId", and the history lines when asked for.
func readable(meta []string, o *snapshotOut) string {
	var b strings.Builder
	head := append([]string(nil), meta...)
	head = append(head, "sessionId "+o.SessionID, "status "+o.Status)
	if o.ExitCode != nil {
		head = append(head, "exitCode "+strconv.Itoa(*o.ExitCode))
	}
	if o.Signal != nil {
		head = append(head, "signal "+strconv.Itoa(*o.Signal))
	}
	vis := "visible"
	if !o.Cursor.Visible {
		vis = "hidden"
	}
	head = append(head, fmt.Sprintf("size %dx%d", o.Cols, o.Rows), "buffer "+o.Buffer,
		fmt.Sprintf("cursor row %d column %d %s", o.Cursor.Row, o.Cursor.Column, vis),
		"mouse "+o.Mouse.Tracking+"/"+o.Mouse.Encoding, "settled "+strconv.FormatBool(o.Settled))
	b.WriteString(strings.Join(head, "; "))
	b.WriteString("\nscreen (row: text):\n")
	for i, line := range o.Screen {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(": ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	legend, _ := json.Marshal(o.Styles)
	b.WriteString("styles: ")
	b.Write(legend)
	b.WriteString("\nspans (row: column[-column]=style):")
	row := 0
	for _, sp := range o.Spans {
		if sp.Row != row {
			row = sp.Row
			b.WriteString("\n")
			b.WriteString(strconv.Itoa(row))
			b.WriteByte(':')
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(sp.StartColumn))
		if sp.EndColumn != sp.StartColumn {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(sp.EndColumn))
		}
		b.WriteByte('=')
		b.WriteString(sp.StyleID)
	}
	if o.History != nil {
		fmt.Fprintf(&b, "\nhistory (%d of %d available lines, oldest first):", len(o.History.Lines), o.History.AvailableLines)
		for _, l := range o.History.Lines {
			b.WriteByte('\n')
			b.WriteString(l)
		}
	}
	return b.String()
}
