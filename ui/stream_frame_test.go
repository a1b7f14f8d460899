package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// streamFrames feeds one agent reply in chunks, a frame after each, through the Model, and
// returns the frame (styled, as drawn) once the stream pauses during the turn, and after the
// turn ended.
func streamFrames(t *testing.T, chunks []string, w, h int, noCache bool) (paused, ended string) {
	hh := newHarness(t, nil)
	hh.m.conv.cells.off = noCache
	hh.send(tea.WindowSizeMsg{Width: w, Height: h})
	hh.ev(acpclient.TurnStarted{Prompt: "explain"})
	hh.send(redrawMsg{})
	for _, c := range chunks {
		hh.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(c)})
		hh.send(redrawMsg{})
	}
	hh.m.needFrame = true
	hh.send(redrawMsg{}) // no new text: the latest text is rendered whatever the budget
	paused = hh.m.frame
	hh.ev(acpclient.TurnEnded{StopReason: string(acp.StopReasonEndTurn)})
	hh.send(redrawMsg{})
	return paused, hh.m.frame
}

// TestStreamedFrameEqualsWholeRender: a reply streamed in many chunks, rendered incrementally
// (finished blocks cached, only the growing tail re-rendered, cached line cells), ends on
// exactly the frame of the same reply delivered whole, byte for byte, at the benchmark's size
// and at 80 columns; and the cells copied from the line cache are those parsing draws.
func TestStreamedFrameEqualsWholeRender(t *testing.T) {
	doc := streamDoc(3_000)
	for _, size := range [][2]int{{202, 54}, {80, 24}} {
		for _, n := range []int{100, 23} {
			streamed, streamedEnd := streamFrames(t, splitChunks(doc, n), size[0], size[1], false)
			whole, wholeEnd := streamFrames(t, []string{doc}, size[0], size[1], false)
			if streamed != whole {
				t.Errorf("%dx%d, %d chunks: the paused streaming frame differs from the whole reply's:\n%s", size[0], size[1], n, sideBySideText(whole, streamed))
			}
			if streamedEnd != wholeEnd {
				t.Errorf("%dx%d, %d chunks: the final frame differs from the whole reply's:\n%s", size[0], size[1], n, sideBySideText(wholeEnd, streamedEnd))
			}
			parsed, parsedEnd := streamFrames(t, splitChunks(doc, n), size[0], size[1], true)
			if parsed != streamed || parsedEnd != streamedEnd {
				t.Errorf("%dx%d, %d chunks: frames drawn from the line cache differ from frames parsed afresh", size[0], size[1], n)
			}
		}
	}
	awaitRegexpClock(t)
}
