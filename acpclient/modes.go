package acpclient

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/coder/acp-go-sdk"
)

// Mode settings ([agent] mode, Options.Mode) with a meaning of their own; any other value is the
// id of the mode to switch to.
const (
	// ModeAsking (the default) switches, at session start, to the mode in which the agent asks
	// the client (session/request_permission) before it runs a command or edits a file.
	ModeAsking = "asking"
	// ModeAgent keeps the mode the agent chose itself.
	ModeAgent = "agent"
)

// Agent families: the agents whose modes acpterm knows (FamilyOf).
const (
	FamilyClaude   = "claude"   // claude-agent-acp (@agentclientprotocol, @zed-industries)
	FamilyCodex    = "codex"    // codex-acp
	FamilyGemini   = "gemini"   // gemini-cli (gemini --acp)
	FamilyOpencode = "opencode" // opencode (opencode acp)
	FamilyCopilot  = "copilot"  // GitHub Copilot CLI (copilot --acp)
)

// FamilyOf names the agent family from initialize's agentInfo.name, else from the command
// (its program's and arguments' base names); "" when it is none acpterm knows.
func FamilyOf(agentName string, command []string) string {
	cands := []string{strings.ToLower(agentName)}
	for _, w := range command {
		cands = append(cands, strings.ToLower(filepath.Base(w)))
	}
	for _, c := range cands {
		for _, f := range []string{FamilyOpencode, FamilyClaude, FamilyCodex, FamilyGemini, FamilyCopilot} {
			if strings.Contains(c, f) {
				return f
			}
		}
	}
	return ""
}

// Asks says whether a mode makes the agent ask the client before it acts.
type Asks int

// Asks values.
const (
	AsksUnknown Asks = iota // a mode acpterm knows nothing about
	AsksYes                 // the agent asks (or, in a planning mode, does not act)
	AsksNo                  // the agent acts on its own: nothing reaches acpterm's approval
)

// familyModes is one row of the mode table. Mode keys are compared by modeKey (lower case, the
// part after a '#', so Copilot's URI ids "https://…/session-modes#agent" are "agent").
type familyModes struct {
	prefer    []string // the asking modes to switch to, best first
	asking    []string // modes in which the agent asks before acting (or does not act)
	notAsking []string // modes in which it acts without asking
}

// modeTable is what each agent family's modes do, from the agents' own mode descriptions and
// the way they behaved against a mock model:
//   - claude-agent-acp: "default" asks for every tool that is not read-only; "plan" does not
//     act; "acceptEdits" edits unasked; "auto" lets a classifier model decide (0.101 starts
//     there); "dontAsk" and "bypassPermissions" never ask.
//   - codex-acp 2.6: "read-only" asks before editing and before leaving the sandbox;
//     "workspace-write" edits the workspace unasked; "agent" ("Auto review", the default) has a
//     guardian model approve escalations; "agent-full-access" never asks. codex-acp 0.16's
//     "read-only" likewise asks; its "auto" ("Default") runs commands and edits in the workspace
//     unasked; "full-access" never asks.
//   - gemini-cli: "default" prompts for approval; "plan" is read-only; "autoEdit" edits unasked;
//     "yolo" approves everything.
//   - opencode: its agents "build" and "plan" ask only where its permission config says "ask";
//     acpterm starts it with OPENCODE_PERMISSION making edits, commands and fetches "ask"
//     (OpencodePermission), which makes "build" an asking mode.
//   - Copilot CLI: "agent" asks, "plan" does not act, "autopilot" continues on its own.
var modeTable = map[string]familyModes{
	FamilyClaude:   {prefer: []string{"default"}, asking: []string{"default", "plan"}, notAsking: []string{"acceptedits", "auto", "dontask", "bypasspermissions"}},
	FamilyCodex:    {prefer: []string{"read-only"}, asking: []string{"read-only"}, notAsking: []string{"workspace-write", "agent", "agent-full-access", "auto", "full-access"}},
	FamilyGemini:   {prefer: []string{"default"}, asking: []string{"default", "plan"}, notAsking: []string{"autoedit", "yolo"}},
	FamilyOpencode: {prefer: []string{"build"}, asking: []string{"build", "plan"}},
	FamilyCopilot:  {prefer: []string{"agent"}, asking: []string{"agent", "plan"}, notAsking: []string{"autopilot"}},
}

// genericNotAsking are mode keys that mean "acts without asking" in any agent.
var genericNotAsking = []string{"yolo", "bypasspermissions", "full-access", "agent-full-access", "autopilot", "dontask", "acceptedits", "autoedit"}

func modeKey(id string) string {
	id = strings.ToLower(id)
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		id = id[i+1:]
	}
	return id
}

func hasKey(list []string, id string) bool {
	k := modeKey(id)
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}

// ModeAsks says whether mode id of an agent of family makes it ask before acting. asked is
// whether acpterm set the agent up to ask (false for opencode run with [agent] mode = "agent",
// whose "build" mode then asks only where the user's own opencode config says so).
func ModeAsks(family, id string, asked bool) Asks {
	if id == "" {
		return AsksUnknown
	}
	row, ok := modeTable[family]
	if family == FamilyOpencode && !asked {
		if modeKey(id) == "plan" {
			return AsksYes
		}
		return AsksUnknown
	}
	switch {
	case ok && hasKey(row.asking, id):
		return AsksYes
	case ok && hasKey(row.notAsking, id):
		return AsksNo
	case hasKey(genericNotAsking, id):
		return AsksNo
	}
	return AsksUnknown
}

// ApprovingMode returns the mode of ms to switch to so that an agent of family asks before
// acting: the table's preferred mode when the agent offers it. ok is false for a family acpterm
// does not know, or when the agent offers none of the preferred modes.
func ApprovingMode(family string, ms Modes) (id string, ok bool) {
	row, known := modeTable[family]
	if !known {
		return "", false
	}
	for _, want := range row.prefer {
		for _, o := range ms.Options {
			if modeKey(o.ID) == want {
				return o.ID, true
			}
		}
	}
	return "", false
}

// ModeOption is one mode (or one model) a session offers.
type ModeOption struct {
	ID, Name, Description string
}

// Modes is a session's modes however the agent offers them: the modes API (session/set_mode)
// or a select config option of category "mode" (or id "mode"; session/set_config_option).
type Modes struct {
	// Current is the current mode id ("" when unknown).
	Current string
	// Options are the modes in the agent's order (none: the agent has no modes).
	Options []ModeOption
	// ConfigID is the id of the config option carrying the modes; "" when they come from the
	// modes API.
	ConfigID string
}

// Name is the display name of mode id (the id itself when the agent gave no name).
func (ms Modes) Name(id string) string {
	for _, o := range ms.Options {
		if o.ID == id && o.Name != "" {
			return o.Name
		}
	}
	return id
}

// Has reports whether id is one of the modes.
func (ms Modes) Has(id string) bool {
	for _, o := range ms.Options {
		if o.ID == id {
			return true
		}
	}
	return false
}

// ModesOf returns the session's modes: the modes API when the agent offers modes there (current
// is its current mode id, State.Mode), else the first select config option of category "mode"
// or id "mode".
func ModesOf(modes *acp.SessionModeState, current string, opts []acp.SessionConfigOption) Modes {
	if modes != nil && (len(modes.AvailableModes) > 0 || modes.CurrentModeId != "") {
		ms := Modes{Current: current}
		if ms.Current == "" {
			ms.Current = string(modes.CurrentModeId)
		}
		for _, m := range modes.AvailableModes {
			o := ModeOption{ID: string(m.Id), Name: m.Name}
			if m.Description != nil {
				o.Description = *m.Description
			}
			ms.Options = append(ms.Options, o)
		}
		return ms
	}
	if id, cur, vals := selectOption(opts, acp.SessionConfigOptionCategoryMode, "mode"); id != "" {
		return Modes{Current: cur, Options: vals, ConfigID: id}
	}
	return Modes{}
}

// ModelsOf returns the session's models: a select config option of category "model" (or id
// "model") when there is one, else the models API (ConfigID "").
func ModelsOf(models *ModelState, opts []acp.SessionConfigOption) Modes {
	if id, cur, vals := selectOption(opts, acp.SessionConfigOptionCategoryModel, "model"); id != "" {
		return Modes{Current: cur, Options: vals, ConfigID: id}
	}
	if models != nil && len(models.AvailableModels) > 0 {
		ms := Modes{Current: models.CurrentModelId}
		for _, m := range models.AvailableModels {
			ms.Options = append(ms.Options, ModeOption{ID: m.ModelId, Name: m.Name, Description: m.Description})
		}
		return ms
	}
	return Modes{}
}

// selectOption finds the first select config option of the category (or with the id) and
// returns its id, current value and values (grouped ones flattened).
func selectOption(opts []acp.SessionConfigOption, cat acp.SessionConfigOptionCategory, id string) (string, string, []ModeOption) {
	for _, o := range opts {
		s := o.Select
		if s == nil {
			continue
		}
		if !(string(s.Id) == id || (s.Category != nil && *s.Category == cat)) {
			continue
		}
		var vals []ModeOption
		add := func(v acp.SessionConfigSelectOption) {
			mo := ModeOption{ID: string(v.Value), Name: v.Name}
			if v.Description != nil {
				mo.Description = *v.Description
			}
			vals = append(vals, mo)
		}
		if u := s.Options.Ungrouped; u != nil {
			for _, v := range *u {
				add(v)
			}
		}
		if g := s.Options.Grouped; g != nil {
			for _, grp := range *g {
				for _, v := range grp.Options {
					add(v)
				}
			}
		}
		return string(s.Id), string(s.CurrentValue), vals
	}
	return "", "", nil
}

// OpencodePermission is the OPENCODE_PERMISSION value acpterm gives opencode (unless the
// environment already sets one, or [agent] mode is "agent"): every edit, command, web fetch and
// access outside the project asks, so each reaches acpterm as session/request_permission.
var OpencodePermission = func() string {
	b, _ := json.Marshal(map[string]string{"edit": "ask", "bash": "ask", "webfetch": "ask", "external_directory": "ask"})
	return string(b)
}()
