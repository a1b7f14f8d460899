package terminals

import (
	"strings"
	"syscall"
	"testing"
)

func tr(limit int, chunks ...string) (string, bool) {
	t := NewTranscript(limit)
	for _, c := range chunks {
		_, _ = t.Write([]byte(c))
	}
	return t.Snapshot()
}

func TestTranscriptRules(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"crlf", []string{"a\r\nb\r\nc"}, "a\nb\nc"},
		{"sgr", []string{"\x1b[1;31mERR\x1b[0m done\r\n"}, "ERR done\n"},
		{"cr overwrite", []string{"50%\r100%\r\n"}, "100%\n"},
		{"cr shorter keeps tail", []string{"abcdef\rXY\r\n"}, "XYcdef\n"},
		{"cr then EL", []string{"abcdef\rXY\x1b[K\r\n"}, "XY\n"},
		{"backspace", []string{"abc\b\bXY\n"}, "aXY\n"},
		{"backspace at start", []string{"\b\bab\n"}, "ab\n"},
		{"tab kept", []string{"a\tb\n"}, "a\tb\n"},
		{"osc title bel", []string{"\x1b]0;title\x07text"}, "text"},
		{"osc title st", []string{"\x1b]2;title\x1b\\text"}, "text"},
		{"osc 8 link", []string{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"}, "link"},
		{"dcs", []string{"\x1bP1$r0m\x1b\\ok"}, "ok"},
		{"private csi", []string{"\x1b[?1049h\x1b[?25lx"}, "x"},
		{"charset esc", []string{"\x1b(Bx\x1b7y\x1b8"}, "xy"},
		{"split escape", []string{"\x1b", "[", "3", "1m", "red", "\x1b[0", "m"}, "red"},
		{"split utf8", []string{"\xe2", "\x82", "\xac!"}, "€!"},
		{"invalid byte", []string{"a\xffb"}, "a\ufffdb"},
		{"truncated utf8", []string{"a\xe2\x82b"}, "a\ufffdb"},
		{"overlong", []string{"\xc0\xaf"}, "\ufffd\ufffd"},
		{"c1 in utf8 dropped", []string{"a\xc2\x9bb"}, "ab"},
		{"bell dropped", []string{"a\x07b"}, "ab"},
		{"cursor left", []string{"abc\x1b[2DX\n"}, "aXc\n"},
		{"cursor column", []string{"abc\x1b[1GZ\n"}, "Zbc\n"},
		{"cursor right pads", []string{"a\x1b[3Cb"}, "a   b"},
		{"erase line 2", []string{"abc\x1b[2K\rxy"}, "xy"},
		{"erase to start", []string{"abcd\x1b[2D\x1b[1K"}, "   d"},
		{"delete chars", []string{"abcd\r\x1b[2P"}, "cd"},
		{"insert chars", []string{"abcd\r\x1b[2@XY"}, "XYabcd"},
		{"cr cannot edit previous line", []string{"one\r\ntwo\r\x1b[Athree\n"}, "one\nthree\n"},
		{"escape then csi inside", []string{"\x1b[31\x1b[32mg"}, "g"},
		{"can aborts", []string{"\x1b[12\x18x"}, "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, trunc := tr(0, c.chunks...)
			if got != c.want || trunc {
				t.Fatalf("got %q (truncated %v), want %q", got, trunc, c.want)
			}
		})
	}
}

func TestTranscriptUTF8SplitEverywhere(t *testing.T) {
	in := "héllo € 日本語 🎉\x1b[1mbold\x1b[0m\r\nnext"
	want := "héllo € 日本語 🎉bold\nnext"
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			got, _ := tr(0, in[:i], in[i:j], in[j:])
			if got != want {
				t.Fatalf("split %d,%d: got %q want %q", i, j, got, want)
			}
		}
	}
}

func TestTranscriptHoldsBackIncompleteRune(t *testing.T) {
	x := NewTranscript(0)
	_, _ = x.Write([]byte("ab\xe2\x82"))
	if got, _ := x.Snapshot(); got != "ab" {
		t.Fatalf("got %q, want %q", got, "ab")
	}
	x.Flush()
	if got, _ := x.Snapshot(); got != "ab\ufffd" {
		t.Fatalf("after Flush got %q", got)
	}
}

func TestTranscriptLimitCutsAtCharBoundary(t *testing.T) {
	for _, c := range []struct {
		limit int
		want  string
	}{{5, "€"}, {6, "€€"}, {7, "€€"}, {10, "x€€€"}, {9, "€€€"}} {
		got, trunc := tr(c.limit, "x€€€")
		wantTrunc := c.limit < 10
		if got != c.want || trunc != wantTrunc {
			t.Errorf("limit %d: got %q truncated=%v, want %q truncated=%v", c.limit, got, trunc, c.want, wantTrunc)
		}
	}
}

func TestTranscriptKeepsMostRecentAcrossCompaction(t *testing.T) {
	x := NewTranscript(100)
	var all strings.Builder
	for i := range 5000 {
		line := strings.Repeat(string(rune('a'+i%26)), i%7) + "é\n"
		all.WriteString(line)
		_, _ = x.Write([]byte(strings.ReplaceAll(line, "\n", "\r\n")))
	}
	got, trunc := x.Snapshot()
	full := all.String()
	cut := len(full) - 100
	for full[cut]&0xC0 == 0x80 {
		cut++
	}
	if got != full[cut:] || !trunc {
		t.Fatalf("got %q (trunc %v), want %q", got, trunc, full[cut:])
	}
	if len(x.done) > 2*100+4096+16 {
		t.Fatalf("internal buffer not compacted: %d bytes", len(x.done))
	}
}

func TestTranscriptLongLineBounded(t *testing.T) {
	x := NewTranscript(1000)
	chunk := []byte(strings.Repeat("0123456789", 100))
	for range 1000 { // 1 MB without a newline
		_, _ = x.Write(chunk)
	}
	got, trunc := x.Snapshot()
	if len(got) != 1000 || !trunc || got != string(chunk) {
		t.Fatalf("got %d bytes (trunc %v) %q…", len(got), trunc, got[:min(20, len(got))])
	}
	if len(x.line) > x.lineMax() || len(x.done) > 2*1000+4096+x.lineMax()*4 {
		t.Fatalf("memory not bounded: line %d runes, done %d bytes", len(x.line), len(x.done))
	}
}

// BenchmarkTranscript feeds about 1 MiB of mixed terminal output per
// operation (so B/op and allocs/op are per MiB) in 4 KiB writes, into a
// transcript at its steady state (1 MiB limit, buffers grown).
func BenchmarkTranscript(b *testing.B) {
	var buf strings.Builder
	for i := 0; buf.Len() < 1<<20; i++ {
		switch i % 4 {
		case 0:
			buf.WriteString("plain line of build output with some words in it 12345\r\n")
		case 1:
			buf.WriteString("\x1b[1;32mok\x1b[0m  \tgithub.com/acpterm/acpterm/pkg\t0.123s\r\n")
		case 2:
			buf.WriteString("progress 10%\rprogress 50%\rprogress 100%\r\n")
		case 3:
			buf.WriteString("ünïcödé — 日本語 text \x1b[38;5;208morange\x1b[0m\r\n")
		}
	}
	data := []byte(buf.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	x := NewTranscript(DefaultOutputLimit)
	for range 3 { // warm up: grow the buffers to their steady size first
		_, _ = x.Write(data)
	}
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	ops := 0
	for b.Loop() {
		for p := data; len(p) > 0; {
			n := min(len(p), 4096)
			_, _ = x.Write(p[:n])
			p = p[n:]
		}
		ops++
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	// CPU time rather than wall time: the machine may be shared.
	cpu := float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) / 1e9
	if cpu > 0 {
		b.ReportMetric(float64(ops*len(data))/1e6/cpu, "cpu-MB/s")
	}
}

// TestTranscriptShrink: shrink keeps at most the last limit bytes with no
// spare capacity, and Snapshot and later Writes give what they would have
// without it.
func TestTranscriptShrink(t *testing.T) {
	long := strings.Repeat("é€x", 5000) // one line of 30 000 bytes, no newline
	cases := []struct {
		name  string
		limit int
		out   string
	}{
		{"one line", 0, "hi\r\n"},
		{"empty", 100, ""},
		{"over the limit, multibyte", 1000, strings.Repeat("line €€ é\r\n", 400) + "pro€gress 50%"},
		{"long open line", 4096, "head\r\n" + long},
		{"progress", 64, "\x1b[1mbuild\x1b[0m\r\n" + strings.Repeat("12%\r", 50) + "99%"},
	}
	for _, c := range cases {
		a, b := NewTranscript(c.limit), NewTranscript(c.limit)
		_, _ = a.Write([]byte(c.out))
		_, _ = b.Write([]byte(c.out))
		b.shrink()
		at, atr := a.Snapshot()
		bt, btr := b.Snapshot()
		if at != bt || atr != btr {
			t.Fatalf("%s: after shrink %d bytes truncated=%v, want %d bytes truncated=%v", c.name, len(bt), btr, len(at), atr)
		}
		if cap(b.done) != len(b.done) || cap(b.line) != len(b.line) || len(b.done) > b.limit {
			t.Fatalf("%s: done %d/%d line %d/%d bytes (len/cap), limit %d", c.name, len(b.done), cap(b.done), len(b.line), cap(b.line), b.limit)
		}
		more := "\r\x1b[Kdone \x1b[31m✓\x1b[0m\r\n" + strings.Repeat("more €\r\n", 300)
		for _, w := range []string{more[:7], more[7:]} {
			_, _ = a.Write([]byte(w))
			_, _ = b.Write([]byte(w))
			at, atr = a.Snapshot()
			bt, btr = b.Snapshot()
			if at != bt || atr != btr {
				t.Fatalf("%s: writes after shrink: %q truncated=%v, want %q truncated=%v", c.name, bt, btr, at, atr)
			}
		}
	}
}
