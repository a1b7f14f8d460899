package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	scriptAgentOnce sync.Once
	scriptAgentPath string
	scriptAgentErr  error
)

// scriptAgent builds testdata/scriptagent (the scripted ACP agent of acpclient's tests) once,
// next to the binary under test, and returns its path.
func scriptAgent(t *testing.T) string {
	t.Helper()
	scriptAgentOnce.Do(func() {
		scriptAgentPath = filepath.Join(filepath.Dir(raceDir), "scriptagent")
		out, err := exec.Command(goTool(), "build", "-o", scriptAgentPath, "../testdata/scriptagent").CombinedOutput()
		if err != nil {
			scriptAgentErr = err
			os.Stderr.Write(out)
		}
	})
	if scriptAgentErr != nil {
		t.Fatalf("building the scripted agent: %v", scriptAgentErr)
	}
	return scriptAgentPath
}

// logText is acpterm's diagnostics log of the env (the scripted agent's stderr lines land there).
func (e *testEnv) logText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "acpterm.log"))
	if err != nil {
		t.Fatalf("log: %v", err)
	}
	return string(b)
}

// readAudit is the env's default audit log.
func readAudit(t *testing.T, e *testEnv) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "audit.jsonl"))
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	return string(b)
}
