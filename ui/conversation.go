package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// Conversation rendering limits.
const (
	diffMaxLines       = 40 // diff lines shown per tool card / write
	toolTextMaxLines   = 6  // text content lines shown per tool card
	terminalPreviewMax = 5  // lines of an embedded terminal preview
	locationsMax       = 3  // locations listed per tool card
	stderrTailMax      = 5  // agent stderr lines shown in the exit banner
)

// banner is an error or notice shown in the conversation after the timeline item that was last
// when it arrived.
type banner struct {
	after int    // len(State.Timeline) when it arrived
	level string // "error", "warn", "info"
	text  string // agent-supplied parts are sanitised again when rendered
}

// convCache remembers the rendered lines of one timeline item under a signature of its inputs.
type convCache struct {
	sig   string
	lines []string
}

// conversation renders State into styled lines. It is a child of Model with no Update; the
// Model calls render and draws the visible window.
type conversation struct {
	md           *markdown
	st           *Styles
	showThoughts bool
	scroll       int // lines scrolled up from the bottom (0 = follow the end)
	cache        map[int]convCache
	streams      map[int]*mdStream // agent messages still streaming, by timeline index
	allowance    int               // streamAllowance (tests lower it)
	paced        int               // frames that showed an earlier rendering of a streaming message (tests, benchmarks)
	total        int               // lines of the last render (for clamping scroll)
	drawnTotal   int               // lines when the conversation was last drawn (keeps a scrolled view still)
	cells        lineCache         // the parsed cells of lines drawn before (drawConversation)
}

func newConversation(st *Styles, md *markdown) *conversation {
	return &conversation{st: st, md: md, cache: map[int]convCache{}, streams: map[int]*mdStream{}, allowance: streamAllowance}
}

// setTheme swaps styles (light/dark change) and drops cached renders.
func (c *conversation) setTheme(st *Styles, md *markdown) {
	c.st, c.md = st, md
	clear(c.cache)
	clear(c.streams)
}

// previewFunc returns the last lines of a terminal's screen and its state text ("running",
// "exit 0"); ok is false when the terminal is unknown.
type previewFunc func(id string, lines int) (text []string, state string, ok bool)

// render returns every line of the conversation at width cells.
func (c *conversation) render(s *acpclient.State, banners []banner, width int, preview previewFunc) []string {
	width = max(width, 10)
	var out []string
	bi := 0
	emitBanners := func(upto int) {
		for bi < len(banners) && banners[bi].after <= upto {
			out = append(out, c.renderBanner(banners[bi], width)...)
			bi++
		}
	}
	emitBanners(0)
	for i, it := range s.Timeline {
		lines := c.renderItem(s, i, it, width, preview)
		if len(lines) > 0 {
			if len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, lines...)
		}
		emitBanners(i + 1)
	}
	emitBanners(1 << 30)
	if len(s.Plan) > 0 {
		out = append(out, "")
		out = append(out, c.renderPlan(s.Plan, width)...)
	}
	c.total = len(out)
	return out
}

func (c *conversation) renderItem(s *acpclient.State, i int, it acpclient.Item, width int, preview previewFunc) []string {
	switch it.Kind {
	case acpclient.ItemMessage:
		if it.Index >= len(s.Messages) {
			return nil
		}
		m := s.Messages[it.Index]
		sig := fmt.Sprintf("m|%d|%s|%d|%d|%t", width, m.Role, len(m.Text), len(m.Blocks), c.showThoughts)
		if m.Role == acpclient.RoleAgent && s.Busy && i == len(s.Timeline)-1 {
			return c.renderStreaming(i, m, sig, width)
		}
		if len(c.streams) > 0 {
			delete(c.streams, i) // finished: rendered whole from now on, exactly as before
		}
		return c.cached(i, sig, func() []string { return c.renderMessage(m, width) })
	case acpclient.ItemToolCall:
		if it.Index >= len(s.ToolCalls) {
			return nil
		}
		t := s.ToolCalls[it.Index]
		if len(t.Terminals) > 0 {
			// Live previews change without the tool call changing: never cached.
			return c.renderTool(t, width, preview)
		}
		sig := fmt.Sprintf("t|%d|%s|%s|%s|%s|%d|%d|%d|%t|%t", width, t.Title, t.Kind, t.Status, t.PermissionID, len(t.Content), contentSize(t.Content), len(t.Locations), t.Unasked, t.RawOutput != nil)
		return c.cached(i, sig, func() []string { return c.renderTool(t, width, preview) })
	case acpclient.ItemWrite:
		if it.Index >= len(s.Writes) {
			return nil
		}
		w := s.Writes[it.Index]
		shown := toolShowsDiff(s, w)
		sig := fmt.Sprintf("w|%d|%d|%d|%t", width, len(w.OldText), len(w.NewText), shown)
		return c.cached(i, sig, func() []string { return c.renderWrite(w, width, shown) })
	}
	return nil
}

// Pacing of a message that is still streaming (renderStreaming): every frame that sees new text
// adds streamAllowance plus streamPerByte per new byte of Markdown to the message's budget (which
// never holds more than one rendering and one allowance), and a rendering spends the bytes
// glamour wrote for it; a frame that cannot afford a rendering as costly as the last one shows
// the last rendering. The budget counts glamour's output, because that is what its time
// follows: every line it writes is padded to the width with styled spaces (about 15 bytes a
// cell, 3 KB for a line at 202 columns, about 75 ns a byte), so one short line costs more than
// a long paragraph line's worth of Markdown. streamAllowance is about 0.6 ms of glamour per
// frame (with 4 KiB a wide window showed the growing block up to 17 chunks late, and paid more
// for the renderings that caught up). A second budget in Markdown bytes (streamAllowanceIn,
// streamPerByteIn, spent by the Markdown a rendering gives glamour) keeps a long block (a
// paragraph of thousands of lines, which glamour must wrap whole) from being rendered more
// often than every few dozen frames. Short trailing blocks render on almost every frame, so
// the cost per chunk stays bounded whatever the message's length and the width.
const (
	streamAllowance   = 8192 // bytes glamour may write per frame
	streamPerByte     = 16   // and per new byte of Markdown
	streamAllowanceIn = 1024 // bytes of Markdown glamour may be given per frame
	streamPerByteIn   = 2    // and per new byte
)

// renderStreaming renders the agent message m at timeline index i that is still streaming:
// block by block (mdStream), paced by a budget (streamAllowance). A frame that cannot afford the
// rendering shows the last one and keeps its signature; the first frame that sees no new text
// (the turn's spinner keeps them coming) renders the latest text whatever the budget.
func (c *conversation) renderStreaming(i int, m *acpclient.Message, sig string, width int) []string {
	st := c.streams[i]
	if st == nil {
		st = &mdStream{}
		c.streams[i] = st
	}
	grew := len(m.Text) - st.seen
	if grew > 0 {
		// No more banked than one rendering and one frame: a long pause does not buy a burst.
		st.budget = min(st.budget+c.allowance+streamPerByte*grew, st.next+c.allowance)
		st.budgetIn = min(st.budgetIn+streamAllowanceIn+streamPerByteIn*grew, st.cost(m.Text)+streamAllowanceIn)
	}
	st.seen = len(m.Text)
	base := fmt.Sprintf("%d|%d|%t", width, len(m.Blocks), c.showThoughts)
	if e, ok := c.cache[i]; ok && st.base == base && strings.HasSuffix(e.sig, "|streaming") && grew > 0 && (st.budget < st.next || st.budgetIn < st.cost(m.Text)) {
		c.paced++
		return e.lines
	}
	return c.cached(i, sig+"|streaming", func() []string {
		before, beforeIn := c.md.written, c.md.rendered
		lines := c.renderMessageWith(m, width, st)
		st.base = base
		st.budget -= c.md.written - before
		st.budgetIn = max(st.budgetIn-(c.md.rendered-beforeIn), 0)
		return lines
	})
}

func (c *conversation) cached(i int, sig string, f func() []string) []string {
	if e, ok := c.cache[i]; ok && e.sig == sig {
		return e.lines
	}
	lines := f()
	c.cache[i] = convCache{sig: sig, lines: lines}
	return lines
}

// contentSize is a cheap change signature of tool call content (total text bytes).
func contentSize(cs []acp.ToolCallContent) int {
	n := 0
	for _, x := range cs {
		switch {
		case x.Diff != nil:
			n += len(x.Diff.NewText) + len(x.Diff.Path)
			if x.Diff.OldText != nil {
				n += len(*x.Diff.OldText)
			}
		case x.Content != nil && x.Content.Content.Text != nil:
			n += len(x.Content.Content.Text.Text)
		case x.Terminal != nil:
			n += len(x.Terminal.TerminalId)
		}
	}
	return n
}

func splitNL(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (c *conversation) renderMessage(m *acpclient.Message, width int) []string {
	return c.renderMessageWith(m, width, nil)
}

// renderMessageWith renders m; an agent message's Markdown goes through stream when it is not
// nil (a message still streaming), else it is rendered whole.
func (c *conversation) renderMessageWith(m *acpclient.Message, width int, stream *mdStream) []string {
	if stream != nil && m.Role == acpclient.RoleAgent {
		var lines []string
		if strings.TrimSpace(m.Text) != "" {
			lines = stream.render(c.md, m.Text, width)
		}
		return c.appendBlockLabels(lines, m, width)
	}
	text := sanitize(m.Text)
	var lines []string
	switch m.Role {
	case acpclient.RoleUser:
		body := splitNL(wrapPlain(text, width-2))
		for i, l := range body {
			prefix := "  "
			if i == 0 {
				prefix = c.st.UserLabel.Render("›") + " "
			}
			lines = append(lines, prefix+c.st.UserText.Render(l))
		}
		if len(body) == 0 {
			lines = append(lines, c.st.UserLabel.Render("›"))
		}
	case acpclient.RoleThought:
		body := splitNL(wrapPlain(strings.TrimSpace(text), width-2))
		if !c.showThoughts {
			first := ""
			if len(body) > 0 {
				first = body[0]
			}
			hint := fmt.Sprintf("∴ thought (%d lines, hidden)", len(body))
			if first != "" {
				hint = "∴ " + first
				if len(body) > 1 {
					hint += fmt.Sprintf(" … (+%d lines)", len(body)-1)
				}
			}
			return []string{c.st.Thought.Render(truncate(hint, width))}
		}
		for _, l := range body {
			lines = append(lines, c.st.Thought.Render("∴ "+l))
		}
	default:
		if strings.TrimSpace(text) != "" {
			lines = splitNL(c.md.render(text, width))
		}
	}
	return c.appendBlockLabels(lines, m, width)
}

// appendBlockLabels appends a dimmed label line per non-text content block of m.
func (c *conversation) appendBlockLabels(lines []string, m *acpclient.Message, width int) []string {
	for _, b := range m.Blocks {
		lines = append(lines, c.st.Dim.Render(truncate("["+blockLabel(b)+"]", width)))
	}
	return lines
}

// blockLabel describes a non-text content block in one line.
func blockLabel(b acp.ContentBlock) string {
	switch {
	case b.Image != nil:
		return "image " + sanitizeLine(b.Image.MimeType)
	case b.Audio != nil:
		return "audio " + sanitizeLine(b.Audio.MimeType)
	case b.ResourceLink != nil:
		return "link " + sanitizeLine(b.ResourceLink.Name) + " " + sanitizeLine(b.ResourceLink.Uri)
	case b.Resource != nil:
		if r := b.Resource.Resource.TextResourceContents; r != nil {
			return "resource " + sanitizeLine(r.Uri)
		}
		if r := b.Resource.Resource.BlobResourceContents; r != nil {
			return "resource " + sanitizeLine(r.Uri)
		}
		return "resource"
	}
	return "content"
}

// kindIcon is a one-cell symbol per ACP tool kind.
func kindIcon(k acp.ToolKind) string {
	switch k {
	case acp.ToolKindRead:
		return "◇"
	case acp.ToolKindEdit:
		return "✎"
	case acp.ToolKindDelete:
		return "⌫" // not ✗, which marks failures
	case acp.ToolKindMove:
		return "⇄"
	case acp.ToolKindSearch:
		return "⌕"
	case acp.ToolKindExecute:
		return "$"
	case acp.ToolKindThink:
		return "∴"
	case acp.ToolKindFetch:
		return "⇣"
	case acp.ToolKindSwitchMode:
		return "⇆"
	}
	return "•"
}

// statusText names a tool call status for people, and picks its style.
func (c *conversation) statusText(t *acpclient.ToolCall) string {
	if t.PermissionID != "" {
		return c.st.Warn.Render("awaiting approval")
	}
	switch t.Status {
	case "", acp.ToolCallStatusPending:
		return c.st.StatusPending.Render("pending")
	case acp.ToolCallStatusInProgress:
		return c.st.StatusRunning.Render("running")
	case acp.ToolCallStatusCompleted:
		return c.st.StatusDone.Render("✓ completed")
	case acp.ToolCallStatusFailed:
		return c.st.StatusFailed.Render("✗ failed")
	case acpclient.StatusCancelled:
		return c.st.StatusCancelled.Render("cancelled")
	case acpclient.StatusIncomplete:
		return c.st.StatusCancelled.Render("incomplete")
	}
	return c.st.Dim.Render(sanitizeLine(string(t.Status)))
}

func (c *conversation) renderTool(t *acpclient.ToolCall, width int, preview previewFunc) []string {
	title := sanitizeLine(t.Title)
	if title == "" {
		title = "tool call " + sanitizeLine(t.ID)
	}
	status := c.statusText(t)
	head := c.st.Accent.Render(kindIcon(t.Kind)) + " " + c.st.ToolTitle.Render(truncate(title, max(width-stringWidth(status)-4, 8))) + "  " + status
	lines := []string{truncate(head, width)}
	inner := width - 2
	if t.Unasked {
		lines = append(lines, "  "+c.st.Error.Render(truncate("⚠ ran without asking: no permission request reached acpterm", inner)))
	}
	for i, loc := range t.Locations {
		if i == locationsMax {
			lines = append(lines, "  "+c.st.ToolMeta.Render(fmt.Sprintf("… %d more locations", len(t.Locations)-i)))
			break
		}
		l := sanitizeLine(loc.Path)
		if loc.Line != nil {
			l += fmt.Sprintf(":%d", *loc.Line)
		}
		lines = append(lines, "  "+c.st.ToolMeta.Render(truncate(l, inner)))
	}
	for _, ct := range t.Content {
		switch {
		case ct.Diff != nil:
			d := renderDiff(c.st, ct.Diff.Path, ct.Diff.OldText, ct.Diff.NewText, inner, diffMaxLines)
			lines = append(lines, indent(splitNL(d), "  ")...)
		case ct.Content != nil:
			if tb := ct.Content.Content.Text; tb != nil {
				body := splitNL(wrapPlain(strings.TrimRight(sanitize(tb.Text), "\n"), inner))
				for i, l := range body {
					if i == toolTextMaxLines {
						lines = append(lines, "  "+c.st.Dim.Render(fmt.Sprintf("… %d more lines", len(body)-i)))
						break
					}
					lines = append(lines, "  "+c.st.Dim.Render(l))
				}
			} else {
				lines = append(lines, "  "+c.st.Dim.Render(truncate("["+blockLabel(ct.Content.Content)+"]", inner)))
			}
		}
	}
	if len(t.Terminals) == 0 && !hasText(t.Content) {
		// No terminal and no text content: the output the agent put only in rawOutput.
		if out := acpclient.RawOutputText(t.RawOutput); out != "" {
			body := splitNL(wrapPlain(strings.TrimRight(sanitize(out), "\n"), inner))
			for i, l := range body {
				if i == toolTextMaxLines {
					lines = append(lines, "  "+c.st.Dim.Render(fmt.Sprintf("… %d more lines", len(body)-i)))
					break
				}
				lines = append(lines, "  "+c.st.Dim.Render(l))
			}
		}
	}
	for _, id := range t.Terminals {
		lines = append(lines, c.renderPreview(id, inner, preview)...)
	}
	return lines
}

// hasText reports whether tool call content holds a text block.
func hasText(cs []acp.ToolCallContent) bool {
	for _, ct := range cs {
		if ct.Content != nil && ct.Content.Content.Text != nil && ct.Content.Content.Text.Text != "" {
			return true
		}
	}
	return false
}

// renderPreview shows the last lines of an embedded terminal, boxed on the left.
func (c *conversation) renderPreview(id string, width int, preview previewFunc) []string {
	if preview == nil {
		return nil
	}
	text, state, ok := preview(id, terminalPreviewMax)
	if !ok {
		return []string{"  " + c.st.Dim.Render(truncate("┆ terminal "+sanitizeLine(id), width))}
	}
	lines := []string{"  " + c.st.ToolMeta.Render(truncate("┌ terminal · "+state, width))}
	for _, l := range text {
		lines = append(lines, "  "+c.st.ToolMeta.Render("│ ")+truncate(l, width-2))
	}
	return lines
}

// toolShowsDiff reports whether a tool call of the conversation already shows the change w made
// (a diff content of the same path and new text): the write is then one line, not the same
// diff a second time.
func toolShowsDiff(s *acpclient.State, w acpclient.FileDiff) bool {
	for _, t := range s.ToolCalls {
		for _, ct := range t.Content {
			if d := ct.Diff; d != nil && d.Path == w.Path && d.NewText == w.NewText {
				return true
			}
		}
	}
	return false
}

// renderWrite shows a file acpterm wrote for the agent (fs/write_text_file) with its diff, or,
// when a tool call already shows that diff (shown), one line saying so.
func (c *conversation) renderWrite(w acpclient.FileDiff, width int, shown bool) []string {
	if shown {
		line := fmt.Sprintf("wrote %s (%d bytes; the diff is above)", sanitizeLine(w.Path), len(w.NewText))
		return []string{c.st.Accent.Render("✎") + " " + c.st.ToolTitle.Render(truncate(line, width-2))}
	}
	head := c.st.Accent.Render("✎") + " " + c.st.ToolTitle.Render(truncate("wrote "+sanitizeLine(w.Path), width-2))
	var old *string
	if w.Existed {
		o := w.OldText
		old = &o
	}
	d := renderDiff(c.st, w.Path, old, w.NewText, width-2, diffMaxLines)
	return append([]string{head}, indent(splitNL(d), "  ")...)
}

func (c *conversation) renderPlan(entries []acp.PlanEntry, width int) []string {
	lines := []string{c.st.Bold.Render("Plan")}
	for _, e := range entries {
		box, st := "[ ]", c.st.Text
		switch e.Status {
		case acp.PlanEntryStatusCompleted:
			box, st = "[x]", c.st.Dim
		case acp.PlanEntryStatusInProgress:
			box, st = "[~]", c.st.StatusRunning
		}
		body := splitNL(wrapPlain(sanitizeLine(e.Content), width-4))
		for i, l := range body {
			p := "    "
			if i == 0 {
				p = box + " "
			}
			lines = append(lines, st.Render(p+l))
		}
	}
	return lines
}

func (c *conversation) renderBanner(b banner, width int) []string {
	st, icon := c.st.NoticeBanner, "!"
	if b.level == "error" {
		st, icon = c.st.Banner, "✗"
	} else if b.level == "info" {
		st, icon = c.st.Dim, "ℹ"
	}
	var lines []string
	for i, l := range splitNL(wrapPlain(sanitize(b.text), width-2)) {
		p := "  "
		if i == 0 {
			p = icon + " "
		}
		lines = append(lines, st.Render(p+l))
	}
	return lines
}

func indent(lines []string, p string) []string {
	for i := range lines {
		lines[i] = p + lines[i]
	}
	return lines
}

func stringWidth(s string) int { return ansi.StringWidth(s) }
