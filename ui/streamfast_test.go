package ui

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
)

// streamConstructDocs are replies built from what the incremental rendering relies on: blocks
// of every kind following each other (so that separators are looked up by the kinds of the
// blocks around them), list items and headings whose markers arrive in pieces, code fences
// with and without a language, tables, nested and ordered lists past nine, links and emphasis
// spanning chunks, wide (CJK) text, definitions and setext headings.
var streamConstructDocs = []string{
	"## Step 1\n\nThe change in **step 1** touches `ui/diff.go`.\n\n- first\n- second *emphasis*\n\n```go\nfunc f(x int) int {\n\treturn x\n}\n```\n\n1. run `go test`\n2. read\n\n## Step 2\n\nThe change in **step 2** touches `ui/diff.go`.\n\n- first\n- second *emphasis*\n\n```go\nfunc g() {}\n```\n\n1. run\n2. read\n\n# H1\n\n###### H6\n\n####### seven\n\n#hashtag\n",
	"8. eight\n9. nine\n10. ten\n11. eleven\n\n- a\n  - nested a\n    - deeper\n  - nested b\n- b\n\n+ plus\n+ list\n\n* star\n\n12) paren\n13) list\n\n1.5 is not a list\n\n-not a list\n\nTerm\n: definition\n\nHeading\n-------\n\ntext\n\n***\n\nafter rule\n",
	"| a | b |\n|---|---|\n| 1 | 2 |\n\nText [a link](http://example.com/x) and **bold across words** and *it*.\n\n```\nno language\n```\n\n~~~python\nprint('tilde')\n~~~\n\n漢字のテキストとかなが混ざった段落です。幅の広い文字。\n\n- 項目一\n- 項目二\n\n> quoted\n> lines\n\n<http://auto.link> and www.example.org\n\n    indented code\n\nend\n",
}

// TestMDStreamConstructsEqualWholeRender streams each document byte by byte (every prefix)
// at a narrow and a wide width: every rendering equals glamour's rendering of that prefix
// whole, and separators between blocks were kept for reuse (the documents repeat kinds of
// blocks).
func TestMDStreamConstructsEqualWholeRender(t *testing.T) {
	md := newMarkdown(true, false)
	for di, doc := range streamConstructDocs {
		for _, width := range []int{44, 120} {
			var s mdStream
			step := 1
			if testing.Short() {
				step = 7
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
			if len(s.seps) == 0 {
				t.Errorf("doc %d width %d: no separator was kept for reuse", di, width)
			}
		}
	}
	awaitRegexpClock(t)
}

// TestMDStreamRandomChunks streams the mixed documents in chunks of random sizes (seeded, so a
// failure repeats), each rendering compared with the whole rendering of its prefix.
func TestMDStreamRandomChunks(t *testing.T) {
	md := newMarkdown(true, false)
	docs := append(append([]string{}, streamConstructDocs...), streamDocs...)
	docs = append(docs, streamDoc(1500))
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	for seed := int64(1); seed <= int64(rounds); seed++ {
		rng := rand.New(rand.NewSource(seed))
		for di, doc := range docs {
			width := []int{30, 60, 100, 200}[rng.Intn(4)]
			var s mdStream
			for i := 0; i < len(doc); {
				i = min(i+1+rng.Intn(40), len(doc))
				p := doc[:i]
				if strings.TrimSpace(p) == "" {
					continue
				}
				got := strings.Join(s.render(md, p, width), "\n")
				if want := md.render(sanitize(p), width); got != want {
					t.Fatalf("seed %d doc %d width %d, after %q:\n%s\n---- whole render:\n%s", seed, di, width, p, got, want)
				}
			}
		}
	}
	awaitRegexpClock(t)
}

// FuzzMDStreamChunks checks chunkings of a fuzzed document: the rendering after the last chunk
// equals the whole rendering (go test -fuzz=FuzzMDStreamChunks ./ui/ explores; the seeds run
// in every go test).
func FuzzMDStreamChunks(f *testing.F) {
	for _, d := range streamConstructDocs {
		f.Add(d, uint64(0x9e3779b97f4a7c15))
	}
	f.Add("- a\n\n- b\n\ntext\n\n## h\n", uint64(3))
	md := newMarkdown(true, false)
	f.Cleanup(func() { awaitRegexpClock(f) })
	f.Fuzz(func(t *testing.T, doc string, cuts uint64) {
		if len(doc) > 2000 {
			return
		}
		var s mdStream
		for i := 0; i < len(doc); {
			i = min(i+1+int(cuts%23), len(doc))
			cuts = cuts>>5 | cuts<<59
			p := doc[:i]
			if strings.TrimSpace(p) == "" {
				continue
			}
			got := strings.Join(s.render(md, p, 50), "\n")
			if i == len(doc) && !strings.Contains(p, "[") && !strings.Contains(p, "<") {
				// (A link reference defined further down, and HTML spanning blank lines, are
				// what the block cut cannot see; the finished message is rendered whole.)
				if want := md.render(sanitize(p), 50); got != want {
					t.Fatalf("after %q:\n%s\n---- whole render:\n%s", p, got, want)
				}
			}
		}
	})
}

// TestBlockKind names the kinds of block a line starts, and refuses while what has arrived does
// not settle it.
func TestBlockKind(t *testing.T) {
	for _, c := range []struct {
		line     string
		complete bool
		kind     string
		ok       bool
	}{
		{"The change", false, "p", true},
		{"## Step", false, "##", true},
		{"##", false, "", false},
		{"##", true, "##", true},
		{"#hashtag", false, "p", true},
		{"####### seven", true, "p", true},
		{"- item", false, "item -", true},
		{"-", false, "", false},   // may become "---" or "- item"
		{"- ", false, "", false},  // may become "- - -"
		{"1", false, "", false},   // may become "1. item"
		{"12.", false, "", false}, // may become "12. item"
		{"1. run", false, "item 1.", true},
		{"12) x", false, "item 12)", true},
		{"1.5 is", false, "p", true},
		{"```go", false, "", false}, // the info string may go on
		{"```go", true, "fence ```go", true},
		{"``", false, "", false},
		{"> quote", false, ">", true},
		{"    code", true, "indent", true},
		{"| a | b |", true, "", false},
		{"---", true, "", false},
		{"<div>", true, "", false},
		{"[ref]: http://x", true, "", false},
		{": definition", true, "", false},
		{"漢字", false, "p", true},
	} {
		kind, ok := blockKind(c.line, c.complete)
		if kind != c.kind && c.ok || ok != c.ok {
			t.Errorf("blockKind(%q, %t) = %q, %t; want %q, %t", c.line, c.complete, kind, ok, c.kind, c.ok)
		}
	}
}

// TestStreamingPacedByGlamourOutput streams a reply in 20-byte chunks at 202 columns, with a
// frame after every chunk: glamour's output over the turn stays within the budget (the
// allowance per frame plus streamPerByte per byte, plus the one frame's rendering the budget
// may owe at the end), some frames but not all show an earlier rendering, and a frame
// that sees no new text shows everything.
func TestStreamingPacedByGlamourOutput(t *testing.T) {
	doc := streamDoc(3000)
	h := newHarness(t, nil)
	const width = 200
	frame := func() []string { return h.m.conv.render(&h.m.state, nil, width, nil) }
	h.ev(acpclient.TurnStarted{Prompt: "explain"})
	frame()
	chunks := splitChunks(doc, len(doc)/20)
	most := 0 // the most glamour wrote for one frame (the debt a budget can end with)
	for _, c := range chunks {
		h.ev(agentChunk(c))
		before := h.m.md.written
		frame()
		most = max(most, h.m.md.written-before)
	}
	if limit := len(chunks)*streamAllowance + streamPerByte*len(doc) + most; h.m.md.written > limit {
		t.Fatalf("glamour wrote %d bytes for %d chunks, over the budget %d", h.m.md.written, len(chunks), limit)
	}
	if h.m.conv.paced == 0 || h.m.conv.paced == len(chunks) {
		t.Fatalf("%d of %d frames paced", h.m.conv.paced, len(chunks))
	}
	t.Logf("%d of %d frames showed an earlier rendering; glamour wrote %d bytes", h.m.conv.paced, len(chunks), h.m.md.written)
	whole := newConversation(h.m.st, newMarkdown(h.m.dark, h.m.noColor))
	want := strings.Join(whole.renderMessage(h.m.state.Messages[1], width), "\n")
	got := frame()
	if g := strings.Join(got[max(len(got)-strings.Count(want, "\n")-1, 0):], "\n"); g != want {
		t.Fatalf("after the stream paused, the reply differs from a whole render:\n%s\n----\n%s", lastOf(g), lastOf(want))
	}
	awaitRegexpClock(t)
}
