package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/permissions"
)

func TestGrantsViewRevokes(t *testing.T) {
	h := newHarness(t, nil)
	h.grants.list = []permissions.Grant{{ID: "g-1", Argv: []string{"go", "test"}, Prefix: true}, {ID: "g-2", Argv: []string{"make"}, Saved: true}}
	h.key("alt+g")
	scr := h.screenText()
	if !strings.Contains(scr, "› g-1  session  grant: go test …") || !strings.Contains(scr, "  g-2  saved    grant: make") {
		t.Fatalf("grants view:\n%s", scr)
	}
	h.key("down")
	h.key("d")
	if len(h.grants.list) != 1 || h.grants.list[0].ID != "g-1" {
		t.Fatalf("grants after revoke = %+v", h.grants.list)
	}
	h.key("esc")
	if h.m.findOverlay("grants") != nil {
		t.Fatal("grants view still open")
	}
}
