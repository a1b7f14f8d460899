package terminals

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/sandbox"
	"go.uber.org/goleak"

	"github.com/acpterm/acpterm/internal/proctree"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testSandbox is the spec every test manager uses when ACPTERM_TEST_SANDBOX=1 (the whole
// suite then runs sandboxed: roots /tmp and /, network on).
func testSandbox() *sandbox.Spec {
	if os.Getenv("ACPTERM_TEST_SANDBOX") != "1" {
		return nil
	}
	tmp, err := os.MkdirTemp("", "acpterm-sbx-test-")
	if err != nil {
		panic(err)
	}
	return &sandbox.Spec{Mode: sandbox.ModeRequired, Roots: []string{os.TempDir()}, TempDir: tmp, Network: sandbox.NetworkOn, Seccomp: true}
}

// testEnv is a small, predictable environment for test commands.
var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"}

// harness is a Manager whose OnChange wakes waitFor.
type harness struct {
	*Manager
	wake chan struct{}
}

func newMgr(t *testing.T, o ManagerOptions) *harness {
	t.Helper()
	h := &harness{wake: make(chan struct{}, 1)}
	o.OnChange = func(string) {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
	o.Subreaper = true // the escapee tests need re-parented processes to come here
	if o.Sandbox == nil {
		o.Sandbox = testSandbox()
	}
	h.Manager = NewManager(o)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func (h *harness) start(t *testing.T, o StartOptions) *Terminal {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Env == nil {
		o.Env = testEnv
	}
	term, err := h.Start(o)
	if err != nil {
		t.Fatalf("Start(%+v): %v", o, err)
	}
	return term
}

// waitFor waits (up to 60 s, woken by OnChange) until cond holds.
func (h *harness) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for !cond() {
		select {
		case <-h.wake:
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitOutput waits until the transcript contains s.
func (h *harness) waitOutput(t *testing.T, term *Terminal, s string) {
	t.Helper()
	h.waitFor(t, "output "+strconv.Quote(s), func() bool { return strings.Contains(term.Output().Text, s) })
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

// runText runs a shell line to completion and returns its transcript.
func runText(t *testing.T, h *harness, line string, limit int) Output {
	t.Helper()
	term := h.start(t, StartOptions{ShellLine: line, OutputLimit: limit})
	waitExit(t, term)
	if err := term.Release(); err != nil {
		t.Fatal(err)
	}
	return term.Output()
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

// pidAlive reports whether pid exists and is not a zombie.
func pidAlive(pid int) bool {
	st, ok := proctree.ReadStat(pid)
	return ok && st.State != 'Z'
}

// pidExists reports whether /proc has pid at all (zombies included).
func pidExists(pid int) bool {
	_, ok := proctree.ReadStat(pid)
	return ok
}

// intAfter parses the integer following prefix in s.
func intAfter(t *testing.T, s, prefix string) int {
	t.Helper()
	i := strings.Index(s, prefix)
	if i < 0 {
		t.Fatalf("%q not in %q", prefix, s)
	}
	rest := s[i+len(prefix):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		t.Fatalf("no number after %q in %q", prefix, s)
	}
	return n
}

// skipHostPids skips a test that checks, in the host's /proc, pids a command printed: in a
// sandboxed run those are pids of the command's own PID namespace (the sandbox tests cover
// that everything in it ends with the helper).
func skipHostPids(t *testing.T) {
	if os.Getenv("ACPTERM_TEST_SANDBOX") == "1" {
		t.Skip("pids printed inside the sandbox's PID namespace are not host pids")
	}
}
