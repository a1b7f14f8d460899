package acpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/acp-go-sdk"
)

// The wire reader sits between the agent's stdout and the SDK connection:
//
//   - session/update notifications are decoded and handled here, synchronously and in line
//     order, and never reach the SDK. This removes the SDK's bounded 1024-notification queue from
//     the path (a flood cannot overflow the SDK's queue and close the connection), keeps every update ordered
//     before any later request or response (a permission request can no longer
//     overtake its tool_call; the SDK's response barrier still holds because updates are
//     queued before the response line is even forwarded), and lets updates that arrive before
//     the session/new response be buffered.
//   - lines that are not JSON are logged (truncated), not forwarded (the SDK would log them
//     whole, up to 10 MiB) and are not fatal.
//   - lines longer than the SDK's 10 MiB scanner limit would kill the connection; a request
//     that long is answered here with an error, a response that long is replaced by an error
//     response so the waiting call fails cleanly.
//   - everything else is forwarded unchanged.

// maxJunk is how many non-JSON stdout lines are kept to explain a failed start (an agent that
// prints its usage, a banner or an error on stdout instead of speaking JSON-RPC).
const maxJunk = 3

// junkNote says what the agent printed on stdout that was not JSON-RPC ("" when nothing), to
// end a start-up error with: `; on stdout, which must carry only JSON-RPC, it printed: "…" | "…"`.
func (c *Client) junkNote() string {
	c.junkMu.Lock()
	defer c.junkMu.Unlock()
	if len(c.junk) == 0 {
		return ""
	}
	q := make([]string, len(c.junk))
	for i, l := range c.junk {
		q[i] = strconv.Quote(l)
	}
	return "; on stdout, which must carry only JSON-RPC, it printed: " + strings.Join(q, " | ")
}

// sdkMaxLine is the SDK's bufio.Scanner limit: a forwarded line must be shorter.
const sdkMaxLine = 10 * 1024 * 1024

// maxLine is the longest agent line acpterm reads at all (bytes); longer lines are dropped.
const maxLine = 64 * 1024 * 1024

// lockedWriter serialises whole-line writes to the agent's stdin between the SDK and the wire
// reader (the SDK writes each message with one Write call). sent, when set, sees every line
// before it is written (request bookkeeping and the protocol trace).
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	sent func(line []byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sent != nil {
		l.sent(p)
	}
	return l.w.Write(p)
}

// sessionSetupMethods are the requests whose responses carry the session's models, a field
// acp-go-sdk v0.13.5 no longer decodes: the wire reader takes it from the raw response.
var sessionSetupMethods = map[string]bool{"session/new": true, "session/load": true, "session/resume": true, "session/fork": true}

// onSent records, for each outgoing request whose response the wire reader must look into,
// its id; and writes the line to the protocol trace.
func (c *Client) onSent(line []byte) {
	c.trace.write("->", line)
	var env envelope
	if json.Unmarshal(line, &env) != nil || len(env.ID) == 0 || !sessionSetupMethods[env.Method] {
		return
	}
	c.wireMu.Lock()
	c.setupIDs[string(env.ID)] = env.Method
	c.wireMu.Unlock()
}

// rawPrefix starts the ids of the requests acpterm sends itself, past the SDK (methods the SDK
// no longer has, such as session/set_model). The SDK numbers its own requests, so a string id
// never collides with one of them.
const rawPrefix = "acpterm-"

// rawResult is the response to a raw request.
type rawResult struct {
	Result json.RawMessage   `json:"result"`
	Error  *acp.RequestError `json:"error"`
}

// callRaw sends method with params as a JSON-RPC request of acpterm's own and waits for its
// response. Errors: the agent's error (an *acp.RequestError), a write failure, the agent's exit,
// or ctx ending.
func (c *Client) callRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.wireMu.Lock()
	c.rawSeq++
	id := fmt.Sprintf("%s%d", rawPrefix, c.rawSeq)
	ch := make(chan rawResult, 1)
	c.rawWait[strconv.Quote(id)] = ch
	c.wireMu.Unlock()
	drop := func() {
		c.wireMu.Lock()
		delete(c.rawWait, strconv.Quote(id))
		c.wireMu.Unlock()
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		drop()
		return nil, err
	}
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		drop()
		return nil, fmt.Errorf("%s: writing to the agent: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-c.readDone:
		drop()
		return nil, fmt.Errorf("%s: the agent closed its connection", method)
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}

// takeModels returns (and forgets) the models state the last session setup response carried.
func (c *Client) takeModels() *ModelState {
	c.wireMu.Lock()
	defer c.wireMu.Unlock()
	m := c.setupModels
	c.setupModels = nil
	return m
}

// onResponse looks into a response before the SDK gets it: a raw request's response is
// delivered to its caller and not forwarded (true); a session setup response's `models` is kept.
func (c *Client) onResponse(env envelope, line []byte) bool {
	key := string(env.ID)
	c.wireMu.Lock()
	ch, raw := c.rawWait[key]
	delete(c.rawWait, key)
	method, setup := c.setupIDs[key]
	delete(c.setupIDs, key)
	c.wireMu.Unlock()
	if raw {
		var r rawResult
		if err := json.Unmarshal(line, &r); err != nil {
			r.Error = &acp.RequestError{Code: -32700, Message: "unreadable response: " + err.Error()}
		}
		ch <- r
		return true
	}
	if setup {
		var r struct {
			Result struct {
				Models *ModelState `json:"models"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			c.log.Warn(method+": models not readable (ignored)", "err", err)
		} else if r.Result.Models != nil {
			c.wireMu.Lock()
			c.setupModels = r.Result.Models
			c.wireMu.Unlock()
		}
	}
	return false
}

// writeEmptyFile answers an fs/write_text_file request whose content is "" itself: the SDK
// rejects an empty content as a missing parameter (-32602) although ACP allows writing an empty
// file, so such a request goes straight to WriteTextFile (same policy, approval and audit).
func (c *Client) writeEmptyFile(env envelope) {
	var p acp.WriteTextFileRequest
	var resp map[string]any
	if err := json.Unmarshal(env.Params, &p); err != nil || p.Path == "" {
		msg := "path is required"
		if err != nil {
			msg = err.Error()
		}
		resp = map[string]any{"jsonrpc": "2.0", "id": env.ID, "error": map[string]any{"code": codeInvalidParams, "message": "Invalid params", "data": map[string]any{"error": msg}}}
	} else if r, err := c.WriteTextFile(c.lifeCtx, p); err != nil {
		re := &acp.RequestError{Code: codeInternal, Message: err.Error()}
		errors.As(err, &re)
		resp = map[string]any{"jsonrpc": "2.0", "id": env.ID, "error": re}
	} else {
		resp = map[string]any{"jsonrpc": "2.0", "id": env.ID, "result": r}
	}
	b, err := json.Marshal(resp)
	if err != nil {
		c.log.Error("fs/write_text_file: cannot encode the response", "err", err)
		return
	}
	_, _ = c.out.Write(append(b, '\n'))
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// readWire runs until the agent's stdout ends; then it closes the SDK's input (the SDK then
// fails pending calls with "peer disconnected") and closes c.readDone.
func (c *Client) readWire() {
	defer close(c.readDone)
	defer c.sdkW.Close()
	r := bufio.NewReaderSize(c.proc.stdout, 1<<20)
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		c.readBytes.Add(int64(len(chunk)))
		if len(chunk) > 0 && !tooLong {
			if len(buf)+len(chunk) > maxLine {
				tooLong = true
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			c.log.Error("agent stdout: line over the size limit dropped", "limit", maxLine)
			c.q.push(Notice{Level: "error", Text: fmt.Sprintf("agent sent a message larger than %d MiB; it was dropped", maxLine>>20)})
		} else if len(bytes.TrimSpace(buf)) > 0 {
			if !c.handleLine(bytes.TrimRight(buf, "\r\n")) {
				return
			}
		}
		buf, tooLong = buf[:0], false
		if cap(buf) > 4<<20 {
			buf = nil // do not keep a huge buffer after one big message
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, io.ErrClosedPipe) {
				c.log.Debug("agent stdout read ended", "err", err)
			}
			return
		}
	}
}

// handleLine processes one line; false means the SDK side is gone.
func (c *Client) handleLine(line []byte) bool {
	c.trace.write("<-", line)
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		c.log.Warn("agent stdout: not a JSON-RPC message (ignored)", "err", err, "line", clip(string(line), 200))
		c.junkMu.Lock()
		if len(c.junk) < maxJunk {
			c.junk = append(c.junk, clip(strings.ToValidUTF8(string(line), "\uFFFD"), 200))
		}
		c.junkMu.Unlock()
		return true
	}
	isNotification := len(env.ID) == 0
	if isNotification && env.Method == "session/update" {
		var n acp.SessionNotification
		if err := json.Unmarshal(env.Params, &n); err != nil {
			c.log.Warn("session/update: cannot decode (ignored)", "err", err, "params", clip(string(env.Params), 300))
			return true
		}
		c.lastUpdate.Store(time.Now().UnixNano())
		c.onNotification(n)
		return true
	}
	if len(line) >= sdkMaxLine {
		return c.oversized(env, len(line))
	}
	if !isNotification && env.Method == "" && c.onResponse(env, line) {
		return true
	}
	if !isNotification && env.Method == "fs/write_text_file" && emptyContent(env.Params) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.writeEmptyFile(env)
		}()
		return true
	}
	// Elicitations are handled here too (elicit.go); a $/cancel_request goes on to the SDK as
	// well, which cancels its own requests of that id.
	switch {
	case !isNotification && env.Method == "elicitation/create":
		c.onElicitation(env)
		return true
	case isNotification && env.Method == "elicitation/complete":
		c.onElicitComplete(env.Params)
		return true
	case isNotification && env.Method == "$/cancel_request":
		c.cancelElicitRPC(env.Params)
	}
	if _, err := c.sdkW.Write(append(line, '\n')); err != nil {
		return false
	}
	return true
}

// oversized handles a message the SDK cannot read.
func (c *Client) oversized(env envelope, n int) bool {
	text := fmt.Sprintf("agent message of %d bytes exceeds the %d MiB line limit", n, sdkMaxLine>>20)
	c.log.Error("agent stdout: oversized message", "bytes", n, "method", env.Method)
	c.q.push(Notice{Level: "error", Text: text})
	if len(env.ID) == 0 {
		return true // a notification: dropped
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": env.ID,
		"error": map[string]any{"code": -32600, "message": "Invalid request: " + text}}
	b, _ := json.Marshal(msg)
	b = append(b, '\n')
	if env.Method != "" {
		// A request from the agent: answer it ourselves.
		_, _ = c.out.Write(b)
		return true
	}
	// A response to one of our calls: hand the SDK an error response instead.
	_, err := c.sdkW.Write(b)
	return err == nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// truncatingHandler shortens long string attributes (the SDK logs whole raw lines, which would flood the log).
type truncatingHandler struct {
	h   slog.Handler
	max int
}

func (t truncatingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t.h.Enabled(ctx, l)
}
func (t truncatingHandler) Handle(ctx context.Context, r slog.Record) error {
	nr := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindString && len(a.Value.String()) > t.max {
			a.Value = slog.StringValue(clip(a.Value.String(), t.max))
		}
		nr.AddAttrs(a)
		return true
	})
	return t.h.Handle(ctx, nr)
}
func (t truncatingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return truncatingHandler{t.h.WithAttrs(as), t.max}
}
func (t truncatingHandler) WithGroup(g string) slog.Handler {
	return truncatingHandler{t.h.WithGroup(g), t.max}
}

// emptyContent reports whether fs/write_text_file params carry `"content": ""`.
func emptyContent(params json.RawMessage) bool {
	var p struct {
		Content *string `json:"content"`
	}
	return json.Unmarshal(params, &p) == nil && p.Content != nil && *p.Content == ""
}
