package acpclient

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// tracer writes the protocol trace (Options.Trace): one JSON object per JSON-RPC line, in the
// order acpterm wrote or read them: {"t": RFC 3339 time with nanoseconds, "dir": "->" (to the
// agent) or "<-" (from the agent), "msg": the message}. A line that is not JSON is kept as a
// string in "raw". A nil tracer writes nothing; a write error stops the trace (logged once).
type tracer struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool
	onErr  func(error)
}

func (t *tracer) write(dir string, line []byte) {
	if t == nil {
		return
	}
	line = bytes.TrimRight(line, "\r\n")
	rec := struct {
		T   string          `json:"t"`
		Dir string          `json:"dir"`
		Msg json.RawMessage `json:"msg,omitempty"`
		Raw string          `json:"raw,omitempty"`
	}{T: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir}
	if json.Valid(line) {
		rec.Msg = line
	} else {
		rec.Raw = string(line)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed {
		return
	}
	if _, err := t.w.Write(append(b, '\n')); err != nil {
		t.failed = true
		if t.onErr != nil {
			t.onErr(err)
		}
	}
}
