package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpterm/acpterm/terminals"
)

// renderPaneRows draws p into a w×h canvas and returns the rows as plain text (trailing
// spaces trimmed by Canvas.Render).
func renderPaneRows(t *testing.T, p *pane, w, h int, o paneDrawOpts) ([]string, string) {
	t.Helper()
	c := lipgloss.NewCanvas(w, h)
	drawPane(c, newStyles(true, false), p, uv.Rect(0, 0, w, h), o)
	out := c.Render()
	return strings.Split(ansi.Strip(out), "\n"), out
}

func TestPaneGoldenRunning(t *testing.T) {
	scr := terminals.NewScreen(terminals.Size{Cols: 28, Rows: 4})
	t.Cleanup(func() { _ = scr.Close() })
	scr.Write([]byte("$ go test ./...\r\nok  \x1b[32mpkg\x1b[0m 0.1s\r\nline3"))
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p := &pane{id: "t1", label: "go test ./...", cwd: "/src/proj", screen: scr, started: t0}
	rows, styled := renderPaneRows(t, p, 30, 6, paneDrawOpts{now: t0.Add(75 * time.Second)})
	want := []string{
		"╭─ $ go … · running · 1m15s ─╮",
		"│$ go test ./...             │",
		"│ok  pkg 0.1s                │",
		"│line3                       │",
		"│                            │",
		"╰────────────────────────────╯",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(styled, "pkg") || !strings.Contains(styled, "\x1b[") {
		t.Errorf("styled output lacks SGR: %q", styled)
	}
}

func TestPaneGoldenExitedWideAndClipped(t *testing.T) {
	scr := terminals.NewScreen(terminals.Size{Cols: 10, Rows: 2})
	t.Cleanup(func() { _ = scr.Close() })
	// A wide character that would cross the right edge is drawn blank (clipped).
	scr.Write([]byte("abcdefghi日\r\n日本"))
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	code := 0
	p := &pane{id: "t2", label: "ls", screen: scr, started: t0, exit: &terminals.ExitStatus{Code: &code},
		exitedAt: t0.Add(2 * time.Second), truncated: true}
	rows, _ := renderPaneRows(t, p, 60, 4, paneDrawOpts{now: t0.Add(time.Hour)})
	want := []string{
		"╭─ $ ls · exit 0 · 2s · output truncated ──────────────────╮",
		"│abcdefghi                                                 │",
		"│日本                                                      │",
		"╰──────────────────────────────────────────────────────────╯",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

func TestPaneFocusedCursorAndSignal(t *testing.T) {
	scr := terminals.NewScreen(terminals.Size{Cols: 58, Rows: 2})
	t.Cleanup(func() { _ = scr.Close() })
	scr.Write([]byte("> ab"))
	p := &pane{id: "t3", label: "cat", screen: scr, exit: &terminals.ExitStatus{Signal: "SIGKILL"}}
	c := lipgloss.NewCanvas(60, 4)
	cur, ok := drawPane(c, newStyles(true, false), p, uv.Rect(0, 0, 60, 4), paneDrawOpts{focused: true, leaveKey: "ctrl+]"})
	if !ok || cur != uv.Pos(5, 1) {
		t.Fatalf("cursor = %v %v, want (5,1) shown", cur, ok)
	}
	row0 := strings.Split(ansi.Strip(c.Render()), "\n")[0]
	if row0 != "╭─ [typing · ctrl+] leaves] $ cat · SIGKILL · 0s ──────────╮" {
		t.Fatalf("title row = %q", row0)
	}
	if p.title(time.Time{}, 0) != "$ cat · SIGKILL · 0s" {
		t.Fatalf("title = %q", p.title(time.Time{}, 0))
	}
}

func TestFormatElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 42 * time.Second: "42s", 185 * time.Second: "3m05s", 3720 * time.Second: "1h02m"} {
		if got := formatElapsed(d); got != want {
			t.Errorf("formatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestPaneScrolledViewStaysPut(t *testing.T) {
	scr := terminals.NewScreen(terminals.Size{Cols: 20, Rows: 3})
	t.Cleanup(func() { _ = scr.Close() })
	for i := 1; i <= 10; i++ {
		scr.Write([]byte(fmt.Sprintf("line %d\r\n", i)))
	}
	p := &pane{id: "t", label: "seq", screen: scr}
	renderPaneRows(t, p, 22, 5, paneDrawOpts{}) // the first draw sizes the pane
	p.scroll = 2
	rows, _ := renderPaneRows(t, p, 22, 5, paneDrawOpts{})
	if rows[1] != "│line 7              │" || !strings.Contains(p.title(time.Time{}, 0), "scrolled 2") {
		t.Fatalf("scrolled rows:\n%s", strings.Join(rows, "\n"))
	}
	scr.Write([]byte("line 11\r\nline 12\r\n"))
	rows, _ = renderPaneRows(t, p, 22, 5, paneDrawOpts{})
	if rows[1] != "│line 7              │" || p.scroll != 4 {
		t.Fatalf("after more output (scroll %d):\n%s", p.scroll, strings.Join(rows, "\n"))
	}
}
