package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

func agentChunk(text string) acpclient.Event {
	return acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(text)}
}

func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return out
}

func TestConversationRendersTimeline(t *testing.T) {
	var s acpclient.State
	status := acp.ToolCallStatusInProgress
	old := "a\nb\n"
	for _, ev := range []acpclient.Event{
		acpclient.TurnStarted{Prompt: "fix the \x1b]0;evil\x07bug"},
		acpclient.SessionUpdated{Update: acp.UpdateAgentThoughtText("first I look\nthen I fix")},
		agentChunk("Here is **the plan**:\n\n"),
		agentChunk("- one\n- two\n"),
		acpclient.SessionUpdated{Update: acp.StartToolCall("c1", "Edit main.go",
			acp.WithStartKind(acp.ToolKindEdit),
			acp.WithStartLocations([]acp.ToolCallLocation{{Path: "/src/main.go"}}),
			acp.WithStartContent([]acp.ToolCallContent{acp.ToolDiffContent("main.go", "a\nB\n", old)}))},
		acpclient.SessionUpdated{Update: acp.UpdateToolCall("c1", acp.WithUpdateStatus(status))},
		acpclient.SessionUpdated{Update: acp.UpdatePlan(
			acp.PlanEntry{Content: "read code", Status: acp.PlanEntryStatusCompleted},
			acp.PlanEntry{Content: "edit code", Status: acp.PlanEntryStatusInProgress},
			acp.PlanEntry{Content: "test", Status: acp.PlanEntryStatusPending})},
	} {
		s.Apply(ev)
	}
	c := newConversation(newStyles(true, false), newMarkdown(true, false))
	banners := []banner{{after: 4, level: "error", text: "boom \x1b[2J"}}
	lines := c.render(&s, banners, 60, nil)
	got := strings.Join(plainLines(lines), "\n")
	want := `› fix the bug

∴ first I look … (+1 lines)

Here is the plan:

• one
• two

✎ Edit main.go  running
  /src/main.go
  --- a/main.go
  +++ b/main.go
  @@ -1,2 +1,2 @@
   a
  -b
  +B
✗ boom

Plan
[x] read code
[~] edit code
[ ] test`
	if got != want {
		t.Fatalf("conversation:\n%s\n---- want:\n%s", got, want)
	}
	for _, l := range lines {
		if strings.Contains(l, "\x1b]") || strings.Contains(l, "\x1b[2J") || strings.Contains(l, "\x07") {
			t.Fatalf("unsafe sequence in %q", l)
		}
		if w := ansi.StringWidth(l); w > 60 {
			t.Fatalf("line wider than 60: %d %q", w, ansi.Strip(l))
		}
	}
	// Expanding thoughts shows every line dimmed.
	c.showThoughts = true
	got = strings.Join(plainLines(c.render(&s, nil, 60, nil)[:4]), "\n")
	if got != "› fix the bug\n\n∴ first I look\n∴ then I fix" {
		t.Fatalf("expanded thoughts:\n%s", got)
	}
}

func TestConversationTerminalPreviewAndStatuses(t *testing.T) {
	var s acpclient.State
	s.Apply(acpclient.SessionUpdated{Update: acp.StartToolCall("c2", "Run make", acp.WithStartKind(acp.ToolKindExecute))})
	s.Apply(acpclient.TerminalStarted{ID: "term-1", ToolCallID: "c2", Label: "make"})
	s.Apply(acpclient.SessionUpdated{Update: acp.StartToolCall("c3", "Fetch", acp.WithStartKind(acp.ToolKindFetch), acp.WithStartStatus(acp.ToolCallStatusFailed))})
	c := newConversation(newStyles(true, false), newMarkdown(true, false))
	preview := func(id string, n int) ([]string, string, bool) {
		if id != "term-1" || n != terminalPreviewMax {
			return nil, "", false
		}
		return []string{"cc -o x x.c", "done"}, "exit 0", true
	}
	got := strings.Join(plainLines(c.render(&s, nil, 50, preview)), "\n")
	want := "$ Run make  pending\n  ┌ terminal · exit 0\n  │ cc -o x x.c\n  │ done\n\n⇣ Fetch  ✗ failed"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	s.Apply(acpclient.CancelRequested{})
	got = strings.Join(plainLines(c.render(&s, nil, 50, preview)), "\n")
	if !strings.HasPrefix(got, "$ Run make  cancelled") {
		t.Fatalf("after cancel:\n%s", got)
	}
}

// An edit whose tool call shows its diff is written by fs/write_text_file: the write is one line
// pointing at the diff above, not the same diff again; a write no tool call shows keeps its diff.
func TestWriteDiffShownOnce(t *testing.T) {
	var s acpclient.State
	for _, ev := range []acpclient.Event{
		acpclient.TurnStarted{Prompt: "edit"},
		acpclient.SessionUpdated{Update: acp.StartToolCall("c1", "Edit main.go", acp.WithStartKind(acp.ToolKindEdit),
			acp.WithStartContent([]acp.ToolCallContent{acp.ToolDiffContent("/src/main.go", "a\nB\n", "a\nb\n")}))},
		acpclient.FileWritten{Diff: acpclient.FileDiff{Path: "/src/main.go", OldText: "a\nb\n", NewText: "a\nB\n", Existed: true}},
		acpclient.FileWritten{Diff: acpclient.FileDiff{Path: "/src/other.go", NewText: "x\n"}},
	} {
		s.Apply(ev)
	}
	c := newConversation(newStyles(true, false), newMarkdown(true, false))
	got := strings.Join(plainLines(c.render(&s, nil, 60, nil)), "\n")
	want := `› edit

✎ Edit main.go  pending
  --- /src/main.go
  +++ /src/main.go
  @@ -1,2 +1,2 @@
   a
  -b
  +B

✎ wrote /src/main.go (4 bytes; the diff is above)

✎ wrote /src/other.go
  --- /dev/null
  +++ /src/other.go
  @@ -0,0 +1 @@
  +x`
	if got != want {
		t.Fatalf("conversation:\n%s\n---- want:\n%s", got, want)
	}
}
