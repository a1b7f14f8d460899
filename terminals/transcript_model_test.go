package terminals

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// model is a reference line editor over runes, used to check Transcript's
// byte-level editing on random operation sequences.
type model struct {
	done []string
	line []rune
	col  int
}

func (m *model) put(r rune) {
	for len(m.line) < m.col {
		m.line = append(m.line, ' ')
	}
	if m.col == len(m.line) {
		m.line = append(m.line, r)
	} else {
		m.line[m.col] = r
	}
	m.col++
}

func (m *model) text() string { return strings.Join(m.done, "") + string(m.line) }

func TestTranscriptMatchesModel(t *testing.T) {
	runes := []rune{'a', 'b', 'Z', ' ', 'é', '€', '日', '🎉'}
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		var m model
		var in strings.Builder
		for range rng.IntN(60) {
			n := 1 + rng.IntN(3)
			ns := strconv.Itoa(n)
			switch op := rng.IntN(14); op {
			case 0, 1, 2, 3, 4:
				r := runes[rng.IntN(len(runes))]
				in.WriteRune(r)
				m.put(r)
			case 5:
				in.WriteString("\r")
				m.col = 0
			case 6:
				in.WriteString("\b")
				m.col = max(0, m.col-1)
			case 7:
				in.WriteString("\r\n")
				m.done = append(m.done, string(m.line)+"\n")
				m.line, m.col = nil, 0
			case 8: // EL 0
				in.WriteString("\x1b[K")
				if m.col < len(m.line) {
					m.line = m.line[:m.col]
				}
			case 9: // EL 1
				in.WriteString("\x1b[1K")
				for i := 0; i <= m.col && i < len(m.line); i++ {
					m.line[i] = ' '
				}
			case 10: // ECH
				in.WriteString("\x1b[" + ns + "X")
				for i := m.col; i < len(m.line) && i < m.col+n; i++ {
					m.line[i] = ' '
				}
			case 11: // DCH
				in.WriteString("\x1b[" + ns + "P")
				if m.col < len(m.line) {
					k := min(n, len(m.line)-m.col)
					m.line = append(m.line[:m.col], m.line[m.col+k:]...)
				}
			case 12: // ICH
				in.WriteString("\x1b[" + ns + "@")
				if m.col < len(m.line) {
					ins := []rune(strings.Repeat(" ", n))
					m.line = append(m.line[:m.col], append(ins, m.line[m.col:]...)...)
				}
			case 13: // CUB / CUF / CHA
				switch rng.IntN(3) {
				case 0:
					in.WriteString("\x1b[" + ns + "D")
					m.col = max(0, m.col-n)
				case 1:
					in.WriteString("\x1b[" + ns + "C")
					m.col += n
				case 2:
					in.WriteString("\x1b[" + ns + "G")
					m.col = n - 1
				}
			}
		}
		x := NewTranscript(0)
		// Feed in random pieces to exercise splits too.
		s := in.String()
		for len(s) > 0 {
			k := 1 + rng.IntN(len(s))
			_, _ = x.Write([]byte(s[:k]))
			s = s[k:]
		}
		got, _ := x.Snapshot()
		if want := m.text(); got != want {
			t.Fatalf("iteration %d: input %q\ngot  %q\nwant %q", iter, in.String(), got, want)
		}
	}
}
