package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestSideBySideDiff(t *testing.T) {
	st := newStyles(true, true)
	old := "a\nb\nc\nd\n"
	nw := "a\nB\nc\nd\ne long enough to wrap\n"
	got, ok := renderSideBySide(st, "f.txt", &old, nw, 41, 0)
	if !ok {
		t.Fatal("not rendered")
	}
	want := strings.Join([]string{
		"--- a/f.txt         │ +++ b/f.txt        ",
		"@@ -1,4 +1,5 @@",
		"1   a               │ 1   a              ",
		"2 - b               │ 2 + B              ",
		"3   c               │ 3   c              ",
		"4   d               │ 4   d              ",
		"                    │ 5 + e long enough t",
		"                    │   ↪ o wrap         ",
	}, "\n")
	if s := ansi.Strip(got); s != want {
		t.Fatalf("side by side:\n%s\nwant:\n%s", s, want)
	}
	for _, row := range strings.Split(ansi.Strip(got), "\n") {
		if w := ansi.StringWidth(row); w > 41 {
			t.Errorf("row %q is %d cells wide, more than 41", row, w)
		}
	}
}

func TestSideBySideDiffFromWidth(t *testing.T) {
	st := newStyles(true, true)
	old := "one\ntwo\n"
	nw := "one\n2\n"
	wide := ansi.Strip(renderDiff(st, "x", &old, nw, diffSideBySideMin, 0))
	if !strings.Contains(wide, "2 - two") || !strings.Contains(wide, "│ 2 + 2") {
		t.Fatalf("at %d cells the diff is not side by side:\n%s", diffSideBySideMin, wide)
	}
	narrow := ansi.Strip(renderDiff(st, "x", &old, nw, diffSideBySideMin-1, 0))
	if want := "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n+2"; narrow != want {
		t.Fatalf("at %d cells:\n%s\nwant unified:\n%s", diffSideBySideMin-1, narrow, want)
	}
	// Equal texts and new files still work; a new file, having no old side, is unified.
	if s := ansi.Strip(renderDiff(st, "x", &old, old, 150, 0)); s != "(no changes to x)" {
		t.Fatalf("equal texts: %q", s)
	}
	s := ansi.Strip(renderDiff(st, "n", nil, "hi\n", 150, 0))
	if s != "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+hi" {
		t.Fatalf("new file:\n%s", s)
	}
}

func TestSideBySideDiffMaxLines(t *testing.T) {
	st := newStyles(true, true)
	var a, b strings.Builder
	for range 30 {
		a.WriteString("old line\n")
		b.WriteString("new line\n")
	}
	old := a.String()
	got := ansi.Strip(renderDiff(st, "x", &old, b.String(), 150, 10))
	rows := strings.Split(got, "\n")
	// header pair (2 diff lines) + hunk header + 7 pairs = 10 of 33, then the marker.
	if len(rows) != 10 || rows[9] != "… 23 more diff lines" {
		t.Fatalf("%d rows, last %q:\n%s", len(rows), rows[len(rows)-1], got)
	}
}

// A new file has no old side: at any width its diff is the unified one, not a blank left column.
func TestNewFileDiffStaysUnified(t *testing.T) {
	st := newStyles(true, true)
	nw := "one\ntwo\n"
	for _, old := range []*string{nil, new(string)} {
		got := ansi.Strip(renderDiff(st, "x", old, nw, 200, 0))
		want := ansi.Strip(renderDiff(st, "x", old, nw, 100, 0))
		if got != want || strings.Contains(got, diffSideSep) {
			t.Fatalf("old %v: at 200 cells:\n%s\nwant unified:\n%s", old, got, want)
		}
		if !strings.Contains(got, "+one") {
			t.Fatalf("old %v: no added line:\n%s", old, got)
		}
	}
}
