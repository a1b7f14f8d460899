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
	return headerName(doc, line, false)
}

// arrayHeaderAt returns the table name of a `[[a.b.c]]` (array of tables) header on line
// (1-based) of doc, or "".
func arrayHeaderAt(doc []byte, line int) string {
	return headerName(doc, line, true)
}

// headerName is headerAt (array false) or arrayHeaderAt (array true).
func headerName(doc []byte, line int, array bool) string {
	lines := strings.Split(string(doc), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	l := strings.TrimSpace(lines[line-1])
	open := "["
	if array {
		open = "[["
	}
	if !strings.HasPrefix(l, open) || (!array && strings.HasPrefix(l, "[[")) {
		return ""
	}
	l = l[len(open)-1:]
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
		arrayKey := "" // the [[header]] named by the message, which keyAt does not know
		switch {
		case typeErrRe.MatchString(msg):
			m := typeErrRe.FindStringSubmatch(msg)
			msg = fmt.Sprintf("wrong type: want %s, got a TOML %s", goTypeName(m[2]), m[1])
		case dupKeyRe.MatchString(msg):
			msg = "duplicate key (already set above)"
		case strings.Contains(msg, "array table"):
			if h := arrayHeaderAt(doc, line); h != "" && !strings.HasSuffix(msg, " struct") {
				// [[policy.max_terminals]] where max_terminals = … belongs.
				msg = fmt.Sprintf("must be a value (%s = …), not an array of tables ([[%s]])", h[strings.LastIndexByte(h, '.')+1:], h)
				arrayKey = h
				break
			}
			msg = "must be a table ([" + key + "]), not an array of tables ([[" + key + "]])"
		}
		if full := keyAt(doc, line, col); full != "" {
			key = full
		}
		if arrayKey != "" {
			key = arrayKey
		}
		if strings.HasPrefix(msg, "cannot store a table in ") {
			// A table header where a value belongs: [policy.commands.allow] instead of
			// allow = […] under [policy.commands].
			if h := headerAt(doc, line); h != "" {
				key = h
				last := h[strings.LastIndexByte(h, '.')+1:]
				msg = fmt.Sprintf("must be a value (%s = …), not a table ([%s])", last, h)
			} else if h := arrayHeaderAt(doc, line); h != "" {
				// [[policy.commands.allow]] where allow = ["…"] belongs.
				key = h
				last := h[strings.LastIndexByte(h, '.')+1:]
				if target := strings.TrimPrefix(msg, "cannot store a table in "); target == "string" || target == "a string" {
					example := "…"
					if strings.HasPrefix(h, "policy.commands.") {
						example = "git status"
					}
					msg = fmt.Sprintf("must be a list of strings (%s = [%q, …]), not an array of tables ([[%s]])", last, example, h)
				} else {
					msg = fmt.Sprintf("must be a value (%s = …), not an array of tables ([[%s]])", last, h)
				}
			} else {
				msg = "wrong type: got a TOML table, want " + strings.TrimPrefix(msg, "cannot store a table in ")
			}
		}
		return &Error{File: file, Line: line, Col: col, Key: key, Msg: msg}
	}
	return &Error{File: file, Msg: err.Error()}
}
