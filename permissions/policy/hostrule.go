package policy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// HostRule is one parsed [policy.network] rule: "example.com", "*.npmjs.org" (every name below
// npmjs.org, not npmjs.org itself), "example.com:8443" (that port only), "10.0.0.5",
// "[::1]:8080".
type HostRule struct {
	// Host is the name (lower-case, no trailing dot) or IP literal (IPv6 without brackets);
	// for a wildcard rule, the suffix after "*.".
	Host string
	// Wildcard reports a "*." rule: it matches names strictly below Host.
	Wildcard bool
	// Port is the port the rule is limited to; 0 means every port.
	Port int
}

// String renders the rule as written in the config (normalised).
func (r HostRule) String() string {
	h := r.Host
	if r.Wildcard {
		h = "*." + h
	}
	if r.Port == 0 {
		return h
	}
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(r.Port)
}

// Matches reports whether the rule covers host (normalised as NormalizeHost in package
// netproxy does: lower-case, no trailing dot, IPv6 without brackets) and port.
func (r HostRule) Matches(host string, port int) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	if r.Wildcard {
		return strings.HasSuffix(host, "."+r.Host)
	}
	return host == r.Host
}

// Covers reports whether every host and port r2 matches is also matched by r.
func (r HostRule) Covers(r2 HostRule) bool {
	if r.Port != 0 && r.Port != r2.Port {
		return false
	}
	if !r.Wildcard {
		return !r2.Wildcard && r.Host == r2.Host
	}
	return strings.HasSuffix(r2.Host, "."+r.Host)
}

// ParseHostRule parses one [policy.network] rule. Errors say what is wrong: empty, a bare "*"
// (that is unmatched = "allow"), a wildcard anywhere but a leading "*.", a port out of 1–65535,
// a character no host name has (non-ASCII names go as punycode "xn--…").
func ParseHostRule(s string) (HostRule, error) {
	in := s
	s = strings.TrimSpace(s)
	if s == "" {
		return HostRule{}, fmt.Errorf("empty host rule")
	}
	if s == "*" || s == "*.*" || strings.HasPrefix(s, "*:") {
		return HostRule{}, fmt.Errorf("host rule %q matches every host; say that with unmatched = \"allow\"", in)
	}
	if strings.Contains(s, "://") || strings.Contains(s, "/") {
		return HostRule{}, fmt.Errorf("host rule %q: write the host name (and :port) only, not a URL or path", in)
	}
	var r HostRule
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, perr := strconv.Atoi(p)
		if perr != nil || n < 1 || n > 65535 {
			return HostRule{}, fmt.Errorf("host rule %q: port %q is not between 1 and 65535", in, p)
		}
		host, r.Port = h, n
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return HostRule{}, fmt.Errorf("host rule %q: zoned addresses are not supported", in)
		}
		r.Host = a.Unmap().String()
		return r, nil
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.Wildcard, host = true, rest
	}
	if strings.ContainsAny(host, "*?[") {
		return HostRule{}, fmt.Errorf("host rule %q: a wildcard may only be a leading \"*.\"", in)
	}
	if host == "" || len(host) > 253 {
		return HostRule{}, fmt.Errorf("host rule %q is not a host name", in)
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return HostRule{}, fmt.Errorf("host rule %q is not a host name (empty or overlong label)", in)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if c >= 0x80 {
				return HostRule{}, fmt.Errorf("host rule %q: write internationalised names as punycode (xn--…)", in)
			}
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return HostRule{}, fmt.Errorf("host rule %q: %q is not allowed in a host name", in, string(c))
			}
		}
	}
	if r.Wildcard && !strings.Contains(host, ".") {
		return HostRule{}, fmt.Errorf("host rule %q covers a whole top-level domain; name the domain (\"*.example.%s\")", in, host)
	}
	r.Host = host
	return r, nil
}
