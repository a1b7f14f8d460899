package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/charmbracelet/x/ansi"
)

// diffOp is one line of a line diff.
type diffOp struct {
	kind byte // ' ' unchanged, '-' removed, '+' added
	text string
	a, b int // 1-based line numbers in old (a) and new (b); 0 when absent
}

// splitLines splits text into lines without their "\n"; a trailing newline adds no empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// Limits of the diff shown for a file change (tool call diff content, fs/write_text_file).
// Beyond either, diffLines shows a one-line notice with the sizes instead of the diff: the
// texts come from the agent and may be arbitrarily large, and the diff is computed on the UI
// goroutine (an approval dialog waits for it).
const (
	// diffMaxBytes bounds len(old)+len(new) in bytes; larger texts are not even split into lines.
	diffMaxBytes = 8 << 20
	// diffMaxChangedLines bounds the lines of old plus new between their common leading and
	// trailing lines, the part the diff algorithm works on.
	diffMaxChangedLines = 20_000
)

// lineDiff returns a line-by-line edit script from a to b, or ok false (and no script) when more
// than diffMaxChangedLines lines lie between the common leading and trailing lines. Those are
// matched first; the rest goes to go-udiff's Myers implementation (the Go tools' diff), which is
// exact for scripts of up to about 100 edits and, beyond, stops searching and replaces what is
// left in the middle as a whole. Replaced blocks of diffRefineMin lines or more are diffed again
// (each pass finds the exact script of up to 100 more edits inside), within a budget of
// diffRefinePasses times the input lines, so large edits stay close to minimal while time and
// memory stay linear in the input (edits denser than about one line in seven of 10 000 get
// larger replaced blocks than needed).
func lineDiff(a, b []string) (ops []diffOp, ok bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if len(a)+len(b)-2*(pre+suf) > diffMaxChangedLines {
		return nil, false
	}
	budget := diffRefinePasses * (len(a) + len(b))
	var blocks []lcs.Diff
	refineDiff(a, b, lcs.Diff{Start: pre, End: len(a) - suf, ReplStart: pre, ReplEnd: len(b) - suf}, &budget, &blocks)
	ops = make([]diffOp, 0, max(len(a), len(b))+len(blocks))
	x, y := 0, 0
	same := func(toX int) {
		for ; x < toX; x, y = x+1, y+1 {
			ops = append(ops, diffOp{kind: ' ', text: a[x], a: x + 1, b: y + 1})
		}
	}
	for _, d := range blocks {
		same(d.Start)
		for ; x < d.End; x++ {
			ops = append(ops, diffOp{kind: '-', text: a[x], a: x + 1})
		}
		for ; y < d.ReplEnd; y++ {
			ops = append(ops, diffOp{kind: '+', text: b[y], b: y + 1})
		}
	}
	same(len(a))
	return ops, true
}

// Refinement of lineDiff's replaced blocks.
const (
	diffRefineMin    = 100 // lines (old+new) of a replaced block worth diffing again
	diffRefinePasses = 16  // work budget: lines fed to the diff, in multiples of the input lines
)

// refineDiff appends to out the replaced blocks (in a, b coordinates, in order) that turn
// a[r.Start:r.End] into b[r.ReplStart:r.ReplEnd]; budget is the lines it may still feed to
// the diff algorithm.
func refineDiff(a, b []string, r lcs.Diff, budget *int, out *[]lcs.Diff) {
	n, m := r.End-r.Start, r.ReplEnd-r.ReplStart
	if n == 0 && m == 0 {
		return
	}
	if n == 0 || m == 0 || *budget < n+m {
		*out = append(*out, r)
		return
	}
	*budget -= n + m
	for _, d := range lcs.DiffLines(a[r.Start:r.End], b[r.ReplStart:r.ReplEnd]) {
		d = lcs.Diff{Start: r.Start + d.Start, End: r.Start + d.End, ReplStart: r.ReplStart + d.ReplStart, ReplEnd: r.ReplStart + d.ReplEnd}
		if d == r || d.End-d.Start+d.ReplEnd-d.ReplStart < diffRefineMin {
			*out = append(*out, d) // nothing in common found, or small enough to be exact
			continue
		}
		refineDiff(a, b, d, budget, out)
	}
}

// diffHunk is one "@@" block of a unified diff.
type diffHunk struct {
	header string // "@@ -a,n +b,m @@"
	ops    []diffOp
}

// unifiedHunks groups ops into hunks with ctx unchanged lines of context around changes.
func unifiedHunks(ops []diffOp, ctx int) []diffHunk {
	var hunks []diffHunk
	i := 0
	for i < len(ops) {
		// find next change
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// run of unchanged lines: does another change follow within 2*ctx?
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j < len(ops) && j-end <= 2*ctx {
				end = j
				continue
			}
			end = min(len(ops), end+ctx)
			break
		}
		h := diffHunk{ops: ops[start:end]}
		aStart, bStart, aN, bN := 0, 0, 0, 0
		for _, op := range h.ops {
			if op.kind != '+' {
				if aStart == 0 {
					aStart = op.a
				}
				aN++
			}
			if op.kind != '-' {
				if bStart == 0 {
					bStart = op.b
				}
				bN++
			}
		}
		if aN == 0 {
			aStart = lineBefore(ops, start, 'a')
		}
		if bN == 0 {
			bStart = lineBefore(ops, start, 'b')
		}
		h.header = fmt.Sprintf("@@ -%s +%s @@", hunkRange(aStart, aN), hunkRange(bStart, bN))
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// lineBefore is the last old (side 'a') or new ('b') line number before ops[start] (0 if none),
// which is how unified diff numbers an empty range.
func lineBefore(ops []diffOp, start int, side byte) int {
	for i := start - 1; i >= 0; i-- {
		if side == 'a' && ops[i].a > 0 {
			return ops[i].a
		}
		if side == 'b' && ops[i].b > 0 {
			return ops[i].b
		}
	}
	return 0
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// unifiedDiff returns the plain unified diff of old → new for path (no colour), as `diff -u`
// would print it: relative paths get "a/" and "b/" prefixes, absolute ones are shown as they are. oldText nil means a new file. It returns "" when
// the texts are equal.
func unifiedDiff(path string, oldText *string, newText string) string {
	var lines []string
	for _, l := range diffLines(path, oldText, newText) {
		lines = append(lines, l.text)
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// diffLine is one printable line of a unified diff with its role for colouring.
type diffLine struct {
	kind byte // 'h' file header, '@' hunk header, ' ', '-', '+', '!' notice (diff too large)
	text string
}

// diffLines returns the lines of the unified diff of old → new for path (oldText nil: a new
// file), nil when the texts are equal. Beyond diffMaxBytes or diffMaxChangedLines it returns the
// two file header lines and a notice (kind '!') with the sizes of both texts instead.
func diffLines(path string, oldText *string, newText string) []diffLine {
	head, hunks, notice := diffHunksOf(path, oldText, newText)
	if notice != nil {
		return append(head, *notice)
	}
	if len(hunks) == 0 {
		return nil
	}
	out := head
	for _, h := range hunks {
		out = append(out, diffLine{'@', h.header})
		for _, op := range h.ops {
			out = append(out, diffLine{op.kind, string(op.kind) + op.text})
		}
	}
	return out
}

// diffHunksOf is diffLines before it is flattened: the two file header lines, and either the
// hunks (3 lines of context; none when the texts are equal) or, beyond the limits, the notice.
func diffHunksOf(path string, oldText *string, newText string) (head []diffLine, hunks []diffHunk, notice *diffLine) {
	from, to := "a/"+path, "b/"+path
	if filepath.IsAbs(path) {
		from, to = path, path
	}
	if oldText == nil {
		from = "/dev/null"
	}
	old := ""
	if oldText != nil {
		old = *oldText
	}
	head = []diffLine{{'h', "--- " + from}, {'h', "+++ " + to}}
	if len(old)+len(newText) > diffMaxBytes {
		n := tooLargeLine(old, newText)
		return head, nil, &n
	}
	a, b := splitLines(old), splitLines(newText)
	ops, ok := lineDiff(a, b)
	if !ok {
		n := tooLargeLine(old, newText)
		return head, nil, &n
	}
	return head, unifiedHunks(ops, 3), nil
}

// tooLargeLine is the notice shown instead of a diff beyond the limits, e.g. "diff too large to
// show: 5000 lines → 6000 lines (88890 → 106890 bytes)".
func tooLargeLine(old, new string) diffLine {
	return diffLine{'!', fmt.Sprintf("diff too large to show: %d lines → %d lines (%d → %d bytes)",
		countLines(old), countLines(new), len(old), len(new))}
}

// countLines is len(splitLines(s)) without splitting: a last line without "\n" counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// renderDiff renders the diff side by side when width is at least diffSideBySideMin cells
// (renderSideBySide), else the unified diff, coloured with st (removed lines in the error colour, added
// in the success colour, hunk headers dimmed), each line wrapped to width cells (wrapDiffLine:
// nothing of a long line is hidden), at most maxLines
// lines (then a "… N more diff lines" marker). Agent text is sanitised first. Texts beyond the
// limits of diffLines (diffMaxBytes, diffMaxChangedLines) show the file headers and the notice
// "diff too large to show: N lines → M lines (X → Y bytes)", wrapped to width, instead of a diff.
func renderDiff(st *Styles, path string, oldText *string, newText string, width, maxLines int) string {
	old, size := oldText, len(newText)
	if oldText != nil {
		size += len(*oldText)
	}
	if size <= diffMaxBytes { // larger texts are only counted (diffLines), never shown
		if oldText != nil {
			o := sanitize(*oldText)
			old = &o
		}
		newText = sanitize(newText)
	}
	if width >= diffSideBySideMin {
		if out, ok := renderSideBySide(st, sanitizeLine(path), old, newText, width, maxLines); ok {
			return out
		}
	}
	lines := diffLines(sanitizeLine(path), old, newText)
	if len(lines) == 0 {
		return st.Dim.Render("(no changes to " + sanitizeLine(path) + ")")
	}
	var b strings.Builder
	for i, l := range lines {
		if maxLines > 0 && i >= maxLines {
			b.WriteByte('\n')
			b.WriteString(st.Dim.Render(truncate(fmt.Sprintf("… %d more diff lines", len(lines)-i), width)))
			return b.String()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		if l.kind == '!' {
			b.WriteString(st.Warn.Render(wrapPlain(l.text, width)))
			continue
		}
		style := st.DiffCtx
		switch l.kind {
		case 'h':
			style = st.DiffHeader
		case '@':
			style = st.DiffHunk
		case '-':
			style = st.DiffDel
		case '+':
			style = st.DiffAdd
		}
		for j, row := range wrapDiffLine(l.kind, expandTabs(l.text), width) {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(style.Render(row))
		}
	}
	return b.String()
}

// diffWrapMark starts each continuation row of a diff line too long for its width, after the
// line's own sign column ('-', '+' or ' '), so that every character of the line can be read.
const diffWrapMark = "↪"

// wrapDiffLine splits one diff line (sign included) into rows of at most width cells: the first
// row as it starts, then continuation rows of the sign, diffWrapMark and the next part.
func wrapDiffLine(kind byte, text string, width int) []string {
	width = max(width, 1)
	if ansi.StringWidth(text) <= width {
		return []string{text}
	}
	if width < 3 { // no room for the sign and the mark
		return splitNL(ansi.Hardwrap(text, width, true))
	}
	first := ansi.Truncate(text, width, "")
	rest := ansi.TruncateLeft(text, ansi.StringWidth(first), "")
	sign := " "
	if kind == '-' || kind == '+' {
		sign = string(kind)
	}
	rows := []string{first}
	for _, part := range splitNL(ansi.Hardwrap(rest, width-2, true)) {
		rows = append(rows, sign+diffWrapMark+part)
	}
	return rows
}
