package netproxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// TestDomain is the only domain a TestResolver answers for: ".test" is reserved (RFC 6761)
// and never resolves on the internet, so mapping it cannot redirect a real name.
const TestDomain = "acpterm.test"

// TestResolver is a Resolver for tests: names under TestDomain resolve to the loopback
// addresses it maps them to; every other name is "not found" (it never asks the system's
// resolver, so a test cannot reach the internet by name).
type TestResolver struct {
	// Hosts maps a name (or "*." + a suffix under TestDomain) to its addresses.
	Hosts map[string][]netip.Addr
	// Public marks entries of Hosts (same keys) whose loopback addresses stand for public
	// ones, so that tests with their servers on 127.0.0.1 can exercise what a public host
	// gets (a question, a grant); the other entries are what they are: non-public.
	Public map[string]bool
}

// ParseTestResolver reads "name=addr[,addr…];name=public:addr…" (names under TestDomain, "*.x"
// wildcards allowed; loopback addresses only; "public:" marks the entry's addresses as
// standing for public ones, see TestResolver.Public). Errors name the bad entry.
func ParseTestResolver(spec string) (*TestResolver, error) {
	r := &TestResolver{Hosts: map[string][]netip.Addr{}, Public: map[string]bool{}}
	for _, ent := range strings.Split(spec, ";") {
		ent = strings.TrimSpace(ent)
		if ent == "" {
			continue
		}
		name, addrs, ok := strings.Cut(ent, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !ok || !(name == TestDomain || strings.HasSuffix(name, "."+TestDomain)) {
			return nil, fmt.Errorf("test resolver entry %q: the name must be under %s", ent, TestDomain)
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(addrs), "public:"); ok {
			addrs, r.Public[name] = rest, true
		}
		for _, s := range strings.Split(addrs, ",") {
			a, err := netip.ParseAddr(strings.TrimSpace(s))
			if err != nil || !a.Unmap().IsLoopback() {
				return nil, fmt.Errorf("test resolver entry %q: %q is not a loopback address", ent, s)
			}
			r.Hosts[name] = append(r.Hosts[name], a.Unmap())
		}
	}
	return r, nil
}

// LookupNetIP implements Resolver: an exact entry first, then the longest "*." suffix.
func (r *TestResolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	if k, ok := r.entry(host); ok {
		return r.Hosts[k], nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// PublicStandIn reports whether the entry that answers host is marked Public.
func (r *TestResolver) PublicStandIn(host string) bool {
	k, ok := r.entry(host)
	return ok && r.Public[k]
}

// entry returns the key of Hosts that answers host: the exact name, else the longest "*."
// suffix.
func (r *TestResolver) entry(host string) (string, bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, ok := r.Hosts[host]; ok {
		return host, true
	}
	for h := host; strings.Contains(h, "."); {
		_, h, _ = strings.Cut(h, ".")
		if _, ok := r.Hosts["*."+h]; ok {
			return "*." + h, true
		}
	}
	return "", false
}
