package acpclient

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/permissions"
)

// The agent's "always" for a file tool call becomes acpterm's own grant for that tool kind and
// path: the same request is then answered by the policy without a question (the agent gets its
// allow_once option), the grant is listed, and another tool kind or path is still asked.
func TestAgentAlwaysForFileIsRemembered(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer Answer
		saved  bool
	}{
		{"session", Answer{OptionID: "allow_always"}, false},
		{"saved", Answer{OptionID: "allow_always", Choice: SaveRule}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var eng *permissions.Engine
			h := start(t, setup{opts: func(o *Options) {
				if !c.saved {
					eng = o.Engine
					return
				}
				// Saving needs a grants file.
				var err error
				eng, err = permissions.NewEngine(o.Config.Permissions(nil), permissions.EngineOptions{Cwd: o.Config.Policy.Roots[0], GrantsFile: filepath.Join(t.TempDir(), "grants.json")})
				if err != nil {
					t.Fatal(err)
				}
				o.Engine = eng
			}})
			build := filepath.Join(h.cfg.Policy.Roots[0], "build")
			from := 0
			h.c.Prompt("permfile delete " + build)
			ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
			if ask.Policy == nil || ask.Policy.Verdict != permissions.Ask || ask.Policy.Rule != "fs.write" {
				t.Fatalf("first request asked with %+v", ask.Policy)
			}
			h.c.Answer(ask.ID, c.answer)
			h.waitFor(&from, "TurnEnded", isTurnEnded)
			if got := h.lastAgentText(); got != "permission selected allow_always" {
				t.Fatalf("agent saw %q", got)
			}
			gs := eng.Grants()
			if len(gs) != 1 || gs[0].Tool != "delete" || gs[0].Path != build || gs[0].Kind != "write" || gs[0].Saved != c.saved ||
				gs[0].Rule() != "grant: agent delete "+build {
				t.Fatalf("grants = %+v", gs)
			}

			if got := h.turn("permfile delete " + build); got.Err != nil {
				t.Fatal(got.Err)
			}
			if got := h.lastAgentText(); got != "permission selected allow" {
				t.Fatalf("the remembered request: agent saw %q", got)
			}
			if n := countEvents[PermissionAsked](h.snapshot()); n != 1 {
				t.Fatalf("asked %d times, want 1 (the remembered request is not asked)", n)
			}
			var res PermissionResolved
			for _, ev := range h.snapshot() {
				if r, ok := ev.(PermissionResolved); ok {
					res = r
				}
			}
			if res.By != "policy" || res.Rule != "grant: agent delete "+build {
				t.Fatalf("resolved by %q rule %q, want the policy's grant", res.By, res.Rule)
			}

			// Another tool kind on the same path, and the same kind on another path, are asked.
			for _, prompt := range []string{"permfile edit " + build, "permfile delete " + build + "2"} {
				h.c.Prompt(prompt)
				ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
				if !strings.HasSuffix(*ask.ToolCall.Title, strings.TrimPrefix(prompt, "permfile ")) {
					t.Fatalf("asked about %q", *ask.ToolCall.Title)
				}
				h.c.Answer(ask.ID, Answer{OptionID: "reject"})
				h.waitFor(&from, "TurnEnded", isTurnEnded)
			}

			// Revoked, it is asked again.
			if err := eng.Revoke(gs[0].ID); err != nil {
				t.Fatal(err)
			}
			h.c.Prompt("permfile delete " + build)
			ask = h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
			h.c.Answer(ask.ID, Answer{OptionID: "reject"})
			h.waitFor(&from, "TurnEnded", isTurnEnded)
		})
	}
}
