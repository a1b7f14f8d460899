package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// numbered returns n lines "<prefix> <i>\n", i from 1.
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func TestDiffTooLargeShowsSizes(t *testing.T) {
	st := newStyles(true, false)
	// 12 000 different lines on each side: 24 000 changed lines > diffMaxChangedLines.
	old, new := numbered("old line", 12000), numbered("new line", 12000)
	got := ansi.Strip(renderDiff(st, "big.txt", &old, new, 200, diffMaxLines))
	want := fmt.Sprintf("--- a/big.txt\n+++ b/big.txt\ndiff too large to show: 12000 lines → 12000 lines (%d → %d bytes)", len(old), len(new))
	if got != want {
		t.Fatalf("render = %q\nwant %q", got, want)
	}
	// A new file over the byte limit (one long line without a newline): not even split.
	huge := strings.Repeat("x", diffMaxBytes+1)
	got = ansi.Strip(renderDiff(st, "/abs/huge.bin", nil, huge, 200, diffMaxLines))
	want = fmt.Sprintf("--- /dev/null\n+++ /abs/huge.bin\ndiff too large to show: 0 lines → 1 lines (0 → %d bytes)", diffMaxBytes+1)
	if got != want {
		t.Fatalf("render = %q\nwant %q", got, want)
	}
	// The notice wraps to the width instead of being cut.
	got = ansi.Strip(renderDiff(st, "big.txt", &old, new, 30, diffMaxLines))
	for _, l := range strings.Split(got, "\n") {
		if ansi.StringWidth(l) > 30 {
			t.Fatalf("line %q wider than 30", l)
		}
	}
	if !strings.Contains(strings.ReplaceAll(got, "\n", " "), "12000 lines → 12000 lines") {
		t.Fatalf("narrow notice lost the sizes: %q", got)
	}
}

func TestDiffLargeFileSmallChange(t *testing.T) {
	// 30 000 lines with one line changed: only 2 lines differ, so the diff is shown.
	old := numbered("line", 30000)
	new := strings.Replace(old, "line 15000\n", "LINE 15000\n", 1)
	got := unifiedDiff("f", &old, new)
	want := "--- a/f\n+++ b/f\n@@ -14997,7 +14997,7 @@\n line 14997\n line 14998\n line 14999\n-line 15000\n+LINE 15000\n line 15001\n line 15002\n line 15003\n"
	if got != want {
		t.Fatalf("diff = %q\nwant %q", got, want)
	}
}

func TestDiffReplaceWithinLimits(t *testing.T) {
	// 5 000 lines replaced by 5 000 others (the tester's case): every line removed and added.
	old, new := numbered("old", 5000), numbered("new", 5000)
	lines := diffLines("f", &old, new)
	if len(lines) != 2+1+10000 {
		t.Fatalf("%d diff lines, want 10003", len(lines))
	}
	if lines[2].text != "@@ -1,5000 +1,5000 @@" || lines[3].text != "-old 1" || lines[5003].text != "+new 1" || lines[10002].text != "+new 5000" {
		t.Fatalf("unexpected lines %q %q %q %q", lines[2].text, lines[3].text, lines[5003].text, lines[10002].text)
	}
	st := newStyles(true, false)
	out := strings.Split(ansi.Strip(renderDiff(st, "f", &old, new, 80, diffMaxLines)), "\n")
	if len(out) != diffMaxLines+1 || out[diffMaxLines] != "… 9963 more diff lines" {
		t.Fatalf("render has %d lines, last %q", len(out), out[len(out)-1])
	}
}

func TestDiffManyScatteredEditsStayMinimal(t *testing.T) {
	// 300 single-line changes spread over 6 000 lines: far more edits than go-udiff searches
	// exactly in one pass (about 100); the refinement still finds the minimal script.
	a := strings.Split(strings.TrimSuffix(numbered("line", 6000), "\n"), "\n")
	b := append([]string(nil), a...)
	for i := 10; i < 6000; i += 20 {
		b[i] = "changed " + a[i]
	}
	ops, ok := lineDiff(a, b)
	if !ok {
		t.Fatal("diff refused")
	}
	del, add, same := 0, 0, 0
	for _, op := range ops {
		switch op.kind {
		case '-':
			del++
		case '+':
			add++
		default:
			same++
		}
	}
	if del != 300 || add != 300 || same != 5700 {
		t.Fatalf("-%d +%d =%d, want -300 +300 =5700", del, add, same)
	}
	// The script reproduces both sides.
	var gotA, gotB []string
	for _, op := range ops {
		if op.kind != '+' {
			gotA = append(gotA, op.text)
		}
		if op.kind != '-' {
			gotB = append(gotB, op.text)
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") {
		t.Fatal("edit script does not reproduce the texts")
	}
}

// BenchmarkDiffReplace5000 renders the diff card of a 5 000-line file replaced by 5 000
// different lines (as a tool call diff or fs/write_text_file would show it). Before the
// linear-space diff this kept a copy of the Myers frontier per edit step: 2.3 GB.
func BenchmarkDiffReplace5000(b *testing.B) {
	st := newStyles(true, false)
	old, new := numbered("old line", 5000), numbered("new line", 5000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		renderDiff(st, "f.txt", &old, new, 100, diffMaxLines)
	}
}
