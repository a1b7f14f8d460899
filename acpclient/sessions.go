package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/coder/acp-go-sdk"
)

// SessionSupport says what the agent advertised it can do with sessions (ACP
// agentCapabilities.loadSession and sessionCapabilities.list/resume/fork/delete/close).
type SessionSupport struct {
	List, Load, Resume, Fork, Delete, Close bool
}

// Reopen reports whether an earlier session can be opened again (load or resume).
func (s SessionSupport) Reopen() bool { return s.Load || s.Resume }

// Sessions returns what the agent's capabilities allow with sessions.
func (i Info) Sessions() SessionSupport {
	sc := i.Capabilities.SessionCapabilities
	return SessionSupport{List: sc.List != nil, Load: i.Capabilities.LoadSession, Resume: sc.Resume != nil,
		Fork: sc.Fork != nil, Delete: sc.Delete != nil, Close: sc.Close != nil}
}

// SessionEntry is one earlier session Client.SessionList offers.
type SessionEntry struct {
	ID, Title, Cwd string
	// Updated is the last activity (zero when unknown); UpdatedText is it as the agent wrote it.
	Updated     time.Time
	UpdatedText string
	// Current: the client's open session.
	Current bool
}

// Session list sources (Client.SessionList).
const (
	FromAgent   = "agent"   // ACP session/list
	FromAcpterm = "acpterm" // acpterm's own records (SessionStore)
)

// ErrTurnRunning: the session cannot change while a prompt turn runs.
var ErrTurnRunning = errors.New("acpclient: a prompt turn is running: cancel it or wait for it to end first")

// SessionList lists the earlier sessions of the session cwd, most recent first: from the agent
// (session/list, every page) when it advertises list, else from acpterm's records of this agent
// command (Options.Store). source is FromAgent or FromAcpterm. Errors: the agent's, the record
// file's, or ErrNotSupported when neither source exists.
func (c *Client) SessionList(ctx context.Context) (list []SessionEntry, source string, err error) {
	c.mu.Lock()
	sup, cur := c.info.Sessions(), c.sessionID
	c.mu.Unlock()
	if sup.List {
		infos, err := c.ListSessions(ctx)
		if err != nil {
			return nil, FromAgent, err
		}
		for _, in := range infos {
			e := SessionEntry{ID: string(in.SessionId), Title: deref(in.Title), Cwd: in.Cwd, UpdatedText: deref(in.UpdatedAt)}
			if t, err := time.Parse(time.RFC3339Nano, e.UpdatedText); err == nil {
				e.Updated = t
			}
			e.Current = e.ID == cur
			list = append(list, e)
		}
		// Most recent first; the agent's order where the times do not say.
		slices.SortStableFunc(list, func(a, b SessionEntry) int {
			if a.Updated.IsZero() || b.Updated.IsZero() {
				return 0
			}
			return b.Updated.Compare(a.Updated)
		})
		return list, FromAgent, nil
	}
	if c.o.Store == nil {
		return nil, FromAcpterm, fmt.Errorf("acpclient: the agent cannot list its sessions (no sessionCapabilities.list) and acpterm keeps no records here: %w", ErrNotSupported)
	}
	recs, err := c.o.Store.List(AgentKey(c.o.Command), c.o.Cwd)
	if err != nil {
		return nil, FromAcpterm, err
	}
	for _, r := range recs {
		list = append(list, SessionEntry{ID: r.ID, Title: r.Title, Cwd: r.Cwd, Updated: r.Updated,
			UpdatedText: r.Updated.Format(time.RFC3339), Current: r.ID == cur})
	}
	return list, FromAcpterm, nil
}

// latestSession is the id --continue opens: the most recent earlier session of the cwd.
func (c *Client) latestSession(ctx context.Context) (string, error) {
	list, source, err := c.SessionList(ctx)
	if err != nil {
		return "", fmt.Errorf("acpclient: --continue: %w", err)
	}
	for _, e := range list {
		if e.Cwd == "" || e.Cwd == c.o.Cwd {
			return e.ID, nil
		}
	}
	where := "the agent lists none"
	if source == FromAcpterm {
		where = "acpterm has no record of one (the agent cannot list its sessions)"
	}
	return "", fmt.Errorf("acpclient: --continue: no earlier session of %q in %s: %s", AgentKey(c.o.Command), c.o.Cwd, where)
}

// OpenSession makes session id the client's session: session/load when the agent advertises
// loadSession (its history is replayed as updates, after a SessionStarted), else session/resume
// (no history). id "" opens a new session (session/new). The previous session, if any, is
// closed (session/close when advertised) once the new one is open, and its terminals are
// released; when opening fails the previous session stays. Errors: ErrTurnRunning,
// ErrNotSupported (the agent can neither load nor resume), ErrClosed, the agent's error.
func (c *Client) OpenSession(ctx context.Context, id string) error {
	return c.switchSession(ctx, id, "")
}

// ForkSession makes a fork of session id the client's session (ACP session/fork; the agent
// copies the history, nothing is replayed). Errors as OpenSession; ErrNotSupported when the
// agent does not advertise fork.
func (c *Client) ForkSession(ctx context.Context, id string) error {
	c.mu.Lock()
	ok := c.info.Sessions().Fork
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("acpclient: session/fork: %w", ErrNotSupported)
	}
	return c.switchSession(ctx, "", id)
}

// DeleteSession deletes session id (ACP session/delete) and acpterm's record of it. The open
// session cannot be deleted. Errors: ErrNotSupported (no sessionCapabilities.delete), the
// agent's error.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	c.mu.Lock()
	ok, cur := c.info.Sessions().Delete, c.sessionID
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("acpclient: session/delete: %w", ErrNotSupported)
	}
	if id == cur {
		return errors.New("acpclient: session/delete: this is the open session; open another one first")
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	if _, err := c.conn.UnstableDeleteSession(ctx, acp.UnstableDeleteSessionRequest{SessionId: acp.SessionId(id)}); err != nil {
		return fmt.Errorf("acpclient: session/delete %q: %w", id, err)
	}
	if c.o.Store != nil {
		if err := c.o.Store.Forget(AgentKey(c.o.Command), id); err != nil {
			c.log.Warn("session record not removed", "err", err)
		}
	}
	return nil
}

func (c *Client) switchSession(ctx context.Context, id, forkFrom string) error {
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	c.mu.Lock()
	switch {
	case c.closing || c.dead:
		c.mu.Unlock()
		return ErrClosed
	case c.inTurn || (len(c.prompts) > 0 && c.started):
		c.mu.Unlock()
		return ErrTurnRunning
	}
	sup := c.info.Sessions()
	if id != "" && !sup.Reopen() {
		c.mu.Unlock()
		return fmt.Errorf("acpclient: cannot open session %q: the agent supports neither session/load nor session/resume: %w", id, ErrNotSupported)
	}
	old, oldStarted := c.sessionID, c.started
	oldInfo := c.info
	// Updates from here on belong to the new session: they are held until its SessionStarted.
	c.started, c.early = false, nil
	c.loadID, c.forkFrom = id, forkFrom
	c.mu.Unlock()

	err := c.openSession(ctx, c.initResp)
	if err != nil {
		c.mu.Lock()
		c.sessionID, c.info, c.started, c.early = old, oldInfo, oldStarted, nil
		c.cond.Broadcast()
		c.mu.Unlock()
		return err
	}
	if oldStarted && old != "" && old != c.sid() {
		// The previous session's terminals and open questions go with it.
		c.releaseTerminals()
		c.endAgentTerms()
		c.closeSession(old)
	}
	return nil
}

// closeSession sends session/close for id when the agent advertises it (best effort, 2 s).
func (c *Client) closeSession(id string) {
	c.mu.Lock()
	ok := c.info.Sessions().Close && !c.dead
	c.mu.Unlock()
	if !ok || id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(c.lifeCtx, 2*time.Second)
	defer cancel()
	if _, err := c.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: acp.SessionId(id)}); err != nil {
		c.log.Warn("session/close failed", "session", id, "err", err)
		return
	}
	c.log.Info("session closed", "session", id)
}

// record notes the open session in acpterm's records (Options.Store): title "" keeps the
// recorded one; setTitle replaces it (the agent's own title).
func (c *Client) record(title string, setTitle bool) {
	if c.o.Store == nil {
		return
	}
	id := c.sid()
	if id == "" {
		return
	}
	if err := c.o.Store.Touch(AgentKey(c.o.Command), c.o.Cwd, id, title, setTitle); err != nil {
		c.log.Warn("session record not written", "err", err)
	}
}

// stableConfigOption converts a session/fork response's config option (the SDK's unstable type)
// to the stable one, through its JSON (the wire shape is the same).
func stableConfigOption(o acp.UnstableSessionConfigOption) acp.SessionConfigOption {
	var out acp.SessionConfigOption
	if b, err := json.Marshal(o); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}
