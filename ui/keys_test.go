package ui

import (
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

func TestEveryConfigKeyActionIsBindable(t *testing.T) {
	for _, a := range config.KeyActions() {
		t.Run(a, func(t *testing.T) {
			km := DefaultKeyMap()
			if err := km.applyKeys(map[string][]string{a: {"f5"}}); err != nil {
				t.Errorf("action %q: %v", a, err)
			}
		})
	}
	km := DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"bogus": {"f5"}}); err == nil || !strings.Contains(err.Error(), `unknown action "bogus"`) {
		t.Fatalf("unknown action error = %v", err)
	}
}

func TestKeyClashesAreErrors(t *testing.T) {
	// The config package checks clashes against its copy of the defaults: it must be this one.
	km := DefaultKeyMap()
	for name, b := range km.keyActions() {
		if name == "focus_next" {
			continue
		}
		if got, want := strings.Join(b.Keys(), " "), strings.Join(config.DefaultKeys()[name], " "); got != want {
			t.Errorf("action %s: ui binds %q, config.DefaultKeys has %q", name, got, want)
		}
	}
	if len(config.DefaultKeys()) != len(km.keyActions())-1 {
		t.Errorf("config.DefaultKeys has %d actions, ui %d", len(config.DefaultKeys()), len(km.keyActions())-1)
	}
	if a, k, o, clash := config.KeyClash(nil); clash {
		t.Fatalf("defaults clash: %s %q %s", a, k, o)
	}
	if a, k, o, clash := config.KeyClash(map[string][]string{"zoom": {"ctrl+q"}}); !clash || a != "zoom" || k != "ctrl+q" || o != "quit" {
		t.Fatalf("KeyClash(zoom=ctrl+q) = %s %q %s %v", a, k, o, clash)
	}
	if _, _, _, clash := config.KeyClash(map[string][]string{"zoom": {"ctrl+q"}, "quit": {"ctrl+w"}}); clash {
		t.Fatal("quit moved away: no clash")
	}

	km = DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"zoom": {"ctrl+q"}}); err == nil || err.Error() != `[ui] keys: "ctrl+q" is bound to both quit and zoom` {
		t.Fatalf("applyKeys(zoom=ctrl+q) = %v", err)
	}
	km = DefaultKeyMap()
	if err := km.applyKeys(map[string][]string{"zoom": {"ctrl+q"}, "quit": {"ctrl+w"}}); err != nil {
		t.Fatalf("swap: %v", err)
	}
	// The model shows the error (Run's callers get it from config.Load first, exit 2).
	h := newHarness(t, map[string][]string{"zoom": {"ctrl+q"}})
	if scr := h.screenText(); rowWith(scr, `[ui] keys: "ctrl+q" is bound to both quit and zoom`) == "" {
		t.Fatalf("no clash banner:\n%s", scr)
	}
}

// A help key that is a printable character opens the help only from an empty prompt, whatever
// the character: typed into text it is text ([ui] keys help = ["h"] here, the default "?" above).
func TestPrintableHelpKeyIsTextInsidePrompt(t *testing.T) {
	h := newHarness(t, map[string][]string{"help": {"h"}})
	h.typeText("ah")
	if got := h.m.ed.value(); got != "ah" || h.m.findOverlay("help") != nil {
		t.Fatalf("editor %q, overlays %v: want the h typed, no help", got, h.m.overlays)
	}
	h.key("ctrl+u") // editor: delete to the start of the line
	if got := h.m.ed.value(); got != "" {
		t.Fatalf("editor %q after ctrl+u", got)
	}
	h.key("h")
	if h.m.findOverlay("help") == nil {
		t.Fatalf("h on an empty prompt did not open the help; overlays %v, editor %q", h.m.overlays, h.m.ed.value())
	}
}
