package terminals

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testEnv is a small, predictable environment for test commands.
var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"}

func newMgr(t *testing.T, o ManagerOptions) *Manager {
	t.Helper()
	m := NewManager(o)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func startT(t *testing.T, m *Manager, o StartOptions) *Terminal {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Env == nil {
		o.Env = testEnv
	}
	term, err := m.Start(o)
	if err != nil {
		t.Fatalf("Start(%+v): %v", o, err)
	}
	return term
}

// waitExit waits (generously) for the terminal to exit.
func waitExit(t *testing.T, term *Terminal) ExitStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := term.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v (output so far %q)", err, term.Output().Text)
	}
	return st
}

// fdCount returns the number of open file descriptors of this process.
func fdCount(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
