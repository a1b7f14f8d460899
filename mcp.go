package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync/atomic"

	"github.com/coder/acp-go-sdk"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/mcpterm"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// mcpBridgeArg is the hidden first argument that turns acpterm into the stdio bridge an agent
// starts for the "acpterm" MCP server: it connects the bridge's stdin and stdout to the running
// acpterm's unix socket ($ACPTERM_MCP_SOCKET, presenting $ACPTERM_MCP_SECRET).
const mcpBridgeArg = "__mcp-bridge"

// runMCPBridge is the bridge subcommand; it returns the exit status.
func runMCPBridge() int {
	if err := mcpterm.Bridge(os.Getenv(mcpterm.EnvSocket), os.Getenv(mcpterm.EnvSecret), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "acpterm %s: %v\n", mcpBridgeArg, err)
		return exitFailure
	}
	return exitOK
}

// mcpTerminals is acpterm's MCP terminal service for one session: the service, its endpoint,
// and the client its terminal_start calls go through (set once the session exists).
type mcpTerminals struct {
	svc      *mcpterm.Service
	ep       *mcpterm.Endpoint
	client   atomic.Pointer[acpclient.Client]
	agentPid atomic.Int64
	exe      string
	log      *slog.Logger
	// inSandbox: the agent runs in a network namespace of its own, without unix sockets, so
	// it reaches the server only on its proxy listener, sandboxURL ("http://127.0.0.1:PORT",
	// set once that is served).
	inSandbox  bool
	sandboxURL atomic.Pointer[string]
}

// startMCPTerminals opens the service and its private socket. Errors: the socket or acpterm's
// own executable could not be found.
func startMCPTerminals(cwd string, engine *permissions.Engine, log *slog.Logger) (*mcpTerminals, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find acpterm's own executable for the MCP bridge: %w", err)
	}
	m := &mcpTerminals{exe: exe, log: log}
	m.svc = mcpterm.New(mcpterm.Options{Launch: m.launch, Cwd: cwd, Log: log, Version: version,
		Audit: func(id, kind string, n int, prefix string) {
			ev := permissions.AuditEvent{Kind: "input", Verdict: permissions.Allow, By: "agent",
				Terminal: id, Input: kind, Bytes: n, Prefix: prefix}
			if c := m.client.Load(); c != nil {
				ev.Session = c.Info().SessionID
			}
			if err := engine.Record(ev); err != nil {
				log.Warn("audit log write failed", "err", err)
			}
		}})
	m.ep, err = mcpterm.Listen(m.svc, mcpterm.EndpointOptions{Peer: func(pid int) bool {
		root := int(m.agentPid.Load())
		return root > 0 && mcpterm.DescendantOf(root)(pid)
	}})
	if err != nil {
		m.svc.Close()
		return nil, err
	}
	return m, nil
}

// servers is acpclient.Options.ExtraMcpServers: the "acpterm" server, over streamable HTTP when
// the agent takes HTTP servers, else as acpterm's own binary bridging stdio to the socket. A
// sandboxed agent (inSandbox) reaches it only on its own proxy listener: the HTTP server there,
// or the bridge connecting there (mcpterm.StreamPath) instead of to the socket.
func (m *mcpTerminals) servers(agentPid int, http bool) []acp.McpServer {
	m.agentPid.Store(int64(agentPid))
	bearer := []acp.HttpHeader{{Name: "Authorization", Value: "Bearer " + m.ep.Secret()}}
	socket := m.ep.Socket()
	if m.inSandbox {
		base := m.sandboxURL.Load()
		if base == nil {
			m.log.Warn("mcp: the sandboxed agent gets no interactive terminals: its proxy listener is not served")
			return nil
		}
		if http {
			return []acp.McpServer{{Http: &acp.McpServerHttpInline{Type: "http", Name: mcpterm.ServerName, Url: *base + "/mcp", Headers: bearer}}}
		}
		socket = *base + mcpterm.StreamPath
	} else if http {
		url, err := m.ep.HTTP()
		if err == nil {
			return []acp.McpServer{{Http: &acp.McpServerHttpInline{Type: "http", Name: mcpterm.ServerName, Url: url, Headers: bearer}}}
		}
		m.log.Warn("mcp: http endpoint failed; offering the stdio bridge", "err", err)
	}
	env := []acp.EnvVariable{{Name: mcpterm.EnvSocket, Value: socket}, {Name: mcpterm.EnvSecret, Value: m.ep.Secret()}}
	return []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: mcpterm.ServerName, Command: m.exe, Args: []string{mcpBridgeArg}, Env: env}}}
}

// serversFunc is servers as an acpclient.Options.ExtraMcpServers, nil when m is nil.
func (m *mcpTerminals) serversFunc() func(int, bool) []acp.McpServer {
	if m == nil {
		return nil
	}
	return m.servers
}

// launch is the service's Launcher: the session's policy and approval path, then a pane.
func (m *mcpTerminals) launch(ctx context.Context, l mcpterm.Launch) (*terminals.Terminal, error) {
	c := m.client.Load()
	if c == nil {
		return nil, errors.New("acpterm's session is not ready yet")
	}
	r := acpclient.InteractiveStart{Argv: l.Argv, Command: l.Command, Cwd: l.Cwd, Size: l.Size}
	names := make([]string, 0, len(l.Env))
	for k := range l.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := l.Env[k]; v != nil {
			r.Env = append(r.Env, permissions.EnvVar{Name: k, Value: *v})
		} else {
			r.Unset = append(r.Unset, k)
		}
	}
	t, err := c.StartInteractive(ctx, r)
	var de *acpclient.DeniedError
	if errors.As(err, &de) {
		return nil, &mcpterm.DeniedError{Message: de.Message, Rule: de.Rule}
	}
	return t, err
}

// close ends every MCP terminal and the endpoint (socket directory removed).
func (m *mcpTerminals) close() {
	_ = m.ep.Close()
	m.svc.Close()
}
