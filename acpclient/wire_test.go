package acpclient

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// An empty fs/write_text_file (which acp-go-sdk rejects as a missing parameter) goes through the
// policy like any write: allowed, the file exists and is empty, and the agent hears success.
func TestEmptyFileWrite(t *testing.T) {
	h := start(t, setup{policy: func(p *config.Policy) { p.FS.Write = "allow" }})
	p := filepath.Join(h.dir, "empty.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.turn("write " + p + " 0")
	if got := h.lastAgentText(); got != "wrote 0" {
		t.Fatalf("agent saw %q", got)
	}
	if b, err := os.ReadFile(p); err != nil || len(b) != 0 {
		t.Fatalf("file = %q, %v; want empty", b, err)
	}
	var fw *FileWritten
	for _, e := range h.snapshot() {
		if x, ok := e.(FileWritten); ok {
			fw = &x
		}
	}
	if fw == nil || fw.Diff != (FileDiff{Path: p, OldText: "old", NewText: "", Existed: true}) {
		t.Errorf("FileWritten = %+v", fw)
	}
}

// An empty write that the policy asks about is asked (with its diff), and a denial reaches the
// agent as the policy's error; the file is unchanged.
func TestEmptyFileWriteAskedAndDenied(t *testing.T) {
	h := start(t, setup{})
	p := filepath.Join(h.dir, "keep.txt")
	if err := os.WriteFile(p, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.c.Prompt("write " + p + " 0")
	from := 0
	ask := h.waitFor(&from, "PermissionAsked", isAsked).(PermissionAsked)
	if ask.Kind != "write" || ask.Diff == nil || *ask.Diff != (FileDiff{Path: p, OldText: "keep", NewText: "", Existed: true}) {
		t.Fatalf("asked = %+v diff %+v", ask, ask.Diff)
	}
	h.c.Answer(ask.ID, Answer{Choice: Deny})
	h.waitFor(&from, "TurnEnded", isTurnEnded)
	if got := h.lastAgentText(); !strings.HasPrefix(got, "write error code=-32603 message=acpterm user denied write") {
		t.Errorf("agent saw %q", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Errorf("file = %q, want unchanged", b)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The protocol trace holds every message both ways, in order, each a JSON object with a time,
// a direction and the message; the models API (session/set_model, sent past the SDK) is in it.
func TestTraceAndModelsAPI(t *testing.T) {
	var buf syncBuffer
	h := start(t, setup{opts: func(o *Options) { o.Trace = &buf }})
	info := h.c.Info()
	if info.Models == nil || info.Models.CurrentModelId != "m1" || len(info.Models.AvailableModels) != 2 ||
		info.Models.AvailableModels[1] != (ModelInfo{ModelId: "m2", Name: "Two"}) {
		t.Fatalf("models = %+v", info.Models)
	}
	if err := h.c.SetModel("m2"); err != nil {
		t.Fatal(err)
	}
	h.turn("echo hi")
	h.close()
	var methods []string
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec struct {
			T   string `json:"t"`
			Dir string `json:"dir"`
			Msg struct {
				ID     any    `json:"id"`
				Method string `json:"method"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("trace line %d: %v: %s", i+1, err, line)
		}
		if rec.T == "" || (rec.Dir != "->" && rec.Dir != "<-") {
			t.Fatalf("trace line %d lacks t/dir: %s", i+1, line)
		}
		if rec.Msg.Method != "" && rec.Msg.Method != "session/update" {
			methods = append(methods, rec.Dir+rec.Msg.Method)
		}
	}
	want := "->initialize ->session/new ->session/set_model ->session/prompt"
	if got := strings.Join(methods, " "); got != want {
		t.Errorf("traced requests = %q, want %q", got, want)
	}
}
