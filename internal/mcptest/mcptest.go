// Package mcptest is the MCP client side shared by the tests of acpterm's terminal tools (the
// mcpterm package's own tests and benchmarks, and e2e's tests of the real binary): a go-sdk
// client session whose tool results are read as the JSON objects the tools return.
package mcptest

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TB is the part of testing.TB the client uses (a *testing.T or a *testing.B).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Client calls tools over a connected client session and fails the test on a transport error.
type Client struct {
	TB TB
	CS *mcp.ClientSession
	// Context, when set, is appended to the message of a failed call (acpterm's output so far,
	// say).
	Context func() string
}

// Call runs tool name with args and returns its structured content as a map, the text of its
// one text content ("" when it has none or several), and whether the result is a tool error.
// A transport error or structured content that is not a JSON object fails the test.
func (c *Client) Call(name string, args any) (m map[string]any, text string, isErr bool) {
	c.TB.Helper()
	res, err := c.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.TB.Fatalf("%s: %v%s", name, err, c.context())
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		c.TB.Fatalf("%s: structured content %s: %v%s", name, b, err, c.context())
	}
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return m, text, res.IsError
}

// OK is Call for a call that must succeed: a tool error fails the test.
func (c *Client) OK(name string, args any) map[string]any {
	c.TB.Helper()
	m, _, isErr := c.Call(name, args)
	if isErr {
		c.TB.Fatalf("%s(%v): error %v%s", name, args, m, c.context())
	}
	return m
}

// Fail is Call for a call that must fail with the tool error code (the result's "code"
// field); anything else fails the test. It returns the error result.
func (c *Client) Fail(name string, args any, code string) map[string]any {
	c.TB.Helper()
	m, _, isErr := c.Call(name, args)
	if !isErr || m["code"] != code {
		c.TB.Fatalf("%s(%v): want error %s, got %v%s", name, args, code, m, c.context())
	}
	return m
}

func (c *Client) context() string {
	if c.Context == nil {
		return ""
	}
	return "\n" + c.Context()
}

// Screen returns the screen rows of a terminal_snapshot result, or of the snapshot inside
// another tool's result (terminal_input, terminal_resize …). A result without rows fails with a
// panic naming the missing field: the tools' output schema promises them.
func Screen(m map[string]any) []string {
	if s, ok := m["snapshot"].(map[string]any); ok {
		m = s
	}
	rows, ok := m["screen"].([]any)
	if !ok {
		panic("mcptest: result has no screen rows")
	}
	out := make([]string, 0, len(rows))
	for _, l := range rows {
		out = append(out, l.(string))
	}
	return out
}
