package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/coder/acp-go-sdk"
)

// Scenarios "sessions" (loadSession and sessionCapabilities list, resume, fork, delete, close)
// and "resume-only" (resume and list, no load) keep their sessions in the JSON file
// $SCRIPTAGENT_STATE, so that a later process can list, load, resume, fork and delete them.
// Each session remembers its cwd, title (the first prompt) and history (user and agent text).

var sessionsMode = scenario == "sessions" || scenario == "resume-only"

type storedMsg struct {
	Role, Text string
}

type storedSession struct {
	ID, Cwd, Title string
	Seq            int // order of last use (updatedAt is derived from it)
	History        []storedMsg
}

type sessionFile struct {
	Next     int // use counter (Seq)
	NextID   int
	Sessions []*storedSession
}

var stMu sync.Mutex

func loadState() *sessionFile {
	var f sessionFile
	if b, err := os.ReadFile(os.Getenv("SCRIPTAGENT_STATE")); err == nil {
		_ = json.Unmarshal(b, &f)
	}
	return &f
}

func (f *sessionFile) save() {
	b, _ := json.MarshalIndent(f, "", " ")
	_ = os.WriteFile(os.Getenv("SCRIPTAGENT_STATE"), b, 0o600)
}

func (f *sessionFile) find(id acp.SessionId) *storedSession {
	for _, s := range f.Sessions {
		if s.ID == string(id) {
			return s
		}
	}
	return nil
}

// withState runs fn on the state file and saves it.
func withState(fn func(f *sessionFile)) {
	stMu.Lock()
	defer stMu.Unlock()
	f := loadState()
	fn(f)
	f.save()
}

func sessionCaps() acp.SessionCapabilities {
	c := acp.SessionCapabilities{List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{},
		Close: &acp.SessionCloseCapabilities{}}
	if scenario == "sessions" {
		c.Fork, c.Delete = &acp.SessionForkCapabilities{}, &acp.SessionDeleteCapabilities{}
	}
	return c
}

// newStoredSession makes a session "sN" in cwd.
func newStoredSession(cwd string) acp.SessionId {
	var id string
	withState(func(f *sessionFile) {
		f.Next++
		f.NextID++
		id = fmt.Sprintf("s%d", f.NextID)
		f.Sessions = append(f.Sessions, &storedSession{ID: id, Cwd: cwd, Seq: f.Next})
	})
	return acp.SessionId(id)
}

// remember appends text to the open session's history (the first user text is its title).
func remember(role, text string) {
	if !sessionsMode {
		return
	}
	withState(func(f *sessionFile) {
		s := f.find(sid)
		if s == nil {
			return
		}
		if n := len(s.History); n > 0 && s.History[n-1].Role == role && role == "agent" {
			s.History[n-1].Text += text
		} else {
			s.History = append(s.History, storedMsg{role, text})
		}
		if s.Title == "" && role == "user" {
			s.Title = text
		}
		f.Next++
		s.Seq = f.Next
	})
}

// replay sends a session's history as session/update (session/load).
func (a *agent) replay(ctx context.Context, s *storedSession) {
	for _, m := range s.History {
		u := acp.UpdateAgentMessageText(m.Text)
		if m.Role == "user" {
			u = acp.UpdateUserMessageText(m.Text)
		}
		_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(s.ID), Update: u})
	}
}

func (a *agent) loadStored(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	stMu.Lock()
	s := loadState().find(p.SessionId)
	stMu.Unlock()
	if s == nil {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no session " + string(p.SessionId)})
	}
	fmt.Fprintf(os.Stderr, "session/load %s\n", s.ID)
	sid = p.SessionId
	a.replay(ctx, s)
	modes, opts := a.sessionState()
	return acp.LoadSessionResponse{Modes: modes, ConfigOptions: opts}, nil
}

func (a *agent) resumeStored(p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	stMu.Lock()
	s := loadState().find(p.SessionId)
	stMu.Unlock()
	if s == nil {
		return acp.ResumeSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no session " + string(p.SessionId)})
	}
	fmt.Fprintf(os.Stderr, "session/resume %s\n", s.ID)
	sid = p.SessionId
	modes, opts := a.sessionState()
	return acp.ResumeSessionResponse{Modes: modes, ConfigOptions: opts}, nil
}

func listStored(p acp.ListSessionsRequest) acp.ListSessionsResponse {
	stMu.Lock()
	f := loadState()
	stMu.Unlock()
	r := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, s := range f.Sessions {
		if p.Cwd != nil && *p.Cwd != s.Cwd {
			continue
		}
		in := acp.SessionInfo{SessionId: acp.SessionId(s.ID), Cwd: s.Cwd,
			UpdatedAt: acp.Ptr(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(time.Duration(s.Seq) * time.Minute).Format(time.RFC3339))}
		if s.Title != "" {
			in.Title = acp.Ptr(s.Title)
		}
		r.Sessions = append(r.Sessions, in)
	}
	return r
}

func (a *agent) UnstableForkSession(_ context.Context, p acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
	if !sessionsMode {
		return acp.UnstableForkSessionResponse{}, acp.NewMethodNotFound("session/fork")
	}
	var id string
	var found bool
	withState(func(f *sessionFile) {
		s := f.find(p.SessionId)
		if s == nil {
			return
		}
		found = true
		f.Next++
		f.NextID++
		id = fmt.Sprintf("s%d", f.NextID)
		c := &storedSession{ID: id, Cwd: p.Cwd, Title: "fork of " + s.Title, Seq: f.Next, History: append([]storedMsg(nil), s.History...)}
		f.Sessions = append(f.Sessions, c)
	})
	if !found {
		return acp.UnstableForkSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no session " + string(p.SessionId)})
	}
	fmt.Fprintf(os.Stderr, "session/fork %s -> %s\n", p.SessionId, id)
	sid = acp.SessionId(id)
	return acp.UnstableForkSessionResponse{SessionId: sid}, nil
}

func (a *agent) UnstableDeleteSession(_ context.Context, p acp.UnstableDeleteSessionRequest) (acp.UnstableDeleteSessionResponse, error) {
	if scenario != "sessions" {
		return acp.UnstableDeleteSessionResponse{}, acp.NewMethodNotFound("session/delete")
	}
	withState(func(f *sessionFile) {
		for i, s := range f.Sessions {
			if s.ID == string(p.SessionId) {
				f.Sessions = append(f.Sessions[:i], f.Sessions[i+1:]...)
				return
			}
		}
	})
	fmt.Fprintf(os.Stderr, "session/delete %s\n", p.SessionId)
	return acp.UnstableDeleteSessionResponse{}, nil
}
