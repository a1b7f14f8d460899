package permissions

// The differential oracle: shell lines are run in real bash and dash with every external
// program replaced by a logging stub, and what really happened — programs started (argv, cwd,
// environment), code-running builtins traced with -x, files created, changed or removed — is
// compared with what the analyser reported for the line. A line the policy allows must not run
// anything the analyser did not report, in a directory it did not foresee, with a variable the
// env policy does not allow, and must not write where a write is not allowed.
//
// Isolation: each run is the first process of a fresh user, mount, PID and network namespace
// (the namespace's root is uid 65534 outside when the tests run as root, so it has no power
// over the machine's files). The stub directory is bind-mounted over every directory of the
// test's PATH and the usual program directories, and is the only PATH entry, so a program named
// by path (/bin/rm) is a stub too; the shells and a few wrappers (env, timeout, xargs, find …)
// are copies of the real programs that the stub starts after recording, so what they run is
// recorded as well. Every run has its own temporary root, HOME and outside directory, a
// timeout, and no network; when the run ends every process of its namespace is killed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/config"
)

// oracleTimeout bounds one shell run; a run that takes longer is killed (with everything it
// started) and judged on what it did until then.
const oracleTimeout = 10 * time.Second

// oracleConfig is the "typical config" ordinary commands and the oracle are judged under.
var oracleConfig = filepath.Join("testdata", "oracle", "typical.toml")

// oracleRealPrograms are the programs the stub replaces itself with after recording (copies of
// the real ones): shells, so nested scripts run, and wrappers, so the commands they start run.
var oracleRealPrograms = []string{"bash", "dash", "sh", "env", "timeout", "nice", "nohup", "xargs", "find", "setsid"}

// oracleShells are the stub names that start a real shell.
var oracleShells = setOf("bash", "dash", "sh")

// oracleCodeBuiltins are the builtins whose run (seen in the -x trace) the analyser must
// account for with a leaf or a wrapper of that name: they run code, change how later words
// are read, or change later commands.
var oracleCodeBuiltins = setOf("eval", "source", ".", "trap", "fc", "jobs", "alias", "unalias",
	"enable", "hash", "shopt", "set", "bind", "complete", "compgen", "mapfile", "readarray", "let",
	"command", "builtin", "cd", "pushd", "popd", "read", "printf", "getopts", "kill", "disown",
	"ulimit", "umask", "wait", "bg", "fg", "history", "coproc", "caller", "suspend", "times")

// oracleHarness holds what every run shares: the stub directory and the real shells.
type oracleHarness struct {
	base    string   // the harness's directory in TMPDIR: stubs, boxes
	owner   *os.File // base/.owner, locked (flock) while this process uses base
	stubDir string   // the stub binary and one link per program name; PATH of every run
	binDirs []string // directories the stub directory is bound over
	shells  map[string]string
	uid     int // host uid (and gid) the namespace's root maps to
	config  string
	sysPath string // the test's own PATH: the policy PATH the engine resolves programs on

	marker string // random text in dash's PS4 that marks its -x trace lines on stderr

	mu    sync.Mutex
	names map[string]bool // program names that have a stub link
	pool  []*oracleBox    // boxes a run left unchanged, ready for the next one
}

// newOracleHarness builds the harness for one test (removed when it ends). When the machine
// cannot run it (no bash/dash, no go toolchain, no user namespaces) the test is skipped with
// the reason, except under CI, where it fails: CI must run the oracle.
func newOracleHarness(t testing.TB) *oracleHarness {
	t.Helper()
	h, err := buildOracleHarness()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("differential oracle unavailable: %v", err)
		}
		t.Skipf("differential oracle unavailable: %v", err)
	}
	t.Cleanup(func() {
		h.drain()
		os.RemoveAll(h.base)
		h.owner.Close()
	})
	return h
}

func buildOracleHarness() (_ *oracleHarness, err error) {
	h := &oracleHarness{shells: map[string]string{}, names: map[string]bool{}, sysPath: os.Getenv("PATH"),
		marker: fmt.Sprintf("oracle%x", time.Now().UnixNano())}
	cfg, err := filepath.Abs(oracleConfig)
	if err != nil {
		return nil, err
	}
	h.config = cfg
	removeStaleOracleDirs()
	base, err := os.MkdirTemp("", "acpterm-oracle-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(base)
		}
	}()
	// Fuzz workers are stopped without running cleanups: the lock on .owner, which the kernel
	// drops when the process ends, lets a later run remove what they left
	// (removeStaleOracleDirs). A lock, unlike a pid, also holds across PID namespaces.
	// It is locked under another name first, so no one finds it unlocked.
	if h.owner, err = lockOracleOwner(filepath.Join(base, ".owner-new"), os.O_CREATE|os.O_EXCL, 0); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			h.owner.Close()
		}
	}()
	if err := os.Rename(h.owner.Name(), filepath.Join(base, ".owner")); err != nil {
		return nil, err
	}
	h.base = base
	h.stubDir = filepath.Join(base, "bin")
	if err := os.MkdirAll(filepath.Join(h.stubDir, ".real"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(h.stubDir, ".logs"), 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(base, 0o755); err != nil {
		return nil, err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("no go toolchain to build the stub: %v", err)
	}
	build := exec.Command(goTool, "build", "-o", filepath.Join(h.stubDir, ".oracle-stub"), "./testdata/oraclestub")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the stub: %v\n%s", err, out)
	}
	if err := os.Symlink(".oracle-stub", filepath.Join(h.stubDir, ".oracle-setup")); err != nil {
		return nil, err
	}
	for _, name := range oracleRealPrograms {
		real := name
		if name == "sh" {
			real = "dash"
		}
		p, err := exec.LookPath(real)
		if err != nil {
			if name == "bash" || name == "dash" {
				return nil, fmt.Errorf("%s is not installed", real)
			}
			continue
		}
		if err := copyExecutable(p, filepath.Join(h.stubDir, ".real", name)); err != nil {
			return nil, err
		}
		if name == "bash" || name == "dash" {
			h.shells[name] = filepath.Join(h.stubDir, ".real", name)
		}
	}
	seen := map[string]bool{}
	for _, d := range append(filepath.SplitList(h.sysPath), "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin") {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || seen[real] || !filepath.IsAbs(d) {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			continue
		}
		seen[real] = true
		h.binDirs = append(h.binDirs, real)
		ents, _ := os.ReadDir(real)
		for _, e := range ents {
			h.addName(e.Name())
		}
	}
	for _, n := range []string{"git", "go", "npm", "npx", "pnpm", "yarn", "node", "python", "python3", "pytest", "pip", "cargo", "rustc", "make", "rg", "fd", "jq", "curl", "wget", "rm", "sudo", "ssh", "id", "touch", "sleep", "ls", "cat"} {
		h.addName(n)
	}
	if os.Geteuid() == 0 {
		h.uid = 65534 // the namespace's root is "nobody" outside
	} else {
		h.uid = os.Geteuid()
	}
	// Probe: the machine must allow the namespaces.
	box, err := h.newBox()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(box.base)
	if _, err := h.engine(box); err != nil {
		return nil, fmt.Errorf("the typical config: %v", err)
	}
	r, err := h.runIn(box, "dash", "true")
	if err != nil {
		return nil, err
	}
	if r.exit != 0 {
		return nil, fmt.Errorf("probe run failed (exit %d): %s", r.exit, r.stderr)
	}
	return h, nil
}

// lockOracleOwner opens (with extra open flags) and locks the owner file of a harness
// directory with flock(2); how is syscall.LOCK_NB or 0 (wait).
func lockOracleOwner(path string, flags, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|flags, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// removeStaleOracleDirs removes the harness directories whose owner process has ended: their
// .owner file is no longer locked. A directory without one (being created, or not a harness's)
// is left alone.
func removeStaleOracleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "acpterm-oracle-*"))
	for _, d := range dirs {
		f, err := lockOracleOwner(filepath.Join(d, ".owner"), 0, syscall.LOCK_NB)
		if err != nil {
			continue // no owner file, or its owner still runs
		}
		os.RemoveAll(d)
		f.Close()
	}
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// addName links the stub under name (a single path component) if it is not there yet.
func (h *oracleHarness) addName(name string) {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, ".oracle") || name == ".real" || name == ".logs" || len(name) > 200 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.names[name] {
		return
	}
	h.names[name] = true
	_ = os.Symlink(".oracle-stub", filepath.Join(h.stubDir, name))
}

// addLineNames links a stub under every word-like token of line, so a program the line names
// that is not installed still runs (as a stub) instead of "command not found".
func (h *oracleHarness) addLineNames(line string) {
	for _, f := range strings.FieldsFunc(line, func(r rune) bool {
		return strings.ContainsRune(" \t\n;&|()<>`$\"'\\{}=*?[]!#~,:", r)
	}) {
		h.addName(filepath.Base(f))
	}
}

// oracleBox is one run's file system: root (the policy root and cwd), home (HOME, outside the
// roots), outside (a directory outside the roots holding the planted stdin and OLDPWD) and logs
// (the stub's log, mounted over the stub directory's .logs in the run's namespace).
type oracleBox struct {
	base, root, home, outside, logs string
	env                             []string // the shell's environment, less the -x trace settings
	engine                          *Engine  // the typical config's engine for this box
}

// getBox returns a fresh box with its engine: one a previous run left unchanged, or a new one
// (creating the files costs more than a run).
func (h *oracleHarness) getBox() (*oracleBox, error) {
	h.mu.Lock()
	if n := len(h.pool); n > 0 {
		b := h.pool[n-1]
		h.pool = h.pool[:n-1]
		h.mu.Unlock()
		return b, nil
	}
	h.mu.Unlock()
	b, err := h.newBox()
	if err != nil {
		return nil, err
	}
	if b.engine, err = h.engine(b); err != nil {
		os.RemoveAll(b.base)
		return nil, err
	}
	return b, nil
}

// putBox takes a box back after a run: into the pool when the run changed nothing in it,
// removed otherwise.
func (h *oracleHarness) putBox(b *oracleBox, r *oracleRun) {
	os.Remove(filepath.Join(b.logs, ".trace"))
	err := os.Remove(filepath.Join(b.logs, ".log"))
	if r == nil || len(r.changed) > 0 || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
		os.RemoveAll(b.base)
		return
	}
	h.mu.Lock()
	h.pool = append(h.pool, b)
	h.mu.Unlock()
}

// drain removes the pooled boxes.
func (h *oracleHarness) drain() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.pool {
		os.RemoveAll(b.base)
	}
	h.pool = nil
}

func (h *oracleHarness) newBox() (*oracleBox, error) { return newOracleBox(h.base, h.uid, h.stubDir) }

// newOracleBox creates a box in dir ("" = TMPDIR) whose files belong to uid (the namespace's
// root) and whose baseline environment has PATH = stubDir.
func newOracleBox(dir string, uid int, stubDir string) (*oracleBox, error) {
	base, err := os.MkdirTemp(dir, "box-")
	if err != nil {
		return nil, err
	}
	if base, err = filepath.EvalSymlinks(base); err != nil {
		return nil, err
	}
	b := &oracleBox{base: base, root: filepath.Join(base, "root"), home: filepath.Join(base, "home"),
		outside: filepath.Join(base, "outside"), logs: filepath.Join(base, "logs")}
	files := map[string]string{
		"root/README.md":                "# demo\n",
		"root/go.mod":                   "module example.com/demo\n\ngo 1.22\n",
		"root/main.go":                  "package main\n\nfunc main() {}\n",
		"root/main_test.go":             "package main\n",
		"root/package.json":             "{\"name\":\"demo\",\"scripts\":{\"test\":\"true\"}}\n",
		"root/Cargo.toml":               "[package]\nname = \"demo\"\n",
		"root/pyproject.toml":           "[project]\nname = \"demo\"\n",
		"root/src/app.py":               "print('hi')\n",
		"root/src/index.ts":             "export {}\n",
		"root/tests/test_app.py":        "def test_x():\n    pass\n",
		"root/sub/notes.txt":            "a\nb\n",
		"root/internal/x/x.go":          "package x\n",
		"root/.git/HEAD":                "ref: refs/heads/main\n",
		"home/.bashrc":                  "# rc\n",
		"home/.ssh/authorized_keys":     "",
		"home/.config/acpterm/x.toml":   "",
		"outside/secret.txt":            "secret\n",
		"outside/stdin.txt":             "input line\n",
		"outside/dir/file.txt":          "x\n",
		"logs/.keep":                    "",
		"root/docs/guide/index.md":      "# guide\n",
		"root/scripts/check.sh":         "#!/bin/sh\n",
		"root/web/package.json":         "{}\n",
		"root/node_modules/.keep":       "",
		"root/testdata/golden.txt":      "g\n",
		"root/cmd/demo/main.go":         "package main\n",
		"root/pkg/util/util.go":         "package util\n",
		"root/pkg/util/util_test.go":    "package util\n",
		"root/src/lib.rs":               "\n",
		"root/CHANGELOG.md":             "\n",
		"root/Makefile":                 "test:\n\ttrue\n",
		"root/sub/deeper/more.txt":      "m\n",
		"root/frontend/src/App.tsx":     "\n",
		"root/tests/unit/test_more.py":  "\n",
		"root/tests/integration/.keep":  "",
		"root/.github/workflows/ci.yml": "on: push\n",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink("../outside/dir", filepath.Join(b.root, "link")); err != nil {
		return nil, err
	}
	if err := os.Chmod(base, 0o755); err != nil {
		return nil, err
	}
	if uid != os.Geteuid() {
		if err := filepath.WalkDir(base, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, uid)
		}); err != nil {
			return nil, err
		}
	}
	b.env = []string{"PATH=" + stubDir, "HOME=" + b.home, "OLDPWD=" + b.outside, "LANG=C.UTF-8", "USER=u"}
	return b, nil
}

// engine builds the policy engine for a box: the typical config with the box's root as root,
// HOME the box's home and the test's own PATH as the policy PATH.
func (h *oracleHarness) engine(b *oracleBox) (*Engine, error) {
	return oracleEngine(b, h.config, h.sysPath, true)
}

// oracleEngine builds the engine for box b from the config file cfgFile with policy PATH
// sysPath. confined says the session's commands, and the agent's own tools, run confined by the
// OS sandbox (EngineOptions.Confined and AgentConfined): the typical config's test runners (go
// test, pytest) are allowed only then.
func oracleEngine(b *oracleBox, cfgFile, sysPath string, confined bool) (*Engine, error) {
	getenv := func(k string) string {
		return map[string]string{"HOME": b.home, "PATH": sysPath, "USER": "u", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": filepath.Join(b.home, ".config")}[k]
	}
	cfg, err := config.Load(config.LoadOptions{Path: cfgFile, Cwd: b.root, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	return NewEngine(cfg.Permissions(getenv), EngineOptions{Cwd: b.root, Getenv: getenv, Confined: confined, AgentConfined: confined})
}

// stubRecord is one program start as the stub recorded it.
type stubRecord struct {
	Argv []string `json:"argv"`
	Exec string   `json:"exec"` // the path the kernel executed (AT_EXECFN)
	Cwd  string   `json:"cwd"`
	Env  []string `json:"env"`
}

// oracleRun is what one shell run did.
type oracleRun struct {
	shell    string
	env      []string // the shell's environment (the baseline its children are compared with)
	records  []stubRecord
	builtins [][]string // first words of the -x trace lines naming code builtins
	changed  []string   // absolute paths created, modified or removed under the box
	stderr   string
	exit     int
	timedOut bool
}

type fileState struct {
	mode  fs.FileMode
	size  int64
	mtime int64
	link  string
}

func snapshot(b *oracleBox) map[string]fileState {
	out := map[string]fileState{}
	_ = filepath.WalkDir(b.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == b.logs {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		s := fileState{mode: info.Mode(), size: info.Size(), mtime: info.ModTime().UnixNano()}
		if info.Mode()&fs.ModeSymlink != 0 {
			s.link, _ = os.Readlink(p)
		}
		if info.IsDir() {
			s.size, s.mtime = 0, 0 // entries are compared one by one
		}
		out[p] = s
		return nil
	})
	return out
}

// runIn runs line with shell ("bash" or "dash") in box b inside fresh namespaces.
func (h *oracleHarness) runIn(b *oracleBox, shell, line string) (*oracleRun, error) {
	h.addLineNames(line)
	before := snapshot(b)
	args := []string{"-log", b.logs}
	args = append(args, h.binDirs...)
	args = append(args, "--", h.shells[shell])
	if shell == "bash" {
		args = append(args, "--norc", "--noprofile")
	}
	args = append(args, "-x", "-c", line)
	ctx, cancel := context.WithTimeout(context.Background(), oracleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(h.stubDir, ".oracle-setup"), args...)
	cmd.Args[0] = ".oracle-setup"
	// The -x trace: bash writes it to fd 3 (a file of its own, apart from what the line
	// writes to stderr); dash has no such variable, so its lines carry a marker no line knows.
	trace, err := os.OpenFile(filepath.Join(b.logs, ".trace"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	defer trace.Close()
	cmd.ExtraFiles = []*os.File{trace}
	cmd.Env = append(slices.Clone(b.env), "PS4=+"+h.marker+" ")
	if shell == "bash" {
		// As root bash ignores PS4 from the environment (and exports its own default).
		cmd.Env = append(slices.Clone(b.env), "BASH_XTRACEFD=3")
	}
	cmd.Dir = b.root
	stdin, err := os.Open(filepath.Join(b.outside, "stdin.txt"))
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: h.uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: h.uid, Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
		// The mapping alone leaves the child with its host ids (unmapped: no capabilities);
		// becoming the namespace's root makes it the mapped uid outside.
		Credential: &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: os.Geteuid() != 0},
		// As root the supplementary groups (root's) are dropped too.
		GidMappingsEnableSetgroups: os.Geteuid() == 0,
	}
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	r := &oracleRun{shell: shell, env: cmd.Env, stderr: stderr.String(), timedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case r.timedOut:
		r.exit = -1
	default:
		return nil, fmt.Errorf("starting the namespace: %v", err)
	}
	if r.exit == 125 && strings.Contains(r.stderr, "oraclestub:") {
		return nil, fmt.Errorf("namespace setup failed: %s", r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(b.logs, ".log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec stubRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("bad stub record %q: %v", sc.Bytes(), err)
		}
		r.records = append(r.records, rec)
	}
	traced := r.stderr
	if shell == "bash" {
		data, err := os.ReadFile(trace.Name())
		if err != nil {
			return nil, err
		}
		traced = string(data)
	}
	for _, l := range strings.Split(traced, "\n") {
		rest := strings.TrimLeft(l, "+")
		if shell == "dash" {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, h.marker); !ok {
				continue
			}
		}
		if len(rest) == len(l) || !strings.HasPrefix(rest, " ") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) > 0 && oracleCodeBuiltins[f[0]] {
			r.builtins = append(r.builtins, f)
		}
	}
	after := snapshot(b)
	for p, s := range after {
		if old, ok := before[p]; !ok || old != s {
			r.changed = append(r.changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			r.changed = append(r.changed, p)
		}
	}
	sort.Strings(r.changed)
	return r, nil
}

// oracleCase is the verdict for one line and, when it was run, the problems found.
type oracleCase struct {
	line         string
	decision     Decision // for acpterm's /bin/sh -c
	bashDecision Decision // for the agent's own tool (bash dialect)
	runs         []*oracleRun
	problems     []string
}

// verdicts says how both decisions came out, for messages.
func (c *oracleCase) verdicts() string {
	return fmt.Sprintf("/bin/sh line %s (%s); agent's bash line %s (%s)", c.decision.Verdict, c.decision.Reason, c.bashDecision.Verdict, c.bashDecision.Reason)
}

// check decides line under the typical config, as acpterm's /bin/sh -c line and as a line the
// agent's own tool runs in bash, runs it in dash and in bash (each in a fresh box) when a
// decision for that shell is allow, and returns every discrepancy found.
func (h *oracleHarness) check(line string) (*oracleCase, error) {
	c := &oracleCase{line: line}
	for _, shell := range []string{"dash", "bash"} {
		b, err := h.getBox()
		if err != nil {
			return nil, err
		}
		// Decided in every box: the leaves hold the box's paths (~ expanded, the cwd). bash
		// runs the line for acpterm's /bin/sh (judged under dash and bash) and for the agent's
		// own tool (the bash dialect); the run is judged against each decision that allows it.
		type judged struct {
			label string
			d     Decision
		}
		var ds []judged
		d := b.engine.DecideCommand(CommandRequest{Command: line})
		if shell == "dash" {
			c.decision = d
		}
		if d.Verdict == Allow {
			ds = append(ds, judged{shell, d})
		}
		if shell == "bash" {
			db := b.engine.DecideCommand(CommandRequest{Command: line, Dialect: DialectBash})
			if c.bashDecision = db; db.Verdict == Allow {
				ds = append(ds, judged{"bash (agent's tool)", db})
			}
		}
		if len(ds) == 0 {
			h.putBox(b, &oracleRun{})
			continue
		}
		r, err := h.runIn(b, shell, line)
		if err != nil {
			os.RemoveAll(b.base)
			return nil, err
		}
		c.runs = append(c.runs, r)
		for _, j := range ds {
			for _, p := range judgeRun(b.engine, b, j.d, r) {
				c.problems = append(c.problems, j.label+": "+p)
			}
		}
		h.putBox(b, r)
	}
	return c, nil
}

// judgeRun compares what run r of an allowed line did with decision d (see the file comment).
func judgeRun(e *Engine, b *oracleBox, d Decision, r *oracleRun) []string {
	var problems []string
	labels := map[string]bool{} // first word of every wrapper the analyser peeled
	names := map[string]bool{}  // argv[0] of every leaf
	for _, l := range d.Leaves {
		for _, v := range l.Via {
			labels[strings.Fields(v + " x")[0]] = true
		}
		if len(l.Argv) > 0 {
			names[l.Argv[0]] = true
		}
	}
	cwds := leafCwds(d, b)
	baseline := map[string]string{}
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		baseline[k] = v
	}
	envOK := map[string]bool{}
	for _, rec := range r.records {
		if len(rec.Argv) == 0 {
			problems = append(problems, "a program ran with an empty argv")
			continue
		}
		// A shell is a real copy: what it runs is recorded and judged on its own, so the
		// shell process itself needs no leaf (bash -c '' runs nothing).
		covered := labels[filepath.Base(rec.Argv[0])] || oracleShells[filepath.Base(rec.Exec)]
		for _, l := range d.Leaves {
			if argvMatches(l.Argv, rec.Argv) {
				covered = true
				break
			}
		}
		if filepath.Base(rec.Exec) != filepath.Base(rec.Argv[0]) {
			problems = append(problems, fmt.Sprintf("ran %s under the name %q (argv %q)", rec.Exec, rec.Argv[0], rec.Argv))
		}
		if !covered {
			problems = append(problems, fmt.Sprintf("ran %q (cwd %s), which the analyser did not report", rec.Argv, rel(b, rec.Cwd)))
		}
		if !slices.Contains(cwds, rec.Cwd) {
			problems = append(problems, fmt.Sprintf("ran %q in %s, not in a directory the analyser's leaves lead to (%s)", rec.Argv, rel(b, rec.Cwd), relAll(b, cwds)))
		}
		for _, kv := range rec.Env {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "PWD", "OLDPWD", "SHLVL", "_":
				continue // maintained by the shell itself
			}
			if old, ok := baseline[k]; ok && old == v {
				continue
			}
			if kv == "PS4=+ " && baseline["PS4"] != "" {
				continue // a bash started as root replaces the marker PS4 by its default
			}
			ok, seen := envOK[kv]
			if !seen {
				ok = e.DecideCommand(CommandRequest{Command: "true", Env: []EnvVar{{k, v}}}).Verdict == Allow
				envOK[kv] = ok
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%q reached %q, and the env policy does not allow it", kv, rec.Argv))
			}
		}
	}
	for _, bw := range r.builtins {
		if !names[bw[0]] && !labels[bw[0]] {
			problems = append(problems, fmt.Sprintf("builtin %q ran (-x trace), which the analyser did not report", strings.Join(bw, " ")))
		}
	}
	for _, p := range r.changed {
		if fd := e.DecideWrite(p); fd.Verdict != Allow {
			problems = append(problems, fmt.Sprintf("changed %s, a write the policy does not allow (%s)", rel(b, p), fd.Reason))
		}
	}
	if r.timedOut {
		problems = append(problems, fmt.Sprintf("still running after %s", oracleTimeout))
	}
	return problems
}

// argvMatches reports whether an analyser argv (DynamicWord standing for any number of words)
// matches the argv a program really got.
func argvMatches(pat, got []string) bool {
	if len(pat) == 0 {
		return len(got) == 0
	}
	if pat[0] == DynamicWord {
		for i := 0; i <= len(got); i++ {
			if argvMatches(pat[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == pat[0] && argvMatches(pat[1:], got[1:])
}

// leafCwds returns the physical directories the analyser's leaves can lead a command to: the
// request cwd, then for every cd/pushd leaf with a literal target that target from every
// directory found so far (logical, as the shells' cd computes it, and physical), and HOME for
// a cd without operand. cd -, popd and non-literal targets add nothing: the analyser did not say
// where they lead.
func leafCwds(d Decision, b *oracleBox) []string {
	dirs := []string{d.Cwd}
	add := func(p string) {
		for _, q := range []string{filepath.Clean(p), physical(p)} {
			if q != "" && !slices.Contains(dirs, q) {
				dirs = append(dirs, q)
			}
		}
	}
	for _, l := range d.Leaves {
		if len(l.Argv) == 0 || (l.Argv[0] != "cd" && l.Argv[0] != "pushd" && l.Argv[0] != "chdir") {
			continue
		}
		args := l.Argv[1:]
		for len(args) > 0 && (args[0] == "-L" || args[0] == "-P" || args[0] == "-e" || args[0] == "-@") {
			args = args[1:]
		}
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		switch {
		case len(args) == 0:
			add(b.home)
		case args[0] == DynamicWord || args[0] == "-" || strings.HasPrefix(args[0], "+") || strings.HasPrefix(args[0], "-"):
		case filepath.IsAbs(args[0]):
			add(args[0])
		default:
			for _, from := range slices.Clone(dirs) {
				add(filepath.Join(from, args[0]))
				add(filepath.Join(physical(from), args[0]))
			}
		}
	}
	return dirs
}

func physical(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// rel shows p relative to the box ($ROOT/…, $HOME/…, $OUTSIDE/…, $BOX) so messages are stable.
func rel(b *oracleBox, p string) string {
	return strings.NewReplacer(b.root, "$ROOT", b.home, "$HOME", b.outside, "$OUTSIDE", b.base, "$BOX").Replace(p)
}

func relAll(b *oracleBox, ps []string) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rel(b, p)
	}
	return strings.Join(out, ", ")
}

// oracleSeed is one line of a corpus file with its annotation (text after a tab and "#").
type oracleSeed struct {
	file, line, note string
	n                int // line number in file
}

// readOracleCorpus reads a corpus file: one shell line per line; blank lines and lines starting
// with "#" are skipped; a line starting with "go:" is a Go string literal (for lines holding
// newlines or control characters); text after a tab followed by "#" is a note.
func readOracleCorpus(t testing.TB, name string) []oracleSeed {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "oracle", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []oracleSeed
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s := oracleSeed{file: name, n: i + 1}
		if j := strings.Index(l, "\t#"); j >= 0 {
			s.note = strings.TrimSpace(l[j+2:])
			l = l[:j]
		}
		if q, ok := strings.CutPrefix(l, "go:"); ok {
			u, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("%s:%d: bad Go string: %v", name, i+1, err)
			}
			l = u
		}
		s.line = l
		out = append(out, s)
	}
	return out
}

// shellJoin quotes argv as one POSIX shell line.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// oracleSeeds returns every line the oracle runs deterministically: the bypass corpus (shell
// scripts as they are, argv requests quoted into a line; requests that only differ in agent
// env or cwd are left out), the ordinary commands and the construct families.
func oracleSeeds(t testing.TB) []oracleSeed {
	var out []oracleSeed
	for _, c := range corpusCases() {
		if len(c.env) > 0 || c.cwd != "" || len(c.command)+len(strings.Join(c.args, " ")) > 4096 {
			continue
		}
		line := shellJoin(append([]string{c.command}, c.args...))
		if len(c.args) == 2 && c.args[0] == "-c" && (c.command == "bash" || c.command == "sh") {
			line = c.args[1]
		}
		out = append(out, oracleSeed{file: "corpusCases", line: line, note: c.id})
	}
	out = append(out, readOracleCorpus(t, "ordinary.txt")...)
	out = append(out, readOracleCorpus(t, "families.txt")...)
	return out
}

// oracleKnownFailures are seed lines the analyser allows although the shells run something it
// did not report (or in a place or with an environment it did not foresee, or they write where
// writes are not allowed): each is asserted to still fail, so whoever fixes the analyser moves
// the line out of this list. The value says what ran unreported.
var oracleKnownFailures = map[string]string{
	"watch ''":              "watch runs (and would rerun sh -c '' every 2 s, forever), but an empty script leaves no leaf: the decision says the script runs no commands",
	"watch -n1 ' '":         "watch runs with a blank script, but the decision says the script runs no commands",
	"00000>0":               "dash reads only a single digit before > as a file descriptor: it runs the program 00000; the analyser sees a redirect of fd 0 and no command",
	"10>out.txt git status": "dash runs the program 10 with arguments git status; the analyser sees git status with fd 10 redirected",
	"12>/dev/null ls":       "dash runs the program 12 with argument ls; the analyser sees ls with fd 12 redirected",
	"bash -lc 'git status'": "a login shell runs /etc/profile (here: id -u) and resets PATH before git status; the analyser reports only git status",
}

// oracleKnownClasses are families of known failures FuzzOracle skips, so a short fuzz pass in
// CI does not fail on yet another spelling of a failure already listed; each must match at least
// one line of oracleKnownFailures (TestOracleKnownClasses), so fixing the family and removing
// its lines removes the class too.
var oracleKnownClasses = map[string]*regexp.Regexp{
	"multi-digit io number (dash reads one digit)": regexp.MustCompile(`(^|[^0-9A-Za-z_$])[0-9]{2,}[<>]`),
	"watch with a blank script":                    regexp.MustCompile(`\bwatch\b.*('\s*'|"\s*")`),
}

// oracleKnownClass returns the known failure class line belongs to, or "".
func oracleKnownClass(line string) string {
	for name, re := range oracleKnownClasses {
		if re.MatchString(line) {
			return name
		}
	}
	return ""
}

// TestOracleKnownClasses: every class FuzzOracle skips still has a known failing seed.
func TestOracleKnownClasses(t *testing.T) {
	for name, re := range oracleKnownClasses {
		n := 0
		for line := range oracleKnownFailures {
			if re.MatchString(line) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("known failure class %q matches no line of oracleKnownFailures: remove the class", name)
		}
	}
}

// TestOracleSeeds runs the differential oracle over every seed line: no allowed line may do
// anything the analyser did not report, except the known failures, which must still fail.
func TestOracleSeeds(t *testing.T) {
	h := newOracleHarness(t)
	seeds := oracleSeeds(t)
	for _, s := range seeds {
		h.addLineNames(s.line) // all names first, so no result depends on the order of runs
	}
	type result struct {
		seed oracleSeed
		c    *oracleCase
		err  error
	}
	results := make([]result, len(seeds))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c, err := h.check(seeds[i].line)
				results[i] = result{seeds[i], c, err}
			}
		}()
	}
	for i := range seeds {
		work <- i
	}
	close(work)
	wg.Wait()
	ran := 0
	seen := map[string]bool{}
	for _, r := range results {
		where := fmt.Sprintf("%s:%d %q", r.seed.file, r.seed.n, r.seed.line)
		if r.err != nil {
			t.Errorf("%s: %v", where, r.err)
			continue
		}
		seen[r.seed.line] = true
		if len(r.c.runs) > 0 {
			ran++
		}
		known, isKnown := oracleKnownFailures[r.seed.line]
		switch {
		case len(r.c.problems) > 0 && !isKnown:
			t.Errorf("%s: %s, but:\n\t%s\nKNOWN %s: %s", where, r.c.verdicts(), strings.Join(r.c.problems, "\n\t"), strconv.Quote(r.seed.line), strconv.Quote(r.c.problems[0]))
		case len(r.c.problems) == 0 && isKnown:
			t.Errorf("%s: listed in oracleKnownFailures (%s) but passes the oracle now (%s): remove it from the list", where, known, r.c.verdicts())
		}
	}
	for line := range oracleKnownFailures {
		if !seen[line] {
			t.Errorf("oracleKnownFailures lists %q, which is not a seed line", line)
		}
	}
	t.Logf("%d seed lines, %d allowed and run in bash and dash", len(seeds), ran)
	if ran == 0 {
		t.Errorf("no seed line was allowed, so the oracle ran nothing")
	}
}

// knownFalseDeny are ordinary lines (ordinary.txt) today's analyser does not allow although
// they are safe under the typical config; the value says why it asks or denies. Each is
// asserted to still be false-denied, so whoever fixes one must move it out of this list.
var knownFalseDeny = map[string]string{
	"git -C sub status":                                         "ask: git -C asks even for a directory inside the roots, whose .git is protected like the root's",
	"grep -rl TODO . | xargs grep -c TODO":                      "ask: xargs with an allowed read-only command still asks (its arguments come from input)",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l": "ask: xargs with an allowed read-only command still asks (its arguments come from input)",
	"find . -name '*_test.go' -exec grep -l 'func Test' {} +":   "ask: find -exec of an allowed read-only command still asks",
	"sed -n '/func main/,/^}/p' main.go":                        "ask: a sed script with a regex address range is not on the safe sed list",
	"sed -i 's/old/new/g' README.md":                            "ask: sed -i inside the root asks although [policy.fs] write is allow",
	"sed -i.bak -e 's/a/b/' sub/notes.txt":                      "ask: sed -i inside the root asks although [policy.fs] write is allow",
	"awk '{print $1}' sub/notes.txt":                            "ask: every inline awk program asks, even one that only prints fields",
	"awk -F: '{print $1}' sub/notes.txt | sort | uniq -c":       "ask: every inline awk program asks, even one that only prints fields",
	"awk 'NR>=10 && NR<=20' main.go":                            "ask: every inline awk program asks, even one that only selects lines",
	"awk '/func/ {print FILENAME\": \"$0}' main.go":             "ask: every inline awk program asks, even one that only prints",
	"basename \"$PWD\"":                                         "ask: every parameter expansion asks, even $PWD, which only the shell's cd sets",
	"echo \"$HOME\"":                                            "ask: every parameter expansion asks, even a quoted $HOME from the policy-built environment",
	"for f in *.go; do echo \"$f\"; done":                       "ask: every for loop asks, even one over a glob that only runs allowed commands",
	"for f in src/*.py; do wc -l \"$f\"; done":                  "ask: every for loop asks, even one over a glob that only runs allowed commands",
	"if [ -f go.mod ]; then go build ./...; fi":                 "ask: every if statement asks, even one whose condition and body are allowed commands",
}

// knownFalseDenyBash are ordinary lines allowed as acpterm's /bin/sh line but not as a line
// the agent's own tool runs (judged as bash and zsh); asserted to still be false-denied there.
var knownFalseDenyBash = map[string]string{
	"which go": "ask: which is a zsh builtin, and the line is judged as zsh too; it only prints where a program is",
}

// buildRunnerAsks are ordinary lines that ask on purpose under the typical config: the program
// runs scripts from workspace files the agent can edit (package.json scripts, build.rs,
// Makefile) and the typical config has no allow rule for it. Asserted to be exactly "ask" (and,
// unconfined, to name the runner).
var buildRunnerAsks = map[string]bool{
	"npm test": true, "npm run test": true, "npm run lint": true, "npm run build": true, "npm ci": true,
	"npx tsc --noEmit": true, "pnpm test": true, "yarn test": true, "cargo check": true, "cargo test": true,
	"cargo build --release": true, "cargo clippy -- -D warnings": true,
}

// TestOrdinaryCorpus: ordinary agent commands (ordinary.txt) come out "allow" under the
// typical config in a session whose commands run confined by the OS sandbox, as acpterm's
// /bin/sh lines and as the agent's own bash lines, except the listed known false denies (which
// must still be false-denied) and build runners (which must ask). Unconfined, the same config
// allows the same lines except the ones that execute workspace code (go test, pytest), which
// ask naming the runner. It needs no namespaces: only the decisions are checked.
func TestOrdinaryCorpus(t *testing.T) {
	seeds := readOracleCorpus(t, "ordinary.txt")
	box, err := newOracleBox("", os.Geteuid(), "/nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(box.base) })
	e, err := oracleEngine(box, oracleConfig, os.Getenv("PATH"), true)
	if err != nil {
		t.Fatal(err)
	}
	open, err := oracleEngine(box, oracleConfig, os.Getenv("PATH"), false)
	if err != nil {
		t.Fatal(err)
	}
	allowed, runners, seen := 0, 0, map[string]bool{}
	for _, s := range seeds {
		if seen[s.line] {
			t.Errorf("ordinary.txt:%d: %q is listed twice", s.n, s.line)
		}
		seen[s.line] = true
		d := e.DecideCommand(CommandRequest{Command: s.line})
		od := open.DecideCommand(CommandRequest{Command: s.line})
		why, falseDeny := knownFalseDeny[s.line]
		switch {
		case buildRunnerAsks[s.line]:
			if d.Verdict != Ask || od.Verdict != Ask || !strings.HasPrefix(od.Rule, "runner: ") {
				t.Errorf("ordinary.txt:%d: %q is listed in buildRunnerAsks but is %s confined (rule %q: %s), %s unconfined (rule %q)", s.n, s.line, d.Verdict, d.Rule, d.Reason, od.Verdict, od.Rule)
			}
		case falseDeny:
			if d.Verdict == Allow {
				t.Errorf("ordinary.txt:%d: %q is allowed now: remove it from knownFalseDeny (%s)", s.n, s.line, why)
			}
		case d.Verdict != Allow:
			t.Errorf("ordinary.txt:%d: %q is %s under the typical config, want allow (rule %q: %s)", s.n, s.line, d.Verdict, d.Rule, d.Reason)
		default:
			allowed++
			if od.Verdict != Allow {
				runners++
				if od.Verdict != Ask || !strings.HasPrefix(od.Rule, "runner: ") || !strings.Contains(od.Reason, "only while commands run confined by the OS sandbox") {
					t.Errorf("ordinary.txt:%d: %q is allowed confined but %s unconfined (rule %q: %s), want ask naming the runner", s.n, s.line, od.Verdict, od.Rule, od.Reason)
				}
			}
			// The same line in the agent's own permission request (judged as bash and zsh).
			db := e.DecideCommand(CommandRequest{Command: s.line, Dialect: DialectBash})
			why, falseDeny := knownFalseDenyBash[s.line]
			switch {
			case falseDeny && db.Verdict == Allow:
				t.Errorf("ordinary.txt:%d: %q is allowed as a bash line now: remove it from knownFalseDenyBash (%s)", s.n, s.line, why)
			case !falseDeny && db.Verdict != Allow:
				t.Errorf("ordinary.txt:%d: %q as the agent's bash line is %s, want allow (rule %q: %s)", s.n, s.line, db.Verdict, db.Rule, db.Reason)
			}
		}
	}
	for line := range knownFalseDeny {
		if !seen[line] {
			t.Errorf("knownFalseDeny lists %q, which is not in ordinary.txt", line)
		}
	}
	for line := range knownFalseDenyBash {
		if !seen[line] {
			t.Errorf("knownFalseDenyBash lists %q, which is not in ordinary.txt", line)
		}
	}
	for line := range buildRunnerAsks {
		if !seen[line] {
			t.Errorf("buildRunnerAsks lists %q, which is not in ordinary.txt", line)
		}
	}
	if allowed < 200 {
		t.Errorf("only %d ordinary lines are allowed; the corpus must keep at least 200", allowed)
	}
	t.Logf("%d ordinary lines allowed confined; %d of them ask unconfined (workspace code runners)", allowed, runners)
}

// FuzzOracle runs the differential oracle on generated lines: any line the typical config
// allows must not, in bash or dash, run anything the analyser did not report (see
// judgeRun). Seeded with the bypass corpus, the construct families and every eighth ordinary
// line, less the known failures. Plain `go test` runs only a few ordinary seeds here
// (TestOracleSeeds runs them all). Run:
// go test -run='^$' -fuzz='^FuzzOracle$' -fuzztime=20s ./permissions/
func FuzzOracle(f *testing.F) {
	h := newOracleHarness(f)
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	n := 0
	for _, s := range oracleSeeds(f) {
		if _, known := oracleKnownFailures[s.line]; known {
			continue
		}
		switch {
		case !fuzzing && (n >= 8 || s.file != "ordinary.txt"):
			continue // a few ordinary (allowed) lines keep the target itself tested
		case fuzzing && s.file == "ordinary.txt" && s.n%8 != 0:
			continue // a short fuzz pass should fuzz, not spend its time on the baseline
		}
		h.addLineNames(s.line)
		f.Add(s.line)
		n++
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 1024 || strings.IndexByte(line, 0) >= 0 {
			return
		}
		if _, known := oracleKnownFailures[line]; known || oracleKnownClass(line) != "" {
			return
		}
		c, err := h.check(line)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.problems) > 0 {
			t.Errorf("%q: %s, but:\n\t%s", line, c.verdicts(), strings.Join(c.problems, "\n\t"))
		}
	})
}

// knownFalseAllow are lines of typical_asks.txt today's analyser allows although they run a
// program, write outside the roots or load code; the value says how. Each is asserted to still
// be allowed, so whoever fixes one must move it out of this list.
var knownFalseAllow = map[string]string{}

// TestTypicalAsks: options of allowed programs that launch programs, write outside the roots or
// load code (typical_asks.txt) are never "allow" under the typical config, except the listed
// known false allows, which must still be allowed.
func TestTypicalAsks(t *testing.T) {
	seeds := readOracleCorpus(t, "typical_asks.txt")
	box, err := newOracleBox("", os.Geteuid(), "/nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(box.base) })
	e, err := oracleEngine(box, oracleConfig, os.Getenv("PATH"), true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range seeds {
		seen[s.line] = true
		d := e.DecideCommand(CommandRequest{Command: s.line})
		why, known := knownFalseAllow[s.line]
		switch {
		case known && d.Verdict != Allow:
			t.Errorf("typical_asks.txt:%d: %q is %s now: remove it from knownFalseAllow (%s)", s.n, s.line, d.Verdict, why)
		case !known && d.Verdict == Allow:
			t.Errorf("typical_asks.txt:%d: %q is allowed under the typical config (%s), want ask or deny", s.n, s.line, d.Reason)
		}
	}
	for line := range knownFalseAllow {
		if !seen[line] {
			t.Errorf("knownFalseAllow lists %q, which is not in typical_asks.txt", line)
		}
	}
}

// TestOracleDetects checks the oracle itself, apart from the analyser: each line is run and
// judged against hand-written leaves that leave something out, and the exact problem must be
// reported (and nothing when the leaves are complete).
func TestOracleDetects(t *testing.T) {
	h := newOracleHarness(t)
	leaves := func(argvs ...string) []Leaf {
		var out []Leaf
		for _, a := range argvs {
			out = append(out, Leaf{Argv: strings.Fields(a)})
		}
		return out
	}
	cases := []struct {
		shell, line string
		leaves      []Leaf
		want        []string // substrings, one per problem, in order
	}{
		{"dash", "git status && ls -la", leaves("git status", "ls -la"), nil},
		{"bash", "git status && id", leaves("git status"), []string{`ran ["id"] (cwd $ROOT), which the analyser did not report`}},
		{"dash", "cd sub && ls", leaves("cd sub", "ls"), nil},
		{"dash", "cd sub && ls", leaves("ls"), []string{`ran ["ls"] in $ROOT/sub, not in a directory the analyser's leaves lead to ($ROOT)`, `builtin "cd sub" ran (-x trace), which the analyser did not report`}},
		{"bash", "FOO=1 git status", leaves("git status"), []string{`"FOO=1" reached ["git" "status"], and the env policy does not allow it`}},
		{"dash", "NO_COLOR=1 git status", leaves("git status"), nil},
		{"dash", "echo x > ../outside/x", leaves("echo x"), []string{"changed $OUTSIDE/x, a write the policy does not allow"}},
		{"bash", "echo x > new.txt", leaves("echo x"), nil},
		{"bash", "mapfile -C id -c 1 x < README.md", nil, []string{`ran ["id" "0" "# demo\n"] (cwd $ROOT), which the analyser did not report`, `builtin "mapfile -C id -c 1 x" ran (-x trace)`}},
		{"dash", "eval true", nil, []string{`builtin "eval true" ran (-x trace)`}},
		{"bash", "BASH_CMDS[git]=/usr/bin/id; git status", leaves("git status"), []string{`under the name "git" (argv ["git" "status"])`}},
		{"dash", "sh -c 'git log -1'", leaves("git log -1"), nil},
		{"dash", "timeout 5 git status", []Leaf{{Argv: []string{"git", "status"}, Via: []string{"timeout"}}}, nil},
		{"dash", "env git status && git diff", []Leaf{{Argv: []string{"git", "status"}, Via: []string{"env"}}}, []string{`ran ["git" "diff"]`}},
		{"bash", "ls -la", leaves("ls"), []string{`ran ["ls" "-la"] (cwd $ROOT), which the analyser did not report`}},
		{"bash", "ls -la sub", leaves("ls " + DynamicWord), nil},
	}
	for _, c := range cases {
		b, err := h.getBox()
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.runIn(b, c.shell, c.line)
		if err != nil {
			t.Fatal(err)
		}
		d := Decision{Verdict: Allow, Cwd: b.root, Leaves: c.leaves}
		got := judgeRun(b.engine, b, d, r)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s %q with leaves %v:\ngot  %q\nwant %q", c.shell, c.line, c.leaves, got, c.want)
		}
		h.putBox(b, r)
	}
}
