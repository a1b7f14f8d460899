package acpclient

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/terminals"
)

// maxEarlyUpdates bounds the updates kept while the session id is not known yet (an agent may send updates before the session/new response).
const maxEarlyUpdates = 100000

// SessionUpdate implements acp.Client. acpterm handles session/update in its wire reader (see
// wire.go), so the SDK does not call this; it is kept correct for completeness and returns at
// once.
func (c *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.onNotification(n)
	return nil
}

// onNotification handles one session/update, in wire order.
func (c *Client) onNotification(n acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		if len(c.early) < maxEarlyUpdates {
			c.early = append(c.early, n)
		} else {
			c.log.Warn("session/update before session/new dropped: too many buffered")
		}
		return
	}
	if string(n.SessionId) != c.sessionID {
		c.log.Warn("session/update for an unknown session dropped", "session", n.SessionId)
		return
	}
	c.applyUpdateLocked(n.Update)
	if u := n.Update.SessionInfoUpdate; u != nil && u.SessionUpdate == "session_info_update" && u.Title != nil && *u.Title != "" && c.o.Store != nil && !c.closing {
		// The agent's own title names the session in acpterm's records from now on.
		title := *u.Title
		c.wg.Add(1)
		go func() { defer c.wg.Done(); c.record(title, true) }()
	}
}

// applyUpdateLocked records what the client itself needs from an update (tool call details for
// policy, info, agent-owned terminals) and emits it. Unknown kinds are logged and dropped
// (the SDK cannot decode unknown kinds faithfully).
func (c *Client) applyUpdateLocked(u acp.SessionUpdate) {
	kind, known := UpdateKind(u)
	if !known {
		c.log.Debug("session/update of an unknown kind ignored", "kind", kind)
		return
	}
	var after []Event
	switch {
	case u.ToolCall != nil:
		tc := u.ToolCall
		ti := c.toolLocked(string(tc.ToolCallId))
		mergeToolCall(ti, tc)
		after = c.agentTerminalMetaLocked(string(tc.ToolCallId), ti, tc.Meta)
		after = append(after, c.retitleAgentTermsLocked(string(tc.ToolCallId), ti)...)
		after = append(after, c.rawOutputFallbackLocked(string(tc.ToolCallId), tc.Status, tc.RawOutput)...)
		after = append(after, c.noteStatusLocked(string(tc.ToolCallId), ti, tc.Status)...)
		if finalStatus(tc.Status) {
			after = append(after, c.endAgentTermsLocked(string(tc.ToolCallId))...)
		}
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		ti := c.toolLocked(string(tu.ToolCallId))
		mergeToolCallUpdate(ti, toolCallUpdateOf(tu))
		after = c.agentTerminalMetaLocked(string(tu.ToolCallId), ti, tu.Meta)
		if tu.Title != nil || tu.RawInput != nil {
			after = append(after, c.retitleAgentTermsLocked(string(tu.ToolCallId), ti)...)
		}
		if tu.Status != nil {
			after = append(after, c.rawOutputFallbackLocked(string(tu.ToolCallId), *tu.Status, tu.RawOutput)...)
			after = append(after, c.noteStatusLocked(string(tu.ToolCallId), ti, *tu.Status)...)
			if finalStatus(*tu.Status) {
				after = append(after, c.endAgentTermsLocked(string(tu.ToolCallId))...)
			}
		}
	case u.AvailableCommandsUpdate != nil, u.CurrentModeUpdate != nil, u.ConfigOptionUpdate != nil:
		c.applyInfoLocked(u)
	case u.SessionInfoUpdate != nil:
		after = append(after, metaNotices(u.SessionInfoUpdate.Meta)...)
	}
	c.q.push(SessionUpdated{Update: u})
	for _, ev := range after {
		c.q.push(ev)
	}
}

func (c *Client) toolLocked(id string) *ToolCall {
	ti := c.tools[id]
	if ti == nil {
		ti = &ToolCall{}
		c.tools[id] = ti
	}
	return ti
}

// AgentTerminalPrefix starts the id of every agent-owned terminal in events, State and
// Client.Screen: agent-owned terminals live in a namespace of their own, so an agent that
// announces `_meta.terminal_info` with the id of one of acpterm's own terminals ("term-1", from
// terminal/create) can neither shadow that terminal's pane nor change its output or exit status.
// Client-owned ids (terminals.Manager: "term-N") never start with it.
const AgentTerminalPrefix = "agent:"

// AgentTerminalID is the id acpterm uses for the agent-owned terminal the agent calls agentID in
// `_meta.terminal_info` / `terminal_output` / `terminal_exit` (and in the `{"type":"terminal"}`
// content of the tool call that announced it): AgentTerminalPrefix + agentID.
func AgentTerminalID(agentID string) string { return AgentTerminalPrefix + agentID }

// finalStatus reports whether a tool call status ends the call: completed, failed, or
// "cancelled" (not an ACP status, but what an agent that cancels a call may send).
func finalStatus(st acp.ToolCallStatus) bool {
	switch st {
	case acp.ToolCallStatusCompleted, acp.ToolCallStatusFailed, StatusCancelled:
		return true
	}
	return false
}

// agentTerm is an agent-owned display terminal: the agent runs the command itself and streams
// its output in `_meta.terminal_output` (claude-agent-acp 0.23.1, codex-acp; the Zed convention
// enabled by clientCapabilities._meta.terminal_output). Read-only.
type agentTerm struct {
	id, toolCallID string // id is AgentTerminalID(the agent's id)
	screen         *terminals.Screen
	tr             *terminals.Transcript
	label          string // as last announced (TerminalStarted or TerminalRetitled)
	gotData        bool   // some `_meta.terminal_output` data arrived
	fromRaw        bool   // the output was taken from the completed tool call's rawOutput
	exited         bool   // a TerminalExited was emitted
	endedUnknown   bool   // …by endAgentTermsLocked, without a real exit status
	lastCR         bool   // previous chunk ended in '\r' (for LF → CRLF)
}

// reportExit marks the terminal exited with st and returns its TerminalExited, or nil when a
// real exit status was reported already (a status reported after the terminal was marked ended
// without one replaces the unknown status).
func (at *agentTerm) reportExit(st terminals.ExitStatus) []Event {
	if at.exited && !at.endedUnknown {
		return nil
	}
	at.exited, at.endedUnknown = true, false
	at.screen.Compact() // finished: keep its cells, not the emulator (~4.7 MB → ~1 KB)
	return []Event{TerminalExited{ID: at.id, Status: st}}
}

// endAgentTermsLocked marks the agent-owned terminals of a tool call that reached a final
// status (toolCallID "", every one: the prompt turn ended or the agent is gone) as ended when
// no `_meta.terminal_exit` (or rawOutput exit code) reported their exit: the agent's process is
// gone or no longer reported, so they must not show "running" forever. The exit status is
// unknown: TerminalExited carries the zero terminals.ExitStatus (String "unknown"). A real exit
// status arriving later still replaces it. Terminals are visited in id order.
func (c *Client) endAgentTermsLocked(toolCallID string) []Event {
	var ids []string
	for id, at := range c.agentTerms {
		if !at.exited && (toolCallID == "" || at.toolCallID == toolCallID) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var evs []Event
	for _, id := range ids {
		at := c.agentTerms[id]
		at.exited, at.endedUnknown = true, true
		at.screen.Compact()
		evs = append(evs, TerminalExited{ID: at.id})
	}
	return evs
}

// agentTerminalMetaLocked handles `_meta.terminal_info` / `terminal_output` / `terminal_exit`
// of a tool call and returns the events to emit after the update itself. The agent's terminal
// ids are mapped into the agent-owned namespace (AgentTerminalID): they never reach a
// client-owned terminal.
func (c *Client) agentTerminalMetaLocked(toolCallID string, ti *ToolCall, meta map[string]any) []Event {
	if len(meta) == 0 {
		return nil
	}
	var evs []Event
	ensure := func(agentID string) *agentTerm {
		id := AgentTerminalID(agentID)
		if at := c.agentTerms[id]; at != nil {
			return at
		}
		if c.dead || c.closing {
			return nil
		}
		limit := c.cfg.Policy.OutputByteLimit
		at := &agentTerm{id: id, toolCallID: toolCallID, label: toolLabel(ti), screen: terminals.NewScreen(c.o.ScreenSize), tr: terminals.NewTranscript(limit)}
		c.agentTerms[id] = at
		evs = append(evs, TerminalStarted{ID: id, ToolCallID: toolCallID, Label: at.label, AgentOwned: true})
		return at
	}
	if m, ok := meta["terminal_info"].(map[string]any); ok {
		if id, _ := m["terminal_id"].(string); id != "" {
			ensure(id)
		}
	}
	if m, ok := meta["terminal_output"].(map[string]any); ok {
		id, _ := m["terminal_id"].(string)
		data, _ := m["data"].(string)
		if id != "" {
			// Data after the output was taken from rawOutput would repeat it: dropped.
			if at := ensure(id); at != nil && data != "" && !at.fromRaw {
				at.gotData = true
				b := at.crlf(data)
				at.screen.Write(b)
				_, _ = at.tr.Write([]byte(data))
			}
		}
	}
	if m, ok := meta["terminal_exit"].(map[string]any); ok {
		if id, _ := m["terminal_id"].(string); id != "" {
			if at := ensure(id); at != nil && (!at.exited || at.endedUnknown) {
				var st terminals.ExitStatus
				if f, ok := m["exit_code"].(float64); ok && f >= 0 {
					code := int(f)
					st.Code = &code
				}
				if s, ok := m["signal"].(string); ok && s != "" {
					st.Signal = s
					st.Code = nil
				}
				evs = append(evs, at.reportExit(st)...)
			}
		}
	}
	return evs
}

// retitleAgentTermsLocked makes the labels of the agent-owned terminals of a tool call follow
// it: claude-agent-acp 0.23.1 announces the terminal on a tool_call titled "Terminal" and sends
// the real title and rawInput.command in later tool_call_updates. A terminal whose label
// (toolLabel: the command, else the title) changed to a non-empty one gets a TerminalRetitled.
func (c *Client) retitleAgentTermsLocked(toolCallID string, ti *ToolCall) []Event {
	if len(c.agentTerms) == 0 || toolCallID == "" {
		return nil
	}
	label := toolLabel(ti)
	if label == "" {
		return nil
	}
	var evs []Event
	for _, at := range c.agentTerms {
		if at.toolCallID == toolCallID && at.label != label {
			at.label = label
			evs = append(evs, TerminalRetitled{ID: at.id, Label: label})
		}
	}
	return evs
}

// rawOutputFallbackLocked fills the agent-owned terminals of a tool call that just finished
// (status completed or failed) and never received `_meta.terminal_output` data from its
// rawOutput: codex-acp loses the first output chunk, so a short command's pane would stay empty
// although rawOutput has the output. The text is rawOutput.aggregated_output, else stdout then
// stderr (strings); the screen gets it with "\n" as "\r\n", the transcript as is. When no
// `_meta.terminal_exit` came, rawOutput.exit_code (a number) is reported as TerminalExited.
// Terminals that received data are left alone (no duplicated output).
func (c *Client) rawOutputFallbackLocked(toolCallID string, status acp.ToolCallStatus, rawOutput any) []Event {
	if status != acp.ToolCallStatusCompleted && status != acp.ToolCallStatusFailed {
		return nil
	}
	m, ok := rawOutput.(map[string]any)
	if !ok || len(c.agentTerms) == 0 || toolCallID == "" {
		return nil
	}
	text, ok := m["aggregated_output"].(string)
	if !ok {
		stdout, _ := m["stdout"].(string)
		stderr, _ := m["stderr"].(string)
		text = stdout + stderr
	}
	var evs []Event
	for _, at := range c.agentTerms {
		if at.toolCallID != toolCallID {
			continue
		}
		if !at.gotData && !at.fromRaw && text != "" {
			at.fromRaw = true
			at.screen.Write(at.crlf(text))
			_, _ = at.tr.Write([]byte(text))
		}
		if f, ok := m["exit_code"].(float64); ok && (!at.exited || at.endedUnknown) && f >= 0 && f == float64(int(f)) {
			code := int(f)
			evs = append(evs, at.reportExit(terminals.ExitStatus{Code: &code})...)
		}
	}
	return evs
}

// crlf turns lone "\n" into "\r\n" for the emulator (agents send output with bare newlines).
func (at *agentTerm) crlf(s string) []byte {
	b := make([]byte, 0, len(s)+len(s)/16)
	prevCR := at.lastCR
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\n' && !prevCR {
			b = append(b, '\r')
		}
		b = append(b, ch)
		prevCR = ch == '\r'
	}
	at.lastCR = prevCR
	return b
}

// toolLabel is how a person should read a tool call's command: rawInput.command, else the title.
func toolLabel(ti *ToolCall) string {
	if cmd, argv := commandOf(ti.RawInput); cmd != "" {
		return cmd
	} else if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") && strings.HasSuffix(argv[0], "sh") {
		return argv[2] // codex-acp: ["/bin/bash","-lc",LINE]
	} else if len(argv) > 0 {
		return strings.Join(argv, " ")
	}
	return ti.Title
}

// endAgentTerms marks every agent-owned terminal without an exit status as ended (the turn
// ended or the agent is gone; see endAgentTermsLocked) and emits their TerminalExited.
func (c *Client) endAgentTerms() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ev := range c.endAgentTermsLocked("") {
		c.q.push(ev)
	}
}

// closeAgentScreens ends the reply goroutines of agent-owned screens (they stay drawable).
func (c *Client) closeAgentScreens() {
	c.mu.Lock()
	ats := slices.Collect(maps.Values(c.agentTerms))
	c.mu.Unlock()
	for _, at := range ats {
		_ = at.screen.Close()
	}
}

// AgentTerminalOutput returns the plain-text transcript of an agent-owned terminal, by its
// acpterm id (AgentTerminalID of the agent's id, as in TerminalStarted.ID).
func (c *Client) AgentTerminalOutput(id string) (text string, truncated bool, ok bool) {
	c.mu.Lock()
	at := c.agentTerms[id]
	c.mu.Unlock()
	if at == nil {
		return "", false, false
	}
	text, truncated = at.tr.Snapshot()
	return text, truncated, true
}

// Screen returns the screen of a terminal by its id in events: a client-owned terminal
// (terminal/create; it stays available after release with its final screen) or an agent-owned
// one (`_meta`; its id is AgentTerminalID of the agent's id, so the two never collide).
func (c *Client) Screen(terminalID string) (*terminals.Screen, bool) {
	c.mu.Lock()
	at := c.agentTerms[terminalID]
	ct := c.terms[terminalID]
	c.mu.Unlock()
	if at != nil {
		return at.screen, true
	}
	if ct != nil {
		return ct.t.Screen(), true
	}
	return nil, false
}

// metaNotices turns what an agent reports in a session_info_update's _meta into Notices: an
// "error" object (codex-acp: `_meta.codex.error` {message, willRetry}, e.g. "Reconnecting...
// 2/5") is a warning while the agent retries and an error otherwise; a "notice" object
// ({severity, title, description}) is a notice of its severity. Other _meta is ignored.
func metaNotices(meta map[string]any) []Event {
	var out []Event
	var walk func(m map[string]any, depth int)
	walk = func(m map[string]any, depth int) {
		if depth > 3 {
			return
		}
		for k, v := range m {
			sub, ok := v.(map[string]any)
			switch {
			case k == "error" && ok:
				msg, _ := sub["message"].(string)
				if msg == "" {
					continue
				}
				level := "error"
				if retry, _ := sub["willRetry"].(bool); retry {
					level = "warning"
				}
				out = append(out, Notice{Level: level, Text: "agent: " + clip(msg, 500)})
			case k == "error":
				if msg, _ := v.(string); msg != "" {
					out = append(out, Notice{Level: "error", Text: "agent: " + clip(msg, 500)})
				}
			case (k == "notice" || k == "warning") && ok:
				title, _ := sub["title"].(string)
				desc, _ := sub["description"].(string)
				text := strings.TrimSpace(strings.Join([]string{title, desc}, ": "))
				text = strings.Trim(text, ": ")
				if text == "" {
					continue
				}
				level, _ := sub["severity"].(string)
				if level == "" {
					level = "info"
				}
				out = append(out, Notice{Level: level, Text: "agent: " + clip(text, 500)})
			case ok:
				walk(sub, depth+1)
			}
		}
	}
	walk(meta, 0)
	return out
}
