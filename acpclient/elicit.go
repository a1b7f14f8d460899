package acpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/permissions"
)

// ElicitationAsked means the agent asks the user for input (ACP elicitation/create): a form to
// fill in or a URL to visit. Answer it with Client.AnswerElicitation(ID, …); it is followed
// exactly once by an ElicitationResolved with the same ID.
type ElicitationAsked struct {
	// ID identifies the request for Client.AnswerElicitation; unique within the client.
	ID string
	// Elicitation is the parsed request.
	Elicitation Elicitation
}

// ElicitationResolved ends an ElicitationAsked: Action is ElicitAccept, ElicitDecline or
// ElicitCancel; By says who answered ("user", the Answer's By such as "answer-flag", "headless",
// "cancel" for turn cancellation, turn end, agent exit or shutdown); Fields are the names of the
// fields the accepted content holds (never their values).
type ElicitationResolved struct {
	ID, Action, By string
	Fields         []string
}

// ElicitationCompleted reports the agent's elicitation/complete: the out-of-band interaction of
// the URL elicitation ElicitationID finished.
type ElicitationCompleted struct {
	ElicitationID string
}

func (ElicitationAsked) isEvent()     {}
func (ElicitationResolved) isEvent()  {}
func (ElicitationCompleted) isEvent() {}

// ElicitationAnswer answers an ElicitationAsked: Action ElicitAccept (with Content, the field
// values typed as ElicitationField.ParseText returns them; ignored for a URL elicitation),
// ElicitDecline or ElicitCancel. By is who answered ("" = "user").
type ElicitationAnswer struct {
	Action  string
	Content map[string]any
	By      string
}

// ErrNoElicitation: AnswerElicitation named a request that is not pending (never asked, or
// already answered or cancelled).
var ErrNoElicitation = errors.New("acpclient: no such pending elicitation")

// pendingElicit is one elicitation/create waiting for its answer.
type pendingElicit struct {
	id    string
	seq   int
	rpcID json.RawMessage
	e     Elicitation
	done  bool
}

type elicitations struct {
	mu   sync.Mutex
	seq  int
	pend map[string]*pendingElicit
}

// elicitCaps is the elicitation capability acpterm declares: forms and URLs (ACP
// clientCapabilities.elicitation).
func elicitCaps() *acp.ElicitationCapabilities {
	return &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}, Url: &acp.ElicitationUrlCapabilities{}}
}

// onElicitation handles an elicitation/create request in the wire reader (in line order, after
// the updates before it). The SDK never sees it: its form type drops the properties' order and
// the session scope. Malformed requests are answered with -32602 and a Notice.
func (c *Client) onElicitation(env envelope) {
	e, err := ParseElicitation(env.Params)
	if err == nil && e.SessionID != "" {
		if s := c.sid(); s != "" && s != e.SessionID {
			err = fmt.Errorf("elicitation/create: unknown sessionId %q", e.SessionID)
		}
	}
	if err != nil {
		c.log.Warn("elicitation/create refused", "err", err)
		c.q.push(Notice{Level: "warn", Text: "the agent's question could not be shown: " + err.Error()})
		c.writeRPC(env.ID, nil, &acp.RequestError{Code: -32602, Message: "Invalid params", Data: map[string]any{"error": err.Error()}})
		return
	}
	c.el.mu.Lock()
	if c.el.pend == nil {
		c.el.pend = map[string]*pendingElicit{}
	}
	c.el.seq++
	p := &pendingElicit{id: fmt.Sprintf("elicit-%d", c.el.seq), seq: c.el.seq, rpcID: append(json.RawMessage(nil), env.ID...), e: e}
	c.mu.Lock()
	gone := c.dead || c.closing
	c.mu.Unlock()
	if !gone {
		c.el.pend[p.id] = p
	}
	c.el.mu.Unlock()
	c.log.Info("elicitation asked", "id", p.id, "mode", e.Mode, "fields", len(e.Fields))
	if gone {
		c.finishElicit(p, ElicitCancel, nil, "cancel")
		return
	}
	c.q.push(ElicitationAsked{ID: p.id, Elicitation: e})
}

// onElicitComplete handles elicitation/complete (a notification).
func (c *Client) onElicitComplete(params json.RawMessage) {
	var n acp.UnstableCompleteElicitationNotification
	if err := json.Unmarshal(params, &n); err != nil || n.ElicitationId == "" {
		c.log.Warn("elicitation/complete: cannot decode (ignored)", "params", clip(string(params), 300))
		return
	}
	c.q.push(ElicitationCompleted{ElicitationID: string(n.ElicitationId)})
}

// cancelElicitRPC ends a pending elicitation the agent withdrew ($/cancel_request naming its
// JSON-RPC id); the answer is the -32800 error the protocol asks for.
func (c *Client) cancelElicitRPC(params json.RawMessage) {
	var n struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &n) != nil || len(n.RequestID) == 0 {
		return
	}
	c.el.mu.Lock()
	var hit *pendingElicit
	for _, p := range c.el.pend {
		if sameRPCID(p.rpcID, n.RequestID) {
			hit = p
		}
	}
	if hit != nil {
		hit.done = true
		delete(c.el.pend, hit.id)
	}
	c.el.mu.Unlock()
	if hit == nil {
		return
	}
	c.auditElicit(hit, ElicitCancel, "agent", nil)
	c.q.push(ElicitationResolved{ID: hit.id, Action: ElicitCancel, By: "agent"})
	c.writeRPC(hit.rpcID, nil, acp.NewRequestCancelled(nil))
}

// sameRPCID compares JSON-RPC ids: numbers by value (1, 1.0), strings exactly.
func sameRPCID(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y) && fmt.Sprintf("%T", x) == fmt.Sprintf("%T", y)
}

// AnswerElicitation answers a pending ElicitationAsked. An accepted form's Content is validated
// against the requested schema first: a *ValidationError (every problem, per field) leaves the
// question pending. Errors: ErrNoElicitation, an unknown Action, a *ValidationError.
func (c *Client) AnswerElicitation(id string, a ElicitationAnswer) error {
	by := a.By
	if by == "" {
		by = "user"
	}
	c.el.mu.Lock()
	p := c.el.pend[id]
	if p == nil {
		c.el.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrNoElicitation, id)
	}
	var content map[string]any
	switch a.Action {
	case ElicitAccept:
		if p.e.Mode == ElicitForm {
			content = a.Content
			if content == nil {
				content = map[string]any{}
			}
			if err := p.e.Validate(content); err != nil {
				c.el.mu.Unlock()
				return err
			}
		}
	case ElicitDecline, ElicitCancel:
	default:
		c.el.mu.Unlock()
		return fmt.Errorf("acpclient: elicitation action %q: must be accept, decline or cancel", a.Action)
	}
	p.done = true
	delete(c.el.pend, id)
	c.el.mu.Unlock()
	c.finishElicit(p, a.Action, content, by)
	return nil
}

// finishElicit sends the response, audits it and emits ElicitationResolved.
func (c *Client) finishElicit(p *pendingElicit, action string, content map[string]any, by string) {
	var resp acp.UnstableCreateElicitationResponse
	switch action {
	case ElicitAccept:
		resp.Accept = &acp.UnstableCreateElicitationAccept{Action: ElicitAccept, Content: content}
	case ElicitDecline:
		resp.Decline = &acp.UnstableCreateElicitationDecline{Action: ElicitDecline}
	default:
		resp.Cancel = &acp.UnstableCreateElicitationCancel{Action: ElicitCancel}
	}
	var fields []string
	for _, f := range p.e.Fields {
		if _, ok := content[f.Name]; ok {
			fields = append(fields, f.Name)
		}
	}
	c.auditElicit(p, action, by, fields)
	c.log.Info("elicitation answered", "id", p.id, "action", action, "by", by, "fields", fields)
	// The event goes out before the response: whatever the agent does next comes after it.
	c.q.push(ElicitationResolved{ID: p.id, Action: action, By: by, Fields: fields})
	c.writeRPC(p.rpcID, resp, nil)
}

// cancelElicitations answers every pending elicitation "cancel" (turn cancel or end, agent
// exit, shutdown).
func (c *Client) cancelElicitations(by string) {
	c.el.mu.Lock()
	var ps []*pendingElicit
	for _, p := range c.el.pend {
		p.done = true
		ps = append(ps, p)
	}
	c.el.pend = nil
	c.el.mu.Unlock()
	slices.SortFunc(ps, func(a, b *pendingElicit) int { return a.seq - b.seq })
	for _, p := range ps {
		c.finishElicit(p, ElicitCancel, nil, by)
	}
}

// writeRPC writes a JSON-RPC response (result, or rerr when non-nil) to the agent.
func (c *Client) writeRPC(id json.RawMessage, result any, rerr *acp.RequestError) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		msg["result"] = result
	}
	b, err := json.Marshal(msg)
	if err != nil {
		c.log.Error("cannot encode a response", "err", err)
		return
	}
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		c.log.Warn("response not delivered", "err", err)
	}
}

// auditElicit records an elicitation's outcome: kind "elicitation", verdict allow (accepted) or
// deny, the names of the fields answered (never their values), the agent's message, and for a
// URL only its scheme and host (a URL's path and query may carry tokens).
func (c *Client) auditElicit(p *pendingElicit, action, by string, fields []string) {
	if c.o.Engine == nil {
		return
	}
	v := permissions.Deny
	if action == ElicitAccept {
		v = permissions.Allow
	}
	reason := fmt.Sprintf("%s %s: %s", p.e.Mode, action, clip(p.e.Message, 200))
	if p.e.Mode == ElicitURL {
		host := "?"
		if u, err := url.Parse(p.e.URL); err == nil {
			host = u.Scheme + "://" + u.Host
		}
		reason = fmt.Sprintf("url %s (%s): %s", action, host, clip(p.e.Message, 200))
	}
	ev := permissions.AuditEvent{Kind: "elicitation", Verdict: v, By: by, Reason: reason, Fields: fields,
		Session: c.sid(), Req: "elicitation/create#" + string(p.rpcID)}
	if err := c.o.Engine.Record(ev); err != nil {
		c.log.Warn("audit log write failed", "err", err)
	}
}
