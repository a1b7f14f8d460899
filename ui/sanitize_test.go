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
