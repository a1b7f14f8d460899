package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acpterm/acpterm/config"
)

// lumberjack's rotation goroutine lives as long as the process (it has no way to stop it); the
// binary opens one log per run.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("gopkg.in/natefinch/lumberjack%2ev2.(*Logger).millRun"))
}

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want cliOptions
	}{
		{"agent after --", []string{"--", "claude-agent-acp", "--verbose"},
			cliOptions{approve: "deny", agent: []string{"claude-agent-acp", "--verbose"}}},
		{"all flags", []string{"--config", "/c.toml", "--cwd", "/p", "--prompt", "one", "--prompt", "two words",
			"--headless", "--approve", "allow", "--audit-log", "/a.jsonl", "--log", "/l.log", "--", "agent"},
			cliOptions{configPath: "/c.toml", cwd: "/p", prompts: []string{"one", "two words"}, headless: true,
				approve: "allow", auditLog: "/a.jsonl", logFile: "/l.log", agent: []string{"agent"}}},
		{"single dash and =", []string{"-prompt=x", "-demo"}, cliOptions{approve: "deny", prompts: []string{"x"}, demo: true}},
		{"help", []string{"--help"}, cliOptions{approve: "deny", help: true}},
		{"-h", []string{"-h"}, cliOptions{approve: "deny", help: true}},
		{"version wins over bad approve", []string{"--version", "--approve", "x"}, cliOptions{approve: "x", version: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseArgs(c.args)
			if err != nil {
				t.Fatalf("parseArgs: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("parseArgs = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"--approve", "maybe"}, `--approve must be deny or allow, not "maybe"`},
		{[]string{"--demo", "--", "agent"}, `--demo runs the built-in agent; do not also name an agent ("agent")`},
		{[]string{"--prompt", " "}, "--prompt #1 is empty"},
		{[]string{"--cwd"}, "flag needs an argument: -cwd"},
		{[]string{"--approve", "allow", "--demo"}, "--approve answers questions in --headless mode only; the interactive mode asks you"},
		{[]string{"--approve=deny", "--", "agent"}, "--approve answers questions in --headless mode only; the interactive mode asks you"},
	} {
		_, err := parseArgs(c.args)
		if !errors.Is(err, errUsage) || trimUsage(err) != c.want {
			t.Errorf("parseArgs(%q) error = %v, want usage error %q", c.args, err, c.want)
		}
	}
}

func TestParsePolicyCheck(t *testing.T) {
	p, err := parsePolicyCheck([]string{"--cwd", "/p", "--", "git", "push", "--force"})
	if err != nil || p.cwd != "/p" || !reflect.DeepEqual(p.command, []string{"git", "push", "--force"}) {
		t.Fatalf("parsePolicyCheck = %+v, %v", p, err)
	}
	if _, err := parsePolicyCheck([]string{"--config", "x"}); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "no command given") {
		t.Fatalf("no command: err = %v", err)
	}
}

func TestRunUsageAndInfo(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config")}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		args             []string
		code             int
		stdout, stderrIn string
	}{
		{[]string{"--help"}, 0, usageText, ""},
		{[]string{"--bogus"}, 2, "", "acpterm: flag provided but not defined: -bogus\nRun 'acpterm --help' for usage.\n"},
		{[]string{"--cwd", filepath.Join(home, "missing"), "--", "agent"}, 2, "", "does not exist"},
		{[]string{"--cwd", home}, 2, "", "no agent: name one after \"--\""},
		{[]string{"--cwd", home, "--headless", "--", "agent"}, 2, "", "--headless needs at least one --prompt"},
		{[]string{"policy"}, 2, "", "usage: acpterm policy check"},
		{[]string{"policy", "check"}, 2, "", "no command given"},
		{[]string{"audit", "verify", filepath.Join(home, "nope.jsonl")}, 2, "", "nope.jsonl does not exist"},
		{[]string{"audit", "list"}, 2, "", "usage: acpterm audit verify [FILE]"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, stdio{strings.NewReader(""), &out, &errb}, getenv)
		if code != c.code || out.String() != c.stdout || !strings.Contains(errb.String(), c.stderrIn) {
			t.Errorf("run(%q) = %d\nstdout %q\nstderr %q\nwant %d, stdout %q, stderr containing %q", c.args, code, out.String(), errb.String(), c.code, c.stdout, c.stderrIn)
		}
	}
	// Usage errors on the main command line happen before the log is opened: no state dir yet.
	if _, err := os.Stat(filepath.Join(home, "state", "acpterm", "acpterm.log")); err != nil {
		t.Logf("log not created (fine): %v", err)
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, stdio{nil, &out, &bytes.Buffer{}}, func(string) string { return "" }); code != 0 {
		t.Fatalf("code = %d", code)
	}
	if want := "acpterm " + versionString() + "\n"; out.String() != want || versionString() == "" {
		t.Fatalf("--version printed %q, want %q", out.String(), want)
	}
}

func TestAgentCommand(t *testing.T) {
	cfg := &config.Config{Source: "/c.toml", Agent: config.Agent{Command: []string{"from-config", "-v"}}}
	if got, _ := agentCommand(cliOptions{agent: []string{"a", "b"}}, cfg); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("explicit agent = %q", got)
	}
	if got, _ := agentCommand(cliOptions{}, cfg); !reflect.DeepEqual(got, []string{"from-config", "-v"}) {
		t.Errorf("config agent = %q", got)
	}
	got, err := agentCommand(cliOptions{demo: true}, cfg)
	exe, _ := os.Executable()
	if err != nil || !reflect.DeepEqual(got, []string{exe, "__demo-agent"}) {
		t.Errorf("demo agent = %q, %v", got, err)
	}
	_, err = agentCommand(cliOptions{}, &config.Config{Source: "built-in defaults", UserFile: "/h/.config/acpterm/config.toml"})
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "set [agent] command in /h/.config/acpterm/config.toml, or try --demo") {
		t.Errorf("no agent: err = %v", err)
	}
}

func TestSessionDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := sessionDir(cliOptions{cwd: dir}); err != nil || got != dir {
		t.Errorf("sessionDir(dir) = %q, %v", got, err)
	}
	if _, err := sessionDir(cliOptions{cwd: file}); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("sessionDir(file) err = %v", err)
	}
	d, err := sessionDir(cliOptions{demo: true})
	if err != nil || !strings.Contains(filepath.Base(d), "acpterm-demo-") {
		t.Fatalf("demo dir = %q, %v", d, err)
	}
	os.Remove(d)
}

func TestOpenLogTruncatesLongValues(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.log")
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	logger, f, got, err := openLog(path, func(string) string { return "" })
	if err == nil && got != path {
		t.Errorf("openLog path = %q, want %q", got, path)
	}
	if err != nil {
		t.Fatal(err)
	}
	logger.Info("line", "raw", strings.Repeat("a", maxLogValue+10))
	slog.Info("via default")
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "…(10 bytes cut)") || strings.Contains(s, strings.Repeat("a", maxLogValue+1)) || !strings.Contains(s, "via default") {
		t.Fatalf("log = %q", s)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode = %v, want 0600", st.Mode().Perm())
	}
}

// The log is rotated at logMaxMiB, keeping logBackups older files: an agent flooding stderr
// cannot fill the disk.
func TestOpenLogRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "acpterm.log")
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	oldMax := logMaxMiB
	logMaxMiB = 1
	t.Cleanup(func() { logMaxMiB = oldMax })
	logger, f, got, err := openLog(path, func(string) string { return "" })
	if err == nil && got != path {
		t.Errorf("openLog path = %q, want %q", got, path)
	}
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 1000)
	for range 5000 { // about 5 MB
		logger.Info("agent stderr", "line", line)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var total int64
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		st, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 1<<20 {
			t.Errorf("%s is %d bytes, over the 1 MiB cap", e.Name(), st.Size())
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), st.Mode().Perm())
		}
		total += st.Size()
		names = append(names, e.Name())
	}
	// The backup is removed by lumberjack's own goroutine after a rotation: wait for it.
	for deadline := time.Now().Add(10 * time.Second); len(names) > 2 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		ents, _ = os.ReadDir(dir)
		names = names[:0]
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	if len(names) != 2 || !slices.Contains(names, "acpterm.log") {
		t.Fatalf("log dir holds %v, want acpterm.log and one backup", names)
	}
	if total > 3<<20 {
		t.Fatalf("logs total %d bytes after 5 MB written with a 1 MiB cap", total)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write(b []byte) (int, error) { return 0, w.err }

// Any write error on headless output stops the session once and is reported: a full disk
// (ENOSPC) as itself, a closed pipe (EPIPE) as such.
func TestPipeWriterStopsOnAnyWriteError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{syscall.ENOSPC, "writing standard output: no space left on device; the session was stopped"},
		{syscall.EPIPE, "standard output was closed (broken pipe); the session was stopped"},
		{&os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EBADF}, "writing standard output: write /dev/stdout: bad file descriptor; the session was stopped"},
	} {
		gone := 0
		p := &pipeWriter{w: failingWriter{c.err}, gone: func() { gone++ }}
		for range 3 {
			if _, err := p.Write([]byte("x\n")); !errors.Is(err, c.err) {
				t.Errorf("Write: %v, want %v", err, c.err)
			}
		}
		if got := p.failed(); got == nil || got.Error() != c.want || gone != 1 {
			t.Errorf("after %v: failed() = %v, gone called %d times; want %q once", c.err, got, gone, c.want)
		}
	}
	ok := &pipeWriter{w: io.Discard, gone: func() { t.Error("gone called after a good write") }}
	if _, err := ok.Write([]byte("fine")); err != nil || ok.failed() != nil {
		t.Errorf("good write: %v, failed() = %v", err, ok.failed())
	}
}

// --log on a device or through a symlink is written as is, never rotated (rotation renames and
// deletes files: as root it would replace /dev/null with a file); a FIFO is refused.
func TestOpenLogDeviceSymlinkFIFO(t *testing.T) {
	dir := t.TempDir()
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	oldMax := logMaxMiB
	logMaxMiB = 1
	t.Cleanup(func() { logMaxMiB = oldMax })
	target := filepath.Join(dir, "real.log")
	link := filepath.Join(dir, "link.log")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/null", link} {
		logger, f, _, err := openLog(path, func(string) string { return "" })
		if err != nil {
			t.Fatalf("openLog(%s): %v", path, err)
		}
		for range 2500 { // about 2.5 MB: past the 1 MiB cap
			logger.Info("agent stderr", "line", strings.Repeat("x", 1000))
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null after logging: %v %v", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", st.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("dir holds %d entries, want the link and its target only", len(ents))
	}
	if st, _ := os.Stat(target); st.Size() < 2<<20 {
		t.Fatalf("target has %d bytes, want everything written through the link", st.Size())
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := openLog(fifo, func(string) string { return "" }); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "not a regular file or device") {
		t.Fatalf("openLog(fifo) = %v, want a usage error", err)
	}
}
