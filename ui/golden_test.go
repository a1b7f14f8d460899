package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
)

// updateGolden rewrites the golden screens (go test ./ui -run TestGoldenScreens -update).
var updateGolden = flag.Bool("update", false, "rewrite the golden screens in testdata/golden")

// goldenReply is a finished agent reply with the Markdown a reply usually has.
const goldenReply = "## Plan\n\nI read `main.go` and found **two** problems:\n\n" +
	"1. the loop never ends when the input is empty;\n2. errors from `os.Open` are dropped.\n\n" +
	"```go\nfor scanner.Scan() {\n\tlines = append(lines, scanner.Text())\n}\n```\n\n" +
	"Shall I fix both?\n"

// goldenStates builds each main state of the TUI through the real Model, fed the events the
// client would deliver, and keys as the user types them.
var goldenStates = []struct {
	name  string
	build func(h *harness)
}{
	{"idle", func(h *harness) {
		h.ev(acpclient.TurnStarted{Prompt: "why does the tool hang on empty input?"})
		h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(goldenReply)})
		h.ev(acpclient.TurnEnded{StopReason: string(acp.StopReasonEndTurn)})
	}},
	{"streaming", func(h *harness) {
		h.ev(acpclient.TurnStarted{Prompt: "why does the tool hang on empty input?"})
		for _, chunk := range splitChunks(goldenReply[:len(goldenReply)*2/3], 12) {
			h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText(chunk)})
			h.send(redrawMsg{})
		}
	}},
	{"approval", func(h *harness) {
		h.ev(acpclient.TurnStarted{Prompt: "clean the build directory"})
		h.ev(acpclient.SessionUpdated{Update: acp.UpdateAgentMessageText("I will delete `./build`.")})
		h.ev(ask("build"))
	}},
	{"zoomed", func(h *harness) {
		h.ev(acpclient.TurnStarted{Prompt: "run the tests"})
		ft := startPane(h, "t1")
		var b strings.Builder
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(&b, "=== RUN   TestCase%02d\r\n--- PASS: TestCase%02d (0.00s)\r\n", i, i)
		}
		b.WriteString("PASS\r\nok  \texample.com/tool\t0.012s\r\n")
		ft.scr.Write([]byte(b.String()))
		h.key("ctrl+f")
	}},
}

// TestGoldenScreens renders the main states at 80×24 and 200×50 and compares each frame, as
// text, with testdata/golden/STATE-WxH.txt (rewritten with -update).
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, st := range goldenStates {
			name := fmt.Sprintf("%s-%dx%d", st.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, nil)
				h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				h.ev(acpclient.SessionStarted{Info: acpclient.Info{SessionID: "sess-7", AgentName: "fake-agent", AgentVersion: "1.2.3"}})
				st.build(h)
				got := strings.Join(rowsOf(h.screenText()), "\n") + "\n"
				if n := strings.Count(got, "\n"); n != size[1] {
					t.Fatalf("the frame has %d rows, want %d:\n%s", n, size[1], got)
				}
				file := filepath.Join("testdata", "golden", name+".txt")
				if *updateGolden {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Fatalf("%s differs from %s (run with -update after checking the change):\n%s", name, file, sideBySideText(string(want), got))
				}
			})
		}
	}
	awaitRegexpClock(t) // chroma highlighted the Go code block
}

// sideBySideText shows want and got row by row, marking the rows that differ.
func sideBySideText(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var x, y string
		if i < len(w) {
			x = w[i]
		}
		if i < len(g) {
			y = g[i]
		}
		if x != y {
			fmt.Fprintf(&b, "row %2d want %q\n       got  %q\n", i, x, y)
		}
	}
	return b.String()
}
