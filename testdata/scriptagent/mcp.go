package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/coder/acp-go-sdk"
)

// MCP servers the client offers in session/new, for acpterm's MCP terminal tests:
//
//	$SCRIPTAGENT_MCP_RECORD   write the session's mcpServers there (JSON) once session/new arrives
//	$SCRIPTAGENT_MCP_PROXY    a unix socket path: for every connection to it, start the stdio
//	                          server named "acpterm" (as a child of this agent, as a real agent
//	                          does) and copy the connection to its stdin and its stdout back
//	$SCRIPTAGENT_MCP_HTTP=1   advertise mcpCapabilities.http in initialize
//
// The prompt "mcphttp" sends an MCP initialize to the HTTP server named "acpterm" (as the
// agent itself, from wherever it runs), once without and once with the headers it was given,
// and says the two statuses and the server's name from the answer. The prompt "mcpstdio"
// starts the stdio server named "acpterm" itself (the bridge, as a child of this agent) and
// says the server's name from its initialize answer and the tools it lists.
func offerMCP(servers []acp.McpServer) {
	offered = servers
	if p := os.Getenv("SCRIPTAGENT_MCP_RECORD"); p != "" {
		b, _ := json.Marshal(servers)
		_ = os.WriteFile(p+".tmp", b, 0o600)
		_ = os.Rename(p+".tmp", p)
	}
	path := os.Getenv("SCRIPTAGENT_MCP_PROXY")
	if path == "" {
		return
	}
	var srv *acp.McpServerStdio
	for _, s := range servers {
		if s.Stdio != nil && s.Stdio.Name == "acpterm" {
			srv = s.Stdio
		}
	}
	if srv == nil {
		fmt.Fprintln(os.Stderr, "scriptagent: no stdio MCP server named acpterm to proxy")
		return
	}
	// Listening under another name first, then renaming: the socket appears at path only
	// once it accepts (a client that saw the file between bind and listen was refused).
	ln, err := net.Listen("unix", path+".tmp")
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scriptagent: mcp proxy:", err)
		return
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go proxyMCP(c, srv)
		}
	}()
}

// offered are the mcpServers of session/new.
var offered []acp.McpServer

// mcpHTTP is the "mcphttp" prompt.
func mcpHTTP() string {
	var srv *acp.McpServerHttpInline
	for _, s := range offered {
		if s.Http != nil && s.Http.Name == "acpterm" {
			srv = s.Http
		}
	}
	if srv == nil {
		return "mcphttp: no http server named acpterm"
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scriptagent","version":"1"}}}`
	post := func(withHeaders bool) (int, string, error) {
		req, err := http.NewRequest(http.MethodPost, srv.Url, strings.NewReader(initialize))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if withHeaders {
			for _, h := range srv.Headers {
				req.Header.Set(h.Name, h.Value)
			}
		}
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, string(b), nil
	}
	bare, _, err := post(false)
	if err != nil {
		return "mcphttp error " + err.Error()
	}
	ok, body, err := post(true)
	if err != nil {
		return "mcphttp error " + err.Error()
	}
	name := "none"
	if i := strings.Index(body, `"serverInfo":{"name":"`); i >= 0 {
		name, _, _ = strings.Cut(body[i+len(`"serverInfo":{"name":"`):], `"`)
	}
	return fmt.Sprintf("mcphttp without headers %d, with %d, server %s", bare, ok, name)
}

// mcpStdio is the "mcpstdio" prompt.
func mcpStdio() string {
	var srv *acp.McpServerStdio
	for _, s := range offered {
		if s.Stdio != nil && s.Stdio.Name == "acpterm" {
			srv = s.Stdio
		}
	}
	if srv == nil {
		return "mcpstdio: no stdio server named acpterm"
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for _, e := range srv.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "mcpstdio error " + err.Error()
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return "mcpstdio error " + err.Error()
	}
	if err := cmd.Start(); err != nil {
		return "mcpstdio error " + err.Error()
	}
	defer func() {
		in.Close()
		_ = cmd.Wait()
	}()
	out := bufio.NewReader(outPipe)
	call := func(msg string) (map[string]any, error) {
		if _, err := io.WriteString(in, msg+"\n"); err != nil {
			return nil, err
		}
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("%v (bridge stderr: %s)", err, strings.TrimSpace(stderr.String()))
			}
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["id"] != nil {
				return m, nil
			}
		}
	}
	init, err := call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scriptagent","version":"1"}}}`)
	if err != nil {
		return "mcpstdio error " + err.Error()
	}
	name := "none"
	if r, ok := init["result"].(map[string]any); ok {
		if si, ok := r["serverInfo"].(map[string]any); ok {
			name, _ = si["name"].(string)
		}
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return "mcpstdio error " + err.Error()
	}
	list, err := call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err != nil {
		return "mcpstdio error " + err.Error()
	}
	var tools []string
	if r, ok := list["result"].(map[string]any); ok {
		ts, _ := r["tools"].([]any)
		for _, t := range ts {
			if tm, ok := t.(map[string]any); ok {
				n, _ := tm["name"].(string)
				tools = append(tools, n)
			}
		}
	}
	return fmt.Sprintf("mcpstdio server %s, tools %s", name, strings.Join(tools, " "))
}

// proxyMCP runs one bridge process for connection c.
func proxyMCP(c net.Conn, srv *acp.McpServerStdio) {
	defer c.Close()
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for _, e := range srv.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Stdin = c
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "scriptagent: mcp bridge:", err)
		return
	}
	_, _ = io.Copy(c, out)
	_ = cmd.Wait()
}
