package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// conn is one client connection's state from the decision to the audit record.
type conn struct {
	ep    *Endpoint
	rec   Record
	start time.Time
	via   *url.URL // the upstream proxy the connection goes through; nil when direct
}

func (ep *Endpoint) newConn(protocol string) *conn {
	now := time.Now()
	return &conn{ep: ep, start: now, rec: Record{Time: now, Protocol: protocol}}
}

// finish sends the audit record (once per connection).
func (c *conn) finish() {
	c.rec.Duration = time.Since(c.start)
	if c.rec.Verdict == "" {
		c.rec.Verdict = Deny
	}
	if f := c.ep.p.o.Audit; f != nil {
		f(c.rec)
	}
}

// refusal is why a connection was not made, and how to tell the client.
type refusal struct {
	kind refusalKind
	msg  string // one line for the client and the record
}

type refusalKind int

const (
	refusedPolicy   refusalKind = iota // the policy (or a person) said no
	refusedBad                         // a malformed request
	refusedResolve                     // the host does not resolve
	refusedDial                        // the destination refused or did not answer
	refusedInternal                    // the proxy itself (closed, endpoint gone)
)

// PolicyMessage is the line a refused client is told (the HTTP 403 body, the log): it names
// the host, port, [policy.network] and the deciding rule.
func PolicyMessage(hostPort, rule string) string {
	return fmt.Sprintf("acpterm: connection to %s refused by [policy.network] (%s)", hostPort, rule)
}

// open decides, resolves, checks and dials host:port for the client. ctx ends when the client
// goes away (a held question is then withdrawn). On success it returns the upstream
// connection; the record holds the verdict either way.
func (c *conn) open(ctx context.Context, host string, port int) (net.Conn, *refusal) {
	p := c.ep.p
	id, err := c.ep.identity(ctx)
	if err != nil {
		return nil, &refusal{kind: refusedInternal, msg: "acpterm: the proxy endpoint is closed"}
	}
	c.rec.Identity = id
	h, err := NormalizeHost(host)
	if err != nil || port < 1 || port > 65535 {
		c.rec.Host, c.rec.Port = host, port
		c.rec.Verdict, c.rec.By, c.rec.Rule = Deny, "proxy", "bad request"
		msg := fmt.Sprintf("acpterm: bad destination %q port %d", host, port)
		if err != nil {
			msg = "acpterm: " + err.Error()
		}
		c.rec.Error = msg
		return nil, &refusal{kind: refusedBad, msg: msg}
	}
	c.rec.Host, c.rec.Port = h, port
	req := Request{Identity: id, Host: h, Port: port, Protocol: c.rec.Protocol}
	d := p.o.Decide(req)
	c.setDecision(d)
	if d.Verdict != Allow && d.Verdict != Ask {
		c.rec.Verdict = Deny
		return nil, &refusal{kind: refusedPolicy, msg: PolicyMessage(req.HostPort(), d.Rule)}
	}

	if up := p.o.Upstream; up != nil {
		scheme := "https"
		if c.rec.Protocol == "http" {
			scheme = "http"
		}
		via, err := up(scheme, h, port)
		if err != nil {
			c.rec.Verdict, c.rec.By, c.rec.Error = Deny, "proxy", err.Error()
			return nil, &refusal{kind: refusedInternal, msg: "acpterm: " + err.Error()}
		}
		c.via = via
		c.rec.Via = redactURL(via)
	}
	addrs, err := c.resolve(ctx, h)
	if err != nil && c.via != nil {
		// Behind the user's own proxy the name may only resolve there: it is dialled by name
		// through that proxy, and the checks below see no address.
		addrs, err = nil, nil
	}
	if err != nil {
		c.rec.Error = err.Error()
		if d.Verdict == Ask {
			// Nobody is asked about a host that does not exist; the record says so, not the
			// rule that would have asked.
			c.rec.Verdict, c.rec.By, c.rec.Rule = Deny, "proxy", "lookup failed: "+err.Error()
		}
		return nil, &refusal{kind: refusedResolve, msg: "acpterm: " + err.Error()}
	}
	req.Addrs = addrs
	var nonPublic []string
	standIn, _ := p.o.Resolver.(publicStandIn)
	for _, a := range addrs {
		if why := NonPublic(a); why != "" && (standIn == nil || !standIn.PublicStandIn(h)) {
			nonPublic = append(nonPublic, a.String()+" ("+why+")")
		}
	}
	// A non-public address is refused before anyone is asked: only a rule naming the host
	// exactly reaches it (an answer to a question, a grant or --approve never does, so a name
	// that rebinds to the user's machine or LAN after one approval stays out).
	if len(nonPublic) > 0 && !d.NamesHost {
		c.rec.Verdict, c.rec.By = Deny, "proxy"
		c.rec.Rule = "non-public address: " + strings.Join(nonPublic, ", ") + "; only an allow rule naming " + h + " exactly reaches it"
		return nil, &refusal{kind: refusedPolicy, msg: PolicyMessage(req.HostPort(), c.rec.Rule)}
	}

	if d.Verdict == Ask {
		if p.o.Ask == nil {
			d = Decision{Verdict: Deny, By: "proxy", Rule: d.Rule + "; nobody to ask"}
		} else {
			d = p.o.Ask(ctx, req, d)
		}
		c.setDecision(d)
		if d.Verdict != Allow {
			c.rec.Verdict = Deny
			return nil, &refusal{kind: refusedPolicy, msg: PolicyMessage(req.HostPort(), d.Rule)}
		}
	}
	c.rec.Verdict = Allow

	if c.via != nil {
		up, err := c.dialUpstream(ctx, c.via, h, port, c.rec.Protocol != "http")
		if err != nil {
			c.rec.Error = err.Error()
			return nil, &refusal{kind: refusedDial, msg: "acpterm: " + err.Error()}
		}
		return up, nil
	}
	// Dial exactly the addresses checked above, in the resolver's order.
	dialer := net.Dialer{Timeout: p.o.DialTimeout}
	var lastErr error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, uint16(port))
		up, err := dialer.DialContext(ctx, "tcp", ap.String())
		if err == nil {
			c.rec.Addr = ap
			return up, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	c.rec.Error = fmt.Sprintf("dial %s: %v", req.HostPort(), trimOpError(lastErr))
	return nil, &refusal{kind: refusedDial, msg: "acpterm: " + c.rec.Error}
}

func (c *conn) setDecision(d Decision) {
	c.rec.Verdict, c.rec.By, c.rec.Rule = d.Verdict, d.By, d.Rule
}

// publicStandIn is implemented by a test resolver whose loopback answers stand for public
// addresses (TestResolver.Public).
type publicStandIn interface {
	PublicStandIn(host string) bool
}

// resolve returns host's addresses: an IP literal is itself; a name goes to the resolver once.
func (c *conn) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	addrs, err := c.ep.p.o.Resolver.LookupNetIP(rctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, fmt.Errorf("host %s not found", host)
		}
		return nil, fmt.Errorf("resolve %s: %v", host, err)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if a.IsValid() {
			out = append(out, a.Unmap())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("host %s has no address", host)
	}
	return out, nil
}

// trimOpError drops the address prefix of a *net.OpError (it repeats what we say).
func trimOpError(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	if err == nil {
		return "no address"
	}
	return err.Error()
}

// NormalizeHost returns host as rules match it: lower-case, without a trailing dot, an IPv6
// literal without brackets or zone. Errors: empty, too long, or a character no host name has
// (names are letters, digits, '-', '_' and dots; internationalised names must come as
// punycode "xn--", which is what clients send).
func NormalizeHost(host string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", errors.New("empty host name")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q: zoned addresses are not allowed", host)
		}
		return a.Unmap().String(), nil
	}
	if len(h) > 253 {
		return "", fmt.Errorf("host name of %d bytes is too long", len(h))
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("host %q is not a valid host name", host)
		}
		for i := 0; i < len(label); i++ {
			ch := label[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
				return "", fmt.Errorf("host %q is not a valid host name", host)
			}
		}
	}
	// A name made only of digits and dots that is not an IP literal ("127.1", "2130706433")
	// would be read as an address by some resolvers: refuse it.
	if strings.Trim(h, "0123456789.") == "" {
		return "", fmt.Errorf("host %q looks like a shortened IP address; write the full address", host)
	}
	if strings.HasPrefix(h, "0x") && len(h) > 2 && strings.Trim(h[2:], "0123456789abcdef.x") == "" {
		return "", fmt.Errorf("host %q looks like a hexadecimal IP address", host)
	}
	return h, nil
}

// splitHostPort splits "host:port" with the port required (CONNECT, SOCKS-less forms).
func splitHostPort(hp string) (string, int, error) {
	h, ps, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, fmt.Errorf("bad destination %q: %v", hp, err)
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", hp)
	}
	return h, n, nil
}

// nonPublicPrefixes are the IPv4/IPv6 ranges beyond netip's own classification that are not
// the public internet.
var nonPublicPrefixes = []struct {
	p   netip.Prefix
	why string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
}

// NonPublic says why a is not a public internet address ("loopback", "private", "link-local",
// …), or "" when it is public. IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) IPv6
// addresses are judged by the IPv4 address they carry.
func NonPublic(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		if netip.MustParsePrefix("64:ff9b::/96").Contains(a) {
			if why := NonPublic(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); why != "" {
				return why + " (through NAT64)"
			}
		}
		if netip.MustParsePrefix("2002::/16").Contains(a) {
			if why := NonPublic(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); why != "" {
				return why + " (through 6to4)"
			}
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, np := range nonPublicPrefixes {
		if np.p.Contains(a) {
			return np.why
		}
	}
	return ""
}
