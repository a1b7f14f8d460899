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
}

// ParseTestResolver reads "name=addr[,addr…];name=addr…" (names under TestDomain, "*.x"
// wildcards allowed; loopback addresses only). Errors name the bad entry.
func ParseTestResolver(spec string) (*TestResolver, error) {
	r := &TestResolver{Hosts: map[string][]netip.Addr{}}
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
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if as, ok := r.Hosts[host]; ok {
		return as, nil
	}
	for h := host; strings.Contains(h, "."); {
		_, h, _ = strings.Cut(h, ".")
		if as, ok := r.Hosts["*."+h]; ok {
			return as, nil
		}
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
