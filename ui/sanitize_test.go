package ui

import "testing"

func TestSanitize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain **md**\n\tok", "plain **md**\n\tok"},
		{"red \x1b[31mtext\x1b[0m!", "red text!"},
		{"title \x1b]0;pwned\x07done", "title done"},
		{"osc52 \x1b]52;c;ZXZpbA==\x1b\\x", "osc52 x"},
		{"bell\x07 bs\x08 cr\r\nnext", "bell bs cr\nnext"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"del\x7f nul\x00", "del nul"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"abc\u202egnp.exe \u2066x\u2069 \u200bzw", "abcgnp.exe x \u200bzw"},
	}
	for _, c := range cases {
		if got := sanitize(c.in); got != c.want {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := sanitizeLine("a\nb\tc\x1b[2Jd"); got != "a b cd" {
		t.Errorf("sanitizeLine = %q", got)
	}
}

// What a person approves shows every control and invisible character as an escape.
func TestRevealLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"touch safe_looking\rrm -f Makefile", `touch safe_looking\rrm -f Makefile`},
		{"echo a\nrm -rf ~\tx", `echo a\nrm -rf ~\tx`},
		{"ls \x1b[8mhidden\x1b[0m", `ls \x1b[8mhidden\x1b[0m`},
		{"cat \u202etxt.exe", `cat \u202etxt.exe`},
		{"rm\u200b -rf \u00ad/", `rm\u200b -rf \u00ad/`},
		{"c1 \u009b del\x7f bad\xff", `c1 \x9b del\x7f bad` + "\uFFFD"},
		{"plain ünïcode 日本", "plain ünïcode 日本"},
	} {
		if got := revealLine(c.in); got != c.want {
			t.Errorf("revealLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
