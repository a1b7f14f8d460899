package acpclient

import (
	"slices"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/terminals"
)

// Client-side tool call statuses. ACP has no such statuses on the wire:
// they are display states State.Apply sets on tool calls that were still open (pending,
// in_progress or unset) when the user cancelled (StatusCancelled) or when the turn ended without
// the agent closing them (StatusIncomplete, e.g. codex-acp's long commands).
const (
	StatusCancelled  acp.ToolCallStatus = "cancelled"
	StatusIncomplete acp.ToolCallStatus = "incomplete"
)

// Message roles.
const (
	RoleUser    = "user"
	RoleAgent   = "agent"
	RoleThought = "thought"
)

// Message is one user message, agent message or agent thought, assembled from chunks.
type Message struct {
	// Role is RoleUser, RoleAgent or RoleThought.
	Role string
	// ID is the ACP messageId of its chunks ("" when the agent sent none).
	ID string
	// Text is the concatenation of its text chunks (Markdown by ACP convention).
	Text string
	// Blocks are its non-text content blocks (images, audio, resources, resource links), in order.
	Blocks []acp.ContentBlock

	buf strings.Builder // Text's storage: appending a chunk is amortised O(chunk), not O(text)
}

// ToolCall is the accumulated state of one tool call (ACP tool_call + tool_call_update).
type ToolCall struct {
	ID    string
	Title string
	// Kind is the ACP tool kind; "" when the agent never sent one (display as "other").
	Kind acp.ToolKind
	// Status is the ACP status, "" (pending) when never sent, or StatusCancelled/StatusIncomplete.
	Status acp.ToolCallStatus
	// Content is the latest content collection (ACP: each update replaces it whole).
	Content []acp.ToolCallContent
	// Locations is the latest locations collection (replaced whole).
	Locations []acp.ToolCallLocation
	RawInput  any
	RawOutput any
	// Terminals lists the ids of terminals attached to this call, in order of appearance
	// (embedded `{"type":"terminal"}` content, `_meta.terminal_info`, or TerminalStarted).
	Terminals []string
	// PermissionID is the id of a pending PermissionAsked about this call, "" otherwise.
	PermissionID string
	// Unasked is set when the call ran without the agent asking first (ToolCallUnasked).
	Unasked bool

	agentIDs map[string]bool // the agent's ids of terminals this call announced in _meta
	asked    bool            // client side: a session/request_permission named this call
	ran      bool            // client side: it was in_progress or completed
	flagged  bool            // client side: ToolCallUnasked was emitted
}

// Open reports whether the tool call has not finished (pending, in_progress or no status).
func (t *ToolCall) Open() bool {
	switch t.Status {
	case "", acp.ToolCallStatusPending, acp.ToolCallStatusInProgress:
		return true
	}
	return false
}

// TerminalState is what State knows about one terminal.
type TerminalState struct {
	ID, ToolCallID, Label, Cwd string
	AgentOwned                 bool
	// Exit is set once the terminal exited.
	Exit *terminals.ExitStatus
}

// ItemKind says what a timeline Item points to.
type ItemKind int

// Timeline item kinds.
const (
	ItemMessage ItemKind = iota
	ItemToolCall
	ItemWrite
)

// Item is one entry of the conversation in display order: Index points into State.Messages,
// State.ToolCalls or State.Writes, depending on Kind.
type Item struct {
	Kind  ItemKind
	Index int
}

// State is the conversation as the agent described it: a reducer over Events, shared by the TUI
// and the headless renderer. The zero value is ready to use. It is not safe for concurrent use;
// keep it on the goroutine that reads Client.Events().
type State struct {
	// Info is the session's description (SessionStarted), kept current by mode, config option
	// and command updates.
	Info Info
	// Messages are the user/agent/thought messages in order.
	Messages []*Message
	// ToolCalls are the tool calls in order of first appearance.
	ToolCalls []*ToolCall
	// Writes are the file writes acpterm performed for the agent (FileWritten), in order.
	Writes []FileDiff
	// Timeline interleaves Messages, ToolCalls and Writes in the order they appeared.
	Timeline []Item
	// Plan is the latest plan (ACP: replaced whole on every plan update).
	Plan []acp.PlanEntry
	// Mode is the current mode id ("" when the agent has no modes).
	Mode string
	// Commands is the latest available command list.
	Commands []acp.AvailableCommand
	// ConfigOptions is the latest complete config option list.
	ConfigOptions []acp.SessionConfigOption
	// Usage is the latest usage_update (nil until one arrived).
	Usage *acp.SessionUsageUpdate
	// Title and UpdatedAt come from session_info_update ("" when unknown or cleared).
	Title, UpdatedAt string
	// Pending are the PermissionAsked not resolved yet, in order of arrival.
	Pending []PermissionAsked
	// Terminals are all terminals seen, by id.
	Terminals map[string]*TerminalState
	// Busy reports that a turn is running (between TurnStarted and TurnEnded).
	Busy bool
	// Turns counts TurnEnded events; LastStop/LastErr are those of the latest one.
	Turns    int
	LastStop string
	LastErr  error
	// Notices are the Notice events, in order.
	Notices []Notice
	// Exited is set once the agent process is gone.
	Exited *AgentExited

	toolIndex map[string]int
}

// Apply folds one event into the state. Unknown session/update kinds (the SDK
// decodes them as a user_message_chunk or session_info_update whose raw discriminator differs)
// and unknown event types are ignored.
func (s *State) Apply(ev Event) {
	switch e := ev.(type) {
	case SessionStarted:
		if s.Info.SessionID != "" && (e.Via == "session/load" || e.Info.SessionID != s.Info.SessionID && e.ForkedFrom != s.Info.SessionID) {
			// Another session, or this one loaded again (its history is replayed): the
			// conversation starts afresh. A fork of this one keeps it: the agent copied the
			// history and replays nothing.
			*s = State{Notices: s.Notices, Exited: s.Exited, Terminals: s.Terminals, Turns: s.Turns}
		}
		s.Info = e.Info
		if e.Info.Modes != nil {
			s.Mode = string(e.Info.Modes.CurrentModeId)
		}
		if e.Info.ConfigOptions != nil {
			s.ConfigOptions = e.Info.ConfigOptions
		}
		if e.Info.Commands != nil {
			s.Commands = e.Info.Commands
		}
	case *SessionStarted:
		s.Apply(*e)
	case TurnStarted:
		s.Busy = true
		s.appendChunk(RoleUser, "", textBlock(e.Prompt), true)
	case SessionUpdated:
		s.applyUpdate(e.Update)
	case PermissionAsked:
		s.Pending = append(s.Pending, e)
		if id := string(e.ToolCall.ToolCallId); id != "" {
			t := s.tool(id)
			mergeToolCallUpdate(t, &e.ToolCall)
			t.PermissionID = e.ID
		}
	case PermissionResolved:
		for i, p := range s.Pending {
			if p.ID == e.ID {
				s.Pending = append(s.Pending[:i:i], s.Pending[i+1:]...)
				break
			}
		}
		for _, t := range s.ToolCalls {
			if t.PermissionID == e.ID {
				t.PermissionID = ""
			}
		}
	case FileWritten:
		s.Writes = append(s.Writes, e.Diff)
		s.Timeline = append(s.Timeline, Item{Kind: ItemWrite, Index: len(s.Writes) - 1})
	case TerminalStarted:
		if s.Terminals == nil {
			s.Terminals = map[string]*TerminalState{}
		}
		ts := s.Terminals[e.ID]
		if ts == nil {
			ts = &TerminalState{ID: e.ID}
			s.Terminals[e.ID] = ts
		}
		ts.Label, ts.Cwd, ts.AgentOwned = e.Label, e.Cwd, e.AgentOwned
		if e.ToolCallID != "" {
			ts.ToolCallID = e.ToolCallID
			s.attachTerminal(s.tool(e.ToolCallID), e.ID)
		}
	case TerminalRetitled:
		if ts := s.Terminals[e.ID]; ts != nil && e.Label != "" {
			ts.Label = e.Label
		}
	case TerminalExited:
		if s.Terminals == nil {
			s.Terminals = map[string]*TerminalState{}
		}
		ts := s.Terminals[e.ID]
		if ts == nil {
			ts = &TerminalState{ID: e.ID}
			s.Terminals[e.ID] = ts
		}
		st := e.Status
		ts.Exit = &st
	case CancelRequested:
		s.closeOpen(StatusCancelled)
	case TurnEnded:
		s.Busy = false
		s.Turns++
		s.LastStop, s.LastErr = e.StopReason, e.Err
		if e.StopReason == string(acp.StopReasonCancelled) {
			s.closeOpen(StatusCancelled)
		} else {
			s.closeOpen(StatusIncomplete)
		}
	case AgentExited:
		ex := e
		s.Exited = &ex
		s.Busy = false
		s.Pending = nil
		s.closeOpen(StatusIncomplete)
	case Notice:
		s.Notices = append(s.Notices, e)
	case ModelChanged:
		if s.Info.Models != nil {
			m := *s.Info.Models
			m.CurrentModelId = e.ModelID
			s.Info.Models = &m
		}
	case ToolCallUnasked:
		s.tool(e.ToolCallID).Unasked = true
	}
}

// Modes returns the session's modes, however the agent offers them (ModesOf).
func (s *State) Modes() Modes { return ModesOf(s.Info.Modes, s.Mode, s.ConfigOptions) }

// Models returns the session's models: a model config option or the models API (ModelsOf).
func (s *State) Models() Modes { return ModelsOf(s.Info.Models, s.ConfigOptions) }

// ModeAsks says whether the current mode makes the agent ask before acting (ModeAsks).
func (s *State) ModeAsks() Asks { return ModeAsks(s.Info.Family, s.Modes().Current, s.Info.ModeAsked) }

// ToolCall returns the tool call with the given id.
func (s *State) ToolCall(id string) (*ToolCall, bool) {
	i, ok := s.toolIndex[id]
	if !ok {
		return nil, false
	}
	return s.ToolCalls[i], true
}

// closeOpen gives every open tool call the client-side status st.
func (s *State) closeOpen(st acp.ToolCallStatus) {
	for _, t := range s.ToolCalls {
		if t.Open() {
			t.Status = st
		}
	}
}

// tool returns the tool call with id, creating it (at the end of the timeline) when unseen.
func (s *State) tool(id string) *ToolCall {
	if s.toolIndex == nil {
		s.toolIndex = map[string]int{}
	}
	if i, ok := s.toolIndex[id]; ok {
		return s.ToolCalls[i]
	}
	t := &ToolCall{ID: id}
	s.ToolCalls = append(s.ToolCalls, t)
	s.toolIndex[id] = len(s.ToolCalls) - 1
	s.Timeline = append(s.Timeline, Item{Kind: ItemToolCall, Index: len(s.ToolCalls) - 1})
	return t
}

func (s *State) attachTerminal(t *ToolCall, id string) {
	for _, x := range t.Terminals {
		if x == id {
			return
		}
	}
	t.Terminals = append(t.Terminals, id)
}

// UpdateKind returns the raw ACP discriminator of u ("agent_message_chunk", …) and whether it is
// a kind this package understands. The SDK decodes an unknown kind into the
// user_message_chunk or session_info_update variant, keeping the raw name in SessionUpdate.
func UpdateKind(u acp.SessionUpdate) (kind string, known bool) {
	switch {
	case u.UserMessageChunk != nil:
		return u.UserMessageChunk.SessionUpdate, u.UserMessageChunk.SessionUpdate == "user_message_chunk"
	case u.AgentMessageChunk != nil:
		return u.AgentMessageChunk.SessionUpdate, true
	case u.AgentThoughtChunk != nil:
		return u.AgentThoughtChunk.SessionUpdate, true
	case u.ToolCall != nil:
		return u.ToolCall.SessionUpdate, true
	case u.ToolCallUpdate != nil:
		return u.ToolCallUpdate.SessionUpdate, true
	case u.Plan != nil:
		return u.Plan.SessionUpdate, true
	case u.AvailableCommandsUpdate != nil:
		return u.AvailableCommandsUpdate.SessionUpdate, true
	case u.CurrentModeUpdate != nil:
		return u.CurrentModeUpdate.SessionUpdate, true
	case u.ConfigOptionUpdate != nil:
		return u.ConfigOptionUpdate.SessionUpdate, true
	case u.SessionInfoUpdate != nil:
		return u.SessionInfoUpdate.SessionUpdate, u.SessionInfoUpdate.SessionUpdate == "session_info_update"
	case u.UsageUpdate != nil:
		return u.UsageUpdate.SessionUpdate, true
	}
	return "", false
}

func (s *State) applyUpdate(u acp.SessionUpdate) {
	if _, known := UpdateKind(u); !known {
		return
	}
	switch {
	case u.UserMessageChunk != nil:
		s.appendChunk(RoleUser, deref(u.UserMessageChunk.MessageId), u.UserMessageChunk.Content, false)
	case u.AgentMessageChunk != nil:
		s.appendChunk(RoleAgent, deref(u.AgentMessageChunk.MessageId), u.AgentMessageChunk.Content, false)
	case u.AgentThoughtChunk != nil:
		s.appendChunk(RoleThought, deref(u.AgentThoughtChunk.MessageId), u.AgentThoughtChunk.Content, false)
	case u.ToolCall != nil:
		tc := u.ToolCall
		t := s.tool(string(tc.ToolCallId))
		mergeToolCall(t, tc)
		s.collectTerminals(t, tc.Content, tc.Meta)
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		t := s.tool(string(tu.ToolCallId))
		mergeToolCallUpdate(t, toolCallUpdateOf(tu))
		s.collectTerminals(t, tu.Content, tu.Meta)
	case u.Plan != nil:
		s.Plan = u.Plan.Entries
	case u.AvailableCommandsUpdate != nil:
		s.Commands = u.AvailableCommandsUpdate.AvailableCommands
		s.Info.Commands = s.Commands
	case u.CurrentModeUpdate != nil:
		s.Mode = string(u.CurrentModeUpdate.CurrentModeId)
		if s.Info.Modes != nil {
			m := *s.Info.Modes
			m.CurrentModeId = u.CurrentModeUpdate.CurrentModeId
			s.Info.Modes = &m
		}
	case u.ConfigOptionUpdate != nil:
		s.ConfigOptions = u.ConfigOptionUpdate.ConfigOptions
		s.Info.ConfigOptions = s.ConfigOptions
	case u.SessionInfoUpdate != nil:
		// ACP: omitted = unchanged, null = clear; the SDK cannot tell them apart, so a
		// nil field leaves the value unchanged.
		if t := u.SessionInfoUpdate.Title; t != nil {
			s.Title = *t
		}
		if t := u.SessionInfoUpdate.UpdatedAt; t != nil {
			s.UpdatedAt = *t
		}
	case u.UsageUpdate != nil:
		uu := *u.UsageUpdate
		s.Usage = &uu
	}
}

// mergeToolCall applies a tool_call notification to t. A repeated tool_call for a known id
// (claude-agent-acp 0.17.1 sends two) is an upsert: fields it carries replace, absent (empty)
// ones stay.
func mergeToolCall(t *ToolCall, tc *acp.SessionUpdateToolCall) {
	if tc.Title != "" {
		t.Title = tc.Title
	}
	if tc.Kind != "" {
		t.Kind = tc.Kind
	}
	if tc.Status != "" {
		t.Status = tc.Status
	}
	if tc.Content != nil {
		t.Content = tc.Content
	}
	if tc.Locations != nil {
		t.Locations = tc.Locations
	}
	if tc.RawInput != nil {
		t.RawInput = tc.RawInput
	}
	if tc.RawOutput != nil {
		t.RawOutput = tc.RawOutput
	}
}

// toolCallUpdateOf is the tool_call_update notification's payload as an acp.ToolCallUpdate
// (the type permission requests carry), for mergeToolCallUpdate.
func toolCallUpdateOf(tu *acp.SessionToolCallUpdate) *acp.ToolCallUpdate {
	return &acp.ToolCallUpdate{
		Content: tu.Content, Kind: tu.Kind, Locations: tu.Locations, RawInput: tu.RawInput,
		RawOutput: tu.RawOutput, Status: tu.Status, Title: tu.Title, ToolCallId: tu.ToolCallId,
	}
}

// mergeToolCallUpdate patches t with the fields present in u: content and locations replace the
// whole collection (a non-nil empty slice clears it), everything else is patched field by field.
func mergeToolCallUpdate(t *ToolCall, u *acp.ToolCallUpdate) {
	if u.Title != nil {
		t.Title = *u.Title
	}
	if u.Kind != nil {
		t.Kind = *u.Kind
	}
	if u.Status != nil {
		t.Status = *u.Status
	}
	if u.Content != nil {
		t.Content = u.Content
	}
	if u.Locations != nil {
		t.Locations = u.Locations
	}
	if u.RawInput != nil {
		t.RawInput = u.RawInput
	}
	if u.RawOutput != nil {
		t.RawOutput = u.RawOutput
	}
}

// collectTerminals records terminal ids embedded in content or announced in _meta.terminal_info.
// Ids the call announced in `_meta` (terminal_info, terminal_output, terminal_exit) are the
// agent's own terminals: they are recorded as AgentTerminalID(id), and so is the call's
// `{"type":"terminal"}` content naming them; other content names a client-owned terminal
// (terminal/create). A client id recorded before the announcement that names no known
// terminal is replaced.
func (s *State) collectTerminals(t *ToolCall, content []acp.ToolCallContent, meta map[string]any) {
	for _, key := range []string{"terminal_info", "terminal_output", "terminal_exit"} {
		id := metaTerminalID(meta, key)
		if id == "" || t.agentIDs[id] {
			continue
		}
		if t.agentIDs == nil {
			t.agentIDs = map[string]bool{}
		}
		t.agentIDs[id] = true
		if i := slices.Index(t.Terminals, id); i >= 0 && s.Terminals[id] == nil {
			// Content named it before the announcement: it meant the agent's terminal.
			if slices.Contains(t.Terminals, AgentTerminalID(id)) {
				t.Terminals = slices.Delete(t.Terminals, i, i+1)
			} else {
				t.Terminals[i] = AgentTerminalID(id)
			}
		}
		if key == "terminal_info" {
			s.attachTerminal(t, AgentTerminalID(id))
		}
	}
	for _, c := range content {
		if c.Terminal != nil && c.Terminal.TerminalId != "" {
			id := c.Terminal.TerminalId
			if t.agentIDs[id] {
				id = AgentTerminalID(id)
			}
			s.attachTerminal(t, id)
		}
	}
}

// appendChunk adds a content chunk to the last message when it continues it (same role, same or
// absent messageId, and nothing else appeared in the timeline since), else starts a new message.
// forceNew always starts a new message (a prompt the user sent).
func (s *State) appendChunk(role, id string, c acp.ContentBlock, forceNew bool) {
	var m *Message
	if !forceNew && len(s.Timeline) > 0 {
		last := s.Timeline[len(s.Timeline)-1]
		if last.Kind == ItemMessage {
			lm := s.Messages[last.Index]
			if lm.Role == role && (id == "" || lm.ID == "" || lm.ID == id) {
				m = lm
				if m.ID == "" {
					m.ID = id
				}
			}
		}
	}
	if m == nil {
		m = &Message{Role: role, ID: id}
		s.Messages = append(s.Messages, m)
		s.Timeline = append(s.Timeline, Item{Kind: ItemMessage, Index: len(s.Messages) - 1})
	}
	switch {
	case c.Text != nil:
		if m.buf.Len() != len(m.Text) { // Text was set by someone else: start from it
			m.buf.Reset()
			m.buf.WriteString(m.Text)
		}
		m.buf.WriteString(c.Text.Text)
		m.Text = m.buf.String()
	case c.Image != nil, c.Audio != nil, c.ResourceLink != nil, c.Resource != nil:
		m.Blocks = append(m.Blocks, c)
	}
}

func textBlock(s string) acp.ContentBlock { return acp.TextBlock(s) }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// metaTerminalID returns meta[key].terminal_id when it is a non-empty string.
func metaTerminalID(meta map[string]any, key string) string {
	m, ok := meta[key].(map[string]any)
	if !ok {
		return ""
	}
	id, _ := m["terminal_id"].(string)
	return id
}

// Output is the text a tool call reported as its result, for display when no terminal shows it:
// its text content blocks, in order; when it has none, its rawOutput's formatted_output,
// aggregated_output, stdout and stderr, or output (codex-acp, opencode), the first that is
// non-empty. "" when the call reported no text.
func (t *ToolCall) Output() string {
	var parts []string
	for _, ct := range t.Content {
		if ct.Content != nil && ct.Content.Content.Text != nil && ct.Content.Content.Text.Text != "" {
			parts = append(parts, ct.Content.Content.Text.Text)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	return RawOutputText(t.RawOutput)
}

// RawOutputText is the command output a tool call's rawOutput carries: formatted_output, else
// aggregated_output, else stdout followed by stderr, else output; "" when none is a non-empty
// string (a plain string rawOutput is itself the output).
func RawOutputText(raw any) string {
	if s, ok := raw.(string); ok {
		return s
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return ""
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	for _, k := range []string{"formatted_output", "aggregated_output"} {
		if s := str(k); s != "" {
			return s
		}
	}
	if out, errs := str("stdout"), str("stderr"); out != "" || errs != "" {
		if out != "" && errs != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return out + errs
	}
	return str("output")
}
