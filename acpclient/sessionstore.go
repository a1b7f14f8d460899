package acpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// SessionRecord is acpterm's own note of one session it ran: enough to offer it again with
// --resume or --continue when the agent cannot list its sessions (ACP session/list).
type SessionRecord struct {
	// Agent is the agent command the session ran under (argv joined by spaces).
	Agent string `json:"agent"`
	// Cwd is the session's absolute working directory.
	Cwd string `json:"cwd"`
	// ID is the ACP session id.
	ID string `json:"id"`
	// Title is the agent's session title (session_info_update), else the first prompt's first
	// line (at most 80 characters); "" before the first prompt.
	Title string `json:"title,omitempty"`
	// Created and Updated are when acpterm started the session and last saw it in use (UTC).
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// maxSessionRecords bounds the record file: the oldest sessions are forgotten first.
const maxSessionRecords = 500

// SessionStore is the file of SessionRecords ($XDG_STATE_HOME/acpterm/sessions.json), shared by
// every acpterm process of the user: each change is a read-modify-write under an exclusive
// flock of PATH.lock, written to a temporary file and renamed into place, mode 0600.
type SessionStore struct {
	path string
}

// NewSessionStore returns the store at path (the file need not exist yet).
func NewSessionStore(path string) *SessionStore { return &SessionStore{path: path} }

// Path is the record file's path.
func (s *SessionStore) Path() string { return s.path }

func (s *SessionStore) lock() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func (s *SessionStore) read() ([]SessionRecord, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []SessionRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("%s: %v (move the file aside to start a new list)", s.path, err)
	}
	return recs, nil
}

func (s *SessionStore) write(recs []SessionRecord) error {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

// update runs change over the records under the lock and writes the result.
func (s *SessionStore) update(change func([]SessionRecord) []SessionRecord) error {
	unlock, err := s.lock()
	if err != nil {
		return fmt.Errorf("session records: %w", err)
	}
	defer unlock()
	recs, err := s.read()
	if err != nil {
		return fmt.Errorf("session records: %w", err)
	}
	recs = change(recs)
	if len(recs) > maxSessionRecords {
		slices.SortStableFunc(recs, func(a, b SessionRecord) int { return b.Updated.Compare(a.Updated) })
		recs = recs[:maxSessionRecords]
	}
	if err := s.write(recs); err != nil {
		return fmt.Errorf("session records: %w", err)
	}
	return nil
}

// Touch records that session id of agent in cwd is in use now; a non-empty title replaces the
// recorded one (setTitle: always; else only when none is recorded yet).
func (s *SessionStore) Touch(agent, cwd, id, title string, setTitle bool) error {
	now := time.Now().UTC()
	return s.update(func(recs []SessionRecord) []SessionRecord {
		for i := range recs {
			if recs[i].Agent == agent && recs[i].ID == id {
				recs[i].Updated, recs[i].Cwd = now, cwd
				if title != "" && (setTitle || recs[i].Title == "") {
					recs[i].Title = title
				}
				return recs
			}
		}
		return append(recs, SessionRecord{Agent: agent, Cwd: cwd, ID: id, Title: title, Created: now, Updated: now})
	})
}

// Forget removes the record of session id of agent.
func (s *SessionStore) Forget(agent, id string) error {
	return s.update(func(recs []SessionRecord) []SessionRecord {
		return slices.DeleteFunc(recs, func(r SessionRecord) bool { return r.Agent == agent && r.ID == id })
	})
}

// List returns the records of agent in cwd, most recently used first.
func (s *SessionStore) List(agent, cwd string) ([]SessionRecord, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, fmt.Errorf("session records: %w", err)
	}
	defer unlock()
	recs, err := s.read()
	if err != nil {
		return nil, fmt.Errorf("session records: %w", err)
	}
	recs = slices.DeleteFunc(recs, func(r SessionRecord) bool { return r.Agent != agent || r.Cwd != cwd })
	slices.SortStableFunc(recs, func(a, b SessionRecord) int { return b.Updated.Compare(a.Updated) })
	return recs, nil
}

// AgentKey is how the store names an agent command: its argv joined by spaces.
func AgentKey(command []string) string { return strings.Join(command, " ") }

// promptTitle is a session title made of a prompt: its first non-empty line, at most 80
// characters.
func promptTitle(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 80 {
				return string(r[:79]) + "…"
			}
			return l
		}
	}
	return ""
}
