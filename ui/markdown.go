package ui

import (
	"fmt"
	"slices"
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
	rendered      int // bytes of Markdown given to glamour so far (tests, benchmarks)
	written       int // bytes glamour wrote for them (what its time is proportional to)
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
	out, ok := md.renderRaw(text, width)
	if !ok || out == "" {
		out = wrapPlain(text, width)
	}
	return trimBlankLines(out)
}

// renderRaw is glamour's rendering of text for width cells as it is; ok is false when glamour
// failed.
func (md *markdown) renderRaw(text string, width int) (string, bool) {
	width = max(width, 10)
	if r := md.renderer(width); r != nil {
		md.rendered += len(text)
		if s, err := r.Render(text); err == nil {
			md.written += len(s)
			return s, true
		}
	}
	return "", false
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

// mdStream renders an agent message that is still streaming at a cost that does not grow with
// the message. The text is cut at top-level block boundaries that later text cannot move (a
// blank line, then a line that is not indented, outside a fenced code block, and not a list
// item continuing a list); finished blocks are rendered once and kept, and each call renders
// only the last finished block and what follows it.
//
// Glamour renders a document as the blocks' own renderings joined by separators that depend on
// the two neighbouring blocks, so the rendering of "previous block + new blocks" minus the
// standalone rendering of the previous block is exactly what the new blocks add to the whole
// document's rendering. When that prefix does not match (glamour failed, or a construct this
// cut cannot see), the whole text is rendered instead from then on. What no cut can see (a link
// reference defined further down, an HTML block spanning blank lines) may show differently
// until the message is finished; finished messages are rendered whole (markdown.render), exactly
// as before.
type mdStream struct {
	// pacing (conversation.renderStreaming)
	base   string // width and other inputs of the last rendering
	budget int    // bytes glamour may write for the next renderings
	next   int    // bytes glamour will write for the next rendering, about (the growing block's last)
	// budgetIn is the Markdown bytes the next renderings may give glamour.
	budgetIn int
	seen     int // len(text) at the last frame

	width   int
	text    string // the raw text last rendered
	whole   bool   // the incremental rendering failed: render the whole text
	done    int    // bytes of text rendered into doneLines and donePart (a block boundary)
	last    int    // start of the last block before done (its text is text[last:done])
	lastRaw string // glamour's standalone rendering of text[last:done]
	// doneLines are the complete lines (right-trimmed) of the rendering of text[:done],
	// donePart the incomplete line after them.
	doneLines []string
	donePart  string

	// The growing block's separator: glamour's rendering of text[last:] is, for most blocks,
	// that of text[last:done], then a separator, then the growing block's standalone rendering.
	// Once that was checked for the growing block at done (sepAt), later frames render only the
	// growing block, until its kind may have changed (sepKey, tailKey).
	sepAt  int     // done+1 when sep was checked; 0: not checked
	sepOK  bool    // the check held: sep is valid
	sep    sepJoin // how the rendering of text[last:] goes on from lastRaw to the growing block's
	sepKey string  // tailKey of the growing block when sep was checked
	// seps are separators checked before, by the end of the rendering before them and the kind
	// of block after them (sepCacheKey): glamour's separator between two top-level blocks
	// depends on the kind of the second and on the pen state the first leaves, not on their text.
	seps map[string]sepJoin
	// The growing block's last standalone rendering: growRaw is glamour's rendering of grow,
	// the text after done when done was growAt-1.
	growAt        int
	grow, growRaw string

	// block boundary scan
	scan      int    // bytes of text examined (a line start)
	cut       int    // the last block boundary found (≥ done)
	prevCut   int    // the boundary before cut
	fence     string // the opening fence ("```", "~~~~", …) while inside a fenced code block
	inBlock   bool   // a non-blank line was seen since cut
	listBlock bool   // the block that starts at cut begins with a list item
	prevBlank bool   // the line before scan is blank
}

// render returns the lines of text (raw agent Markdown, sanitised here) rendered at width
// cells, as splitNL(md.render(sanitize(text), width)) would. text is expected to extend the
// text of the previous call; anything else starts over.
func (s *mdStream) render(md *markdown, text string, width int) []string {
	if width != s.width || len(text) < len(s.text) || text[:len(s.text)] != s.text {
		*s = mdStream{width: width, base: s.base, budget: s.budget, next: s.next, budgetIn: s.budgetIn, seen: s.seen}
	}
	s.text = text
	if s.whole {
		return s.renderWhole(md)
	}
	s.scanLines()
	// Finished blocks (one, or two when a short one came and went between frames) whose
	// separator is known: render each alone, which is also the standalone rendering the next
	// step needs.
	for _, end := range [2]int{s.prevCut, s.cut} {
		if end <= s.done || s.done == 0 {
			continue
		}
		block := text[s.done:end]
		j, ok := s.joinFor(block)
		if !ok {
			break
		}
		g, ok := s.standalone(md, block)
		if !ok || !j.fits(g) {
			break
		}
		s.doneLines, s.donePart = appendRaw(s.doneLines, s.donePart, j.join(g))
		s.last, s.done, s.lastRaw = s.done, end, g
	}
	if s.cut > s.done {
		piece, ok := s.add(md, s.cut)
		if !ok {
			s.whole = true
			return s.renderWhole(md)
		}
		s.doneLines, s.donePart = appendRaw(s.doneLines, s.donePart, piece)
		// The standalone rendering of the new last block, for the next step.
		s.last = s.prevCut
		if s.prevCut < s.done {
			s.last = s.done
		}
		s.done = s.cut
		if s.lastRaw, ok = md.renderRaw(sanitize(text[s.last:s.cut]), width); !ok {
			s.whole = true
			return s.renderWhole(md)
		}
	}
	lines := slices.Clip(s.doneLines)
	part := s.donePart
	if s.done < len(text) {
		piece, ok := s.tail(md)
		if !ok {
			s.whole = true
			return s.renderWhole(md)
		}
		lines, part = appendRaw(lines, part, piece)
		s.next = len(piece)
	}
	lines = append(lines, strings.TrimRight(part, " "))
	// As trimBlankLines: no blank lines at either end.
	start, end := 0, len(lines)
	for start < end && isBlankStyled(lines[start]) {
		start++
	}
	for end > start && isBlankStyled(lines[end-1]) {
		end--
	}
	return lines[start:end]
}

// cost is about the Markdown bytes that rendering text would give glamour.
func (s *mdStream) cost(text string) int {
	if s.whole || s.width == 0 || len(text) < s.last {
		return len(text)
	}
	return len(text) - s.last
}

// renderWhole renders s.text whole (the incremental rendering failed).
func (s *mdStream) renderWhole(md *markdown) []string {
	before := md.written
	lines := splitNL(md.render(sanitize(s.text), s.width))
	s.next = md.written - before
	return lines
}

// add returns what text[s.done:end] adds to the rendering of text[:s.done]: the rendering of
// text[s.last:end] minus that of its first block, text[s.last:s.done]. ok is false when the
// latter is not a prefix of the former.
func (s *mdStream) add(md *markdown, end int) (piece string, ok bool) {
	raw, ok := md.renderRaw(sanitize(s.text[s.last:end]), s.width)
	if !ok {
		return "", false
	}
	if s.done == 0 {
		return raw, true
	}
	return strings.CutPrefix(raw, s.lastRaw)
}

// tail returns what text[s.done:] adds to the rendering of text[:s.done], as add(md,
// len(s.text)) does, rendering only the growing block when its separator is known to hold.
func (s *mdStream) tail(md *markdown) (piece string, ok bool) {
	if s.done == 0 {
		return s.add(md, len(s.text))
	}
	grow := s.text[s.done:]
	key := tailKey(grow)
	cacheKey, cacheable := sepCacheKey(s.lastRaw, grow, key)
	if j, ok := s.joinFor(grow); ok {
		s.sepAt, s.sepKey, s.sepOK, s.sep = s.done+1, key, true, j
		g, ok := md.renderRaw(sanitize(grow), s.width)
		if ok && j.fits(g) {
			s.growAt, s.grow, s.growRaw = s.done+1, grow, g
			return j.join(g), true
		}
	}
	piece, ok = s.add(md, len(s.text))
	if !ok {
		return "", false
	}
	s.sepAt, s.sepKey, s.sepOK, s.sep = s.done+1, key, false, sepJoin{}
	if g, ok := md.renderRaw(sanitize(grow), s.width); ok {
		if s.sep, s.sepOK = joinOf(piece, g); s.sepOK {
			s.growAt, s.grow, s.growRaw = s.done+1, grow, g
		}
	}
	if s.sepOK {
		if cacheable {
			if s.seps == nil || len(s.seps) >= 64 {
				s.seps = map[string]sepJoin{}
			}
			s.seps[cacheKey] = s.sep
		}
	}
	return piece, true
}

// joinFor returns the join between the last finished block and block, the text after s.done,
// when it is known: checked for the growing block at s.done while it had the same kind, or
// checked before between blocks of these kinds (s.seps).
func (s *mdStream) joinFor(block string) (sepJoin, bool) {
	key := tailKey(block)
	if s.sepAt == s.done+1 && s.sepOK && s.sepKey == key {
		return s.sep, true
	}
	if ck, ok := sepCacheKey(s.lastRaw, block, key); ok {
		j, ok := s.seps[ck]
		return j, ok
	}
	return sepJoin{}, false
}

// sepJoin is how glamour's rendering of two top-level blocks goes on from the first block's
// standalone rendering to the second's: usually sep and then the second's rendering, but when
// the first leaves an incomplete line (padding the document writer goes on with), cut is the
// start of the second's rendering that this line already holds.
type sepJoin struct{ sep, cut string }

// joinOf returns the join of piece, what the rendering of two blocks holds after the first's
// standalone rendering, and g, the second's standalone rendering; ok is false when piece is
// neither g after a separator nor the end of g.
func joinOf(piece, g string) (j sepJoin, ok bool) {
	if strings.HasSuffix(piece, g) {
		return sepJoin{sep: piece[:len(piece)-len(g)]}, true
	}
	if strings.HasSuffix(g, piece) {
		return sepJoin{cut: g[:len(g)-len(piece)]}, true
	}
	return sepJoin{}, false
}

// fits reports whether g, a block's standalone rendering, can be joined (its start is cut).
func (j sepJoin) fits(g string) bool { return strings.HasPrefix(g, j.cut) }

// join returns what g adds to the rendering before it (g must fit).
func (j sepJoin) join(g string) string { return j.sep + g[len(j.cut):] }

// standalone returns glamour's rendering of block, the text of the block that starts at s.done
// and has just been finished by the start of the next one. The growing block's last rendering
// is that when the two differ only by newlines at their end (which end a document without
// changing its rendering): a block usually finishes with the blank line after it.
func (s *mdStream) standalone(md *markdown, block string) (string, bool) {
	if s.growAt == s.done+1 && s.grow != "" && strings.TrimRight(s.grow, "\n") == strings.TrimRight(block, "\n") {
		return s.growRaw, true
	}
	return md.renderRaw(sanitize(block), s.width)
}

// sepCacheKey returns the key under which the separator between a block rendered as lastRaw
// and the growing block grow (whose tailKey is key) is kept: the end of lastRaw (the pen state
// and padding it leaves) and the kind of grow's first block. ok is false when that kind is not
// settled by what has arrived (an incomplete marker or info string), or when later lines could
// still change it (key holds lines beyond the first: a setext underline, a table row, a
// definition).
func sepCacheKey(lastRaw, grow, key string) (string, bool) {
	if strings.IndexByte(key, '\n') >= 0 || lastRaw == "" {
		return "", false
	}
	line, _, complete := strings.Cut(grow, "\n")
	kind, ok := blockKind(strings.TrimSuffix(line, "\r"), complete)
	if !ok {
		return "", false
	}
	return kind + "\x00" + lastRaw[max(len(lastRaw)-64, 0):], true
}

// blockKind names the kind of top-level block a line starts (CommonMark's block starts:
// indented code, ATX heading, fence and its info string, quote, list item and its marker,
// paragraph). complete says whether the line has ended; ok is false when the kind could still
// change with more of the line, or when the line may start something whose rendering depends
// on what follows (a thematic break or setext underline, a table row, HTML, a link reference
// definition, a definition).
func blockKind(line string, complete bool) (kind string, ok bool) {
	l := strings.TrimLeft(line, " ")
	switch {
	case l == "":
		return "", false
	case len(line)-len(l) > 3 || l[0] == '\t':
		return "indent", complete
	case strings.ContainsRune(l, '|') || isUnderline(l) || strings.ContainsRune("<[:", rune(l[0])):
		return "", false
	case l[0] == '#':
		n := 0
		for n < len(l) && l[n] == '#' {
			n++
		}
		switch {
		case n > 6:
			return "p", true
		case n < len(l) && (l[n] == ' ' || l[n] == '\t'):
			return l[:n], true
		case n == len(l):
			return l, complete // "##" may still become "## Title" or "##x"
		}
		return "p", true
	case l[0] == '`' || l[0] == '~':
		if f := fenceOpen(l); f != "" {
			return "fence " + l, complete
		}
		return "p", complete || len(l) > 3
	case l[0] == '>':
		return ">", true
	}
	if isListItem(l) {
		n := strings.IndexAny(l, " \t")
		if n < 0 {
			return "", false // a marker alone: the item's text decides its indentation
		}
		return "item " + l[:n], true
	}
	// Maybe a list marker still arriving ("1", "12.", "+").
	return "p", complete || !isListPrefix(l)
}

// isListPrefix reports whether l could still become a list item as more of the line arrives:
// a bullet or 1–9 digits, optionally followed by "." or ")", and nothing else.
func isListPrefix(l string) bool {
	if l == "-" || l == "*" || l == "+" {
		return true
	}
	n := 0
	for n < len(l) && l[n] >= '0' && l[n] <= '9' {
		n++
	}
	return n > 0 && n <= 9 && (n == len(l) || n == len(l)-1 && (l[n] == '.' || l[n] == ')'))
}

// tailKey sums up what decides the kind of the block that starts text (a growing block): the
// start of its first line (list marker, heading, fence, indentation) and the lines, the
// incomplete last one included, that could turn it into something else (a setext underline, a
// table's rows, a definition's ":"), with their text.
func tailKey(text string) string {
	first, rest, _ := strings.Cut(text, "\n")
	if len(first) > 8 {
		first = first[:8]
	}
	var b strings.Builder
	b.WriteString(first)
	for i := 1; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.ContainsRune(line, '|') || isUnderline(line) || strings.HasPrefix(strings.TrimLeft(line, " "), ":") {
			fmt.Fprintf(&b, "\n%d:%s", i, line)
		}
	}
	return b.String()
}

// isUnderline reports whether line could be a setext heading underline or a thematic break (at
// most three spaces, then only '=', '-', '*', '_' and spaces).
func isUnderline(line string) bool {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 || l == "" {
		return false
	}
	return strings.Trim(l, "=-*_ \t\r") == ""
}

// appendRaw appends raw rendered text to lines (complete, right-trimmed) and part (the
// incomplete last line), returning both.
func appendRaw(lines []string, part, raw string) ([]string, string) {
	for {
		nl := strings.IndexByte(raw, '\n')
		if nl < 0 {
			return lines, part + raw
		}
		lines = append(lines, strings.TrimRight(part+raw[:nl], " "))
		part, raw = "", raw[nl+1:]
	}
}

// scanLines examines the complete lines of s.text after s.scan for block boundaries.
func (s *mdStream) scanLines() {
	for {
		nl := strings.IndexByte(s.text[s.scan:], '\n')
		if nl < 0 {
			s.peekLine()
			return
		}
		start := s.scan
		line := strings.TrimSuffix(s.text[start:start+nl], "\r")
		s.scan += nl + 1
		if s.fence != "" {
			if isFenceClose(line, s.fence) {
				s.fence = ""
			}
			continue
		}
		blank := strings.TrimLeft(line, " \t") == ""
		if !blank {
			indented := line[0] == ' ' || line[0] == '\t'
			item := isListItem(line)
			if s.inBlock && s.prevBlank && !indented && !(s.listBlock && item) {
				s.prevCut, s.cut, s.inBlock = s.cut, start, false
			}
			if !s.inBlock {
				s.inBlock, s.listBlock = true, item
			}
			s.fence = fenceOpen(line)
		}
		s.prevBlank = blank
	}
}

// peekLine looks at the incomplete line after s.scan: when it starts a new top-level block
// after a blank line (as scanLines would find once it is complete) and what has arrived of it
// settles that (blockKind: a list item's marker, a heading's "#"s and space), the block before
// it is finished now rather than when the line ends. scanLines then takes the line as the
// first of the new block.
func (s *mdStream) peekLine() {
	line := s.text[s.scan:]
	if s.fence != "" || !s.inBlock || !s.prevBlank || line == "" || line[0] == ' ' || line[0] == '\t' {
		return
	}
	kind, ok := blockKind(line, false)
	if !ok || kind == "p" && !isPlainStart(line) {
		return
	}
	item := strings.HasPrefix(kind, "item ")
	if s.listBlock && item {
		return
	}
	s.prevCut, s.cut, s.inBlock = s.cut, s.scan, false
}

// isPlainStart reports whether line, the start of a paragraph, cannot turn into anything else
// at its start: it begins with a letter, a digit (other than a list marker) or a non-ASCII
// character.
func isPlainStart(line string) bool {
	c := line[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || c >= '0' && c <= '9' && !isListPrefix(line)
}

// fenceOpen returns the fence that line opens (a run of three or more ` or ~ after at most
// three spaces; CommonMark), or "".
func fenceOpen(line string) string {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 || len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return ""
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 || (l[0] == '`' && strings.ContainsRune(l[n:], '`')) {
		return ""
	}
	return l[:n]
}

// isFenceClose reports whether line closes a code block opened by fence: at most three
// spaces, a run of the same character at least as long, then only spaces.
func isFenceClose(line, fence string) bool {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return false
	}
	n := 0
	for n < len(l) && l[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimRight(l[n:], " \t") == ""
}

// isListItem reports whether line starts a list item ("-", "*", "+", or 1–9 digits and "." or
// ")", then a space, a tab or the end of the line).
func isListItem(line string) bool {
	l := strings.TrimLeft(line, " ")
	n := 0
	for n < len(l) && n < 10 && l[n] >= '0' && l[n] <= '9' {
		n++
	}
	switch {
	case n == 0 && len(l) > 0 && (l[0] == '-' || l[0] == '*' || l[0] == '+'):
		n = 1
	case n > 0 && n <= 9 && n < len(l) && (l[n] == '.' || l[n] == ')'):
		n++
	default:
		return false
	}
	return n == len(l) || l[n] == ' ' || l[n] == '\t'
}
