package acpclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// askedCommand waits for acpterm's own question about a terminal/create and checks it names
// title.
func askedCommand(t *testing.T, h *harness, from *int, title string) PermissionAsked {
	t.Helper()
	ask := h.waitFor(from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "command" || ask.Policy == nil || ask.Policy.Verdict != "ask" || ask.ToolCall.Title == nil || *ask.ToolCall.Title != title {
		t.Fatalf("asked = %+v policy %+v, want a command question about %q", ask, ask.Policy, title)
	}
	return ask
}

// approveAgentOnce answers the agent's own question about its tool call with its allow_once
// option.
func approveAgentOnce(t *testing.T, h *harness, from *int) {
	t.Helper()
	ask := h.waitFor(from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "agent" || ask.Policy == nil || ask.Policy.Verdict != "ask" {
		t.Fatalf("asked = %+v", ask)
	}
	h.c.Answer(ask.ID, Answer{OptionID: "allow"})
}

// "Allow once" on the agent's tool call covers exactly one terminal/create of that command: the
// second one is asked about again.
func TestAllowOnceCoversOneCreate(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("permcreate twice touch x1")
	from := 0
	approveAgentOnce(t, h, &from)
	ask := askedCommand(t, h, &from, "touch x1")
	if ask.Policy.Rule != "unmatched" {
		t.Errorf("second create asked with rule %q, want unmatched", ask.Policy.Rule)
	}
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	got := h.lastAgentText()
	want := `first term-1 exit=0 output=""; second create error code=-32603 message=acpterm user denied command "touch x1"`
	if !strings.HasPrefix(got, want) {
		t.Errorf("agent saw\n%q\nwant prefix\n%q", got, want)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
	if n := countEvents[TerminalStarted](h.snapshot()); n != 1 {
		t.Errorf("%d terminals started, want 1", n)
	}
}

// An approval does not cover an environment variable the approved request did not show: FOO
// (not on the env allow list) is asked about, as without the approval.
func TestAllowOnceDoesNotCoverAddedEnv(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("permcreate env touch x1")
	from := 0
	approveAgentOnce(t, h, &from)
	ask := askedCommand(t, h, &from, "touch x1")
	if ask.Policy.Rule != "env: not allowed" || strings.Join(ask.Policy.EnvAdded, ",") != "FOO" {
		t.Errorf("asked with rule %q env %v, want the env rule naming FOO", ask.Policy.Rule, ask.Policy.EnvAdded)
	}
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	want := `create error code=-32603 message=acpterm user denied command "touch x1": the agent sets FOO, which is not on the env allow list ([policy.env] allow) (rule: env: not allowed; command: touch x1)`
	if got := h.lastAgentText(); got != want {
		t.Errorf("agent saw\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x1")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
}

// An approval does not cover another working directory than the approved request showed (none:
// the session cwd): the policy decides it as usual — ask here (inside the roots).
func TestAllowOnceDoesNotCoverOtherCwd(t *testing.T) {
	h := start(t, setup{})
	sub := filepath.Join(h.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	realSub, err := filepath.EvalSymlinks(sub)
	if err != nil {
		t.Fatal(err)
	}
	h.c.Prompt("permcreate cwd=" + sub + " touch x1")
	from := 0
	approveAgentOnce(t, h, &from)
	ask := askedCommand(t, h, &from, "touch x1")
	if ask.Policy.Cwd != realSub {
		t.Errorf("asked with cwd %q, want %q", ask.Policy.Cwd, realSub)
	}
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.HasPrefix(got, `create error code=-32603 message=acpterm user denied command "touch x1"`) {
		t.Errorf("agent saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(sub, "x1")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
}

// The same command in the approved cwd, named explicitly, is covered (CLAUDECODE=1, on the env
// allow list, is covered too: TestLegacyTerminalApprovedOnceCoversCreate).
func TestAllowOnceCoversSameCwd(t *testing.T) {
	h := start(t, setup{})
	h.c.Prompt("permcreate cwd=" + h.dir + " touch x1")
	from := 0
	approveAgentOnce(t, h, &from)
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); got != `term-1 exit=0 output=""` {
		t.Errorf("agent saw %q", got)
	}
	if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
		t.Errorf("asked %d times, want 1", n)
	}
}
