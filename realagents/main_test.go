// Package realagents runs the real, published ACP agents (claude-agent-acp
// 0.17.1 and 0.23.1, codex-acp 0.16.0, the example agents of the TypeScript and
// Go SDKs) against in-process mocks of the Anthropic Messages API and the
// OpenAI Responses API, first with a minimal ACP client (smoke tests that
// validate the mocks), then through the acpterm binary, headless and in tmux.
// It contains only tests; see docs/real-agents.md.
package realagents

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	teardown()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
