package e2e

import (
	"strings"
	"testing"
)

// What an agent reports in session_info_update's _meta (codex-acp's retry errors, a notice)
// shows as a notice: in headless as "[notice] LEVEL: …" lines, in the TUI on screen.
func TestHeadlessAgentReportedErrors(t *testing.T) {
	e := newEnv(t)
	r := e.run("--headless", "--cwd", e.project, "--prompt", "agenterr", "--", scriptAgent(t))
	want := "[prompt] agenterr\n" +
		"[notice] warning: agent: Reconnecting... 2/5\n" +
		"[notice] warning: agent: Auto mode unavailable: Using Accept edits instead.\n" +
		"recovered\n[stop] end_turn\n"
	if r.code != 0 || !strings.HasSuffix(r.stdout, want) {
		t.Fatalf("exit %d\nstdout:\n%s\nwant it to end with:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
	}
}

func TestTUIAgentReportedErrors(t *testing.T) {
	e := newEnv(t)
	tm := startScript(t, e)
	tm.typeText("agenterr")
	tm.keys("Enter")
	tm.waitFor("recovered")
	tm.waitFor("agent: Reconnecting... 2/5")
	tm.waitFor("agent: Auto mode unavailable: Using Accept edits instead.")
	quit(t, e, tm, 0)
}
