package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"

	"github.com/coder/acp-go-sdk"
)

// MCP servers the client offers in session/new, for acpterm's MCP terminal tests:
//
//	$SCRIPTAGENT_MCP_RECORD   write the session's mcpServers there (JSON) once session/new arrives
//	$SCRIPTAGENT_MCP_PROXY    a unix socket path: for every connection to it, start the stdio
//	                          server named "acpterm" (as a child of this agent, as a real agent
//	                          does) and copy the connection to its stdin and its stdout back
//	$SCRIPTAGENT_MCP_HTTP=1   advertise mcpCapabilities.http in initialize
func offerMCP(servers []acp.McpServer) {
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
	ln, err := net.Listen("unix", path)
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
