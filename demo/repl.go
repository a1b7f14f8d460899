package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replScreen is what the repl scenario shows of a terminal screen: its non-empty rows.
func replScreen(structured any) (string, string) {
	b, _ := json.Marshal(structured)
	var s struct {
		SessionID string   `json:"sessionId"`
		Screen    []string `json:"screen"`
		Snapshot  *struct {
			Screen []string `json:"screen"`
		} `json:"snapshot"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(b, &s)
	rows := s.Screen
	if s.Snapshot != nil {
		rows = s.Snapshot.Screen
	}
	if s.Code != "" {
		return s.SessionID, s.Code + ": " + s.Message
	}
	var keep []string
	for _, r := range rows {
		if strings.TrimSpace(r) != "" {
			keep = append(keep, "    "+r)
		}
	}
	return s.SessionID, strings.Join(keep, "\n")
}

// repl drives an interactive terminal through acpterm's MCP terminal tools, as a model would:
// it starts the MCP server named "acpterm" from the session's mcpServers (its stdio bridge),
// starts `python3 -q` in a terminal (terminal_start: the policy decides, the user may be
// asked), types print(6*7) and Enter (terminal_input), reports the screen and closes it.
func (t *turn) repl() error {
	var srv *acp.McpServerStdio
	for _, m := range t.s.mcp {
		if m.Stdio != nil && m.Stdio.Name == "acpterm" {
			srv = m.Stdio
		}
	}
	if srv == nil {
		t.sayNow("The client offered no MCP server named \"acpterm\" (stdio), so there is no interactive terminal to drive.\n")
		return nil
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for _, e := range srv.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	ctx, cancel := context.WithTimeout(t.ctx, 2*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "acpterm-demo-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.sayNow(fmt.Sprintf("Could not reach acpterm's MCP server: %v\n", err))
		return nil
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		t.a.record("mcp", map[string]any{"tool": name})
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	t.sayNow("Starting `python3 -q` in an interactive terminal (mcp__acpterm__terminal_start).\n\n")
	res, err := call("terminal_start", map[string]any{"command": "python3 -q", "cols": 80, "rows": 12, "settleMs": 300})
	if err != nil {
		return err
	}
	id, shown := replScreen(res.StructuredContent)
	if res.IsError {
		t.sayNow("terminal_start failed: " + shown + "\n")
		t.a.record("repl", map[string]any{"error": shown})
		return nil
	}
	// A model looks before it types: wait (a few observations) for the prompt.
	for i := 0; i < 20 && !strings.Contains(shown, ">>>"); i++ {
		res, err = call("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 200})
		if err != nil {
			return err
		}
		_, shown = replScreen(res.StructuredContent)
	}
	res, err = call("terminal_input", map[string]any{"sessionId": id, "settleMs": 300, "actions": []any{
		map[string]any{"type": "text", "text": "print(6*7)"}, map[string]any{"type": "key", "key": "Enter"}}})
	if err != nil {
		return err
	}
	_, shown = replScreen(res.StructuredContent)
	for i := 0; i < 20 && !strings.Contains(shown, "42"); i++ {
		res, err = call("terminal_snapshot", map[string]any{"sessionId": id, "settleMs": 200})
		if err != nil {
			return err
		}
		_, shown = replScreen(res.StructuredContent)
	}
	t.a.record("repl", map[string]any{"screen": shown})
	t.sayNow("I typed `print(6*7)` and Enter; the screen now shows:\n\n" + shown + "\n\n")
	if _, err := call("terminal_close", map[string]any{"sessionId": id}); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	t.sayNow("Closed the terminal.\n")
	return nil
}
