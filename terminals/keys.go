package terminals

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// EncodeKey returns the bytes an xterm sends for key k given the program's
// modes, or nil when the key has no encoding (a lone modifier, a media
// key). Lock modifiers (CapsLock, NumLock, ScrollLock) are ignored.
//
// Behaviour follows xterm: modified cursor keys, Home,
// End as CSI 1;m X with m = 1 + shift(1) + alt(2) + ctrl(4) + meta(8);
// Insert/Delete/PgUp/PgDn and F5–F12 as CSI n;m ~; F1–F4 as SS3 P–S or
// CSI 1;m P–S; F13–F24 as shifted F1–F12; DECCKM selects SS3 cursor keys;
// ctrl+letter as C0; ctrl+space and ctrl+@ as NUL, ctrl+/ as 0x1f,
// ctrl+backspace as BS; shift+tab as CSI Z; alt as an ESC prefix for
// everything that has no modifier parameter; enter (any modifier) as CR.
func EncodeKey(k uv.KeyPressEvent, m Modes) []byte {
	mod := k.Mod &^ (uv.ModCapsLock | uv.ModNumLock | uv.ModScrollLock)
	shift, alt, ctrl := mod.Contains(uv.ModShift), mod.Contains(uv.ModAlt), mod.Contains(uv.ModCtrl)
	xmod := 1
	if shift {
		xmod++
	}
	if alt {
		xmod += 2
	}
	if ctrl {
		xmod += 4
	}
	if mod.Contains(uv.ModMeta) {
		xmod += 8
	}
	esc := func(s string) []byte {
		if alt {
			return []byte("\x1b" + s)
		}
		return []byte(s)
	}
	cursor := func(final byte) []byte {
		if xmod > 1 {
			return []byte("\x1b[1;" + strconv.Itoa(xmod) + string(final))
		}
		if m.CursorKeys {
			return []byte("\x1bO" + string(final))
		}
		return []byte("\x1b[" + string(final))
	}
	tilde := func(n int) []byte {
		if xmod > 1 {
			return []byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(xmod) + "~")
		}
		return []byte("\x1b[" + strconv.Itoa(n) + "~")
	}
	ss3 := func(final byte) []byte {
		if xmod > 1 {
			return []byte("\x1b[1;" + strconv.Itoa(xmod) + string(final))
		}
		return []byte("\x1bO" + string(final))
	}
	code := k.Code
	if code >= uv.KeyF13 && code <= uv.KeyF24 {
		code -= uv.KeyF13 - uv.KeyF1
		if !shift {
			xmod++
		}
	}
	switch code {
	case uv.KeyUp, uv.KeyKpUp:
		return cursor('A')
	case uv.KeyDown, uv.KeyKpDown:
		return cursor('B')
	case uv.KeyRight, uv.KeyKpRight:
		return cursor('C')
	case uv.KeyLeft, uv.KeyKpLeft:
		return cursor('D')
	case uv.KeyHome, uv.KeyKpHome:
		return cursor('H')
	case uv.KeyEnd, uv.KeyKpEnd:
		return cursor('F')
	case uv.KeyBegin, uv.KeyKpBegin:
		return cursor('E')
	case uv.KeyInsert, uv.KeyKpInsert:
		return tilde(2)
	case uv.KeyDelete, uv.KeyKpDelete:
		return tilde(3)
	case uv.KeyPgUp, uv.KeyKpPgUp:
		return tilde(5)
	case uv.KeyPgDown, uv.KeyKpPgDown:
		return tilde(6)
	case uv.KeyF1:
		return ss3('P')
	case uv.KeyF2:
		return ss3('Q')
	case uv.KeyF3:
		return ss3('R')
	case uv.KeyF4:
		return ss3('S')
	case uv.KeyF5:
		return tilde(15)
	case uv.KeyF6:
		return tilde(17)
	case uv.KeyF7:
		return tilde(18)
	case uv.KeyF8:
		return tilde(19)
	case uv.KeyF9:
		return tilde(20)
	case uv.KeyF10:
		return tilde(21)
	case uv.KeyF11:
		return tilde(23)
	case uv.KeyF12:
		return tilde(24)
	case uv.KeyEnter, uv.KeyKpEnter:
		return esc("\r")
	case uv.KeyTab:
		if shift {
			return esc("\x1b[Z")
		}
		return esc("\t")
	case uv.KeyBackspace:
		if ctrl {
			return esc("\x08")
		}
		return esc("\x7f")
	case uv.KeyEscape:
		return esc("\x1b")
	case uv.KeySpace:
		if ctrl {
			return esc("\x00")
		}
		return esc(" ")
	case uv.KeyKpEqual:
		return esc("=")
	case uv.KeyKpMultiply:
		return esc("*")
	case uv.KeyKpPlus:
		return esc("+")
	case uv.KeyKpComma, uv.KeyKpSep:
		return esc(",")
	case uv.KeyKpMinus:
		return esc("-")
	case uv.KeyKpDecimal:
		return esc(".")
	case uv.KeyKpDivide:
		return esc("/")
	}
	if code >= uv.KeyKp0 && code <= uv.KeyKp9 {
		return esc(string(rune('0' + code - uv.KeyKp0)))
	}
	if code >= uv.KeyExtended || (code < 0x20 && code != 0) {
		return nil
	}
	if ctrl {
		if c, ok := ctrlByte(code); ok {
			return esc(string([]byte{c}))
		}
	}
	if k.Text != "" {
		return esc(k.Text)
	}
	if code == 0 || !unicode.IsPrint(code) {
		return nil
	}
	r := code
	if shift {
		if k.ShiftedCode != 0 {
			r = k.ShiftedCode
		} else {
			r = unicode.ToUpper(r)
		}
	}
	return esc(string(r))
}

// ctrlByte maps ctrl+<key> to its C0 byte, as xterm does.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= 'A' && r <= 'Z':
		return byte(r-'A') + 1, true
	}
	switch r {
	case '@', '2', ' ':
		return 0, true
	case '[', '3':
		return 0x1b, true
	case '\\', '4':
		return 0x1c, true
	case ']', '5':
		return 0x1d, true
	case '^', '6', '~':
		return 0x1e, true
	case '_', '/', '-', '7':
		return 0x1f, true
	case '?', '8':
		return 0x7f, true
	}
	return 0, false
}

// SanitizePaste prepares pasted text for a program: the bracketed-paste
// markers ESC[200~ and ESC[201~ and every other ESC byte are removed (so
// the text cannot end the paste early or inject sequences), C0 controls
// other than tab and newline are dropped, CRLF and LF become CR (what a
// terminal sends for Enter), invalid UTF-8 becomes U+FFFD, and when
// bracketed is true the result is wrapped in ESC[200~ … ESC[201~.
func SanitizePaste(s string, bracketed bool) []byte {
	s = strings.ToValidUTF8(s, string(utf8.RuneError))
	s = strings.ReplaceAll(s, "\x1b[200~", "")
	s = strings.ReplaceAll(s, "\x1b[201~", "")
	s = strings.ReplaceAll(s, "\r\n", "\r")
	out := make([]byte, 0, len(s)+12)
	if bracketed {
		out = append(out, "\x1b[200~"...)
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '\n':
			out = append(out, '\r')
		case b == '\t' || b == '\r':
			out = append(out, b)
		case b < 0x20 || b == 0x7f:
		default:
			out = append(out, b)
		}
	}
	if bracketed {
		out = append(out, "\x1b[201~"...)
	}
	return out
}
