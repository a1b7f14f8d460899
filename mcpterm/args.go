package mcpterm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of the tools (terminal-emulator-mcp's documented limits).
const (
	MinCols, MaxCols = 2, 500  // terminal width, cells
	MinRows, MaxRows = 1, 200  // terminal height, cells
	MaxSessions      = 8       // terminals one MCP connection keeps, exited ones included
	MaxActions       = 256     // actions in one terminal_input batch
	MaxPayload       = 1 << 20 // bytes of text, paste and raw payload in one batch
	MaxResultBytes   = 8 << 20 // bytes of one encoded tool result
	MaxScrollback    = 2000    // history lines one snapshot may ask for
	MaxMillis        = 60000   // largest quiet interval, delay or deadline, ms
	MaxWheelCount    = 100     // wheel reports in one scroll action

	defaultQuiet    = 250 * time.Millisecond  // quiet interval when settleMs is omitted
	defaultDeadline = 1000 * time.Millisecond // observation cap without settleTimeoutMs
)

// errInvalid is an argument error (code INVALID_INPUT), found before anything happened.
type errInvalid struct{ msg string }

func (e *errInvalid) Error() string { return e.msg }

func invalidf(format string, a ...any) error { return &errInvalid{fmt.Sprintf(format, a...)} }

// strict decodes one JSON object into v, rejecting unknown fields, trailing data and a
// non-object; where names the object in messages ("arguments", "actions[3]").
func strict(raw []byte, v any, where string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return invalidf("%s: must be a JSON object", where)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidf("%s: %s", where, cleanJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidf("%s: unexpected data after the object", where)
	}
	return nil
}

// cleanJSONError rewords encoding/json's messages without Go type names.
func cleanJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		what := te.Type.Kind().String()
		switch what {
		case "int":
			what = "an integer"
		case "string":
			what = "a string"
		case "bool":
			what = "a boolean"
		case "slice":
			what = "an array"
		case "map", "struct":
			what = "an object"
		}
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s must be %s, not %s", field, what, te.Value)
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// observation is the settle timing of a start, snapshot, input, resize or observation wait.
type observation struct {
	SettleMs        *int `json:"settleMs"`
	SettleTimeoutMs *int `json:"settleTimeoutMs"`
}

// timing is a checked observation: the quiet interval, the deadline, and whether missing it is
// an error (settleTimeoutMs given).
type timing struct {
	quiet, deadline time.Duration
	strict          bool
}

func (o observation) check(where string) (timing, error) {
	t := timing{quiet: defaultQuiet, deadline: defaultDeadline}
	if o.SettleMs != nil {
		if *o.SettleMs < 0 || *o.SettleMs > MaxMillis {
			return t, invalidf("%ssettleMs: must be 0..%d ms, not %d", where, MaxMillis, *o.SettleMs)
		}
		t.quiet = time.Duration(*o.SettleMs) * time.Millisecond
	}
	if o.SettleTimeoutMs != nil {
		v := *o.SettleTimeoutMs
		if v < 1 || v > MaxMillis {
			return t, invalidf("%ssettleTimeoutMs: must be 1..%d ms, not %d", where, MaxMillis, v)
		}
		if time.Duration(v)*time.Millisecond < t.quiet {
			return t, invalidf("%ssettleTimeoutMs: %d ms is shorter than the quiet interval (settleMs, 250 ms when omitted)", where, v)
		}
		t.deadline, t.strict = time.Duration(v)*time.Millisecond, true
	}
	return t, nil
}

func checkSize(cols, rows *int, where string) error {
	if cols == nil {
		return invalidf("%scols: required", where)
	}
	if rows == nil {
		return invalidf("%srows: required", where)
	}
	if *cols < MinCols || *cols > MaxCols {
		return invalidf("%scols: must be %d..%d, not %d", where, MinCols, MaxCols, *cols)
	}
	if *rows < MinRows || *rows > MaxRows {
		return invalidf("%srows: must be %d..%d, not %d", where, MinRows, MaxRows, *rows)
	}
	return nil
}

// startArgs are terminal_start's arguments.
type startArgs struct {
	Command *string            `json:"command"`
	Cols    *int               `json:"cols"`
	Rows    *int               `json:"rows"`
	Shell   *string            `json:"shell"`
	Login   *bool              `json:"login"`
	Cwd     *string            `json:"cwd"`
	Env     map[string]*string `json:"env"`
	observation
}

func parseStart(raw []byte) (startArgs, timing, error) {
	var a startArgs
	if err := strict(raw, &a, "arguments"); err != nil {
		return a, timing{}, err
	}
	if a.Command == nil || *a.Command == "" {
		return a, timing{}, invalidf("command: required, a non-empty string")
	}
	if strings.IndexByte(*a.Command, 0) >= 0 {
		return a, timing{}, invalidf("command: contains a NUL byte")
	}
	if err := checkSize(a.Cols, a.Rows, ""); err != nil {
		return a, timing{}, err
	}
	if a.Shell != nil && (*a.Shell == "" || strings.IndexByte(*a.Shell, 0) >= 0) {
		return a, timing{}, invalidf("shell: must be a non-empty string without NUL bytes")
	}
	if a.Cwd != nil && (*a.Cwd == "" || strings.IndexByte(*a.Cwd, 0) >= 0) {
		return a, timing{}, invalidf("cwd: must be a non-empty path")
	}
	for k, v := range a.Env {
		switch {
		case k == "TERM":
			return a, timing{}, invalidf("env: TERM is fixed to xterm-256color and cannot be overridden")
		case k == "" || strings.ContainsAny(k, "=\x00"):
			return a, timing{}, invalidf("env: %q is not a valid variable name", k)
		case v != nil && strings.IndexByte(*v, 0) >= 0:
			return a, timing{}, invalidf("env: the value of %s contains a NUL byte", k)
		}
	}
	t, err := a.check("")
	return a, t, err
}

// snapshotArgs are terminal_snapshot's arguments.
type snapshotArgs struct {
	SessionID       *string `json:"sessionId"`
	ScrollbackLines *int    `json:"scrollbackLines"`
	observation
}

func parseSnapshot(raw []byte) (snapshotArgs, timing, error) {
	var a snapshotArgs
	if err := strict(raw, &a, "arguments"); err != nil {
		return a, timing{}, err
	}
	if err := checkID(a.SessionID); err != nil {
		return a, timing{}, err
	}
	if a.ScrollbackLines != nil && (*a.ScrollbackLines < 0 || *a.ScrollbackLines > MaxScrollback) {
		return a, timing{}, invalidf("scrollbackLines: must be 0..%d, not %d", MaxScrollback, *a.ScrollbackLines)
	}
	t, err := a.check("")
	return a, t, err
}

func checkID(id *string) error {
	if id == nil || *id == "" {
		return invalidf("sessionId: required, a non-empty string")
	}
	return nil
}

// resizeArgs are terminal_resize's arguments.
type resizeArgs struct {
	SessionID *string `json:"sessionId"`
	Cols      *int    `json:"cols"`
	Rows      *int    `json:"rows"`
	observation
}

func parseResize(raw []byte) (resizeArgs, timing, error) {
	var a resizeArgs
	if err := strict(raw, &a, "arguments"); err != nil {
		return a, timing{}, err
	}
	if err := checkID(a.SessionID); err != nil {
		return a, timing{}, err
	}
	if err := checkSize(a.Cols, a.Rows, ""); err != nil {
		return a, timing{}, err
	}
	t, err := a.check("")
	return a, t, err
}

// idArgs are terminal_close's arguments.
type idArgs struct {
	SessionID *string `json:"sessionId"`
}

func parseID(raw []byte) (string, error) {
	var a idArgs
	if err := strict(raw, &a, "arguments"); err != nil {
		return "", err
	}
	if err := checkID(a.SessionID); err != nil {
		return "", err
	}
	return *a.SessionID, nil
}

func parseNone(raw []byte) error {
	var a struct{}
	return strict(raw, &a, "arguments")
}

// inputArgs are terminal_input's arguments (actions parsed separately).
type inputArgs struct {
	SessionID *string           `json:"sessionId"`
	Actions   []json.RawMessage `json:"actions"`
	observation
}

// action is one checked terminal_input action.
type action struct {
	kind string // text, paste, key, mouse, wait, focus, raw

	text  string // text, paste
	key   string // key
	mods  mods   // key, mouse
	raw   []byte // raw
	focus bool   // focus

	event     string // mouse: click or scroll
	row, col  int    // mouse, 1-based
	button    string // mouse click: left, middle, right
	direction string // mouse scroll: up, down
	count     int    // mouse scroll

	delay   time.Duration // wait with durationMs
	observe bool          // wait without durationMs
	timing  timing        // wait observation
}

// mods is a set of key or mouse modifiers.
type mods struct{ ctrl, alt, shift bool }

func parseMods(list []string, where string) (mods, error) {
	var m mods
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s] {
			return m, invalidf("%smodifiers: %q given twice", where, s)
		}
		seen[s] = true
		switch s {
		case "Ctrl":
			m.ctrl = true
		case "Alt":
			m.alt = true
		case "Shift":
			m.shift = true
		default:
			return m, invalidf("%smodifiers: unknown modifier %q (Ctrl, Alt, Shift; case-sensitive)", where, s)
		}
	}
	return m, nil
}

func parseInput(raw []byte) (inputArgs, []action, timing, error) {
	var a inputArgs
	if err := strict(raw, &a, "arguments"); err != nil {
		return a, nil, timing{}, err
	}
	if err := checkID(a.SessionID); err != nil {
		return a, nil, timing{}, err
	}
	if a.Actions == nil {
		return a, nil, timing{}, invalidf("actions: required, an array of 1..%d actions", MaxActions)
	}
	if len(a.Actions) < 1 || len(a.Actions) > MaxActions {
		return a, nil, timing{}, invalidf("actions: %d actions; a batch holds 1..%d", len(a.Actions), MaxActions)
	}
	t, err := a.check("")
	if err != nil {
		return a, nil, t, err
	}
	acts := make([]action, 0, len(a.Actions))
	payload := 0
	for i, r := range a.Actions {
		act, err := parseAction(r, fmt.Sprintf("actions[%d]", i))
		if err != nil {
			return a, nil, t, err
		}
		payload += len(act.text) + len(act.raw)
		if payload > MaxPayload {
			return a, nil, t, invalidf("actions: text, paste and raw payload exceeds %d bytes (1 MiB) at actions[%d]", MaxPayload, i)
		}
		acts = append(acts, act)
	}
	return a, acts, t, nil
}

func parseAction(raw json.RawMessage, where string) (action, error) {
	var head struct {
		Type  string `json:"type"`
		Event string `json:"event"`
		// durationMs decides between a delay and an observation wait.
		DurationMs json.RawMessage `json:"durationMs"`
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return action{}, invalidf("%s: must be an object", where)
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return action{}, invalidf("%s: %s", where, cleanJSONError(err))
	}
	w := where + "."
	act := action{kind: head.Type}
	switch head.Type {
	case "text", "paste":
		var v struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if err := strict(raw, &v, where); err != nil {
			return act, err
		}
		if v.Text == nil {
			return act, invalidf("%stext: required", w)
		}
		if !utf8.ValidString(*v.Text) {
			return act, invalidf("%stext: not valid UTF-8", w)
		}
		act.text = *v.Text
	case "key":
		var v struct {
			Type      string   `json:"type"`
			Key       *string  `json:"key"`
			Modifiers []string `json:"modifiers"`
		}
		if err := strict(raw, &v, where); err != nil {
			return act, err
		}
		if v.Key == nil {
			return act, invalidf("%skey: required", w)
		}
		m, err := parseMods(v.Modifiers, w)
		if err != nil {
			return act, err
		}
		act.key, act.mods = *v.Key, m
		if _, err := encodeKey(act.key, m, false); err != nil {
			return act, invalidf("%s%v", w, err)
		}
	case "mouse":
		var v struct {
			Type      string   `json:"type"`
			Event     string   `json:"event"`
			Row       *int     `json:"row"`
			Column    *int     `json:"column"`
			Modifiers []string `json:"modifiers"`
			Button    *string  `json:"button"`
			Direction *string  `json:"direction"`
			Count     *int     `json:"count"`
		}
		if err := strict(raw, &v, where); err != nil {
			return act, err
		}
		if v.Row == nil || v.Column == nil {
			return act, invalidf("%srow and column: required (1-based cells)", w)
		}
		if *v.Row < 1 || *v.Row > MaxRows {
			return act, invalidf("%srow: must be 1..%d, not %d", w, MaxRows, *v.Row)
		}
		if *v.Column < 1 || *v.Column > MaxCols {
			return act, invalidf("%scolumn: must be 1..%d, not %d", w, MaxCols, *v.Column)
		}
		m, err := parseMods(v.Modifiers, w)
		if err != nil {
			return act, err
		}
		act.event, act.row, act.col, act.mods = v.Event, *v.Row, *v.Column, m
		switch v.Event {
		case "click":
			if v.Direction != nil || v.Count != nil {
				return act, invalidf("%sdirection and count belong to scroll events, not click", w)
			}
			act.button = "left"
			if v.Button != nil {
				act.button = *v.Button
			}
			if !slices.Contains([]string{"left", "middle", "right"}, act.button) {
				return act, invalidf("%sbutton: must be left, middle or right, not %q", w, act.button)
			}
		case "scroll":
			if v.Button != nil {
				return act, invalidf("%sbutton belongs to click events, not scroll", w)
			}
			if v.Direction == nil || (*v.Direction != "up" && *v.Direction != "down") {
				return act, invalidf("%sdirection: required, up or down", w)
			}
			act.direction, act.count = *v.Direction, 1
			if v.Count != nil {
				if *v.Count < 1 || *v.Count > MaxWheelCount {
					return act, invalidf("%scount: must be 1..%d, not %d", w, MaxWheelCount, *v.Count)
				}
				act.count = *v.Count
			}
		default:
			return act, invalidf("%sevent: must be click or scroll, not %q", w, v.Event)
		}
	case "wait":
		if len(head.DurationMs) > 0 {
			var v struct {
				Type       string `json:"type"`
				DurationMs *int   `json:"durationMs"`
			}
			if err := strict(raw, &v, where); err != nil {
				return act, err
			}
			if v.DurationMs == nil || *v.DurationMs < 0 || *v.DurationMs > MaxMillis {
				return act, invalidf("%sdurationMs: must be 0..%d ms", w, MaxMillis)
			}
			act.delay = time.Duration(*v.DurationMs) * time.Millisecond
		} else {
			var v struct {
				Type string `json:"type"`
				observation
			}
			if err := strict(raw, &v, where); err != nil {
				return act, err
			}
			t, err := v.check(w)
			if err != nil {
				return act, err
			}
			act.observe, act.timing = true, t
		}
	case "focus":
		var v struct {
			Type    string `json:"type"`
			Focused *bool  `json:"focused"`
		}
		if err := strict(raw, &v, where); err != nil {
			return act, err
		}
		if v.Focused == nil {
			return act, invalidf("%sfocused: required, true or false", w)
		}
		act.focus = *v.Focused
	case "raw":
		var v struct {
			Type  string `json:"type"`
			Bytes []int  `json:"bytes"`
		}
		if err := strict(raw, &v, where); err != nil {
			return act, err
		}
		if v.Bytes == nil {
			return act, invalidf("%sbytes: required, an array of integers 0..255", w)
		}
		if len(v.Bytes) > MaxPayload {
			return act, invalidf("%sbytes: more than %d bytes", w, MaxPayload)
		}
		act.raw = make([]byte, len(v.Bytes))
		for i, b := range v.Bytes {
			if b < 0 || b > 255 {
				return act, invalidf("%sbytes[%d]: %d is not 0..255", w, i, b)
			}
			act.raw[i] = byte(b)
		}
	case "":
		return act, invalidf("%stype: required (text, paste, key, mouse, wait, focus, raw)", w)
	default:
		return act, invalidf("%stype: unknown action %q (text, paste, key, mouse, wait, focus, raw)", w, head.Type)
	}
	return act, nil
}
