package terminals

import (
	"bytes"
	"slices"
	"strconv"
)

// The modes of skipped output: when the feeder skips ahead under a flood (output.go), the DEC
// private mode changes in the bytes it drops (mouse tracking, bracketed paste, cursor keys …)
// are kept, the last change per mode, and replayed to the screen before the tail it feeds, so
// the screen's modes end up as a full emulation would leave them.

// modeSet is a DEC private mode change (CSI ? n h / l).
type modeSet struct {
	mode int
	on   bool
}

// scanModes appends the DEC private mode changes found in p to log,
// keeping only the last change per mode, in order of last change.
func scanModes(p []byte, log []modeSet) []modeSet {
	for {
		i := bytes.Index(p, []byte("\x1b[?"))
		if i < 0 {
			return log
		}
		p = p[i+3:]
		var params [8]int
		np, cur, has, j := 0, 0, false, 0
		for ; j < len(p); j++ {
			c := p[j]
			if c >= '0' && c <= '9' {
				if cur < 100000 {
					cur = cur*10 + int(c-'0')
				}
				has = true
			} else if c == ';' && np < len(params)-1 {
				params[np] = cur
				np++
				cur, has = 0, false
			} else {
				break
			}
		}
		if j < len(p) && (p[j] == 'h' || p[j] == 'l') {
			if has {
				params[np] = cur
				np++
			}
			for _, m := range params[:np] {
				log = slices.DeleteFunc(log, func(x modeSet) bool { return x.mode == m })
				if len(log) < 64 {
					log = append(log, modeSet{m, p[j] == 'h'})
				}
			}
		}
		p = p[j:]
	}
}

// replayModes encodes log as CSI ? n h / l sequences.
func replayModes(log []modeSet) []byte {
	var b []byte
	for _, m := range log {
		b = append(b, "\x1b[?"...)
		b = strconv.AppendInt(b, int64(m.mode), 10)
		if m.on {
			b = append(b, 'h')
		} else {
			b = append(b, 'l')
		}
	}
	return b
}
