package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/acpclient"
)

// diffSideBySideMin is the width, in cells, from which a diff is shown side by side (old on the
// left, new on the right) rather than unified: what a 160-column window leaves for the
// conversation or a wide approval dialog, so that each side keeps about 70 cells.
const diffSideBySideMin = 140

// diffSideSep separates the old and the new side of a side-by-side diff.
const diffSideSep = " │ "

// renderSideBySide renders the diff of old → new for path in two columns of width cells in
// all: each hunk's header across both, then its lines paired, unchanged lines on both sides,
// a run of removed lines beside the run of added lines that replaced it, line numbers in front.
// Long lines wrap within their side (continuation rows start with diffWrapMark), so nothing is
// hidden. At most maxLines diff lines are shown (a pair, a header counts one), then a "… N more
// diff lines" marker. ok is false when there is nothing to pair: a new file (oldText nil or
// empty: its left side would be blank, so the unified diff reads better), equal texts, or a diff
// beyond the limits (the unified rendering says why).
func renderSideBySide(st *Styles, path string, oldText *string, newText string, width, maxLines int) (string, bool) {
	if oldText == nil || *oldText == "" {
		return "", false
	}
	head, hunks, notice := diffHunksOf(path, oldText, newText)
	if notice != nil || len(hunks) == 0 {
		return "", false
	}
	lw := (width - ansi.StringWidth(diffSideSep)) / 2
	rw := width - ansi.StringWidth(diffSideSep) - lw
	nw := 1
	for _, h := range hunks {
		for _, op := range h.ops {
			nw = max(nw, len(strconv.Itoa(max(op.a, op.b))))
		}
	}
	var rows []string
	shown, total := 0, 2
	for _, h := range hunks {
		total += 1 + len(pairOps(h.ops))
	}
	full := func() bool { return maxLines > 0 && shown >= maxLines }
	emit := func(left, right []string, ls, rs lipgloss.Style) {
		for i := range max(len(left), len(right)) {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			rows = append(rows, ls.Render(padCells(l, lw))+st.Dim.Render(diffSideSep)+rs.Render(padCells(r, rw)))
		}
		shown++
	}
	emit(wrapCells(head[0].text, lw), wrapCells(head[1].text, rw), st.DiffHeader, st.DiffHeader)
	shown++ // the "---" and "+++" lines are two diff lines, shown as one row
	for _, h := range hunks {
		if full() {
			break
		}
		for _, row := range wrapCells(h.header, width) {
			rows = append(rows, st.DiffHunk.Render(row))
		}
		shown++
		for _, p := range pairOps(h.ops) {
			if full() {
				break
			}
			ls, rs := st.DiffCtx, st.DiffCtx
			if p.old != nil && p.old.kind == '-' {
				ls = st.DiffDel
			}
			if p.new != nil && p.new.kind == '+' {
				rs = st.DiffAdd
			}
			emit(sideCell(p.old, true, nw, lw), sideCell(p.new, false, nw, rw), ls, rs)
		}
	}
	if full() && shown < total {
		rows = append(rows, st.Dim.Render(truncate(fmt.Sprintf("… %d more diff lines", total-shown), width)))
	}
	return strings.Join(rows, "\n"), true
}

// diffPair is one row of a side-by-side diff: the old line (nil: none on that side) and the
// new one; an unchanged line is both.
type diffPair struct{ old, new *diffOp }

// pairOps pairs a hunk's lines: an unchanged line with itself, and each run of removed lines
// with the run of added lines that follows it, line by line (the longer run's rest alone).
func pairOps(ops []diffOp) []diffPair {
	var out []diffPair
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			out = append(out, diffPair{&ops[i], &ops[i]})
			i++
			continue
		}
		var del, add []*diffOp
		for ; i < len(ops) && ops[i].kind == '-'; i++ {
			del = append(del, &ops[i])
		}
		for ; i < len(ops) && ops[i].kind == '+'; i++ {
			add = append(add, &ops[i])
		}
		for j := range max(len(del), len(add)) {
			var p diffPair
			if j < len(del) {
				p.old = del[j]
			}
			if j < len(add) {
				p.new = add[j]
			}
			out = append(out, p)
		}
	}
	return out
}

// sideCell is one side of a pair as rows of at most w cells: the line number (nw cells), the
// sign (' ' for an unchanged line) and the text, wrapped with diffWrapMark in front of each continuation row.
func sideCell(op *diffOp, old bool, nw, w int) []string {
	if op == nil {
		return nil
	}
	n := op.b
	if old {
		n = op.a
	}
	sign := " "
	if op.kind != ' ' {
		sign = string(op.kind)
	}
	text := expandTabs(op.text)
	tw := max(w-nw-3, 1)
	parts := []string{""}
	if text != "" {
		parts = splitNL(ansi.Hardwrap(text, tw, true))
	}
	rows := []string{fmt.Sprintf("%*d %s ", nw, n, sign) + parts[0]}
	for _, p := range parts[1:] {
		rows = append(rows, strings.Repeat(" ", nw)+" "+diffWrapMark+" "+p)
	}
	return rows
}

// hasDiff reports whether request p shows a diff (its tool call's diff content, or the file
// write's).
func hasDiff(p acpclient.PermissionAsked) bool {
	if p.Diff != nil {
		return true
	}
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			return true
		}
	}
	return false
}
