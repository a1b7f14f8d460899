// Package acpclient runs one ACP agent as a subprocess and is its client: it speaks ACP v1
// (JSON-RPC over the agent's stdin/stdout, via github.com/coder/acp-go-sdk v0.13.5), serves the
// agent's terminal/*, fs/* and session/request_permission requests through the sandbox policy
// (package permissions) and the PTY manager (package terminals), and turns everything that happens
// into an ordered stream of plain Events for the TUI and the headless renderer.
//
// See docs/architecture.md for the data flow from the agent to the screen.
// The UI reads Client.Events() and folds them into a State with State.Apply; it never calls the
// SDK itself.
package acpclient

import (
	"fmt"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// Event is one thing that happened in the client, delivered in order on Client.Events().
// It is one of: SessionStarted, TurnStarted, SessionUpdated, PermissionAsked,
// PermissionResolved, FileWritten, TerminalStarted, TerminalRetitled, TerminalExited,
// CancelRequested, TurnEnded, AgentExited, Notice. Events are values; the receiver may keep them.
type Event interface{ isEvent() }

// SessionStarted is emitted after session/new (or load, resume, fork) succeeded and before any
// session/update of that session. Info carries the agent's identity, the session id, and the
// initial modes, models, config options and commands. Another one follows whenever the client
// opens another session (OpenSession, ForkSession); State.Apply then starts a new conversation.
type SessionStarted struct {
	Info Info
	// Via is how the session was opened: "session/new", "session/load" (its history follows as
	// updates), "session/resume" (no history) or "session/fork".
	Via string
	// ForkedFrom is the session a fork was made of ("" otherwise).
	ForkedFrom string
}

// TurnStarted is emitted when a queued prompt is sent to the agent (session/prompt), i.e. when the
// turn really begins. Prompt is the text the user typed (before @file expansion).
type TurnStarted struct {
	Prompt string
}

// SessionUpdated carries one ACP session/update notification of the session, raw and in arrival
// order (ACP: "session/update"). Fold it into a State with State.Apply. Updates that arrived before
// session/new returned are delivered right after SessionStarted (an agent may send them before the session/new response). Unknown update kinds
// are delivered as the SDK decoded them (the SDK cannot tell an unknown kind from a known one); State.Apply ignores them.
type SessionUpdated struct {
	Update acp.SessionUpdate
}

// PermissionAsked means a person must decide something; answer it with Client.Answer(ID, …).
// It is emitted for the agent's own session/request_permission (Options holds every option the
// agent offered; Policy is nil) and for acpterm's own prompts on terminal/create and
// fs/write_text_file / fs/read_text_file when the policy said "ask" (Policy is non-nil and
// Options is empty: answer with a Choice). Every PermissionAsked is followed, exactly once, by a
// PermissionResolved with the same ID.
type PermissionAsked struct {
	// ID identifies the request for Client.Answer; unique within the client.
	ID string
	// ToolCall is the tool call the request is about (ACP ToolCallUpdate; for acpterm's own
	// terminal/fs prompts it is synthesised: ToolCallId may be the id of the approving tool call
	// or empty, Title names the command or file).
	ToolCall acp.ToolCallUpdate
	// Options are the agent's options, in the agent's order (agent requests only).
	Options []acp.PermissionOption
	// Policy is the sandbox decision that led to the question (acpterm's own prompts, and agent
	// requests the policy could analyse); nil otherwise.
	Policy *permissions.Decision
	// Diff is the change a file write would make (fs/write_text_file prompts), else nil.
	Diff *FileDiff
	// Kind says what is asked: "agent" (session/request_permission), "command"
	// (terminal/create), "write" (fs/write_text_file) or "read" (fs/read_text_file).
	Kind string
}

// PermissionResolved ends a PermissionAsked. When the sandbox policy (or headless mode inside
// the client) answers an agent's session/request_permission without asking anyone, a
// PermissionResolved with By "policy" (or "headless") and a fresh ID is emitted on its own, so
// the UI can log what was decided.
type PermissionResolved struct {
	ID string
	// Outcome is the chosen optionId for agent requests, "cancelled" when the turn was cancelled
	// or the client shut down, and for acpterm's own prompts "allow" or "deny".
	Outcome string
	// By is who decided: "policy" (the sandbox policy or a grant), "user", "headless"
	// (Options.Approve), "cancel" (turn cancellation, agent exit or shutdown), or the Answer.By
	// the caller of Client.Answer gave (e.g. "approve-flag").
	By string
	// ToolCall is the tool call the request was about: the agent's session/request_permission
	// toolCall, with title, kind and rawInput filled from earlier updates of the same tool call
	// when the request left them out; for acpterm's own prompts the PermissionAsked's synthesised
	// one. Zero when unknown.
	ToolCall acp.ToolCallUpdate
	// Rule is the deciding rule of the sandbox policy's decision (permissions.Decision.Rule),
	// "" when the policy did not judge the request.
	Rule string
	// Reason is the policy decision's one-line reason (permissions.Decision.Reason), "" when the
	// policy did not judge the request.
	Reason string
	// OptionKind is the ACP kind of the chosen option of an agent request ("allow_once",
	// "allow_always", "reject_once", "reject_always"); "" when cancelled, for acpterm's own
	// prompts, or when the agent's option had no kind.
	OptionKind string
}

// FileDiff is a whole-file change: what fs/write_text_file replaces (OldText) with what (NewText).
type FileDiff struct {
	// Path is the absolute path the agent named.
	Path string
	// Real is the file Path resolved to (links and /proc/self/… followed), set when it differs
	// from Path; "" otherwise.
	Real string
	// OldText is the previous content; "" when the file did not exist (Existed false).
	OldText string
	// NewText is the content written.
	NewText string
	// Existed reports whether the file existed before the write.
	Existed bool
}

// FileWritten is emitted after a successful fs/write_text_file, so the UI can show the change.
type FileWritten struct {
	Diff FileDiff
}

// TerminalStarted is emitted when a terminal appears: a client-owned PTY started for
// terminal/create (AgentOwned false), or an agent-owned display terminal announced by
// `_meta.terminal_info` / `_meta.terminal_output` on a tool call (AgentOwned true, read-only).
// Client.Screen(ID) returns its screen in both cases.
type TerminalStarted struct {
	// ID is the terminal's id: the terminal/create id for a client-owned terminal, and
	// AgentTerminalID(the agent's id) for an agent-owned one (a namespace of its own, so an
	// agent cannot name, shadow or update a client-owned terminal through `_meta`).
	ID string
	// ToolCallID is the tool call the terminal belongs to: for a client-owned terminal, the tool
	// call whose permission request approved the same command in this turn, else "" (the agent
	// embeds it into its tool call with a later tool_call_update).
	ToolCallID string
	// Label is the command as a person should read it.
	Label string
	// Cwd is the absolute working directory ("" for agent-owned terminals).
	Cwd        string
	AgentOwned bool
	// Interactive marks a client-owned terminal the agent drives itself, keys and all, through
	// acpterm's MCP terminal tools (Client.StartInteractive); the user can type into it too.
	Interactive bool
}

// TerminalRetitled is emitted when the label of an agent-owned terminal changes after its
// TerminalStarted: a later tool_call / tool_call_update of the terminal's tool call gave a
// command (rawInput.command) or a new title (claude-agent-acp 0.23.1 first titles the call
// "Terminal"). State.Apply stores Label in State.Terminals[ID].Label.
type TerminalRetitled struct {
	ID string
	// Label is the new label: the tool call's command, else its title (never "").
	Label string
}

// TerminalExited is emitted once when a terminal's process exited (client-owned: after its
// output was drained; agent-owned: on `_meta.terminal_exit`, or the exit code of the finished
// tool call's rawOutput). An agent-owned terminal whose exit was never reported is marked ended
// when its tool call reaches a final status (completed, failed, cancelled), when the prompt
// turn ends, or when the agent exits: then Status is the zero terminals.ExitStatus (exit status
// unknown; String "unknown"), and a real status the agent reports later is emitted once more.
type TerminalExited struct {
	ID     string
	Status terminals.ExitStatus
}

// CancelRequested is emitted when the user cancelled the running turn (session/cancel was sent).
// State.Apply marks the turn's open tool calls "cancelled" (ACP §6.1: a client-side display
// state); later updates from the agent still apply.
type CancelRequested struct{}

// TurnEnded ends every TurnStarted; a Client.Prompt that could never be sent (agent gone,
// client closed) gets a TurnEnded with an error and no TurnStarted. StopReason is the
// agent's stop reason ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", or
// an unknown value passed through) when the agent answered; Err is non-nil when the turn failed
// (JSON-RPC error, agent death, shutdown), and then StopReason is "" — or "cancelled" when the
// failure followed a cancel (ACP §6.1 defensive rule).
type TurnEnded struct {
	StopReason string
	Err        error
}

// AgentExited is emitted once when the agent process is gone (crash, exit, or Close). Code is
// its exit code (nil when killed by a signal), Signal the signal name ("SIGKILL"), StderrTail the
// last lines it wrote to stderr (at most 200). Expected reports that acpterm itself stopped it
// (Close), so the UI need not show it as a failure.
type AgentExited struct {
	Code       *int
	Signal     string
	StderrTail []string
	Expected   bool
}

// Notice is a message for the user that is not part of the conversation: protocol problems,
// policy denials, agent stderr summaries. Level is "info", "warn" or "error".
type Notice struct {
	Level, Text string
}

// ModelChanged is emitted when SetModel switched the model through the models API (which has
// no update notification of its own).
type ModelChanged struct {
	ModelID string
}

// ToolCallUnasked is emitted when a tool call that acts (kind execute, edit, delete or move) ran
// without the agent asking the client first: no session/request_permission named it, and no
// terminal/create or fs/write_text_file of acpterm's carried it out. It is also an audit record
// of kind "unasked".
type ToolCallUnasked struct {
	ToolCallID string
	Kind       acp.ToolKind
	Title      string
}

func (ModelChanged) isEvent()       {}
func (ToolCallUnasked) isEvent()    {}
func (SessionStarted) isEvent()     {}
func (TurnStarted) isEvent()        {}
func (SessionUpdated) isEvent()     {}
func (PermissionAsked) isEvent()    {}
func (PermissionResolved) isEvent() {}
func (FileWritten) isEvent()        {}
func (TerminalStarted) isEvent()    {}
func (TerminalRetitled) isEvent()   {}
func (TerminalExited) isEvent()     {}
func (CancelRequested) isEvent()    {}
func (TurnEnded) isEvent()          {}
func (AgentExited) isEvent()        {}
func (Notice) isEvent()             {}

// String describes the exit like "exit 1" or "SIGKILL" (for messages).
func (e AgentExited) String() string {
	switch {
	case e.Code != nil:
		return fmt.Sprintf("exit %d", *e.Code)
	case e.Signal != "":
		return e.Signal
	default:
		return "exited"
	}
}

// Choice is the answer to one of acpterm's own prompts (PermissionAsked with Policy set).
type Choice string

// The choices for acpterm's own prompts.
const (
	// AllowOnce runs this one request.
	AllowOnce Choice = "allow_once"
	// AllowSession runs it and grants the narrowest rule for the rest of the session.
	AllowSession Choice = "allow_session"
	// SaveRule runs it and saves the narrowest rule to the grants file.
	SaveRule Choice = "save_rule"
	// Deny refuses it; the agent gets an error naming the user's refusal.
	Deny Choice = "deny"
)

// Answer answers a PermissionAsked. For agent requests set OptionID to one of the offered
// options' ids (an empty OptionID with Choice Deny picks a reject option, else "cancelled");
// for acpterm's own prompts set Choice.
type Answer struct {
	OptionID string
	Choice   Choice
	// By says who answered, for PermissionResolved.By and the audit event's "by" field: ""
	// means "user" (a person in the TUI); the headless renderer sets "approve-flag" (answered
	// per --approve, nobody was asked).
	By string
}

// Info describes the connected agent and its session (from initialize and session/new).
type Info struct {
	// AgentName, AgentTitle, AgentVersion come from initialize's agentInfo ("" when absent).
	AgentName, AgentTitle, AgentVersion string
	// ProtocolVersion is the version the agent answered (always 1 once started).
	ProtocolVersion int
	// Capabilities are the agent's capabilities as it advertised them.
	Capabilities acp.AgentCapabilities
	// AuthMethods are the agent's advertised authentication methods.
	AuthMethods []acp.AuthMethod
	// SessionID is the ACP session id (opaque, chosen by the agent).
	SessionID string
	// Cwd is the session's absolute working directory.
	Cwd string
	// Modes is the session's modes (nil when the agent has none); CurrentModeId follows
	// current_mode_update and SetMode.
	Modes *acp.SessionModeState
	// Models is the session's models as the models API reports them (nil when the agent
	// offers none); CurrentModelId follows SetModel.
	Models *ModelState
	// ConfigOptions is the complete current config option list (agent order).
	ConfigOptions []acp.SessionConfigOption
	// Commands is the latest available_commands_update list.
	Commands []acp.AvailableCommand
	// Family is the agent family whose modes acpterm knows (FamilyOf; "" for other agents).
	Family string
	// ModeAsked is true when acpterm started the agent set up to ask (opencode with
	// OPENCODE_PERMISSION); ModeAsks takes it.
	ModeAsked bool
}

// ModelState is a session's models as the ACP models API (unstable; `models` in the session/new,
// load and resume responses, switched with session/set_model) describes them.
type ModelState struct {
	// CurrentModelId is the model in use.
	CurrentModelId string `json:"currentModelId"`
	// AvailableModels are the models the session can switch to, in the agent's order.
	AvailableModels []ModelInfo `json:"availableModels"`
}

// ModelInfo is one model of a ModelState.
type ModelInfo struct {
	// ModelId is the id session/set_model takes.
	ModelId string `json:"modelId"`
	// Name is the model's display name.
	Name string `json:"name"`
	// Description is the agent's description ("" when none).
	Description string `json:"description,omitempty"`
}
