package acpclient

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/permissions"
)

// pendingReq is one question waiting for an answer (PermissionAsked not yet resolved).
type pendingReq struct {
	id      string
	kind    string // "agent", "command", "write", "read"
	options []acp.PermissionOption
	tool    acp.ToolCallUpdate    // PermissionAsked.ToolCall, repeated in PermissionResolved
	policy  *permissions.Decision // PermissionAsked.Policy (rule and reason for PermissionResolved)
	ch      chan reply            // buffered 1; written exactly once, by whoever resolves
	done    bool
}

// reply is how a pending question was answered.
type reply struct {
	optionID  string // agent requests: the chosen option ("" with cancelled)
	choice    Choice // own prompts
	cancelled bool
	by        string // who answered (Answer.By, "user" when empty)
}

// ask registers a question, emits PermissionAsked and returns the pending request.
func (c *Client) ask(ev PermissionAsked) *pendingReq {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pendSeq++
	ev.ID = fmt.Sprintf("perm-%d", c.pendSeq)
	p := &pendingReq{id: ev.ID, kind: ev.Kind, options: ev.Options, tool: ev.ToolCall, policy: ev.Policy, ch: make(chan reply, 1)}
	if c.dead || c.closing {
		p.done = true
		p.ch <- reply{cancelled: true}
		return p
	}
	if c.inTurn && c.cancelled {
		// The user cancelled this turn: an agent that goes on asking (it has not stopped yet)
		// gets "cancelled" at once; nobody is asked to approve work they stopped (ACP: after
		// session/cancel the client answers permission requests cancelled).
		p.done = true
		p.ch <- reply{cancelled: true, by: "cancel"}
		title := ""
		if ev.ToolCall.Title != nil {
			title = *ev.ToolCall.Title
		}
		c.q.push(Notice{Level: "info", Text: fmt.Sprintf("answered cancelled without asking (the turn was cancelled): %s", clip(title, 120))})
		return p
	}
	c.pend[p.id] = p
	c.q.push(ev)
	return p
}

// await waits for the answer. A cancelled request context ($/cancel_request or disconnect)
// resolves the question as cancelled and returns the context's error (the SDK answers -32800).
func (c *Client) await(ctx context.Context, p *pendingReq) (reply, error) {
	select {
	case r := <-p.ch:
		return r, nil
	case <-ctx.Done():
		c.resolve(p, reply{cancelled: true}, "cancelled", "cancel")
		select {
		case r := <-p.ch:
			if !r.cancelled {
				return r, nil // answered just before the cancel: keep the answer
			}
		default:
		}
		return reply{}, ctx.Err()
	}
}

// resolve answers p once; later calls do nothing. It emits PermissionResolved.
func (c *Client) resolve(p *pendingReq, r reply, outcome, by string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.done {
		return false
	}
	p.done = true
	delete(c.pend, p.id)
	p.ch <- r
	ev := PermissionResolved{ID: p.id, Outcome: outcome, By: by, ToolCall: p.tool}
	if p.policy != nil {
		ev.Rule, ev.Reason = p.policy.Rule, p.policy.Reason
	}
	if p.kind == "agent" && !r.cancelled {
		ev.OptionKind = string(optionKind(p.options, r.optionID))
	}
	c.q.push(ev)
	return true
}

// cancelPending answers every pending question "cancelled" (turn cancel, turn end, agent
// death, shutdown) — exactly once each.
func (c *Client) cancelPending(by string) {
	c.mu.Lock()
	ps := slices.Collect(maps.Values(c.pend))
	c.mu.Unlock()
	for _, p := range ps {
		c.resolve(p, reply{cancelled: true}, "cancelled", by)
	}
	c.cancelElicitations(by)
}

// Answer answers a pending PermissionAsked. For agent requests OptionID must be one of the
// offered ids; an empty OptionID is mapped by Choice (AllowOnce → an allow_once option,
// Deny → a reject_once/reject_always option, else "cancelled"). For acpterm's own prompts
// Choice decides (an empty Choice counts as Deny; AllowSession and SaveRule also grant the
// narrowest rule, for the session or saved, on command prompts).
// Unknown or already resolved ids are ignored; an invalid answer leaves the question pending
// and emits a Notice.
func (c *Client) Answer(requestID string, a Answer) {
	c.mu.Lock()
	p := c.pend[requestID]
	c.mu.Unlock()
	if p == nil {
		c.log.Debug("answer for an unknown or resolved permission request", "id", requestID)
		return
	}
	by := a.By
	if by == "" {
		by = "user"
	}
	if p.kind == "agent" {
		opt := a.OptionID
		if opt != "" && !hasOption(p.options, opt) {
			c.q.push(Notice{Level: "warn", Text: fmt.Sprintf("permission %s: %q is not one of the offered options", requestID, opt)})
			return
		}
		if opt == "" {
			switch a.Choice {
			case AllowOnce:
				opt = pickOption(p.options, acp.PermissionOptionKindAllowOnce)
			case AllowSession, SaveRule:
				opt = pickOption(p.options, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindAllowOnce)
			case Deny:
				opt = pickOption(p.options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways)
			}
		}
		if opt == "" {
			c.resolve(p, reply{cancelled: true, by: by}, "cancelled", by)
			return
		}
		c.resolve(p, reply{optionID: opt, choice: a.Choice, by: by}, opt, by)
		return
	}
	ch := a.Choice
	if ch == "" {
		ch = Deny
	}
	switch ch {
	case AllowOnce, AllowSession, SaveRule:
		c.resolve(p, reply{choice: ch, by: by}, "allow", by)
	default:
		c.resolve(p, reply{choice: Deny, by: by}, "deny", by)
	}
}

func hasOption(opts []acp.PermissionOption, id string) bool {
	for _, o := range opts {
		if string(o.OptionId) == id {
			return true
		}
	}
	return false
}

// pickOption returns the id of the first offered option of the first kind in kinds that has one.
func pickOption(opts []acp.PermissionOption, kinds ...acp.PermissionOptionKind) string {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return string(o.OptionId)
			}
		}
	}
	return ""
}

func optionKind(opts []acp.PermissionOption, id string) acp.PermissionOptionKind {
	for _, o := range opts {
		if string(o.OptionId) == id {
			return o.Kind
		}
	}
	return ""
}

// RequestPermission implements acp.Client (session/request_permission). The policy answers
// what it can: an execute tool call's command (rawInput.command as
// a string or an argv array) goes through DecideCommand, an edit tool call with paths through
// DecideWrite; allow → an allow_once option, deny → a reject_once/reject_always option (else
// "cancelled"), never options[0]. Otherwise (or on "ask") the user is asked with every option
// (headless: Options.Approve). A request may arrive before its tool call, with only rawInput.
func (c *Client) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if err := c.checkSession(p.SessionId); err != nil {
		return acp.RequestPermissionResponse{}, err
	}
	tcID := string(p.ToolCall.ToolCallId)
	c.mu.Lock()
	var ti ToolCall
	if tcID != "" {
		known := c.toolLocked(tcID)
		known.asked = true
		ti = *known
	}
	c.mu.Unlock()
	// The request's own fields win over what updates said.
	mergeToolCallUpdate(&ti, &p.ToolCall)
	if tcID != "" {
		// The request may be the first to name the command (claude-agent-acp announces its
		// terminal as "Terminal"): its panes get the command as their label now.
		c.mu.Lock()
		for _, ev := range c.retitleAgentTermsLocked(tcID, &ti) {
			c.q.push(ev)
		}
		c.mu.Unlock()
	}
	d, approveKeys, files := c.decideToolCall(&ti)

	selected := func(id, by string) (acp.RequestPermissionResponse, error) {
		if k := optionKind(p.Options, id); k == acp.PermissionOptionKindAllowOnce || k == acp.PermissionOptionKindAllowAlways {
			c.mu.Lock()
			for _, key := range approveKeys {
				a := &approval{toolCallID: tcID, by: by, once: k == acp.PermissionOptionKindAllowOnce}
				if d != nil {
					a.cwd = d.Cwd
				}
				c.approved[key] = a
			}
			c.mu.Unlock()
		}
		c.audit("permission", d, by, optionKind(p.Options, id))
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(acp.PermissionOptionId(id))}, nil
	}
	cancelled := func(by string) (acp.RequestPermissionResponse, error) {
		c.audit("permission", d, by, "cancelled")
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	// policyAnswer resolves without asking; it is reported as PermissionResolved{By: by} only.
	policyAnswer := func(allow bool, by string) (acp.RequestPermissionResponse, error, bool) {
		var id string
		if allow {
			id = pickOption(p.Options, acp.PermissionOptionKindAllowOnce)
			if id == "" && d != nil && d.Grant != "" {
				// The user's own "always" made the grant: the agent's allow_always matches it.
				id = pickOption(p.Options, acp.PermissionOptionKindAllowAlways)
			}
			if id == "" {
				return acp.RequestPermissionResponse{}, nil, false // no allow_once: ask
			}
		} else {
			id = pickOption(p.Options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways)
		}
		c.mu.Lock()
		c.pendSeq++
		rid := fmt.Sprintf("perm-%d", c.pendSeq)
		c.mu.Unlock()
		ev := PermissionResolved{ID: rid, Outcome: "cancelled", By: by, ToolCall: resolvedToolCall(p.ToolCall, &ti)}
		if d != nil {
			ev.Rule, ev.Reason = d.Rule, d.Reason
		}
		if id == "" {
			c.q.push(ev)
			r, err := cancelled(by)
			return r, err, true
		}
		ev.Outcome, ev.OptionKind = id, string(optionKind(p.Options, id))
		c.q.push(ev)
		r, err := selected(id, by)
		return r, err, true
	}

	if d != nil {
		switch d.Verdict {
		case permissions.Allow:
			if r, err, ok := policyAnswer(true, "policy"); ok {
				return r, err
			}
		case permissions.Deny:
			r, err, _ := policyAnswer(false, "policy")
			c.q.push(Notice{Level: "warn", Text: fmt.Sprintf("refused %q: %s", toolLabel(&ti), d.Reason)})
			return r, err
		}
	}
	req := c.ask(PermissionAsked{Kind: "agent", ToolCall: p.ToolCall, Options: p.Options, Policy: d, Diff: c.proposedDiff(&ti)})
	r, err := c.await(ctx, req)
	if err != nil {
		c.audit("permission", d, "cancel", "cancelled")
		return acp.RequestPermissionResponse{}, err
	}
	if r.cancelled {
		if r.by != "" {
			// Answered "cancelled" (no option fit the answer), not cancelled by the turn.
			return cancelled(r.by)
		}
		return cancelled("cancel")
	}
	if optionKind(p.Options, r.optionID) == acp.PermissionOptionKindAllowAlways || r.choice == SaveRule {
		c.rememberAlways(&ti, d, approveKeys, files, r.choice == SaveRule)
	}
	return selected(r.optionID, r.by)
}

// resolvedToolCall is the request's tool call for PermissionResolved: the request's own fields,
// with title, kind, rawInput and locations taken from what earlier updates said (ti) when the
// request left them out.
func resolvedToolCall(req acp.ToolCallUpdate, ti *ToolCall) acp.ToolCallUpdate {
	tc := req
	if tc.Title == nil && ti.Title != "" {
		tc.Title = acp.Ptr(ti.Title)
	}
	if tc.Kind == nil && ti.Kind != "" {
		tc.Kind = acp.Ptr(ti.Kind)
	}
	if tc.RawInput == nil {
		tc.RawInput = ti.RawInput
	}
	if tc.Locations == nil {
		tc.Locations = ti.Locations
	}
	return tc
}

// rememberAlways turns the user's "always" for an agent request into acpterm's own grant, so
// that the same request is answered by the policy from then on, without a dialog, whether or not
// the agent remembers the choice itself (it still gets its allow_always option). A command the
// policy asks about gets the narrowest command grant (its exact argv and resolved program),
// which also covers the agent's later terminal/create of it; each file an edit, delete or move
// tool call touches gets a grant for that tool kind and exact path (permissions.GrantTool).
// Grants last for the session, or are saved with save; each one is audited. A request the
// policy cannot judge (no command, no path) or would not grant (a shell, a build runner, a
// protected path …) is reported as still asked, never fatal.
func (c *Client) rememberAlways(ti *ToolCall, d *permissions.Decision, keys []string, files []permissions.Decision, save bool) {
	if d == nil || c.o.Engine == nil {
		return
	}
	if d.Verdict == permissions.Ask && len(keys) == 1 && strings.HasPrefix(keys[0], "cmd:") {
		if _, err := c.o.Engine.Grant(*d, save); err != nil {
			c.q.push(Notice{Level: "info", Text: "acpterm will still ask about this command: " + err.Error()})
		}
		return
	}
	for _, fd := range files {
		if fd.Verdict != permissions.Ask {
			continue // allowed already (by the policy or an earlier grant); a deny never gets here
		}
		if _, err := c.o.Engine.GrantTool(fileTool(ti.Kind), fd, save); err != nil {
			c.q.push(Notice{Level: "info", Text: "acpterm will still ask about this file: " + err.Error()})
		}
	}
}

// fileTool is the tool kind a file tool call is judged and granted as: its own, or edit when
// the agent sent none.
func fileTool(k acp.ToolKind) string {
	if k == "" {
		return string(acp.ToolKindEdit)
	}
	return string(k)
}

// decideToolCall runs the policy on a tool call the agent asks about. It returns nil when the
// policy cannot judge it (the user decides), and the keys under which an approval covers the
// turn's later terminal/create of the same command ("cmd:…") or fs/write_text_file of the same
// paths ("write:…"). For an edit, delete or move it also returns each path's own decision
// (files; the returned decision is the worst of them), in which a grant made from the agent's
// "always" for that tool kind and path turns the ask into allow
// (permissions.Engine.DecideToolWrite). A call with no kind but a command in rawInput is judged
// as execute (claude-agent-acp 0.17.1 sends no kind); one with no kind and file paths as an edit.
func (c *Client) decideToolCall(ti *ToolCall) (*permissions.Decision, []string, []permissions.Decision) {
	if c.o.Engine == nil {
		return nil, nil, nil
	}
	cmd, argv := commandOf(ti.RawInput)
	hasCmd := cmd != "" || len(argv) > 0
	from, cwd := "rawInput.command", c.cwdOf(ti.RawInput)
	if !hasCmd && ti.Kind == acp.ToolKindExecute {
		// gemini-cli sends an execute request whose command is only the tool call's title
		// ("CMD [in DIR] (DESCRIPTION)"); it is judged like any other line, so deny rules
		// still apply. With no title either, nothing is judged and the user decides.
		var dir string
		cmd, dir = commandFromTitle(ti.Title, ti.Content)
		hasCmd, from = cmd != "", "title"
		if dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(c.o.Cwd, dir)
			}
			cwd = dir
		}
	}
	switch {
	case hasCmd && (ti.Kind == acp.ToolKindExecute || ti.Kind == "" || ti.Kind == acp.ToolKindOther):
		// The agent's own tool runs the line (in bash, or the user's zsh): judged as bash,
		// with zsh-only constructs asked about.
		req := permissions.CommandRequest{Session: c.sid(), Command: cmd, Cwd: cwd, Dialect: permissions.DialectBash}
		if len(argv) > 0 {
			req.Command, req.Args = argv[0], argv[1:]
		}
		d := c.o.Engine.DecideCommand(req)
		d.Judged, d.JudgedFrom = cmd, from
		if len(argv) > 0 {
			d.Judged = strings.Join(argv, " ")
		}
		return &d, []string{"cmd:" + commandKey(req.Command, req.Args)}, nil
	case ti.Kind == acp.ToolKindEdit || ti.Kind == acp.ToolKindDelete || ti.Kind == acp.ToolKindMove || (ti.Kind == "" && !hasCmd):
		paths := c.pathsOf(ti)
		if len(paths) == 0 {
			return nil, nil, nil
		}
		var worst *permissions.Decision
		var keys []string
		var files []permissions.Decision
		for _, p := range paths {
			d := c.o.Engine.DecideToolWrite(fileTool(ti.Kind), p)
			files = append(files, d)
			if worst == nil || permissions.Max(worst.Verdict, d.Verdict) != worst.Verdict {
				dd := d
				worst = &dd
			}
			keys = append(keys, "write:"+p)
		}
		return worst, keys, files
	}
	return nil, nil, nil
}

// proposedDiff previews an edit tool call's change for the question: rawInput content (Write)
// or old_string/new_string (Edit) applied to the current file. nil when it cannot tell.
func (c *Client) proposedDiff(ti *ToolCall) *FileDiff {
	m, ok := ti.RawInput.(map[string]any)
	if !ok || c.o.Engine == nil {
		return nil
	}
	paths := c.pathsOf(ti)
	if len(paths) != 1 {
		return nil
	}
	d := &FileDiff{Path: paths[0]}
	if old, err := c.o.Engine.ReadFile(paths[0], nil, nil); err == nil {
		d.OldText, d.Existed = old, true
	}
	if content, ok := m["content"].(string); ok {
		d.NewText = content
		return d
	}
	oldS, ok1 := m["old_string"].(string)
	newS, ok2 := m["new_string"].(string)
	if !ok1 || !ok2 || !d.Existed || oldS == "" || !strings.Contains(d.OldText, oldS) {
		return nil
	}
	if all, _ := m["replace_all"].(bool); all {
		d.NewText = strings.ReplaceAll(d.OldText, oldS, newS)
	} else {
		d.NewText = strings.Replace(d.OldText, oldS, newS, 1)
	}
	return d
}

// commandOf extracts rawInput.command: a shell line (string) or an argv array (codex-acp sends
// ["/bin/bash","-lc","…"]).
func commandOf(raw any) (line string, argv []string) {
	m, ok := raw.(map[string]any)
	if !ok {
		return "", nil
	}
	switch v := m["command"].(type) {
	case string:
		return strings.TrimSpace(v), nil
	case []any:
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				return "", nil
			}
			argv = append(argv, s)
		}
		return "", argv
	}
	return "", nil
}

// commandFromTitle takes the command of an execute tool call that carries it only in its
// title, as gemini-cli does: "CMD", "CMD [in DIR]", "CMD (DESCRIPTION)" or both, where
// DESCRIPTION is also the tool call's text content. The suffixes are removed only when they are
// exactly that: " [in DIR]" (DIR returned) and " (TEXT)" with TEXT equal to a text content
// block, so a command that itself ends in ")" is judged whole.
func commandFromTitle(title string, content []acp.ToolCallContent) (cmd, dir string) {
	// A title in backquotes (`CMD`) is the command as the user reads it.
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(title), "`"))
	for _, ct := range content {
		if ct.Content == nil || ct.Content.Content.Text == nil {
			continue
		}
		desc := strings.TrimSpace(ct.Content.Content.Text.Text)
		if desc == "" {
			continue
		}
		for _, d := range []string{desc, strings.ReplaceAll(desc, "\n", " ")} {
			if strings.HasSuffix(t, " ("+d+")") {
				t = strings.TrimSpace(strings.TrimSuffix(t, " ("+d+")"))
				break
			}
		}
	}
	if strings.HasSuffix(t, "]") {
		if i := strings.LastIndex(t, " [in "); i > 0 {
			dir = t[i+len(" [in ") : len(t)-1]
			t = strings.TrimSpace(t[:i])
		}
	}
	return t, dir
}

// commandKey normalises a command for the per-turn approval memory.
func commandKey(command string, args []string) string {
	if len(args) == 0 {
		return strings.Join(strings.Fields(command), " ")
	}
	return strings.Join(append([]string{command}, args...), "\x00")
}

// cwdOf returns rawInput.cwd when it is an absolute path, else "" (session cwd).
func (c *Client) cwdOf(raw any) string {
	if m, ok := raw.(map[string]any); ok {
		if s, ok := m["cwd"].(string); ok && filepath.IsAbs(s) {
			return s
		}
	}
	return ""
}

// pathsOf collects the files an edit tool call touches: locations, diff content, and
// rawInput file_path/path/filePath/abs_path; relative paths are taken from the session cwd.
func (c *Client) pathsOf(ti *ToolCall) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.o.Cwd, p)
		}
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, l := range ti.Locations {
		add(l.Path)
	}
	for _, ct := range ti.Content {
		if ct.Diff != nil {
			add(ct.Diff.Path)
		}
	}
	if m, ok := ti.RawInput.(map[string]any); ok {
		for _, k := range []string{"file_path", "path", "filePath", "abs_path", "notebook_path"} {
			if s, ok := m[k].(string); ok {
				add(s)
			}
		}
	}
	return out
}

// audit records a decision in the audit log (if the engine has one). what is the outcome
// (option kind, "cancelled", "allow", "deny").
func (c *Client) audit(kind string, d *permissions.Decision, by string, what any) {
	if c.o.Engine == nil {
		return
	}
	var dd permissions.Decision
	if d != nil {
		dd = *d
	}
	switch fmt.Sprint(what) {
	case "allow", string(acp.PermissionOptionKindAllowOnce), string(acp.PermissionOptionKindAllowAlways):
		dd.Verdict = permissions.Allow
	default:
		dd.Verdict = permissions.Deny
	}
	if by == "headless" {
		by = "policy"
	}
	ev := permissions.NewAuditEvent(kind, dd, by)
	ev.Session = c.sid()
	if err := c.o.Engine.Record(ev); err != nil {
		c.log.Warn("audit log write failed", "err", err)
	}
}

func (c *Client) sid() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// checkSession rejects requests for another session (the SDK does not check that a request's session is ours).
func (c *Client) checkSession(id acp.SessionId) error {
	if s := c.sid(); s == "" || string(id) != s {
		return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown sessionId %q", id)})
	}
	return nil
}
