package ui

import (
	"fmt"
	"path/filepath"
	"strings"
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

// lineDiff returns the line-by-line edit script from a to b (Myers' O(ND) algorithm).
func lineDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil
	}
	off := max
	v := make([]int, 2*max+2)
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	// Backtrack through the saved frontiers (trace[d] is v before step d).
	x, y := n, m
	var rev []diffOp
	for d := len(trace) - 1; d >= 0; d-- {
		vd := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && vd[off+k-1] < vd[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := vd[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, diffOp{kind: ' ', text: a[x-1], a: x, b: y})
			x--
			y--
		}
		if d == 0 {
			break
		}
		if x == prevX {
			rev = append(rev, diffOp{kind: '+', text: b[y-1], b: y})
		} else {
			rev = append(rev, diffOp{kind: '-', text: a[x-1], a: x})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, diffOp{kind: ' ', text: a[x-1], a: x, b: y})
		x--
		y--
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
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
	kind byte // 'h' file header, '@' hunk header, ' ', '-', '+'
	text string
}

func diffLines(path string, oldText *string, newText string) []diffLine {
	var a []string
	from, to := "a/"+path, "b/"+path
	if filepath.IsAbs(path) {
		from, to = path, path
	}
	if oldText != nil {
		a = splitLines(*oldText)
	} else {
		from = "/dev/null"
	}
	b := splitLines(newText)
	ops := lineDiff(a, b)
	hunks := unifiedHunks(ops, 3)
	if len(hunks) == 0 {
		return nil
	}
	out := []diffLine{{'h', "--- " + from}, {'h', "+++ " + to}}
	for _, h := range hunks {
		out = append(out, diffLine{'@', h.header})
		for _, op := range h.ops {
			out = append(out, diffLine{op.kind, string(op.kind) + op.text})
		}
	}
	return out
}

// renderDiff renders the unified diff coloured with st (removed lines in the error colour, added
// in the success colour, hunk headers dimmed), each line cut to width cells, at most maxLines
// lines (then a "… N more diff lines" marker). Agent text is sanitised first.
func renderDiff(st *Styles, path string, oldText *string, newText string, width, maxLines int) string {
	var old *string
	if oldText != nil {
		o := sanitize(*oldText)
		old = &o
	}
	lines := diffLines(sanitizeLine(path), old, sanitize(newText))
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
		text := truncate(expandTabs(l.text), width)
		switch l.kind {
		case 'h':
			b.WriteString(st.DiffHeader.Render(text))
		case '@':
			b.WriteString(st.DiffHunk.Render(text))
		case '-':
			b.WriteString(st.DiffDel.Render(text))
		case '+':
			b.WriteString(st.DiffAdd.Render(text))
		default:
			b.WriteString(st.DiffCtx.Render(text))
		}
	}
	return b.String()
}
