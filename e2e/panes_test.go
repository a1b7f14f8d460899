package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// panesConfig allows the commands the pane tests run without a question.
const panesConfig = `[policy]
unmatched = "ask"
[policy.commands]
allow = ["seq", "cat", "printf", "head", "sed", "echo"]
`

// startScriptSized starts acpterm on the scripted agent in a cols×rows tmux window (narrower
// than 120 columns, panes sit below the conversation with half its height) and waits for the
// session.
func startScriptSized(t *testing.T, e *testEnv, cols, rows int, args ...string) *tmux {
	t.Helper()
	agent := scriptAgent(t)
	tm := startTmux(t, e, cols, rows)
	tm.shell("stty -g > " + shellQuote(e.home+"/stty.before"))
	tm.acpterm(append(append([]string{"--cwd", e.project}, args...), "--", agent)...)
	tm.waitFor("mode Default") // the session's status (its id is left out at this width)
	return tm
}

// rowNumbers returns the numbers of the "rowNNN" lines a pane's interior shows, top to bottom.
func rowNumbers(screen string) []int {
	var out []int
	for _, m := range regexp.MustCompile(`(?m)│row(\d{3})\s*│`).FindAllStringSubmatch(screen, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// consecutiveTo reports whether ns counts up by one and ends at last.
func consecutiveTo(ns []int, last int) bool {
	if len(ns) == 0 || ns[len(ns)-1] != last {
		return false
	}
	for i := 1; i < len(ns); i++ {
		if ns[i] != ns[i-1]+1 {
			return false
		}
	}
	return true
}

// TestTUIZoomShowsScrollback: a pane's output of 200 lines shows its last rows; zooming it
// (ctrl+f) fills the taller pane with the lines that had scrolled off, above the last screen, in
// order and without a gap; unzooming gives the small view back.
func TestTUIZoomShowsScrollback(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(panesConfig)
	tm := startScriptSized(t, e, 100, 48, "--prompt", "termnoperm seq -f row%03g 1 200")
	small := tm.waitUntil("the pane's last row", func(s string) bool {
		return strings.Contains(s, "│row200") && strings.Contains(s, "exit 0")
	})
	before := rowNumbers(small)
	if !consecutiveTo(before, 200) || len(before) > 22 {
		t.Fatalf("rows before zoom %v:\n%s", before, small)
	}
	tm.keys("C-f")
	zoomed := tm.waitUntil("the zoomed pane with its history", func(s string) bool {
		ns := rowNumbers(s)
		return len(ns) > len(before)+10 && consecutiveTo(ns, 200)
	})
	ns := rowNumbers(zoomed)
	// The zoomed pane is 48 rows less its border, the status and editor rows: every interior
	// row but the cursor's (the blank one after row200) shows a line.
	if len(ns) < 38 {
		t.Fatalf("zoomed pane shows %d rows of history %v:\n%s", len(ns), ns, zoomed)
	}
	tm.keys("Escape")
	back := tm.waitUntil("the pane back at its size", func(s string) bool {
		n := rowNumbers(s)
		return len(n) == len(before) && consecutiveTo(n, 200)
	})
	if got := rowNumbers(back); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after unzoom rows %v, before zoom %v", got, before)
	}
	quit(t, e, tm, 0)
}

// zoomedTitle returns the title of the pane that fills the window's top row when one is zoomed
// ("" when the top row is not a full-width pane border).
func zoomedTitle(screen string) string {
	top := strings.SplitN(screen, "\n", 2)[0]
	if !strings.HasPrefix(top, "╭─ ") || !strings.HasSuffix(strings.TrimRight(top, " "), "╮") {
		return ""
	}
	return top
}

// TestTUIPaneJumpAndPrefixKeys: with two panes (a finished seq, a running cat), alt+1 and alt+0
// select pane 1 and back; ctrl+g types into cat, where ctrl+b ctrl+b sends ctrl+b (the tty
// echoes ^B), ctrl+b z zooms the pane without leaving it, ctrl+b [ opens copy mode and q goes
// back to typing, ctrl+b p moves to the finished pane
// (which ends typing), and alt+2 selects cat again.
func TestTUIPaneJumpAndPrefixKeys(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(panesConfig)
	tm := startScriptSized(t, e, 100, 40, "--prompt", "termnoperm seq -f a%03g 1 50", "--prompt", "termnoperm cat")
	tm.waitUntil("both panes", func(s string) bool {
		return strings.Contains(s, "1 $ seq -f a%03g 1 50") && strings.Contains(s, "2 $ cat")
	})
	zoomOn := func(what, want string) {
		t.Helper()
		tm.keys("C-f")
		tm.waitUntil(what, func(s string) bool { return strings.HasPrefix(zoomedTitle(s), "╭─ "+want) })
		tm.keys("Escape")
		tm.waitUntil("the zoom to end", func(s string) bool { return zoomedTitle(s) == "" })
	}
	tm.keys("M-1")
	zoomOn("pane 1 selected by alt+1", "1 $ seq")
	tm.keys("M-0")
	zoomOn("pane 2 selected by alt+0", "2 $ cat")

	tm.keys("C-g")
	tm.waitFor("typing into cat")
	tm.typeText("hi")
	tm.keys("Enter")
	tm.waitUntil("cat's echo", func(s string) bool { return strings.Count(s, "│hi ") == 2 })
	tm.keys("C-b")
	tm.waitFor("ctrl+b: z zoom")
	tm.keys("C-b")
	tm.waitFor("│hi") // still typing
	tm.waitUntil("the tty's echo of ctrl+b", func(s string) bool { return strings.Contains(s, "│^B") })
	tm.keys("C-b", "z")
	zoomed := tm.waitUntil("the typed-into pane zoomed", func(s string) bool {
		return strings.HasPrefix(zoomedTitle(s), "╭─ 2 [typing · ctrl+] leaves] $ cat")
	})
	if !strings.Contains(zoomed, "typing into cat") {
		t.Fatalf("zooming left the pane:\n%s", zoomed)
	}
	tm.keys("C-b", "[") // copy mode, then back to typing
	tm.waitFor("2 $ cat · copy mode · line")
	tm.typeText("q")
	tm.waitUntil("typing into cat again", func(s string) bool {
		return strings.HasPrefix(zoomedTitle(s), "╭─ 2 [typing · ctrl+] leaves] $ cat")
	})
	tm.keys("C-b", "p") // the finished pane: typing ends, the zoom shows it
	tm.waitUntil("pane 1 zoomed", func(s string) bool { return strings.HasPrefix(zoomedTitle(s), "╭─ 1 $ seq") })
	tm.keys("M-2")
	tm.waitUntil("pane 2 zoomed", func(s string) bool { return strings.HasPrefix(zoomedTitle(s), "╭─ 2 $ cat") })
	if s := tm.capture(); strings.Contains(s, "typing into") {
		t.Fatalf("alt+2 outside typing mode started typing:\n%s", s)
	}
	quit(t, e, tm, 0)
}

// TestTUICopyModeSearchAndOSC52: alt+v puts the pane in copy mode; / searches up through the
// 200 lines of history ("12" matches row012, row112 and row120…row129), n moves to older matches, N to
// newer ones and wraps; 0, v, $ and j select two lines, and y copies them with OSC 52, which tmux
// (set-clipboard on) takes into its paste buffer.
func TestTUICopyModeSearchAndOSC52(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(panesConfig)
	agent := scriptAgent(t)
	tm := startTmux(t, e, 100, 48)
	tm.Must("set-option", "-s", "set-clipboard", "on")
	tm.shell("stty -g > " + shellQuote(e.home+"/stty.before"))
	tm.acpterm("--cwd", e.project, "--prompt", "termnoperm seq -f row%03g 1 200", "--", agent)
	tm.waitUntil("the pane's last row", func(s string) bool {
		return strings.Contains(s, "│row200") && strings.Contains(s, "exit 0")
	})
	tm.keys("M-v")
	tm.waitFor("copy mode · line")
	tm.typeText("/12")
	tm.waitFor("search up: 12█")
	tm.keys("Enter")
	match := func(want, row string) {
		t.Helper()
		s := tm.waitUntil("match "+want, func(s string) bool { return strings.Contains(s, "match "+want+" · q quits") })
		if !strings.Contains(s, "│"+row) {
			t.Fatalf("match %s: %s not shown:\n%s", want, row, s)
		}
	}
	match("12/12", "row129")
	tm.typeText("n")
	match("11/12", "row128")
	tm.typeText("N")
	match("12/12", "row129")
	tm.typeText("N")
	match("1/12", "row012")
	tm.waitFor("search wrapped to the top")
	tm.typeText("0v$jy")
	tm.waitFor("copied 2 lines (13 bytes) to the clipboard")
	if s := tm.capture(); strings.Contains(s, "copy mode · line") {
		t.Fatalf("still in copy mode after y:\n%s", s)
	}
	var buf string
	deadline := time.Now().Add(waitTimeout)
	for {
		out, err := tm.Cmd("show-buffer").Output()
		buf = string(out)
		if err == nil && buf == "row012\nrow013" || time.Now().After(deadline) {
			break
		}
		time.Sleep(tmuxtest.PollInterval)
	}
	if buf != "row012\nrow013" {
		t.Fatalf("tmux paste buffer %q, want the two selected lines", buf)
	}
	quit(t, e, tm, 0)
}

// TestTUIMouseConfig: by default acpterm asks the terminal for button-event mouse tracking
// with SGR coordinates (tmux's pane flags say so); with [ui] mouse = false it asks for none, so
// the terminal's own selection works with a plain drag.
func TestTUIMouseConfig(t *testing.T) {
	for _, c := range []struct {
		name, config, want string
	}{
		{"default", panesConfig, "button=1 sgr=1"},
		{"off", panesConfig + "[ui]\nmouse = false\n", "button=0 sgr=0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.writeConfig(c.config)
			tm := startScriptSized(t, e, 100, 30)
			if got := tm.format("button=#{mouse_button_flag} sgr=#{mouse_sgr_flag}"); got != c.want {
				t.Fatalf("tmux pane mouse flags %q, want %q", got, c.want)
			}
			quit(t, e, tm, 0)
		})
	}
}
