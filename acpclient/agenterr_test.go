package acpclient

import (
	"errors"
	"fmt"
	"testing"

	"github.com/coder/acp-go-sdk"
)

func TestAgentErrorReadsAsText(t *testing.T) {
	for _, c := range []struct {
		name string
		err  *acp.RequestError
		want string
	}{
		{"details in data", &acp.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": "Query closed before response received"}},
			"session/prompt: the agent failed: Internal error: Query closed before response received (error -32603)"},
		{"error in data", &acp.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"error": "boom"}},
			"session/prompt: the agent failed: Internal error: boom (error -32603)"},
		{"string data", &acp.RequestError{Code: -32000, Message: "Authentication required", Data: "run login"},
			"session/prompt: the agent failed: Authentication required: run login (error -32000)"},
		{"data repeats the message", &acp.RequestError{Code: -32603, Message: "rate limited", Data: "rate limited"},
			"session/prompt: the agent failed: rate limited (error -32603)"},
		{"other data as JSON", &acp.RequestError{Code: -32602, Message: "Invalid params", Data: map[string]any{"field": "cwd"}},
			`session/prompt: the agent failed: Invalid params: {"field":"cwd"} (error -32602)`},
		{"nothing", &acp.RequestError{Code: -32603}, "session/prompt: the agent failed: no message (error -32603)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := agentError("session/prompt", fmt.Errorf("wrapped: %w", c.err))
			if err.Error() != c.want {
				t.Fatalf("got  %q\nwant %q", err.Error(), c.want)
			}
			var re *acp.RequestError
			if !errors.As(err, &re) || re != c.err {
				t.Fatal("the SDK error is not reachable with errors.As")
			}
		})
	}
	if got := agentError("session/new", errors.New("peer disconnected")).Error(); got != "session/new: peer disconnected" {
		t.Fatalf("non-agent error: %q", got)
	}
}
