package acpclient

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/permissions"
)

func isElicitAsked(e Event) bool    { _, ok := e.(ElicitationAsked); return ok }
func isElicitResolved(e Event) bool { _, ok := e.(ElicitationResolved); return ok }

// withAudit gives the client an engine that writes the audit log at logPath.
func withAudit(t *testing.T, logPath string) func(*Options) {
	return func(o *Options) {
		al, err := permissions.OpenAuditLog(logPath)
		if err != nil {
			t.Fatalf("OpenAuditLog: %v", err)
		}
		t.Cleanup(func() { _ = al.Close() })
		eng, err := permissions.NewEngine(o.Config.Permissions(nil), permissions.EngineOptions{Cwd: o.Config.Policy.Roots[0], Audit: al})
		if err != nil {
			t.Fatalf("NewEngine: %v", err)
		}
		o.Engine = eng
	}
}

func TestElicitationFormAnswered(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	h := start(t, setup{opts: withAudit(t, logPath)})
	if tail := strings.Join(h.c.StderrTail(), "\n"); !strings.Contains(tail, "initialize:") {
		t.Fatalf("no initialize line: %s", tail)
	}
	h.c.Prompt("elicit")
	from := 0
	ask := h.waitFor(&from, "ElicitationAsked", isElicitAsked).(ElicitationAsked)
	e := ask.Elicitation
	if e.Mode != ElicitForm || e.Message != "Please fill in the elicit form" || e.SessionID != "sess-1" || e.ToolCallID != "tc-elicit" || len(e.Fields) != 8 {
		t.Fatalf("elicitation = %+v", e)
	}
	// An invalid answer is refused and the question stays pending.
	err := h.c.AnswerElicitation(ask.ID, ElicitationAnswer{Action: ElicitAccept, Content: map[string]any{"name": "Xy"}})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.For("name") != "does not match the pattern ^[a-z][a-z0-9-]*$" || ve.For("email") != "required" {
		t.Fatalf("invalid answer: %v", err)
	}
	content := map[string]any{"name": "demo-app", "email": "ann@example.com", "replicas": int64(3), "ratio": 0.5,
		"color": "red", "tags": []string{"fast", "small"}, "agree": true, "api_token": "s3cr3t-value"}
	if err := h.c.AnswerElicitation(ask.ID, ElicitationAnswer{Action: ElicitAccept, Content: content}); err != nil {
		t.Fatalf("AnswerElicitation: %v", err)
	}
	res := h.waitFor(&from, "ElicitationResolved", isElicitResolved).(ElicitationResolved)
	if res.ID != ask.ID || res.Action != ElicitAccept || res.By != "user" ||
		!reflect.DeepEqual(res.Fields, []string{"name", "email", "replicas", "ratio", "color", "tags", "agree", "api_token"}) {
		t.Fatalf("resolved = %+v", res)
	}
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	want := `elicitation accept {"agree":true,"api_token":"s3cr3t-value","color":"red","email":"ann@example.com","name":"demo-app","ratio":0.5,"replicas":3,"tags":["fast","small"]}` + "\n"
	if got := h.lastAgentText(); got != want {
		t.Fatalf("agent got %q\nwant %q", got, want)
	}
	if err := h.c.AnswerElicitation(ask.ID, ElicitationAnswer{Action: ElicitDecline}); !errors.Is(err, ErrNoElicitation) {
		t.Errorf("second answer: %v", err)
	}
	var rec map[string]any
	for _, m := range auditLines(t, logPath) {
		if m["kind"] == "elicitation" {
			rec = m
		}
	}
	if rec == nil || rec["verdict"] != "allow" || rec["by"] != "user" || rec["session"] != "sess-1" ||
		rec["reason"] != "form accept: Please fill in the elicit form" || len(rec["fields"].([]any)) != 8 {
		t.Fatalf("audit record = %v", rec)
	}
	if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "s3cr3t") || strings.Contains(string(b), "demo-app") {
		t.Errorf("audit log holds an answer's value:\n%s", b)
	}
}

func TestElicitationDeclineCancelAndBad(t *testing.T) {
	h := start(t, setup{})
	from := 0
	t.Run("decline", func(t *testing.T) {
		h.c.Prompt("elicitask")
		ask := h.waitFor(&from, "ElicitationAsked", isElicitAsked).(ElicitationAsked)
		if f := ask.Elicitation.Fields; len(f) != 1 || f[0].Label() != "Which color should the file be?" || len(f[0].Options) != 2 {
			t.Fatalf("fields = %+v", f)
		}
		if err := h.c.AnswerElicitation(ask.ID, ElicitationAnswer{Action: ElicitDecline, By: "headless"}); err != nil {
			t.Fatal(err)
		}
		res := h.waitFor(&from, "ElicitationResolved", isElicitResolved).(ElicitationResolved)
		if res.Action != ElicitDecline || res.By != "headless" || res.Fields != nil {
			t.Fatalf("resolved = %+v", res)
		}
		h.waitFor(&from, "TurnEnded", isTurnEnded)
		if got := h.lastAgentText(); got != "elicitation decline\n" {
			t.Fatalf("agent got %q", got)
		}
	})
	t.Run("cancelled with the turn", func(t *testing.T) {
		h.c.Prompt("elicitask")
		h.waitFor(&from, "ElicitationAsked", isElicitAsked)
		h.c.Cancel()
		res := h.waitFor(&from, "ElicitationResolved", isElicitResolved).(ElicitationResolved)
		if res.Action != ElicitCancel || res.By != "cancel" {
			t.Fatalf("resolved = %+v", res)
		}
		h.waitFor(&from, "TurnEnded", isTurnEnded)
		if got := h.lastAgentText(); got != "elicitation cancel\n" {
			t.Fatalf("agent got %q", got)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		h.c.Prompt("elicitbad")
		n := h.waitFor(&from, "Notice", func(e Event) bool { _, ok := e.(Notice); return ok }).(Notice)
		if n.Text != `the agent's question could not be shown: elicitation/create: field "x": type "object" is not one of string, number, integer, boolean, array` {
			t.Fatalf("notice = %+v", n)
		}
		h.waitFor(&from, "TurnEnded", isTurnEnded)
		if got := h.lastAgentText(); got != "elicitation error code=-32602\n" {
			t.Fatalf("agent got %q", got)
		}
	})
	t.Run("url and complete", func(t *testing.T) {
		h.c.Prompt("elicurl https://example.com/auth?code=123")
		ask := h.waitFor(&from, "ElicitationAsked", isElicitAsked).(ElicitationAsked)
		if e := ask.Elicitation; e.Mode != ElicitURL || e.URL != "https://example.com/auth?code=123" || e.ElicitationID != "el-1" {
			t.Fatalf("elicitation = %+v", e)
		}
		if err := h.c.AnswerElicitation(ask.ID, ElicitationAnswer{Action: ElicitAccept}); err != nil {
			t.Fatal(err)
		}
		c := h.waitFor(&from, "ElicitationCompleted", func(e Event) bool { _, ok := e.(ElicitationCompleted); return ok }).(ElicitationCompleted)
		if c.ElicitationID != "el-1" {
			t.Fatalf("completed = %+v", c)
		}
		h.waitFor(&from, "TurnEnded", isTurnEnded)
	})
}
