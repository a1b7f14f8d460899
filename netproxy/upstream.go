package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// UpstreamFunc returns the proxy acpterm itself must go through to reach host:port, or nil to
// dial it directly. scheme is "https" for a tunnel (HTTP CONNECT, SOCKS5) and "http" for a
// plain HTTP request forwarded by the proxy; the answer is what the user's own HTTPS_PROXY /
// HTTP_PROXY / NO_PROXY say for such a URL (see EnvUpstream). Errors name the bad setting.
type UpstreamFunc func(scheme, host string, port int) (*url.URL, error)

// EnvUpstream is the UpstreamFunc of the environment getenv describes (acpterm's own, read
// once): HTTPS_PROXY for tunnels, HTTP_PROXY for plain HTTP, NO_PROXY exceptions, the
// lower-case forms too, as curl and Go's net/http read them (golang.org/x/net/http/httpproxy).
// It returns nil when no proxy variable is set. Only http:// and https:// proxies are
// supported: another scheme (socks5://) fails every connection it would carry with an error
// naming the variable, rather than going around the user's proxy.
func EnvUpstream(getenv func(string) string) UpstreamFunc {
	cfg := envProxyConfig(getenv)
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		return nil
	}
	pf := cfg.ProxyFunc()
	return func(scheme, host string, port int) (*url.URL, error) {
		u, err := pf(&url.URL{Scheme: scheme, Host: net.JoinHostPort(host, fmt.Sprint(port))})
		if err != nil {
			return nil, fmt.Errorf("upstream proxy (%s_PROXY): %v", strings.ToUpper(scheme), err)
		}
		if u != nil && u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("upstream proxy %s (%s_PROXY): scheme %q is not supported (use http:// or https://)", redactURL(u), strings.ToUpper(scheme), u.Scheme)
		}
		return u, nil
	}
}

// redactURL is u without its password, for messages and audit records.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Redacted()
}

// dialUpstream connects to the upstream proxy u. With tunnel, it asks the proxy for a tunnel
// to host:port (HTTP CONNECT, with Proxy-Authorization from u's user info) and returns the
// tunnel; otherwise it returns the connection to the proxy itself, for a plain HTTP request
// in absolute form. Errors: the proxy cannot be reached, or answered the CONNECT with a
// status other than 200 (the status is in the error).
func (c *conn) dialUpstream(ctx context.Context, u *url.URL, host string, port int, tunnel bool) (net.Conn, error) {
	addr := u.Host
	if u.Port() == "" {
		def := "80"
		if u.Scheme == "https" {
			def = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), def)
	}
	d := net.Dialer{Timeout: c.ep.p.o.DialTimeout}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("upstream proxy %s: %v", redactURL(u), trimOpError(err))
	}
	if !tunnel {
		return raw, nil // net/http speaks to the proxy itself, TLS to an https:// proxy included
	}
	pc := raw
	if u.Scheme == "https" {
		tc := tls.Client(raw, &tls.Config{ServerName: u.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, fmt.Errorf("upstream proxy %s: TLS: %v", redactURL(u), err)
		}
		pc = tc
	}
	target := net.JoinHostPort(host, fmt.Sprint(port))
	req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if u.User != nil {
		pw, _ := u.User.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
	}
	req += "\r\n"
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	if _, err := pc.Write([]byte(req)); err != nil {
		pc.Close()
		return nil, fmt.Errorf("upstream proxy %s: %v", redactURL(u), trimOpError(err))
	}
	br := bufio.NewReader(pc)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("upstream proxy %s: reading its answer to CONNECT %s: %v", redactURL(u), target, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		pc.Close()
		return nil, fmt.Errorf("upstream proxy %s answered CONNECT %s with %q", redactURL(u), target, resp.Status)
	}
	if n := br.Buffered(); n > 0 {
		// The destination spoke first and the bytes are already read: hand them on first.
		b, _ := br.Peek(n)
		return &prefixConn{Conn: pc, pre: append([]byte(nil), b...)}, nil
	}
	return pc, nil
}

// prefixConn is a connection whose first reads return pre.
type prefixConn struct {
	net.Conn
	pre []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// envProxyConfig reads the proxy variables as httpproxy.FromEnvironment does, from getenv.
func envProxyConfig(getenv func(string) string) *httpproxy.Config {
	get := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	return &httpproxy.Config{
		HTTPProxy:  get("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: get("HTTPS_PROXY", "https_proxy"),
		NoProxy:    get("NO_PROXY", "no_proxy"),
	}
}
