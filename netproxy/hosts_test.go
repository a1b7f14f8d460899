package netproxy

import (
	"net/netip"
	"testing"
)

func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{
		"Proxy.Golang.ORG.": "proxy.golang.org",
		"[::1]":             "::1",
		"::ffff:127.0.0.1":  "127.0.0.1",
		"10.0.0.5":          "10.0.0.5",
		"_dmarc.x.com":      "_dmarc.x.com",
		"xn--bcher-kva.de":  "xn--bcher-kva.de",
	} {
		got, err := NormalizeHost(in)
		if err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a b.com", "bücher.de", "127.1", "2130706433", "0x7f.1", "fe80::1%eth0", "a..b", "x/y"} {
		if got, err := NormalizeHost(bad); err == nil {
			t.Errorf("NormalizeHost(%q) = %q, want an error", bad, got)
		}
	}
}

func TestNonPublic(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":        "loopback",
		"127.8.9.10":       "loopback",
		"::1":              "loopback",
		"10.1.2.3":         "private",
		"172.16.0.1":       "private",
		"192.168.1.1":      "private",
		"fd00::1":          "private",
		"169.254.169.254":  "link-local",
		"fe80::1":          "link-local",
		"0.0.0.0":          "unspecified",
		"::":               "unspecified",
		"100.64.0.1":       "shared address space (carrier-grade NAT)",
		"::ffff:10.0.0.1":  "private",
		"64:ff9b::7f00:1":  "loopback (through NAT64)",
		"2002:c0a8:101::1": "private (through 6to4)",
		"239.1.2.3":        "multicast",
		"224.0.0.251":      "link-local",
		"255.255.255.255":  "broadcast",
		"8.8.8.8":          "",
		"2606:4700::1111":  "",
		"151.101.1.1":      "",
	} {
		if got := NonPublic(netip.MustParseAddr(in)); got != want {
			t.Errorf("NonPublic(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTestResolver(t *testing.T) {
	r, err := ParseTestResolver("*.acpterm.test=127.0.0.1; exact.acpterm.test=127.0.0.2,::1; *.pub.acpterm.test=public:127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if as, err := r.LookupNetIP(t.Context(), "ip", "a.pub.acpterm.test"); err != nil || len(as) != 1 || as[0] != loopback {
		t.Fatalf("public lookup %v %v", as, err)
	}
	for host, want := range map[string]bool{"a.pub.acpterm.test": true, "pub.acpterm.test": false, "exact.acpterm.test": false, "x.acpterm.test": false, "golang.org": false} {
		if got := r.PublicStandIn(host); got != want {
			t.Errorf("PublicStandIn(%s) = %v, want %v", host, got, want)
		}
	}
	as, err := r.LookupNetIP(t.Context(), "ip", "a.b.acpterm.test")
	if err != nil || len(as) != 1 || as[0] != loopback {
		t.Fatalf("wildcard lookup %v %v", as, err)
	}
	as, err = r.LookupNetIP(t.Context(), "ip", "exact.acpterm.test")
	if err != nil || len(as) != 2 || as[1] != netip.MustParseAddr("::1") {
		t.Fatalf("exact lookup %v %v", as, err)
	}
	if _, err := r.LookupNetIP(t.Context(), "ip", "golang.org"); err == nil {
		t.Fatal("a real name resolved through the test resolver")
	}
	for _, bad := range []string{"golang.org=127.0.0.1", "x.acpterm.test=10.0.0.1", "x.acpterm.test", "x.acpterm.test=public:10.0.0.1"} {
		if _, err := ParseTestResolver(bad); err == nil {
			t.Errorf("ParseTestResolver(%q) accepted", bad)
		}
	}
}
