package terminals

import (
	"sync"
	"unicode/utf8"
)

// Transcript turns a terminal's raw output stream into the plain text a
// person would read; it is what ACP terminal/output returns.
//
// Rules, applied incrementally as bytes arrive (the parse state survives
// across Write calls, so a sequence or character may be split anywhere):
//   - escape sequences (CSI, OSC, DCS, SOS/PM/APC, two-byte ESC) are removed;
//     of them only the ones that edit the current line are honoured:
//     EL (CSI K), cursor left/right/column (CSI D, C, G, `), ECH (CSI X),
//     DCH (CSI P) and ICH (CSI @);
//   - "\r\n" and "\n" end a line with "\n"; a lone "\r" returns to the start
//     of the current line and later text overwrites it; backspace moves one
//     character left; "\t" is kept; other control characters are dropped;
//   - UTF-8 split across writes is held back until complete; invalid bytes
//     become U+FFFD.
//
// The current line stays editable until its "\n", so a carriage-return
// progress display collapses to its last state. Only the most recent
// limit bytes are kept (ACP: output is truncated from the start at a
// character boundary); Snapshot reports whether anything was dropped.
// A line longer than twice the limit has its beginning frozen (no longer
// editable by a later "\r") so memory stays bounded.
//
// A Transcript is safe for concurrent use.
type Transcript struct {
	mu      sync.Mutex
	limit   int
	done    []byte // completed text: whole lines plus frozen line prefixes
	dropped bool   // bytes were removed from the front of done
	line    []byte // the current, still editable line (UTF-8)
	nr      int    // characters (runes) in line
	ascii   bool   // line holds only ASCII, so byte offsets are rune offsets
	col     int    // cursor column in line, in runes

	st      tstate
	utf     [4]byte // pending UTF-8 sequence
	un      int     // bytes in utf
	uneed   int     // length of the pending sequence
	params  [16]int // CSI parameters
	np      int     // number of CSI parameters started
	private bool    // CSI had a private marker or intermediate: ignored
}

type tstate uint8

const (
	tGround tstate = iota
	tEsc
	tEscInt
	tCSI
	tOSC    // ends with BEL or ST
	tStr    // DCS, SOS, PM, APC: ends with ST
	tStrEsc // ESC seen inside a string: '\\' ends it
)

// NewTranscript returns an empty transcript keeping the most recent limit
// bytes of text; limit <= 0 means DefaultOutputLimit (1 MiB).
func NewTranscript(limit int) *Transcript {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	return &Transcript{limit: limit, ascii: true}
}

// Limit returns the number of bytes of text kept.
func (t *Transcript) Limit() int { return t.limit }

// Write feeds raw terminal output. It never fails and always returns len(p).
func (t *Transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch t.st {
		case tGround:
			if t.un > 0 {
				if b&0xC0 == 0x80 {
					t.utf[t.un] = b
					t.un++
					if t.un == t.uneed {
						r, size := utf8.DecodeRune(t.utf[:t.un])
						if r == utf8.RuneError && size <= 1 {
							r = utf8.RuneError
						}
						t.un = 0
						if r >= 0x80 && r < 0xA0 { // C1 control encoded as UTF-8: drop
							continue
						}
						t.put(r)
					}
					continue
				}
				// Truncated sequence: one U+FFFD, then handle b afresh.
				t.un = 0
				t.put(utf8.RuneError)
			}
			switch {
			case b >= 0x20 && b < 0x7f:
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				t.putASCII(p[i:j])
				i = j - 1
			case b < 0x20:
				t.control(b)
			case b == 0x7f:
			default:
				n := 0
				switch {
				case b >= 0xC2 && b <= 0xDF:
					n = 2
				case b >= 0xE0 && b <= 0xEF:
					n = 3
				case b >= 0xF0 && b <= 0xF4:
					n = 4
				}
				if n == 0 {
					t.put(utf8.RuneError)
					continue
				}
				t.utf[0] = b
				t.un, t.uneed = 1, n
			}
		case tEsc:
			switch {
			case b == '[':
				t.st, t.np, t.private = tCSI, 0, false
				t.params[0] = 0
			case b == ']':
				t.st = tOSC
			case b == 'P' || b == 'X' || b == '^' || b == '_':
				t.st = tStr
			case b >= 0x20 && b <= 0x2f:
				t.st = tEscInt
			case b >= 0x30 && b <= 0x7e:
				t.st = tGround
			case b == 0x1b:
			case b == 0x18 || b == 0x1a:
				t.st = tGround
			case b < 0x20:
				t.control(b)
			default: // 0x7f and 8-bit bytes: abandon the sequence
				t.st = tGround
				if b >= 0x80 {
					i--
				}
			}
		case tEscInt:
			switch {
			case b >= 0x20 && b <= 0x2f:
			case b >= 0x30 && b <= 0x7e:
				t.st = tGround
			case b == 0x1b:
				t.st = tEsc
			case b == 0x18 || b == 0x1a:
				t.st = tGround
			case b < 0x20:
				t.control(b)
			default:
				t.st = tGround
			}
		case tCSI:
			switch {
			case b >= '0' && b <= '9':
				if t.np == 0 {
					t.np = 1
					t.params[0] = 0
				}
				if v := &t.params[t.np-1]; *v < 100000 {
					*v = *v*10 + int(b-'0')
				}
			case b == ';' || b == ':':
				if t.np == 0 {
					t.np = 1
					t.params[0] = 0
				}
				if t.np < len(t.params) {
					t.params[t.np] = 0
					t.np++
				}
			case b >= 0x3c && b <= 0x3f: // private markers < = > ?
				t.private = true
			case b >= 0x20 && b <= 0x2f: // intermediates
				t.private = true
			case b >= 0x40 && b <= 0x7e:
				t.st = tGround
				if !t.private {
					t.csi(b)
				}
			case b == 0x1b:
				t.st = tEsc
			case b == 0x18 || b == 0x1a:
				t.st = tGround
			case b < 0x20:
				t.control(b)
			}
		case tOSC, tStr:
			switch b {
			case 0x07:
				if t.st == tOSC {
					t.st = tGround
				}
			case 0x1b:
				t.st = tStrEsc
			case 0x18, 0x1a:
				t.st = tGround
			}
		case tStrEsc:
			if b == '\\' {
				t.st = tGround
			} else {
				// ESC started a new sequence, ending the string.
				t.st = tEsc
				i--
			}
		}
	}
	return len(p), nil
}

// Flush ends a pending incomplete UTF-8 sequence as U+FFFD. Call it when
// the stream has ended; until then an incomplete character is held back.
func (t *Transcript) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.un > 0 {
		t.un = 0
		t.put(utf8.RuneError)
	}
}

// Snapshot returns the text kept so far (the most recent Limit bytes, cut
// forward to a UTF-8 character boundary) and whether anything was dropped
// from the start. The text is valid UTF-8; it includes the current
// unfinished line but not a character whose bytes are still incomplete.
func (t *Transcript) Snapshot() (text string, truncated bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lb := t.line
	total := len(t.done) + len(lb)
	cut := 0
	if total > t.limit {
		cut = total - t.limit
	}
	at := func(i int) byte {
		if i < len(t.done) {
			return t.done[i]
		}
		return lb[i-len(t.done)]
	}
	for cut < total && at(cut)&0xC0 == 0x80 {
		cut++
	}
	if cut < len(t.done) {
		buf := make([]byte, 0, total-cut)
		buf = append(buf, t.done[cut:]...)
		buf = append(buf, lb...)
		text = string(buf)
	} else {
		text = string(lb[cut-len(t.done):])
	}
	return text, t.dropped || cut > 0
}

// shrink frees what Snapshot can no longer return — completed text before
// its most recent limit bytes — and spare capacity, so a finished transcript holds
// about as many bytes as its text. Snapshot and later Writes behave as if
// it had not been called. A Terminal calls it when its output has ended.
func (t *Transcript) shrink() {
	t.mu.Lock()
	defer t.mu.Unlock()
	// As compact cuts: the current line may still get shorter (CR, EL), so
	// Snapshot can reach back up to limit bytes into done.
	cut := max(len(t.done)-t.limit, 0)
	for cut > 0 && cut < len(t.done) && t.done[cut]&0xC0 == 0x80 {
		cut++
	}
	if cut > 0 || cap(t.done) > len(t.done) {
		t.dropped = t.dropped || cut > 0
		t.done = exactCopy(t.done[cut:])
	}
	if cap(t.line) > len(t.line) {
		t.line = exactCopy(t.line)
	}
}

// exactCopy returns a copy of p with no spare capacity (nil when empty).
func exactCopy(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	c := make([]byte, len(p))
	copy(c, p)
	return c
}

// control applies a C0 control character.
func (t *Transcript) control(b byte) {
	switch b {
	case '\n', 0x0b, 0x0c:
		t.newline()
	case '\r':
		t.col = 0
	case '\b':
		if t.col > 0 {
			t.col--
		}
	case '\t':
		t.put('\t')
	case 0x1b:
		t.st = tEsc
	}
}

func (t *Transcript) param(i, def int) int {
	if i < t.np && t.params[i] > 0 {
		return t.params[i]
	}
	return def
}

// csi applies a line-editing control sequence; others are ignored.
func (t *Transcript) csi(final byte) {
	switch final {
	case 'K': // EL
		switch t.param(0, 0) {
		case 0:
			if t.col < t.nr {
				t.line = t.line[:t.off(t.col)]
				t.nr = t.col
			}
		case 1:
			n := min(t.col+1, t.nr)
			t.splice(0, t.off(n), n)
		case 2:
			t.line, t.nr, t.ascii = t.line[:0], 0, true
		}
	case 'D': // CUB
		t.col = max(0, t.col-t.param(0, 1))
	case 'C': // CUF
		t.col = min(t.col+t.param(0, 1), t.nr+maxDim)
	case 'G', '`': // CHA, HPA
		t.col = min(t.param(0, 1)-1, t.nr+maxDim)
	case 'X': // ECH
		if t.col < t.nr {
			n := min(t.param(0, 1), t.nr-t.col)
			t.splice(t.off(t.col), t.off(t.col+n), n)
		}
	case 'P': // DCH
		if t.col < t.nr {
			n := min(t.param(0, 1), t.nr-t.col)
			t.splice(t.off(t.col), t.off(t.col+n), 0)
			t.nr -= n
		}
	case '@': // ICH
		if t.col < t.nr {
			n := min(t.param(0, 1), maxDim)
			o := t.off(t.col)
			t.splice(o, o, n)
			t.nr += n
		}
	}
}

// off returns the byte offset of character i (0 <= i <= nr) in line.
func (t *Transcript) off(i int) int {
	if t.ascii {
		return i
	}
	o := 0
	for ; i > 0 && o < len(t.line); i-- {
		_, sz := utf8.DecodeRune(t.line[o:])
		o += sz
	}
	return o
}

// splice replaces line[from:to] with n spaces.
func (t *Transcript) splice(from, to, n int) {
	tail := len(t.line) - to
	need := from + n + tail
	if need > len(t.line) {
		t.line = append(t.line, make([]byte, need-len(t.line))...)
	}
	copy(t.line[from+n:], t.line[to:to+tail])
	for i := from; i < from+n; i++ {
		t.line[i] = ' '
	}
	t.line = t.line[:need]
}

// put writes one character at the cursor, overwriting or extending the line.
func (t *Transcript) put(r rune) {
	if r >= utf8.RuneSelf {
		t.ascii = false
	}
	switch {
	case t.col == t.nr:
		t.line = utf8.AppendRune(t.line, r)
		t.nr++
	case t.col < t.nr:
		if t.ascii {
			t.line[t.col] = byte(r)
			break
		}
		o := t.off(t.col)
		_, sz := utf8.DecodeRune(t.line[o:])
		var enc [utf8.UTFMax]byte
		k := utf8.EncodeRune(enc[:], r)
		if k != sz {
			t.splice(o, o+sz, k)
		}
		copy(t.line[o:], enc[:k])
	default:
		for t.nr < t.col {
			t.line = append(t.line, ' ')
			t.nr++
		}
		t.line = utf8.AppendRune(t.line, r)
		t.nr++
	}
	t.col++
	if len(t.line) > t.lineMax() {
		t.freeze()
	}
}

// putASCII is put for a run of printable ASCII bytes.
func (t *Transcript) putASCII(p []byte) {
	if t.col == t.nr && len(t.line)+len(p) <= t.lineMax() {
		t.line = append(t.line, p...)
		t.nr += len(p)
		t.col += len(p)
		return
	}
	for _, b := range p {
		t.put(rune(b))
	}
}

// lineMax is the most bytes the current line may hold before its start is frozen.
func (t *Transcript) lineMax() int { return 2 * max(t.limit, 4096) }

// freeze moves the first half of an overlong line into done.
func (t *Transcript) freeze() {
	cut := len(t.line) - t.lineMax()/2
	for cut < len(t.line) && t.line[cut]&0xC0 == 0x80 {
		cut++
	}
	k := cut
	if !t.ascii {
		k = utf8.RuneCount(t.line[:cut])
	}
	t.done = append(t.done, t.line[:cut]...)
	t.line = append(t.line[:0], t.line[cut:]...)
	t.nr -= k
	t.col = max(0, t.col-k)
	t.compact()
}

// newline completes the current line.
func (t *Transcript) newline() {
	t.done = append(t.done, t.line...)
	t.done = append(t.done, '\n')
	t.line, t.nr, t.col, t.ascii = t.line[:0], 0, 0, true
	t.compact()
}

// compact drops old text once done holds twice the limit (amortised O(1)).
func (t *Transcript) compact() {
	if len(t.done) < 2*t.limit+4096 {
		return
	}
	cut := len(t.done) - t.limit
	for cut < len(t.done) && t.done[cut]&0xC0 == 0x80 {
		cut++
	}
	n := copy(t.done, t.done[cut:])
	t.done = t.done[:n]
	t.dropped = true
}
