package acpclient

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/sandbox"
)

// StderrTailLines is how many of the agent's last stderr lines are kept (for AgentExited and
// error messages).
const StderrTailLines = 200

// maxStderrLine caps one stored stderr line, in bytes; longer lines are cut and marked "…".
const maxStderrLine = 4096

// agentProc is the agent subprocess: its own process group, stdin/stdout as plain pipes for the
// ACP connection, stderr drained into a ring and the log.
type agentProc struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // our write end of the agent's stdin
	stdout *os.File // our read end of the agent's stdout
	stderr *os.File // our read end of the agent's stderr

	ring *lineRing
	sb   *sandbox.Process // nil: not sandboxed
	// guard is the agent guard the agent runs below when it is not sandboxed (sandbox.Guard);
	// nil: sandboxed.
	guard *sandbox.Process
	// netStop stops serving the sandbox's proxy listener (Options.AgentNetwork); nil: none.
	netStop func()

	exited     chan struct{} // closed once the leader was reaped
	code       *int
	signal     string
	stderrDone chan struct{}

	stdoutClose sync.Once
	stderrClose sync.Once
}

// startAgent spawns argv in dir with env (nil = acpterm's environment) as the leader of a new
// process group; with spec, through the sandbox helper (the leader is then the helper, the
// init of the agent's PID namespace); without, below the agent guard (sandbox.Guard: the
// leader is then the guard, which ends the agent's whole tree, after grace, should acpterm
// die without doing so itself). Errors name the command: a missing program, an exec
// failure, a layer missing in required mode.
func startAgent(argv []string, dir string, env []string, spec *sandbox.Spec, grace time.Duration, log *slog.Logger, network func(net.Listener) func()) (*agentProc, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("acpclient: no agent command given")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("acpclient: agent command %q: %w", argv[0], err)
	}
	// A relative path ("./agent.sh") was found from acpterm's working directory, but exec
	// resolves it against cmd.Dir (the session cwd): make it absolute first.
	if !filepath.IsAbs(path) {
		if path, err = filepath.Abs(path); err != nil {
			return nil, fmt.Errorf("acpclient: agent command %q: %w", argv[0], err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("acpclient: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("acpclient: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("acpclient: stderr pipe: %w", err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// A session of its own (and so a process group, which Kill signals): the agent has no
	// controlling terminal, so neither it nor anything it starts can open acpterm's terminal
	// (/dev/tty) to read the user's keys or type into it with TIOCSTI, sandboxed or not.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var sb, guard *sandbox.Process
	switch {
	case spec != nil:
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		sb, err = sandbox.Start(spec, cmd)
	default:
		guard, err = sandbox.Guard(cmd, grace)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("acpclient: start agent %q: %w", argv[0], err)
	}
	p := &agentProc{
		cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, stderr: errR, sb: sb, guard: guard,
		ring: newLineRing(StderrTailLines), exited: make(chan struct{}), stderrDone: make(chan struct{}),
	}
	if sb != nil {
		if ln := sb.Listener(); ln != nil {
			if network != nil {
				p.netStop = network(ln)
			} else {
				_ = ln.Close() // nobody serves it: the agent has no way out
			}
		}
	}
	go p.drainStderr(log)
	go p.wait()
	return p, nil
}

// wait reaps the leader and records how it ended (never a negative code: the schema's exit code is unsigned).
func (p *agentProc) wait() {
	_ = p.cmd.Wait()
	if p.netStop != nil {
		p.netStop() // nothing is left in the agent's network namespace
	}
	helper := p.sb
	if helper == nil {
		helper = p.guard
	}
	if helper != nil {
		// The agent's own status comes over the status pipe of the helper (which cannot die
		// by a signal: a PID namespace's init) or of the guard; none means the helper or guard
		// was killed, and the agent with it.
		if st, ok := helper.Exit(time.Second); ok {
			p.code, p.signal = st.Code, st.Signal
			close(p.exited)
			return
		}
	}
	if ps := p.cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.signal = unix.SignalName(ws.Signal())
			if p.signal == "" {
				p.signal = fmt.Sprintf("signal %d", int(ws.Signal()))
			}
		} else {
			c := ps.ExitCode()
			if c >= 0 {
				p.code = &c
			}
		}
	}
	close(p.exited)
}

// signalGroup sends sig to the agent's whole process group (ESRCH ignored).
func (p *agentProc) signalGroup(sig syscall.Signal) {
	_ = unix.Kill(-p.pid, sig)
}

func (p *agentProc) closeStdout() { p.stdoutClose.Do(func() { p.stdout.Close() }) }
func (p *agentProc) closeStderr() { p.stderrClose.Do(func() { p.stderr.Close() }) }

// exitString describes how the agent ended: "exit 3", "SIGKILL".
func (p *agentProc) exitString() string {
	switch {
	case p.code != nil:
		return fmt.Sprintf("exit %d", *p.code)
	case p.signal != "":
		return p.signal
	}
	return "exited"
}

// drainStderr copies the agent's stderr, line by line, into the ring and the log until EOF.
func (p *agentProc) drainStderr(log *slog.Logger) {
	defer close(p.stderrDone)
	r := bufio.NewReaderSize(p.stderr, 64<<10)
	var cur []byte
	cut := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			room := maxStderrLine - len(cur)
			if room > 0 {
				cur = append(cur, chunk[:min(room, len(chunk))]...)
			}
			if len(chunk) > room {
				cut = true
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(cur) > 0 || err == nil {
			line := strings.TrimRight(string(cur), "\r\n")
			if cut {
				line += "…"
			}
			line = strings.ToValidUTF8(line, "\uFFFD")
			p.ring.add(line)
			log.Info("agent stderr", "line", line)
		}
		cur, cut = cur[:0], false
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrClosed) {
				log.Debug("agent stderr read", "err", err)
			}
			return
		}
	}
}

// lineRing keeps the last n lines.
type lineRing struct {
	mu    sync.Mutex
	lines []string
	next  int
	full  bool
}

func newLineRing(n int) *lineRing { return &lineRing{lines: make([]string, n)} }

func (r *lineRing) add(s string) {
	r.mu.Lock()
	r.lines[r.next] = s
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

// tail returns the kept lines, oldest first.
func (r *lineRing) tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.lines[:r.next]...)
	}
	out := make([]string, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}
