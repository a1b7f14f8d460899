package ui

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// awaitRegexpClock waits until the clock goroutine of regexp2 (started by chroma's highlighting
// of code blocks, with a 250 ms match timeout) has ended, about 1.4 s after the last code block
// was highlighted, so goleak's check at the end of the package does not see it.
func awaitRegexpClock(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if !bytes.Contains(buf[:n], []byte("regexp2.runClock")) {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("regexp2's clock goroutine still runs after 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamDocs are agent replies with every kind of top-level block, including ones that span
// blank lines (fenced code, loose and nested lists, indented code, quotes with lists).
var streamDocs = []string{
	"# Title\n\nSome para\nwith two lines.\n\n> quote\n> more\n\nAfter quote.\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nText after table.\n\n### H3\n\n1. one\n2. two\n\n   indented para in item\n\n3. three\n\nend [link](http://x.y) and <http://auto.link>.\n",
	"* a\n* b\n\n* c loose\n\nPara\n\n```\nplain\n\ncode\n```\n\n    indented code\n\n    more\n\nlast\n",
	"Setext\n======\n\n- a\n  - nested\n\n    ```sh\n    make\n\n    test\n    ```\n- b\n\n> - q1\n>\n> - q2\n\n1) x\n2) y\n\nmid\n\n3) z\n\n- - -\n\n***bold italic***\n\n~~~\ntilde\n\n~~~\n\nTail para with trailing spaces  \nand a hard break.\n\n\n\n  leading-space para\n\n\tTab code\n\nfinal \x1b[31mred\x1b[0m\r\n",
}

func TestMDStreamEqualsWholeRender(t *testing.T) {
	md := newMarkdown(true, false)
	for di, doc := range append(streamDocs, streamDoc(1000)) {
		for _, width := range []int{60} {
			var s mdStream
			step := max(len(doc)/20, 1)
			if testing.Short() == false && di < len(streamDocs) {
				step = 1
			}
			for i := step; ; i += step {
				i = min(i, len(doc))
				p := doc[:i]
				if strings.TrimSpace(p) != "" {
					got := strings.Join(s.render(md, p, width), "\n")
					if want := md.render(sanitize(p), width); got != want {
						t.Fatalf("doc %d width %d, after %q:\n%s\n---- whole render:\n%s", di, width, p, got, want)
					}
				}
				if i == len(doc) {
					break
				}
			}
			if s.whole {
				t.Errorf("doc %d width %d: fell back to whole renders", di, width)
			}
			// A resize starts over at the new width.
			if got, want := strings.Join(s.render(md, doc, 41), "\n"), md.render(sanitize(doc), 41); got != want {
				t.Fatalf("doc %d after a resize to 41:\n%s\n---- whole render:\n%s", di, got, want)
			}
		}
	}
	awaitRegexpClock(t)
}

// TestStreamingRendersOnlyTheTail streams a reply through the Model with a frame after every
// chunk, as the program does when chunks come slower than frames: the Markdown given to glamour
// must grow with the reply, not with the reply times the chunks (before: every frame rendered
// the whole reply again). The finished reply is rendered whole, as before.
func TestStreamingRendersOnlyTheTail(t *testing.T) {
	doc := streamDoc(4000)
	h := newHarness(t, nil)
	h.ev(acpclient.TurnStarted{Prompt: "explain"})
	h.screenText()
	chunks := splitChunks(doc, 100)
	for _, c := range chunks {
		h.ev(agentChunk(c))
		h.screenText()
	}
	// A frame without new text shows the latest text, whatever the pacing skipped.
	width := h.m.lay.conv.Dx()
	live := append([]string(nil), h.m.conv.render(&h.m.state, nil, width, nil)...)
	streamed := h.m.md.rendered
	t.Logf("glamour got %d bytes while streaming %d bytes in 100 chunks", streamed, len(doc))
	// Each frame renders the last finished block and the growing one (each under 200 bytes
	// here), each finished block is rendered twice more (alone, and after the one before it);
	// a whole render per frame would be about 100 × 2 KB = 200 KB.
	if streamed > 3*len(doc)+100*400 {
		t.Fatalf("glamour got %d bytes while streaming %d bytes in 100 chunks", streamed, len(doc))
	}
	h.ev(acpclient.TurnEnded{StopReason: string(acp.StopReasonEndTurn)})
	h.screenText()
	if got := h.m.md.rendered - streamed; got != len(doc) {
		t.Fatalf("finished reply: glamour got %d bytes, want the whole %d once", got, len(doc))
	}
	if len(h.m.conv.streams) != 0 {
		t.Fatalf("%d streams kept after the turn", len(h.m.conv.streams))
	}
	final := h.m.conv.render(&h.m.state, nil, width, nil)
	c := newConversation(h.m.st, newMarkdown(h.m.dark, h.m.noColor))
	want := c.renderMessage(h.m.state.Messages[1], width)
	got := final[len(final)-len(want):]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatal("finished reply differs from a whole render")
	}
	// And what was shown while streaming was already the same.
	if strings.Join(live[len(live)-len(want):], "\n") != strings.Join(want, "\n") {
		t.Fatal("streamed rendering differs from the whole render")
	}
	awaitRegexpClock(t)
}

// TestStreamingLongParagraphIsPaced streams one paragraph of 400 lines ("1\n" … "400\n", as a
// flood of one-line chunks arrives), which glamour must wrap whole, with a frame after every
// chunk: frames render only what their budget affords (the allowance per frame, lowered to 64
// bytes here, plus streamPerByte per new byte) and show the last rendering otherwise; a frame
// without new text shows the latest text, and the finished message is rendered whole as before.
// Before, every frame rendered the whole paragraph: about 400 × 0.75 KB = 300 KB for glamour.
func TestStreamingLongParagraphIsPaced(t *testing.T) {
	h := newHarness(t, nil)
	h.m.conv.allowance = 64
	const width = 60
	frame := func() []string { return h.m.conv.render(&h.m.state, nil, width, nil) }
	h.ev(acpclient.TurnStarted{Prompt: "flood"})
	frame()
	var doc strings.Builder
	for i := 1; i <= 400; i++ {
		c := fmt.Sprintf("%d\n", i)
		doc.WriteString(c)
		h.ev(agentChunk(c))
		frame()
	}
	streamed := h.m.md.rendered
	if limit := 400*64 + streamPerByte*doc.Len() + doc.Len(); streamed > limit {
		t.Fatalf("glamour got %d bytes for %d bytes in 400 chunks, over the budget %d", streamed, doc.Len(), limit)
	}
	whole := newConversation(h.m.st, newMarkdown(h.m.dark, h.m.noColor))
	want := whole.renderMessage(h.m.state.Messages[1], width)
	tail := func(lines []string) string { return strings.Join(lines[max(len(lines)-len(want), 0):], "\n") }
	if got := tail(h.m.conv.cache[1].lines); got == strings.Join(want, "\n") {
		t.Fatal("the last chunk's frame rendered everything: no pacing")
	}
	// The next frame sees no new text: it shows all of it.
	if got := tail(frame()); got != strings.Join(want, "\n") {
		t.Fatalf("after the stream paused, the paragraph ends %q, want %q", lastOf(got), lastOf(strings.Join(want, "\n")))
	}
	h.ev(acpclient.TurnEnded{StopReason: string(acp.StopReasonEndTurn)})
	if got := tail(frame()); got != strings.Join(want, "\n") {
		t.Fatal("finished paragraph differs from a whole render")
	}
	if got := strings.TrimRight(ansi.Strip(want[len(want)-1]), " "); !strings.HasSuffix(got, "399 400") {
		t.Fatalf("whole render ends %q", got)
	}
}

func lastOf(s string) string { return s[max(len(s)-60, 0):] }
