package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func ptr(s string) *string { return &s }

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n"
	got := unifiedDiff("x.txt", ptr(old), new)
	want := `--- a/x.txt
+++ b/x.txt
@@ -1,10 +1,11 @@
 a
 b
 c
-d
+D
 e
 f
 g
 h
 i
 j
+k
`
	if got != want {
		t.Errorf("unifiedDiff =\n%s\nwant\n%s", got, want)
	}
}

func TestUnifiedDiffSeparateHunks(t *testing.T) {
	var a, b []string
	for i := 1; i <= 20; i++ {
		a = append(a, string(rune('a'+i-1)))
		b = append(b, string(rune('a'+i-1)))
	}
	b[1] = "B"  // line 2
	b[17] = "R" // line 18
	b = b[:19]  // drop line 20
	got := unifiedDiff("f", ptr(strings.Join(a, "\n")+"\n"), strings.Join(b, "\n")+"\n")
	want := `--- a/f
+++ b/f
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -15,6 +15,5 @@
 o
 p
 q
-r
+R
 s
-t
`
	if got != want {
		t.Errorf("unifiedDiff =\n%s\nwant\n%s", got, want)
	}
}

func TestUnifiedDiffNewFileAndEqual(t *testing.T) {
	got := unifiedDiff("new.go", nil, "package x\n")
	want := "--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+package x\n"
	if got != want {
		t.Errorf("new file diff = %q, want %q", got, want)
	}
	if got := unifiedDiff("same", ptr("x\ny\n"), "x\ny\n"); got != "" {
		t.Errorf("equal texts gave %q", got)
	}
	got = unifiedDiff("del", ptr("x\ny\n"), "")
	want = "--- a/del\n+++ b/del\n@@ -1,2 +0,0 @@\n-x\n-y\n"
	if got != want {
		t.Errorf("emptied file diff = %q, want %q", got, want)
	}
}

func TestRenderDiffColoursAndLimits(t *testing.T) {
	st := newStyles(true, false)
	out := renderDiff(st, "x.txt", ptr("one\ntwo\n"), "one\n2\x1b[31m\n", 40, 0)
	plain := ansi.Strip(out)
	want := "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2"
	if plain != want {
		t.Errorf("plain render = %q, want %q", plain, want)
	}
	if !strings.Contains(out, "\x1b[") {
		t.Errorf("expected SGR colour in %q", out)
	}
	// The agent's escape was removed before rendering: the only ESC bytes are our own SGR.
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("agent escape leaked: %q", out)
	}
	lim := ansi.Strip(renderDiff(st, "x.txt", ptr("one\ntwo\n"), "one\n2\n", 40, 3))
	if lim != "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n… 3 more diff lines" {
		t.Errorf("limited render = %q", lim)
	}
	for w := 1; w < 30; w++ {
		for _, l := range strings.Split(renderDiff(st, "a/long/path/name.txt", ptr("x\n"), "a much longer replacement line\n", w, 0), "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q is %d cells", w, ansi.Strip(l), ansi.StringWidth(l))
			}
		}
	}
}

// A diff line wider than the width wraps onto rows marked "↪" after its sign: every character
// can be read, and no row is wider than the width.
func TestRenderDiffWrapsLongLines(t *testing.T) {
	st := newStyles(true, false)
	long := strings.Repeat("abcdefghij", 5) // 50 cells
	got := ansi.Strip(renderDiff(st, "x.txt", ptr("short\n"), long+"\n", 20, 0))
	want := strings.Join([]string{
		"--- a/x.txt",
		"+++ b/x.txt",
		"@@ -1 +1 @@",
		"-short",
		"+abcdefghijabcdefghi",
		"+↪jabcdefghijabcdefg",
		"+↪hijabcdefghij",
	}, "\n")
	if got != want {
		t.Fatalf("render:\n%s\nwant:\n%s", got, want)
	}
	if joined := strings.ReplaceAll(strings.Split(got, "\n+abc")[1], "\n+↪", ""); "abc"+joined != long {
		t.Fatalf("the wrapped rows do not hold the whole line: %q", "abc"+joined)
	}
}
