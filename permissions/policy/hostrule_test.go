package policy

import "testing"

func TestHostRuleMatching(t *testing.T) {
	r := func(s string) HostRule {
		h, err := ParseHostRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	cases := []struct {
		rule, host string
		port       int
		want       bool
	}{
		{"*.npmjs.org", "registry.npmjs.org", 443, true},
		{"*.npmjs.org", "a.b.npmjs.org", 443, true},
		{"*.npmjs.org", "npmjs.org", 443, false},
		{"*.npmjs.org", "evilnpmjs.org", 443, false},
		{"example.com:8443", "example.com", 8443, true},
		{"example.com:8443", "example.com", 443, false},
		{"example.com", "example.com", 22, true},
		{"[::1]:8080", "::1", 8080, true},
		{"::ffff:10.0.0.1", "10.0.0.1", 80, true},
	}
	for _, c := range cases {
		if got := r(c.rule).Matches(c.host, c.port); got != c.want {
			t.Errorf("%s matches %s:%d = %v, want %v", c.rule, c.host, c.port, got, c.want)
		}
	}
	if !r("*.corp.example").Covers(r("a.corp.example:22")) || r("a.corp.example:22").Covers(r("a.corp.example")) ||
		r("*.corp.example").Covers(r("corp.example")) || !r("x.com").Covers(r("x.com:1")) {
		t.Error("Covers is wrong")
	}
}
