package acpclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coder/acp-go-sdk"
	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// clientTerm is a terminal created by terminal/create for this session.
type clientTerm struct {
	t        *terminals.Terminal
	released bool
}

// Error codes acpterm answers with (ACP §9.1).
const (
	codeInvalidParams    = -32602
	codeInternal         = -32603
	codeResourceNotFound = -32002
)

func reqErr(code int, format string, a ...any) *acp.RequestError {
	return &acp.RequestError{Code: code, Message: fmt.Sprintf(format, a...)}
}

// deniedErr is the JSON-RPC error for a policy (or user) refusal; the message names the rule
// and the leaf that decided.
func deniedErr(what string, d permissions.Decision, by string) *acp.RequestError {
	msg := fmt.Sprintf("acpterm %s denied %s", by, what)
	if d.Reason != "" {
		msg += ": " + d.Reason
	}
	data := map[string]any{"rule": d.Rule}
	if d.Rule != "" {
		msg += " (rule: " + d.Rule
		if leaf := decidingLeaf(d); leaf != "" {
			msg += "; command: " + leaf
			data["leaf"] = leaf
		}
		msg += ")"
	}
	return &acp.RequestError{Code: codeInternal, Message: msg, Data: data}
}

// refuser names who refused a question in a denial message: "user" for a person, "headless
// --approve" when headless answered by its flag (Answer.By "approve-flag"), else the By value.
func refuser(by string) string {
	switch by {
	case "", "user":
		return "user"
	case "approve-flag":
		return "headless --approve"
	}
	return by
}

// errCancelled answers a request whose question was cancelled (turn cancelled, agent gone,
// shutdown) with -32800 (ACP §6.2: internal cancellations use "Request cancelled").
func errCancelled(what string) *acp.RequestError {
	return &acp.RequestError{Code: -32800, Message: "Request cancelled: " + what + " was not run because the turn was cancelled"}
}

// decidingLeaf is the first leaf with the decision's verdict, as words.
func decidingLeaf(d permissions.Decision) string {
	for _, l := range d.Leaves {
		if l.Verdict == d.Verdict {
			via := l.Via
			if d.Shell && len(via) > 0 && strings.HasSuffix(via[0], " -c") {
				via = via[1:] // acpterm's own /bin/sh -c around a shell line
			}
			return strings.Join(append(append([]string(nil), via...), l.Argv...), " ")
		}
	}
	return ""
}

// ---- fs/* -----------------------------------------------------------------------------------

// ReadTextFile implements acp.Client (fs/read_text_file): absolute path required (-32602),
// DecideRead (deny → error naming the rule; ask → PermissionAsked kind "read"), then the
// engine's confined read. Missing file → -32002; invalid line/limit or not a regular file →
// -32602.
func (c *Client) ReadTextFile(ctx context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if c.o.Engine == nil {
		return acp.ReadTextFileResponse{}, acp.NewMethodNotFound("fs/read_text_file")
	}
	if err := c.checkSession(p.SessionId); err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	if !filepath.IsAbs(p.Path) {
		return acp.ReadTextFileResponse{}, reqErr(codeInvalidParams, "fs/read_text_file: path %q is not absolute", p.Path)
	}
	d := c.o.Engine.DecideRead(p.Path)
	if c.o.Sandbox != nil && !c.o.Sandbox.MayRead(p.Path) {
		d = permissions.Decision{Verdict: permissions.Deny, Rule: "sandbox: masked", Reason: "the sandboxed agent may not read it (masked in its sandbox)"}
	}
	if err := c.gate(ctx, "read", d, p.Path, nil, ""); err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	text, err := c.o.Engine.ReadFile(p.Path, p.Line, p.Limit)
	if err != nil {
		if errors.Is(err, permissions.ErrOutside) {
			c.refusedFile("read", p.Path, err.Error(), "")
		}
		if errors.Is(err, permissions.ErrNotFound) && c.info.Family == FamilyGemini {
			// gemini-cli reads a file before writing it and takes only a thrown Error naming
			// ENOENT as "new file"; its ACP connection rejects with the plain JSON-RPC error
			// object, so any error fails the write. An allowed read of a missing file is
			// therefore answered as an empty file for gemini-cli only.
			c.log.Debug("fs/read_text_file: missing file answered empty for gemini-cli", "path", p.Path)
			return acp.ReadTextFileResponse{Content: ""}, nil
		}
		return acp.ReadTextFileResponse{}, fileErr("fs/read_text_file", err)
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile implements acp.Client (fs/write_text_file): absolute path required, DecideWrite
// (ask → PermissionAsked kind "write" with the Diff), the engine's confined write (temp +
// rename), then FileWritten with the old and new text. An empty content (which the SDK would
// reject) reaches it through the wire reader (writeEmptyFile).
func (c *Client) WriteTextFile(ctx context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if c.o.Engine == nil {
		return acp.WriteTextFileResponse{}, acp.NewMethodNotFound("fs/write_text_file")
	}
	if err := c.checkSession(p.SessionId); err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	if !filepath.IsAbs(p.Path) {
		return acp.WriteTextFileResponse{}, reqErr(codeInvalidParams, "fs/write_text_file: path %q is not absolute", p.Path)
	}
	d := c.o.Engine.DecideWrite(p.Path)
	if c.o.Sandbox != nil && !c.o.Sandbox.MayWrite(p.Path) {
		d = permissions.Decision{Verdict: permissions.Deny, Rule: "sandbox: read-only", Reason: "the sandboxed agent may not write there (outside its writable paths, or protected)"}
	}
	key := "write:" + filepath.Clean(p.Path)
	c.mu.Lock()
	if c.written != nil {
		c.written[filepath.Clean(p.Path)] = true
	}
	a := c.approved[key]
	c.mu.Unlock()
	approver := ""
	var diff *FileDiff
	if d.Verdict == permissions.Ask && a != nil && c.claimApproval(key, a) {
		// The user approved the agent's edit tool call for this path in this turn: not again
		// (allow_once covers one write, allow_always every write of the turn).
		d.Verdict = permissions.Allow
		d.Rule = "approved tool call"
		approver = a.by
	}
	if d.Verdict == permissions.Ask {
		diff = &FileDiff{Path: p.Path, NewText: p.Content}
		if old, err := c.o.Engine.ReadFile(p.Path, nil, nil); err == nil {
			diff.OldText, diff.Existed = old, true
		} else if !errors.Is(err, permissions.ErrNotFound) {
			diff.Existed = true // unreadable, but there
		}
	}
	if err := c.gate(ctx, "write", d, p.Path, diff, approver); err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	old, existed, err := c.o.Engine.WriteFile(p.Path, p.Content)
	if err != nil {
		if errors.Is(err, permissions.ErrOutside) {
			c.refusedFile("write", p.Path, err.Error(), "")
		}
		return acp.WriteTextFileResponse{}, fileErr("fs/write_text_file", err)
	}
	fw := FileWritten{Diff: FileDiff{Path: p.Path, OldText: old, NewText: p.Content, Existed: existed}}
	if d.Path != "" && d.Path != filepath.Clean(p.Path) {
		fw.Diff.Real = d.Path
	}
	c.q.push(fw)
	return acp.WriteTextFileResponse{}, nil
}

// gate applies a file decision: allow passes, deny fails, ask asks (headless: Approve).
// approver is who approved the agent's tool call for this path this turn (d.Rule "approved tool
// call"; "" means "user").
func (c *Client) gate(ctx context.Context, kind string, d permissions.Decision, path string, diff *FileDiff, approver string) error {
	switch d.Verdict {
	case permissions.Allow:
		by := "policy"
		if d.Rule == "approved tool call" {
			by = approver
			if by == "" {
				by = "user"
			}
		}
		c.audit(kind, &d, by, "allow")
		return nil
	case permissions.Ask:
		title := kind + " " + path
		req := c.ask(PermissionAsked{Kind: kind, Policy: &d, Diff: diff,
			ToolCall: acp.ToolCallUpdate{Title: &title, Kind: acp.Ptr(fileKind(kind)), Locations: []acp.ToolCallLocation{{Path: path}}}})
		r, err := c.await(ctx, req)
		if err != nil {
			return err
		}
		if r.cancelled {
			c.audit(kind, &d, "cancel", "deny")
			return errCancelled(kind + " of " + path)
		}
		if r.choice == Deny {
			c.audit(kind, &d, r.by, "deny")
			return deniedErr(kind+" of "+path, d, refuser(r.by))
		}
		if r.choice == AllowSession || r.choice == SaveRule {
			// A grant for exactly this file and operation, for the session or saved.
			if _, err := c.o.Engine.Grant(d, r.choice == SaveRule); err != nil {
				c.q.push(Notice{Level: "warn", Text: "could not remember the approval: " + err.Error()})
			}
		}
		c.audit(kind, &d, r.by, "allow")
		return nil
	default:
		c.audit(kind, &d, "policy", "deny")
		c.refusedFile(kind, path, d.Reason, d.Rule)
		return deniedErr(kind+" of "+path, d, "policy")
	}
}

// refusedFile tells the user that the policy refused the agent's file access, like the notice
// for a refused terminal/create: Notice{warn, `refused write of "PATH": REASON (rule: RULE)`}
// (kind "read" or "write"; the path as the agent named it, quoted).
func (c *Client) refusedFile(kind, path, reason, rule string) {
	text := fmt.Sprintf("refused %s of %s: %s", kind, strconvQuote(path), reason)
	if rule != "" {
		text += " (rule: " + rule + ")"
	}
	c.q.push(Notice{Level: "warn", Text: text})
}

func fileKind(kind string) acp.ToolKind {
	if kind == "read" {
		return acp.ToolKindRead
	}
	return acp.ToolKindEdit
}

// fileErr maps the engine's sentinel errors onto JSON-RPC errors.
func fileErr(method string, err error) error {
	switch {
	case errors.Is(err, permissions.ErrNotFound):
		return reqErr(codeResourceNotFound, "%s: resource not found: %v", method, err)
	case errors.Is(err, permissions.ErrInvalid):
		return reqErr(codeInvalidParams, "%s: %v", method, err)
	case errors.Is(err, permissions.ErrOutside):
		return reqErr(codeInternal, "acpterm policy denied %s: %v", method, err)
	default:
		return reqErr(codeInternal, "%s: %v", method, err)
	}
}

// ---- terminal/* -----------------------------------------------------------------------------

// CreateTerminal implements acp.Client (terminal/create). The policy decides first,
// before anything is spawned: deny → an error naming the rule and the leaf, nothing spawned;
// ask → PermissionAsked kind "command" (unless the user already approved this command's tool
// call in this turn; headless: Approve); allow → terminals.Manager.Start with the decided argv,
// cwd and environment, output limit min(outputByteLimit, policy cap). A command without args
// that is a shell line runs via /bin/sh -c (the policy's Decision.Argv). The id is returned at
// once. A relative or non-directory cwd, or a negative limit, is -32602.
func (c *Client) CreateTerminal(ctx context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	if c.o.Engine == nil || c.o.Terminals == nil {
		return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
	}
	if err := c.checkSession(p.SessionId); err != nil {
		return acp.CreateTerminalResponse{}, err
	}
	cwd := ""
	if p.Cwd != nil && *p.Cwd != "" {
		if !filepath.IsAbs(*p.Cwd) {
			return acp.CreateTerminalResponse{}, reqErr(codeInvalidParams, "terminal/create: cwd %q is not absolute", *p.Cwd)
		}
		if st, err := os.Stat(*p.Cwd); err != nil || !st.IsDir() {
			return acp.CreateTerminalResponse{}, reqErr(codeInvalidParams, "terminal/create: cwd %q is not an existing directory", *p.Cwd)
		}
		cwd = *p.Cwd
	}
	if p.OutputByteLimit != nil && *p.OutputByteLimit < 0 {
		return acp.CreateTerminalResponse{}, reqErr(codeInvalidParams, "terminal/create: outputByteLimit %d is negative", *p.OutputByteLimit)
	}
	req := permissions.CommandRequest{Session: c.sid(), Command: p.Command, Args: p.Args, Cwd: cwd}
	for _, e := range p.Env {
		req.Env = append(req.Env, permissions.EnvVar{Name: e.Name, Value: e.Value})
	}
	label := commandLabel(p.Command, p.Args)
	d, toolCallID, _, err := c.decideCommand(ctx, req, "cmd:"+commandKey(p.Command, p.Args), label)
	if err != nil {
		return acp.CreateTerminalResponse{}, err
	}

	limit := d.OutputLimit
	if limit <= 0 {
		limit = c.cfg.Policy.OutputByteLimit
	}
	if p.OutputByteLimit != nil && *p.OutputByteLimit > 0 && (limit <= 0 || *p.OutputByteLimit < limit) {
		limit = *p.OutputByteLimit
	}
	so := terminals.StartOptions{Dir: d.Cwd, Env: d.Env, OutputLimit: limit, KillGrace: c.cfg.Policy.KillGrace, Label: label}
	if len(d.Argv) > 0 {
		so.Argv = d.Argv
	} else if len(p.Args) == 0 {
		so.ShellLine = p.Command
	} else {
		so.Argv = append([]string{p.Command}, p.Args...)
	}
	if so.Dir == "" {
		so.Dir = cwd
		if so.Dir == "" {
			so.Dir = c.o.Cwd
		}
	}
	t, err := c.o.Terminals.Start(so)
	if err != nil {
		return acp.CreateTerminalResponse{}, reqErr(codeInternal, "terminal/create %s: %v", strconvQuote(label), err)
	}
	if err := c.adopt(t, TerminalStarted{ID: t.ID(), ToolCallID: toolCallID, Label: label, Cwd: so.Dir}); err != nil {
		return acp.CreateTerminalResponse{}, err
	}
	return acp.CreateTerminalResponse{TerminalId: t.ID()}, nil
}

// decideCommand decides a command request (terminal/create, or an interactive terminal the
// agent starts through acpterm's MCP tools): deny → an error naming the rule and the leaf
// (denied true); ask → PermissionAsked kind "command" and the wait for the answer, unless the
// user already approved this command's tool call in this turn (key names the approval, label
// is the command as people read it); allow → the decision. It returns the tool call an
// approval belonged to ("" when none).
func (c *Client) decideCommand(ctx context.Context, req permissions.CommandRequest, key, label string) (d permissions.Decision, toolCallID string, denied bool, err error) {
	d = c.o.Engine.DecideCommand(req)
	c.mu.Lock()
	a := c.approved[key]
	c.mu.Unlock()
	approver := "user"
	switch d.Verdict {
	case permissions.Allow:
		if a != nil && c.claimApproval(key, a) {
			toolCallID = a.toolCallID // the approved tool call runs here
		}
		c.audit("exec", &d, "policy", "allow")
	case permissions.Ask:
		approved := a != nil && c.approvalCovers(a, d, req) && c.claimApproval(key, a)
		if approved {
			toolCallID = a.toolCallID
			if a.by != "" {
				approver = a.by
			}
		}
		switch {
		case approved:
			c.audit("exec", &d, approver, "allow")
		default:
			req := c.ask(PermissionAsked{Kind: "command", Policy: &d,
				ToolCall: acp.ToolCallUpdate{Title: &label, Kind: acp.Ptr(acp.ToolKindExecute), RawInput: map[string]any{"command": label}}})
			r, err := c.await(ctx, req)
			if err != nil {
				return d, "", false, err
			}
			if r.cancelled {
				c.audit("exec", &d, "cancel", "deny")
				return d, "", false, errCancelled("command " + strconvQuote(label))
			}
			if r.choice == Deny {
				c.audit("exec", &d, r.by, "deny")
				return d, "", true, deniedErr("command "+strconvQuote(label), d, refuser(r.by))
			}
			if r.choice == AllowSession || r.choice == SaveRule {
				if _, err := c.o.Engine.Grant(d, r.choice == SaveRule); err != nil {
					c.q.push(Notice{Level: "warn", Text: "could not remember the approval: " + err.Error()})
				}
			}
			c.audit("exec", &d, r.by, "allow")
		}
	default:
		c.audit("exec", &d, "policy", "deny")
		c.q.push(Notice{Level: "warn", Text: fmt.Sprintf("refused command %s: %s", strconvQuote(label), d.Reason)})
		return d, "", true, deniedErr("command "+strconvQuote(label), d, "policy")
	}

	return d, toolCallID, false, nil
}

// adopt makes a started terminal one of the session's (released when the session ends) and
// announces it (e: TerminalStarted, then TerminalExited when its process exits). If shutdown
// began meanwhile, the terminal is released and an error returned.
func (c *Client) adopt(t *terminals.Terminal, e TerminalStarted) error {
	c.mu.Lock()
	if c.dead || c.closing {
		// Shutdown began while it started: it must not outlive the session.
		c.mu.Unlock()
		_ = t.Release()
		return reqErr(codeInternal, "terminal/create: acpterm is shutting down")
	}
	c.terms[t.ID()] = &clientTerm{t: t}
	c.q.push(e)
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		<-t.Done()
		st, _ := t.Exit()
		c.reportSwept(t)
		c.q.push(TerminalExited{ID: t.ID(), Status: st})
	}()
	return nil
}

// InteractiveStart is a request for an interactive terminal the agent drives itself (acpterm's
// MCP terminal_start): the exact argv to run, decided by the policy like terminal/create.
type InteractiveStart struct {
	Argv    []string             // what runs, e.g. [bash -l -c "python3 -q"]
	Command string               // the command as the agent gave it (pane label, approval title)
	Cwd     string               // absolute working directory
	Env     []permissions.EnvVar // variables the agent sets (decided by the policy)
	Unset   []string             // variables the agent deletes from the environment
	Size    terminals.Size       // cells
}

// DeniedError is StartInteractive's error when the policy or the user refused the command.
type DeniedError struct {
	Message string // who refused and why, naming the rule
	Rule    string // the deciding rule ("" when none)
}

func (e *DeniedError) Error() string { return e.Message }

// StartInteractive starts an interactive terminal for the agent: the policy decides r.Argv as
// it decides terminal/create (deny → *DeniedError naming the rule, nothing started; ask → the
// approval question, and this call waits for the answer), then the terminal starts through the
// session's terminals.Manager (so under the sandbox, counted by max_terminals) and appears as a
// pane marked Interactive. It is released with the session. Errors: *DeniedError, a cancelled
// question, terminals.ErrTooManyTerminals or another start failure.
func (c *Client) StartInteractive(ctx context.Context, r InteractiveStart) (*terminals.Terminal, error) {
	if c.o.Engine == nil || c.o.Terminals == nil {
		return nil, errors.New("acpclient: terminals are disabled")
	}
	if len(r.Argv) == 0 {
		return nil, errors.New("acpclient: interactive terminal: no command")
	}
	req := permissions.CommandRequest{Session: c.sid(), Command: r.Argv[0], Args: r.Argv[1:], Cwd: r.Cwd, Env: r.Env}
	d, toolCallID, denied, err := c.decideCommand(ctx, req, "cmd:"+commandKey(r.Command, nil), r.Command)
	if err != nil {
		var re *acp.RequestError
		if denied && errors.As(err, &re) {
			return nil, &DeniedError{Message: re.Message, Rule: d.Rule}
		}
		return nil, err
	}
	env := d.Env
	if len(r.Unset) > 0 {
		env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return slices.Contains(r.Unset, name)
		})
	}
	so := terminals.StartOptions{Argv: r.Argv, Dir: d.Cwd, Env: env, Size: r.Size, OutputLimit: c.cfg.Policy.OutputByteLimit,
		KillGrace: c.cfg.Policy.KillGrace, Label: r.Command}
	if len(d.Argv) > 0 {
		so.Argv = d.Argv
	}
	if so.Dir == "" {
		so.Dir = r.Cwd
	}
	t, err := c.o.Terminals.Start(so)
	if err != nil {
		return nil, err
	}
	if err := c.adopt(t, TerminalStarted{ID: t.ID(), ToolCallID: toolCallID, Label: r.Command, Cwd: so.Dir, Interactive: true}); err != nil {
		return nil, err
	}
	return t, nil
}

// approval is a "yes" to one of the agent's session/request_permission questions this turn
// (by a person, headless --approve, or the policy): it covers the turn's terminal/create of the
// same command, or fs/write_text_file of the same path, so nobody is asked twice.
type approval struct {
	toolCallID string // the approved tool call
	by         string // who approved it (PermissionResolved.By)
	// cwd is the real working directory the approved request showed (its rawInput.cwd, else
	// the session cwd), as the policy resolved it; commands only.
	cwd string
	// once: the allow_once option was chosen, so the approval covers exactly one
	// terminal/create (allow_always covers every one of the turn).
	once bool
}

// approvalCovers reports whether an approval of the agent's tool call waives the policy's "ask"
// for terminal/create req (decided as d): only for what the approved request showed. The
// create must run in the cwd the approved request named (none: the session cwd), and the
// environment variables it adds must not raise a question of their own (an added variable
// not on the env allow list is still decided by the policy).
func (c *Client) approvalCovers(a *approval, d permissions.Decision, req permissions.CommandRequest) bool {
	if a.cwd == "" || d.Cwd != a.cwd {
		return false
	}
	if len(req.Env) > 0 {
		bare := req
		bare.Env = nil
		db := c.o.Engine.DecideCommand(bare)
		// The env's own findings come first among equals (permissions.DecideCommand): an env
		// variable that makes the request "ask" shows as a different deciding rule.
		if db.Verdict != d.Verdict || db.Rule != d.Rule || db.Reason != d.Reason {
			return false
		}
	}
	return true
}

// claimApproval takes approval a (still stored under key) for one terminal/create or
// fs/write_text_file: an allow_once approval is used up. False when another request took it
// first.
func (c *Client) claimApproval(key string, a *approval) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.approved[key] != a {
		return false
	}
	if a.once {
		delete(c.approved, key)
	}
	return true
}

// term finds a live (unreleased) terminal of this session.
func (c *Client) term(method string, sid acp.SessionId, id string) (*terminals.Terminal, error) {
	if c.o.Terminals == nil {
		return nil, acp.NewMethodNotFound(method)
	}
	if err := c.checkSession(sid); err != nil {
		return nil, err
	}
	c.mu.Lock()
	ct := c.terms[id]
	released := ct != nil && ct.released
	c.mu.Unlock()
	if ct == nil {
		return nil, reqErr(codeResourceNotFound, "%s: unknown terminal %q", method, id)
	}
	if released || ct.t.Released() {
		return nil, reqErr(codeResourceNotFound, "%s: terminal %q was released", method, id)
	}
	return ct.t, nil
}

func exitStatus(st terminals.ExitStatus) (code *int, signal *string) {
	if st.Signal != "" {
		s := st.Signal
		return nil, &s
	}
	if st.Code != nil && *st.Code >= 0 {
		v := *st.Code
		return &v, nil
	}
	return nil, nil
}

// TerminalOutput implements acp.Client (terminal/output): the terminal's plain-text transcript
// (see terminals.Output), truncated flag, and exitStatus once it exited. Unknown or released
// id → -32002.
func (c *Client) TerminalOutput(_ context.Context, p acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	t, err := c.term("terminal/output", p.SessionId, p.TerminalId)
	if err != nil {
		return acp.TerminalOutputResponse{}, err
	}
	o := t.Output()
	resp := acp.TerminalOutputResponse{Output: o.Text, Truncated: o.Truncated}
	if o.Exit != nil {
		c.reportSwept(t)
		code, sig := exitStatus(*o.Exit)
		resp.ExitStatus = &acp.TerminalExitStatus{ExitCode: code, Signal: sig}
	}
	return resp, nil
}

// WaitForTerminalExit implements acp.Client (terminal/wait_for_exit): blocks until exit; any
// number of concurrent waiters; a release resolves them with the kill's status; a
// $/cancel_request aborts only the wait (-32800), never the process.
func (c *Client) WaitForTerminalExit(ctx context.Context, p acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	t, err := c.term("terminal/wait_for_exit", p.SessionId, p.TerminalId)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	st, err := t.Wait(ctx)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	c.reportSwept(t)
	code, sig := exitStatus(st)
	return acp.WaitForTerminalExitResponse{ExitCode: code, Signal: sig}, nil
}

// KillTerminal implements acp.Client (terminal/kill): SIGTERM to the command's group, grace,
// SIGKILL; returns once it is gone and drained; the terminal stays valid (output, exit status).
// Killing an exited command succeeds.
func (c *Client) KillTerminal(_ context.Context, p acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	t, err := c.term("terminal/kill", p.SessionId, p.TerminalId)
	if err != nil {
		return acp.KillTerminalResponse{}, err
	}
	if err := t.Kill(); err != nil {
		return acp.KillTerminalResponse{}, reqErr(codeInternal, "terminal/kill %q: %v", p.TerminalId, err)
	}
	return acp.KillTerminalResponse{}, nil
}

// ReleaseTerminal implements acp.Client (terminal/release): kills the command if it still runs
// (claude-agent-acp 0.17.1 releases on timeout without kill), resolves waiters, frees the PTY;
// the final screen stays visible (Client.Screen). Idempotent: releasing a released terminal
// succeeds (that agent often releases twice). Unknown id → -32002.
func (c *Client) ReleaseTerminal(_ context.Context, p acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if c.o.Terminals == nil {
		return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
	}
	if err := c.checkSession(p.SessionId); err != nil {
		return acp.ReleaseTerminalResponse{}, err
	}
	c.mu.Lock()
	ct := c.terms[p.TerminalId]
	if ct != nil {
		ct.released = true
	}
	c.mu.Unlock()
	if ct == nil {
		return acp.ReleaseTerminalResponse{}, reqErr(codeResourceNotFound, "terminal/release: unknown terminal %q", p.TerminalId)
	}
	if err := ct.t.Release(); err != nil {
		return acp.ReleaseTerminalResponse{}, reqErr(codeInternal, "terminal/release %q: %v", p.TerminalId, err)
	}
	return acp.ReleaseTerminalResponse{}, nil
}

// releaseTerminals releases (kills) every terminal of the session, in parallel.
func (c *Client) releaseTerminals() {
	c.mu.Lock()
	ts := slices.Collect(maps.Values(c.terms))
	for _, ct := range ts {
		ct.released = true
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, ct := range ts {
		wg.Go(func() { _ = ct.t.Release() })
	}
	wg.Wait()
}

// commandLabel renders a command for people: the shell line as given, or the argv quoted.
func commandLabel(command string, args []string) string {
	if len(args) == 0 {
		return command
	}
	words := []string{quoteWord(command)}
	for _, a := range args {
		words = append(words, quoteWord(a))
	}
	return strings.Join(words, " ")
}

func quoteWord(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return q
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", clip(s, 200)) }
