package mcpterm

import (
	"errors"
	"fmt"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/terminals"
)

// namedKeys maps terminal_input's key names to ultraviolet key codes.
var namedKeys = map[string]rune{
	"Enter": uv.KeyEnter, "Tab": uv.KeyTab, "Backspace": uv.KeyBackspace, "Escape": uv.KeyEscape,
	"Space": uv.KeySpace, "Up": uv.KeyUp, "Down": uv.KeyDown, "Left": uv.KeyLeft, "Right": uv.KeyRight,
	"Home": uv.KeyHome, "End": uv.KeyEnd, "PageUp": uv.KeyPgUp, "PageDown": uv.KeyPgDown,
	"Insert": uv.KeyInsert, "Delete": uv.KeyDelete,
	"F1": uv.KeyF1, "F2": uv.KeyF2, "F3": uv.KeyF3, "F4": uv.KeyF4, "F5": uv.KeyF5, "F6": uv.KeyF6,
	"F7": uv.KeyF7, "F8": uv.KeyF8, "F9": uv.KeyF9, "F10": uv.KeyF10, "F11": uv.KeyF11, "F12": uv.KeyF12,
}

// encodeKey checks a key and its modifiers against what traditional terminal encodings can
// express and returns the bytes an xterm sends for it (terminals.EncodeKey), given whether the
// program enabled application cursor keys (DECCKM). The error says which combination is
// unsupported.
//
// Supported: navigation and function keys with any modifiers; Enter and Escape with Alt;
// Tab with Shift; Backspace and Space with Ctrl and/or Alt; a printable ASCII character with
// Alt, or with Ctrl for letters, space, @ [ \ ] ^ _ ? (and Alt).
func encodeKey(key string, m mods, cursorKeys bool) ([]byte, error) {
	var k uv.KeyPressEvent
	if code, ok := namedKeys[key]; ok {
		k.Code = code
		switch key {
		case "Enter", "Escape":
			if m.ctrl || m.shift {
				return nil, fmt.Errorf("key %s: only the Alt modifier is supported", key)
			}
		case "Tab":
			if m.ctrl || m.alt {
				return nil, errors.New("key Tab: only the Shift modifier is supported")
			}
		case "Backspace", "Space":
			if m.shift {
				return nil, fmt.Errorf("key %s: only Ctrl and Alt are supported", key)
			}
		}
	} else {
		if len(key) != 1 || key[0] < 0x20 || key[0] > 0x7e {
			return nil, fmt.Errorf("key %q: not a named key (Enter, Tab, Backspace, Escape, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1–F12) or one printable ASCII character; send other text with a text action", key)
		}
		c := rune(key[0])
		if m.shift {
			return nil, fmt.Errorf("key %q: Shift is not supported with a character; send the shifted character itself", key)
		}
		if m.ctrl && !ctrlable(c) {
			return nil, fmt.Errorf("key %q: Ctrl is supported only with letters, space, @, [, \\, ], ^, _ and ?", key)
		}
		k.Code, k.Text = c, key
		if m.ctrl {
			k.Text = ""
			if c >= 'A' && c <= 'Z' {
				k.Code = c + ('a' - 'A')
			}
		}
	}
	if m.ctrl {
		k.Mod |= uv.ModCtrl
	}
	if m.alt {
		k.Mod |= uv.ModAlt
	}
	if m.shift {
		k.Mod |= uv.ModShift
	}
	b := terminals.EncodeKey(k, terminals.Modes{CursorKeys: cursorKeys})
	if len(b) == 0 {
		return nil, fmt.Errorf("key %q: no encoding", key)
	}
	return b, nil
}

func ctrlable(c rune) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	switch c {
	case ' ', '@', '[', '\\', ']', '^', '_', '?':
		return true
	}
	return false
}

// errUnsupported is an input the program's current modes cannot take (UNSUPPORTED_INPUT).
type errUnsupported struct{ msg string }

func (e *errUnsupported) Error() string { return e.msg }

// encodeMouse returns the reports for a mouse action under the program's modes (xterm): a press
// and a release for a click (press only in X10 mode), one wheel report per scroll step. The
// screen size bounds the coordinates. Errors (errUnsupported): reporting is off, pixel
// encoding, a wheel or modifiers in X10 mode, legacy coordinates beyond 223; errInvalid:
// coordinates outside the screen.
func encodeMouse(a action, md terminals.Modes, size terminals.Size) ([]byte, error) {
	if a.row > size.Rows || a.col > size.Cols {
		return nil, invalidf("mouse: row %d, column %d is outside the %dx%d screen", a.row, a.col, size.Cols, size.Rows)
	}
	tracking := md.Tracking
	enc := md.MouseEncoding()
	switch {
	case tracking == terminals.MouseTrackingNone:
		return nil, &errUnsupported{"mouse: the program has not enabled mouse reporting"}
	case enc == "sgr-pixels":
		return nil, &errUnsupported{"mouse: the program asked for pixel coordinates (SGR pixel mode), which cell actions cannot give"}
	case tracking == terminals.MouseTrackingX10 && a.event == "scroll":
		return nil, &errUnsupported{"mouse: X10 mouse mode has no wheel reports"}
	case tracking == terminals.MouseTrackingX10 && (a.mods != mods{}):
		return nil, &errUnsupported{"mouse: X10 mouse mode reports unmodified clicks only"}
	case enc == "legacy" && (a.row > 223 || a.col > 223):
		return nil, &errUnsupported{fmt.Sprintf("mouse: legacy mouse encoding reaches column and row 223; row %d, column %d is beyond", a.row, a.col)}
	}
	mod := 0
	if a.mods.shift {
		mod |= 4
	}
	if a.mods.alt {
		mod |= 8
	}
	if a.mods.ctrl {
		mod |= 16
	}
	report := func(out []byte, code int, release bool) []byte {
		if enc == "sgr" {
			out = append(out, "\x1b[<"...)
			out = strconv.AppendInt(out, int64(code), 10)
			out = append(out, ';')
			out = strconv.AppendInt(out, int64(a.col), 10)
			out = append(out, ';')
			out = strconv.AppendInt(out, int64(a.row), 10)
			if release {
				return append(out, 'm')
			}
			return append(out, 'M')
		}
		if release {
			code = 3 | (code &^ 3)
		}
		return append(out, 0x1b, '[', 'M', byte(32+code), byte(32+a.col), byte(32+a.row))
	}
	var out []byte
	switch a.event {
	case "click":
		code := map[string]int{"left": 0, "middle": 1, "right": 2}[a.button] | mod
		out = report(out, code, false)
		if tracking != terminals.MouseTrackingX10 {
			out = report(out, code, true)
		}
	case "scroll":
		code := 64 | mod
		if a.direction == "down" {
			code = 65 | mod
		}
		for range a.count {
			out = report(out, code, false)
		}
	}
	return out, nil
}
