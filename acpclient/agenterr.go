package acpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder/acp-go-sdk"
)

// AgentError is a JSON-RPC error the agent answered one of acpterm's requests with, made
// readable: its message, the detail the agent put in its data, and the code, instead of the
// SDK's raw JSON ({"code":-32603,"message":"Internal error","data":{…}}). errors.As still finds
// the *acp.RequestError underneath.
type AgentError struct {
	// Method is the request the agent refused ("session/prompt", "session/new" …).
	Method string
	// Err is the agent's error as the SDK decoded it.
	Err *acp.RequestError
}

// Error reads e.g. `session/prompt: the agent failed: Internal error: the demo agent failed this
// prompt on purpose (error -32603)`.
func (e *AgentError) Error() string {
	msg := strings.TrimSpace(e.Err.Message)
	if d := errorDetail(e.Err.Data); d != "" && !strings.Contains(msg, d) {
		if msg == "" {
			msg = d
		} else {
			msg += ": " + d
		}
	}
	if msg == "" {
		msg = "no message"
	}
	return fmt.Sprintf("%s: the agent failed: %s (error %d)", e.Method, msg, e.Err.Code)
}

// Unwrap returns the SDK's error.
func (e *AgentError) Unwrap() error { return e.Err }

// errorDetailMax bounds the detail taken from an error's data (bytes).
const errorDetailMax = 400

// errorDetail is the human part of a JSON-RPC error's data: a string, or the first string field
// of an object among message, error, details, detail and reason; else the data as compact JSON
// (at most errorDetailMax bytes); "" for none.
func errorDetail(data any) string {
	switch d := data.(type) {
	case nil:
		return ""
	case string:
		return clip(strings.TrimSpace(d), errorDetailMax)
	case map[string]any:
		for _, k := range []string{"message", "error", "details", "detail", "reason"} {
			if s, ok := d[k].(string); ok && strings.TrimSpace(s) != "" {
				return clip(strings.TrimSpace(s), errorDetailMax)
			}
		}
	}
	b, err := json.Marshal(data)
	if err != nil || string(b) == "{}" || string(b) == "null" {
		return ""
	}
	return clip(string(b), errorDetailMax)
}

// agentError wraps err as an AgentError for method when it is the agent's JSON-RPC error;
// anything else comes back as "method: err".
func agentError(method string, err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return &AgentError{Method: method, Err: re}
	}
	return fmt.Errorf("%s: %w", method, err)
}

// StartError is Start's error once the agent process was started: which step failed, why, and
// the agent's last stderr lines at that moment (often where it says why, e.g. a missing API
// key), which the caller shows with a pointer to the log holding the rest.
type StartError struct {
	// Err is the failure, already naming the step.
	Err error
	// StderrTail is the agent's last stderr lines (at most StderrTailLines), oldest first.
	StderrTail []string
}

func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *StartError) Unwrap() error { return e.Err }
