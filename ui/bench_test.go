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

// streamDoc is about size bytes of typical agent Markdown: paragraphs with inline styling,
// headings, bullet and numbered lists, fenced code blocks.
func streamDoc(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "## Step %d\n\n", i)
		case 1:
			fmt.Fprintf(&b, "The change in **step %d** touches `ui/diff.go` and keeps the rendered output the same; the tests cover the golden hunks and the large-input fallback.\n\n", i)
		case 2:
			fmt.Fprintf(&b, "- first point %d\n- second point with *emphasis*\n- third point\n\n", i)
		case 3:
			fmt.Fprintf(&b, "```go\nfunc f%d(x int) int {\n\treturn x * %d\n}\n```\n\n", i, i)
		default:
			fmt.Fprintf(&b, "1. run `go test ./ui/`\n2. read the profile %d\n\n", i)
		}
	}
	return b.String()
}

// splitChunks cuts s into n pieces of (nearly) equal byte length; their concatenation is s.
func splitChunks(s string, n int) []string {
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s[i*len(s)/n:(i+1)*len(s)/n])
	}
	return out
}

// BenchmarkStreamChunks streams one agent message in N agent_message_chunk updates through the
// Model as the program receives them (each an acpEventMsg through Update), with a frame built and
// drawn (redrawMsg: conversation, editor, status → canvas → screen buffer → differ) after every
// chunk in a 202x54 window: the most frames a turn can cost, which is what happens when chunks
// come slower than the frame rate (a model streaming tokens). One op is the whole turn:
// TurnStarted, N chunks, TurnEnded, each with its frame. Payloads: "markdown" is about 60 KB of
// mixed Markdown (streamDoc); "lines" is the tester's flood, chunks "1\n" … "N\n" (one
// paragraph of N lines, 48.9 KB for 10 000); "words" is N chunks of 20 characters forming one
// paragraph. md-bytes/op is the Markdown handed to glamour; paced-frames/op the chunk frames
// that showed an earlier rendering of the reply (renderStreaming's budget).
func BenchmarkStreamChunks(b *testing.B) {
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("word%-6d and more ", i)[:20]
		}
		return out
	}
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%d\n", i+1)
		}
		return out
	}
	for _, bc := range []struct {
		name   string
		chunks []string
	}{
		{"markdown/3000", splitChunks(streamDoc(60_000), 3000)},
		{"markdown/10000", splitChunks(streamDoc(60_000), 10000)},
		{"words/3000", words(3000)},
		{"lines/10000", lines(10000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var c0 int64
			md, paced := 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h := newHarness(&testing.T{}, nil)
				h.m.scr = newScreen(strings.NewReader(""), &countWriter{}, []string{"TERM=xterm-256color"})
				h.m.scr.setProfile(colorprofile.TrueColor)
				h.m.scr.setSize(202, 54)
				if err := h.m.scr.start(); err != nil {
					b.Fatal(err)
				}
				h.send(tea.WindowSizeMsg{Width: 202, Height: 54})
				b.StartTimer()
				if i == 0 {
					c0 = cpuTime()
				}
				h.ev(acpclient.TurnStarted{Prompt: "explain"})
				h.send(redrawMsg{})
				for _, c := range bc.chunks {
					h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(c)})
					h.send(redrawMsg{})
				}
				h.ev(acpclient.TurnEnded{StopReason: string(acp.StopReasonEndTurn)})
				h.send(redrawMsg{})
				md += h.m.md.rendered
				paced += h.m.conv.paced
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(md)/float64(b.N), "md-bytes/op")
			b.ReportMetric(float64(paced)/float64(b.N), "paced-frames/op")
		})
	}
	awaitRegexpClock(b)
}
