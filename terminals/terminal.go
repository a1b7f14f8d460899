package terminals

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/sandbox"
)

// StartOptions describe the command a terminal runs.
type StartOptions struct {
	Argv        []string      // program and arguments (exec form); or:
	ShellLine   string        // run as /bin/sh -c ShellLine (exactly one of Argv/ShellLine)
	Dir         string        // absolute working directory
	Env         []string      // the whole environment, "K=V" (TERM=xterm-256color is forced)
	Size        Size          // initial PTY and screen size in cells; zero → Manager.DefaultSize (80x24 unless set)
	OutputLimit int           // transcript bytes kept for the agent; <= 0 → DefaultOutputLimit (1 MiB)
	KillGrace   time.Duration // SIGTERM→SIGKILL grace; 0 → manager default (2 s)
	Label       string        // display title (the command as the user should read it)
}

// Output is a terminal's agent-facing state: what ACP terminal/output returns.
type Output struct {
	Text      string      // plain text (see Transcript): no escapes, \n line ends, CR/BS applied, valid UTF-8
	Truncated bool        // something was dropped from the start
	Exit      *ExitStatus // nil until the terminal has exited (and its output is drained)
}

// Terminal is one command running in a PTY, with its screen and
// transcript. Create it with Manager.Start. All methods are safe for
// concurrent use.
type Terminal struct {
	m       *Manager
	id      string
	label   string
	dir     string
	started time.Time
	ptmx    *os.File
	ptMu    sync.RWMutex // excludes ioctls on ptmx while it is being closed
	tr      *Transcript
	scr     *Screen

	// The rest comes in three parts, each in a file of its own with the goroutines and methods
	// that use it: the process and its end (process.go: the waiter goroutine, Kill, Release),
	// the output from the PTY to the transcript and the screen (output.go: the reader and
	// feeder goroutines, flood handling, background pacing; modes.go: the private modes of
	// skipped output), and the input to the program (input.go: the writer goroutine, keys,
	// pastes, resizes).
	procState
	outputFeed
	inputQueue
}

// start spawns the command; called by Manager.Start.
func start(m *Manager, id string, o StartOptions) (*Terminal, error) {
	argv, err := commandLine(o)
	if err != nil {
		return nil, err
	}
	if o.Dir == "" || !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("terminals: start %q: working directory %q is not absolute", argv[0], o.Dir)
	}
	if fi, err := os.Stat(o.Dir); err != nil {
		return nil, fmt.Errorf("terminals: start %q: working directory: %w", argv[0], err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("terminals: start %q: working directory %q is not a directory", argv[0], o.Dir)
	}
	if o.Size == (Size{}) {
		o.Size = m.DefaultSize()
	}
	size, err := o.Size.normalize()
	if err != nil {
		return nil, err
	}
	path, err := lookPath(argv[0], o.Env, o.Dir)
	if err != nil {
		return nil, fmt.Errorf("terminals: start %q: %w", argv[0], err)
	}
	grace := o.KillGrace
	if grace <= 0 {
		grace = m.grace
	}
	t := &Terminal{
		m: m, id: id, label: o.Label, dir: o.Dir,
		tr: NewTranscript(o.OutputLimit),
		procState: procState{
			grace: grace, marker: m.nonce + ":" + id,
			leaderDone: make(chan struct{}), done: make(chan struct{}), releasedCh: make(chan struct{}),
		},
		outputFeed: outputFeed{
			blWake: make(chan struct{}, 1), drained: make(chan struct{}),
			readerDone: make(chan struct{}), feederDone: make(chan struct{}),
		},
		inputQueue: inputQueue{inWake: make(chan struct{}, 1), writerDone: make(chan struct{})},
	}
	if t.label == "" {
		t.label = strings.Join(argv, " ")
	}
	env := make([]string, 0, len(o.Env)+2)
	for _, kv := range o.Env {
		if strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, markerVar+"=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TERM=xterm-256color", markerVar+"="+t.marker)

	ptmx, tty, err := openPTY()
	if err != nil {
		return nil, fmt.Errorf("terminals: start %q: open pty: %w", argv[0], err)
	}
	t.ptmx = ptmx
	if err := t.setsize(size); err != nil {
		_ = ptmx.Close()
		_ = tty.Close()
		return nil, fmt.Errorf("terminals: start %q: set pty size: %w", argv[0], err)
	}
	cmd := &exec.Cmd{
		Path: path, Args: argv, Dir: o.Dir, Env: env,
		Stdin: tty, Stdout: tty, Stderr: tty,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	}
	if m.o.Sandbox != nil {
		spec := *m.o.Sandbox
		spec.TTY = tty.Name()
		t.spec = &spec
		t.helperReaped = make(chan struct{})
		if len(m.o.Watch) > 0 {
			t.watch = sandbox.NewWatch(m.o.Watch, spec.Roots)
			t.quarantine = m.o.Quarantine
			if m.o.Journal != "" {
				if err := t.watch.Journal(m.o.Journal, t.label); err != nil {
					_ = ptmx.Close()
					_ = tty.Close()
					return nil, fmt.Errorf("terminals: start %q: %w", argv[0], err)
				}
			}
			// While the command runs, a created protected path is moved the moment it
			// appears; the sweep after the command is the backstop.
			t.liveStop, t.liveErr = t.watch.Live(t.quarantine, func(s sandbox.Swept) { m.sweptLive(t, s) })
		}
		t.sb, err = sandbox.Start(&spec, cmd)
		if err != nil && t.liveStop != nil {
			t.liveStop()
		}
		if err != nil && t.watch != nil {
			t.watch.Discard() // nothing ran
		}
	} else {
		err = cmd.Start()
	}
	_ = tty.Close()
	if err != nil {
		_ = ptmx.Close()
		return nil, fmt.Errorf("terminals: start %q: %w", argv[0], err)
	}
	if t.sb != nil {
		if ln := t.sb.Listener(); ln != nil {
			if m.o.Network != nil {
				t.netStop = m.o.Network(id, t.label, ln)
			} else {
				_ = ln.Close() // no proxy to serve it: no way out
			}
		}
	}
	t.pid = cmd.Process.Pid
	t.started = time.Now()
	t.scr = newScreen(size, t.reply)

	go t.reader()
	go t.feeder()
	go t.writer()
	go t.waiter(cmd) // the only user of cmd: not kept once the leader is reaped
	return t, nil
}

// openPTY opens a PTY pair and returns the master as a pollable,
// non-blocking file (so reads honour deadlines and Close unblocks them;
// creack/pty's helpers call Fd(), which switches a file to blocking mode).
func openPTY() (*os.File, *os.File, error) {
	p, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fd, err := unix.FcntlInt(p.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = p.Close()
	if err != nil {
		_ = tty.Close()
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		_ = tty.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), tty, nil
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// ID returns the terminal's id, unique within its Manager ("term-1", …).
func (t *Terminal) ID() string { return t.id }

// Label returns the display title given at start (default: the argv joined by spaces).
func (t *Terminal) Label() string { return t.label }

// Dir returns the working directory the command started in.
func (t *Terminal) Dir() string { return t.dir }

// StartedAt returns when the command was started.
func (t *Terminal) StartedAt() time.Time { return t.started }

// Output returns the transcript and, once the terminal has exited and its
// output was drained, the exit status.
func (t *Terminal) Output() Output {
	ex := t.exit.Load()
	text, trunc := t.tr.Snapshot()
	return Output{Text: text, Truncated: trunc, Exit: ex}
}

// Screen returns the terminal's screen (for drawing; do not Write to it).
func (t *Terminal) Screen() *Screen { return t.scr }
