package ui

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/terminals"
)

// floodText is realistic log output: plain, SGR-coloured, tabbed and long wrapping lines.
func floodText(lines int) []byte {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "plain line %d lorem ipsum dolor sit amet consectetur\r\n", i)
		case 1:
			fmt.Fprintf(&b, "\x1b[1;32mbold green %d\x1b[0m \x1b[38;5;208midx208\x1b[0m \x1b[38;2;255;0;128mtruecolor\x1b[0m\r\n", i)
		case 2:
			fmt.Fprintf(&b, "\x1b[44m\tbg blue\ttabbed %d\x1b[0m\r\n", i)
		default:
			fmt.Fprintf(&b, "%s\r\n", strings.Repeat(fmt.Sprintf("wrap-%d ", i), 14))
		}
	}
	return []byte(b.String())
}

// BenchmarkFrame measures one whole frame on the production path: conversation, four full
// panes, editor and status bar drawn on the canvas, then copied into the screen's cell buffer and
// diffed against the terminal (ui/screen.go), in a 202x54 window. The content does not change
// between frames, so the differ writes nothing: this is the cost of a frame minus its bytes.
func BenchmarkFrame(b *testing.B) { benchFrame(b, false) }

// BenchmarkFramePaint is BenchmarkFrame with the whole screen repainted every frame (the
// differ's worst case: every cell written, as after a resize).
func BenchmarkFramePaint(b *testing.B) { benchFrame(b, true) }

func benchFrame(b *testing.B, repaint bool) {
	h := newHarness(&testing.T{}, nil)
	h.send(tea.WindowSizeMsg{Width: 202, Height: 54})
	h.ev(acpclient.TurnStarted{Prompt: "run the tests"})
	h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("I will run **four** commands:\n\n- one\n- two\n")})
	data := floodText(400)
	var screens []*terminals.Screen
	for i := 0; i < 4; i++ {
		scr := terminals.NewScreen(terminals.Size{Cols: 80, Rows: 24})
		screens = append(screens, scr)
		h.terms[fmt.Sprint("t", i)] = &fakeTerm{scr: scr}
		h.ev(acpclient.TerminalStarted{ID: fmt.Sprint("t", i), ToolCallID: fmt.Sprint("c", i), Label: "flood"})
	}
	h.screenText()
	for _, s := range screens {
		s.Write(data)
	}
	out := &countWriter{}
	h.m.scr = newScreen(strings.NewReader(""), out, []string{"TERM=xterm-256color"})
	h.m.scr.setProfile(colorprofile.TrueColor)
	h.m.scr.setSize(202, 54)
	if err := h.m.scr.start(); err != nil {
		b.Fatal(err)
	}
	h.m.needFrame = true
	h.m.redraw()
	h.m.present()
	out.n = 0
	b.ReportAllocs()
	c0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if repaint {
			h.m.scr.r.Erase()
		}
		h.m.needFrame = true
		h.m.redraw()
		h.m.present()
	}
	b.StopTimer()
	// The machine is shared: wall time mostly measures waiting for a CPU, so report CPU too.
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(out.n)/float64(b.N), "tty-B/op")
	for _, s := range screens {
		_ = s.Close()
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// cpuTime is the process's user+system CPU time in ns (getrusage).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
