package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Error is a configuration error located in a file. Line and Col are 1-based (Col counts bytes);
// they are 0 when the problem concerns the whole file (missing, unreadable). Key is the dotted
// key path, e.g. "policy.unmatched" ("" for syntax errors that precede any key).
type Error struct {
	File      string
	Line, Col int
	Key, Msg  string
}

// Error formats e as "FILE:LINE:COL: KEY: MSG"; without a position "FILE: KEY: MSG"; without a
// key the "KEY: " part is left out.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var (
	typeErrRe = regexp.MustCompile(`cannot decode TOML (.+?) into (?:struct field \S+ of type |a Go value of type )?(\S+)$`)
	dupKeyRe  = regexp.MustCompile(`^key .* is already defined$`)
)

// goTypeName says in TOML words what a Go field type expects.
func goTypeName(t string) string {
	t = strings.TrimLeft(t, "*")
	switch t {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "an integer"
	case "bool":
		return "a boolean"
	case "[]string":
		return "an array of strings"
	case "map[string][]string":
		return "a table of arrays of strings"
	}
	if strings.HasPrefix(t, "config.") || strings.HasPrefix(t, "struct") {
		return "a table"
	}
	return t
}

// headerAt returns the table name of a `[a.b.c]` header on line (1-based) of doc, or "".
func headerAt(doc []byte, line int) string {
	lines := strings.Split(string(doc), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	l := strings.TrimSpace(lines[line-1])
	if !strings.HasPrefix(l, "[") || strings.HasPrefix(l, "[[") {
		return ""
	}
	end := strings.IndexByte(l, ']')
	if end < 0 {
		return ""
	}
	parts := strings.Split(l[1:end], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// decodeErr converts a go-toml decoding error into an *Error for file; doc locates full key
// paths (go-toml gives only the last part for some errors).
func decodeErr(file string, doc []byte, err error) *Error {
	var se *toml.StrictMissingError
	if errors.As(err, &se) && len(se.Errors) > 0 {
		first := se.Errors[0]
		line, col := first.Position()
		return &Error{File: file, Line: line, Col: col, Key: strings.Join(first.Key(), "."), Msg: "unknown key"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		key := strings.Join(de.Key(), ".")
		switch {
		case typeErrRe.MatchString(msg):
			m := typeErrRe.FindStringSubmatch(msg)
			msg = fmt.Sprintf("wrong type: want %s, got a TOML %s", goTypeName(m[2]), m[1])
		case dupKeyRe.MatchString(msg):
			msg = "duplicate key (already set above)"
		case strings.Contains(msg, "array table"):
			msg = "must be a table ([" + key + "]), not an array of tables ([[" + key + "]])"
		}
		if full := keyAt(doc, line, col); full != "" {
			key = full
		}
		if strings.HasPrefix(msg, "cannot store a table in ") {
			// A table header where a value belongs: [policy.commands.allow] instead of
			// allow = […] under [policy.commands].
			if h := headerAt(doc, line); h != "" {
				key = h
				last := h[strings.LastIndexByte(h, '.')+1:]
				msg = fmt.Sprintf("must be a value (%s = …), not a table ([%s])", last, h)
			} else {
				msg = "wrong type: got a TOML table, want " + strings.TrimPrefix(msg, "cannot store a table in ")
			}
		}
		return &Error{File: file, Line: line, Col: col, Key: key, Msg: msg}
	}
	return &Error{File: file, Msg: err.Error()}
}
