package acpclient

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/terminals"
)

// agentBin is the scripted agent (testdata/scriptagent), built once for the package's tests.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpclient-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "scriptagent")
	build := exec.Command("go", "build", "-o", agentBin, "../testdata/scriptagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the scripted agent: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// evTimeout bounds every wait for an event: generous, the machine is shared and -race is slow.
const evTimeout = 60 * time.Second

// harness runs one Client against the scripted agent and collects its events.
type harness struct {
	t   *testing.T
	c   *Client
	dir string
	cfg *config.Config
	eng *permissions.Engine
	mgr *terminals.Manager

	mu     sync.Mutex
	cond   *sync.Cond
	events []Event
	closed bool
	state  State
}

type setup struct {
	scenario string
	env      []string
	policy   func(*config.Policy)
	opts     func(*Options)
}

// newEngine builds a policy engine over dir with the defaults changed by policy.
func newEngine(t *testing.T, dir string, policy func(*config.Policy)) (*config.Config, *permissions.Engine) {
	t.Helper()
	cfg := config.Default(dir)
	if policy != nil {
		policy(&cfg.Policy)
	}
	eng, err := permissions.NewEngine(cfg.Permissions(nil), permissions.EngineOptions{Cwd: cfg.Policy.Roots[0]})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	return cfg, eng
}

func agentEnv(scenario string, extra ...string) []string {
	env := append(os.Environ(), "SCRIPTAGENT_SCENARIO="+scenario)
	return append(env, extra...)
}

// startErr starts a client and returns Start's error (nil client).
func startErr(t *testing.T, s setup) (*harness, error) {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir()}
	h.cond = sync.NewCond(&h.mu)
	h.cfg, h.eng = newEngine(t, h.dir, s.policy)
	h.mgr = terminals.NewManager(terminals.ManagerOptions{Subreaper: true})
	o := Options{
		Command: []string{agentBin}, Cwd: h.dir, Config: h.cfg, Engine: h.eng, Terminals: h.mgr,
		Env: agentEnv(s.scenario, s.env...), InitTimeout: 30 * time.Second,
	}
	if s.opts != nil {
		s.opts(&o)
	}
	c, err := Start(context.Background(), o)
	if err != nil {
		h.mgr.Close()
		checkNoChildren(t)
		return nil, err
	}
	h.c = c
	go h.collect()
	t.Cleanup(h.close)
	return h, nil
}

func start(t *testing.T, s setup) *harness {
	t.Helper()
	h, err := startErr(t, s)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return h
}

func (h *harness) collect() {
	for ev := range h.c.Events() {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.state.Apply(ev)
		h.cond.Broadcast()
		h.mu.Unlock()
	}
	h.mu.Lock()
	h.closed = true
	h.cond.Broadcast()
	h.mu.Unlock()
}

// close shuts the client down, waits for the event stream to end, and checks that no child
// process is left.
func (h *harness) close() {
	h.c.Close()
	h.mu.Lock()
	deadline := time.AfterFunc(evTimeout, func() { h.mu.Lock(); h.closed = true; h.cond.Broadcast(); h.mu.Unlock() })
	for !h.closed {
		h.cond.Wait()
	}
	h.mu.Unlock()
	deadline.Stop()
	h.mgr.Close()
	checkNoChildren(h.t)
}

// waitFor returns the first event at index >= *from that matches, and moves *from past it.
func (h *harness) waitFor(from *int, what string, match func(Event) bool) Event {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	timedOut := false
	timer := time.AfterFunc(evTimeout, func() { h.mu.Lock(); timedOut = true; h.cond.Broadcast(); h.mu.Unlock() })
	defer timer.Stop()
	for {
		for ; *from < len(h.events); *from++ {
			if match(h.events[*from]) {
				ev := h.events[*from]
				*from++
				return ev
			}
		}
		if h.closed || timedOut {
			h.t.Fatalf("no %s event (closed=%v, timed out=%v); events: %s", what, h.closed, timedOut, summarize(h.events))
		}
		h.cond.Wait()
	}
}

// turn sends a prompt and waits for its TurnEnded.
func (h *harness) turn(text string) TurnEnded {
	h.t.Helper()
	h.mu.Lock()
	from := len(h.events)
	h.mu.Unlock()
	h.c.Prompt(text)
	return h.waitFor(&from, "TurnEnded", func(e Event) bool { _, ok := e.(TurnEnded); return ok }).(TurnEnded)
}

// lastAgentText is the text of the last agent message in the state.
func (h *harness) lastAgentText() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.state.Messages) - 1; i >= 0; i-- {
		if m := h.state.Messages[i]; m.Role == RoleAgent {
			return m.Text
		}
	}
	return ""
}

func (h *harness) snapshot() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.events...)
}

func summarize(evs []Event) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 60 {
			fmt.Fprintf(&b, " …(%d more)", len(evs)-i)
			break
		}
		s := fmt.Sprintf("%T%+v", e, e)
		fmt.Fprintf(&b, "\n  %s", clip(s, 300))
	}
	return b.String()
}

// checkNoChildren fails when a child process of the test binary is still around after a grace
// period (zombies count: they were not reaped).
func checkNoChildren(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		kids := children()
		if len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("child processes left: %v", kids)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func children() []string {
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self {
			out = append(out, fmt.Sprintf("%d %s (%s)", pid, s[strings.IndexByte(s, '(')+1:i], f[0]))
		}
	}
	return out
}
