// Package netproxy is acpterm's egress proxy: the only way out of a sandboxed command's (or the
// agent's) empty network namespace. It decides every new connection by host name, holds the
// connection while a person is asked, refuses with a message a tool prints, dials exactly the
// address it checked, and reports every connection (with its byte counts) when it closes.
//
// It is its own concern: it imports no other acpterm package. The policy (which host is allowed)
// and the live question come in as callbacks (Options.Decide, Options.Ask); the audit record
// goes out as one (Options.Audit).
//
// # Sockets and identity
//
// A Proxy owns one private directory (mode 0700, made by New). Each sandboxed process tree gets
// its own Endpoint: a unix socket in a subdirectory of its own (NewEndpoint), created before the
// process starts and bound to one Identity (a terminal, or the agent). The identity of a
// connection is the endpoint it arrived on, never anything the client sends, so a process in one
// sandbox cannot pass for another terminal: the sandbox makes only its own endpoint's directory
// reachable. A connection that arrives before the endpoint is bound (Endpoint.Bind, called once
// the terminal has an id) waits for it.
//
// # Protocols
//
// Each accepted connection is auto-detected from its first byte: 0x05 is SOCKS5 (RFC 1928: no
// authentication, CONNECT with a domain name, IPv4 or IPv6 address), anything else is HTTP/1.1
// handled by net/http: CONNECT host:port tunnels, and absolute-URI requests ("GET http://h/p")
// are forwarded with net/http/httputil's ReverseProxy. A denied connection gets an HTTP 403 whose
// body names [policy.network], or the SOCKS5 reply 0x02 "connection not allowed by ruleset"; a
// host that does not resolve gets 502 / reply 0x04; a refused dial 502 / reply 0x05.
//
// # Resolution
//
// The client asks for a host name (or an IP literal). Options.Decide judges the name before
// anything is resolved; an allowed or asked-about name is then resolved once (Options.Resolver,
// the system resolver by default), and every address is checked: a private, loopback, link-local
// or otherwise non-public address (see NonPublic) is refused unless the deciding rule names this
// host exactly (Decision.NamesHost); it is refused before Options.Ask, so no answer to a
// question (nor headless --approve) ever reaches the user's machine or LAN. The
// proxy then dials exactly the checked addresses, so a second answer from DNS (rebinding) can
// never be what is reached.
//
// # In the sandbox
//
// The sandbox helper makes a TCP listener on 127.0.0.1 inside the command's network namespace
// and hands it to acpterm, which serves it with Proxy.Serve (no unix socket inside the sandbox,
// whose seccomp filter refuses them). Where a path socket can be reached instead, Listen (a
// Forwarder) runs inside the namespace: it brings lo up, listens on 127.0.0.1:PORT and copies
// each accepted connection to an endpoint's socket (path sockets work across network
// namespaces). Env lists the HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY variables (and
// their lower-case forms) that point tools at either.
package netproxy
