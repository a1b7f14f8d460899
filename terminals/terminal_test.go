package terminals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

func TestIssueExamples(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	cases := []struct {
		line      string
		limit     int
		want      string
		wantTrunc bool
	}{
		{`printf 'a\nb\nc'`, 0, "a\nb\nc", false},
		{`printf '\033[1;31mERR\033[0m done\n'`, 0, "ERR done\n", false},
		{`printf 'x€€€'`, 5, "€", true},
		{`printf 'x€€€'`, 6, "€€", true},
		{`printf 'x€€€'`, 7, "€€", true},
		{`printf '50%%\r100%%\n'`, 0, "100%\n", false},
	}
	for _, c := range cases {
		out := runText(t, h, c.line, c.limit)
		if out.Text != c.want || out.Truncated != c.wantTrunc {
			t.Errorf("%s (limit %d): got %q truncated=%v, want %q truncated=%v", c.line, c.limit, out.Text, out.Truncated, c.want, c.wantTrunc)
		}
		if out.Exit == nil || out.Exit.String() != "exit 0" {
			t.Errorf("%s: exit %v", c.line, out.Exit)
		}
	}
}

func TestSeqExactBytes(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	out := runText(t, h, "seq 1 20000", 0)
	if len(out.Text) != 108894 || out.Truncated {
		t.Fatalf("got %d bytes (truncated %v), want 108894", len(out.Text), out.Truncated)
	}
	if !strings.HasPrefix(out.Text, "1\n2\n3\n") || !strings.HasSuffix(out.Text, "\n19999\n20000\n") {
		t.Fatalf("unexpected ends: %q … %q", out.Text[:10], out.Text[len(out.Text)-14:])
	}
}

func TestExitStatuses(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	cases := []struct {
		o    StartOptions
		want string
	}{
		{StartOptions{ShellLine: "exit 3"}, "exit 3"},
		{StartOptions{Argv: []string{"true"}}, "exit 0"},
		{StartOptions{Argv: []string{"false"}}, "exit 1"},
		{StartOptions{ShellLine: "kill -KILL $$"}, "SIGKILL"},
		{StartOptions{ShellLine: "kill -TERM $$"}, "SIGTERM"},
	}
	for _, c := range cases {
		term := h.start(t, c.o)
		st := waitExit(t, term)
		if st.String() != c.want {
			t.Errorf("%+v: got %v, want %s", c.o, st, c.want)
		}
		if st.Signal == "" && (st.Code == nil || *st.Code < 0) {
			t.Errorf("%+v: bad code %v", c.o, st.Code)
		}
		ex, ok := term.Exit()
		if !ok || ex.String() != c.want || term.Output().Exit == nil {
			t.Errorf("Exit() = %v, %v", ex, ok)
		}
		_ = term.Release()
	}
}

func TestStartErrors(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	dir := t.TempDir()
	cases := []struct {
		o    StartOptions
		want string
	}{
		{StartOptions{Argv: []string{"no-such-program-acpterm"}, Dir: dir, Env: testEnv}, "executable file not found"},
		{StartOptions{Argv: []string{"/nonexistent/prog"}, Dir: dir, Env: testEnv}, "no such file"},
		{StartOptions{Argv: []string{"true"}, ShellLine: "true", Dir: dir}, "both Argv and ShellLine"},
		{StartOptions{Dir: dir}, "no command"},
		{StartOptions{Argv: []string{"true"}, Dir: "relative/dir"}, "not absolute"},
		{StartOptions{Argv: []string{"true"}, Dir: dir + "/missing"}, "no such file"},
		{StartOptions{Argv: []string{"true"}, Dir: dir, Size: Size{Cols: -1, Rows: 5}}, "invalid size -1x5"},
		{StartOptions{Argv: []string{"/"}, Dir: dir}, "not an executable"},
	}
	for _, c := range cases {
		_, err := h.Start(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want containing %q", c.o, err, c.want)
		}
	}
	// The failed starts did not use up slots.
	h2 := newMgr(t, ManagerOptions{MaxLive: 1})
	if _, err := h2.Start(StartOptions{Argv: []string{"no-such-program-acpterm"}, Dir: dir, Env: testEnv}); err == nil {
		t.Fatal("expected error")
	}
	a := h2.start(t, StartOptions{Argv: []string{"sleep", "30"}})
	if _, err := h2.Start(StartOptions{Argv: []string{"true"}, Dir: dir, Env: testEnv}); !errors.Is(err, ErrTooManyTerminals) {
		t.Fatalf("second start: %v, want ErrTooManyTerminals", err)
	}
	_ = a.Release()
	b := h2.start(t, StartOptions{Argv: []string{"true"}})
	waitExit(t, b)
	_ = b.Release()
	_ = h2.Close()
	if _, err := h2.Start(StartOptions{Argv: []string{"true"}, Dir: dir, Env: testEnv}); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after close: %v", err)
	}
}

func TestEnvDirAndTerm(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	dir := t.TempDir()
	env := append([]string{"TERM=dumb", "FOO=bar baz"}, testEnv...)
	term := h.start(t, StartOptions{ShellLine: `echo "$TERM|$FOO|$(pwd)|${ACPTERM_TERMINAL#*:}|$HOME"`, Dir: dir, Env: env})
	waitExit(t, term)
	want := "xterm-256color|bar baz|" + dir + "|" + term.ID() + "|/tmp\n"
	if got := term.Output().Text; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	if term.Dir() != dir || term.Label() != `/bin/sh -c echo "$TERM|$FOO|$(pwd)|${ACPTERM_TERMINAL#*:}|$HOME"` {
		t.Fatalf("Dir %q Label %q", term.Dir(), term.Label())
	}
	if got, ok := h.Get(term.ID()); !ok || got != term {
		t.Fatal("Get failed")
	}
	_ = term.Release()
	if got, ok := h.Get(term.ID()); !ok || got != term || !got.Released() {
		t.Fatal("released terminal not gettable")
	}
}

func TestManyFastExitsKeepLastLine(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	fds := fdCount(t)
	var wg sync.WaitGroup
	errs := make(chan error, 500)
	sem := make(chan struct{}, 8)
	dir := t.TempDir()
	for i := range 500 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			term, err := h.Start(StartOptions{ShellLine: fmt.Sprintf("echo first; echo last-%d", i), Dir: dir, Env: testEnv})
			if err != nil {
				errs <- err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, err := term.Wait(ctx); err != nil {
				errs <- err
				return
			}
			if got, want := term.Output().Text, fmt.Sprintf("first\nlast-%d\n", i); got != want {
				errs <- fmt.Errorf("run %d: got %q want %q", i, got, want)
			}
			_ = term.Release()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := fdCount(t); got != fds {
		t.Fatalf("fd count %d before, %d after", fds, got)
	}
}

func TestBackgroundHolderDoesNotDelayExit(t *testing.T) {
	skipHostPids(t)
	h := newMgr(t, ManagerOptions{})
	// The issue's `(trap '' HUP; exec sleep 30) & echo done`, with the trap
	// set before the fork: otherwise the leader can exit (and the kernel
	// hang the PTY up) before the subshell has ignored SIGHUP.
	term := h.start(t, StartOptions{ShellLine: "trap '' HUP; (exec sleep 30) & echo bg=$!; echo done"})
	began := time.Now()
	st := waitExit(t, term)
	elapsed := time.Since(began)
	out := term.Output().Text
	if st.String() != "exit 0" || !strings.HasSuffix(out, "done\n") {
		t.Fatalf("status %v output %q", st, out)
	}
	bg := intAfter(t, out, "bg=")
	if !pidAlive(bg) {
		t.Fatalf("background holder %d already gone: the test proves nothing", bg)
	}
	if elapsed > 20*time.Second { // the holder lives 30 s
		t.Fatalf("exit waited for the background holder (%v)", elapsed)
	}
	_ = term.Release()
	if pidExists(bg) {
		t.Fatalf("background holder %d survived release", bg)
	}
}

func TestKillGroupWithGrandchild(t *testing.T) {
	skipHostPids(t)
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: "sleep 300 & echo gc=$!; wait"})
	h.waitOutput(t, term, "gc=")
	h.waitFor(t, "newline", func() bool { return strings.HasSuffix(term.Output().Text, "\n") })
	gc := intAfter(t, term.Output().Text, "gc=")
	if err := term.Kill(); err != nil {
		t.Fatal(err)
	}
	st, ok := term.Exit()
	if !ok || st.String() != "SIGTERM" {
		t.Fatalf("status %v %v, want SIGTERM", st, ok)
	}
	if pidExists(gc) {
		t.Fatalf("grandchild %d still exists after Kill", gc)
	}
	// Still readable after Kill.
	if !strings.HasPrefix(term.Output().Text, "gc=") || term.Released() {
		t.Fatal("terminal not readable after kill")
	}
	_ = term.Release()
}

func TestKillEscalatesAfterGrace(t *testing.T) {
	h := newMgr(t, ManagerOptions{KillGrace: 300 * time.Millisecond})
	term := h.start(t, StartOptions{ShellLine: "trap '' TERM; echo ready; while :; do sleep 1; done"})
	h.waitOutput(t, term, "ready\n")
	_ = term.Kill()
	st, _ := term.Exit()
	if st.String() != "SIGKILL" {
		t.Fatalf("got %v, want SIGKILL", st)
	}
	_ = term.Release()
}

func TestSetsidEscapeeReapedOnRelease(t *testing.T) {
	skipHostPids(t)
	h := newMgr(t, ManagerOptions{})
	// The leader waits until the double-forked child has reported its pid.
	term := h.start(t, StartOptions{ShellLine: "setsid sh -c 'exec sleep 300' >/dev/null 2>&1 & " +
		"(setsid sh -c 'echo dbl=$$ >&2; echo x > ready; exec sleep 300' &); " +
		"while [ ! -s ready ]; do sleep 0.01; done; echo started"})
	waitExit(t, term)
	out := term.Output().Text
	dbl := intAfter(t, out, "dbl=")
	esc := findProcs(func(v string) bool { return v == term.marker }, 0, 0)
	if len(esc) == 0 || !pidAlive(dbl) {
		t.Fatalf("escapees not running before release (found %v, dbl %d): %q", esc, dbl, out)
	}
	if st, _ := proctree.ReadStat(dbl); st.Sid == term.Pid() {
		t.Fatal("double-forked process did not leave the session")
	}
	_ = term.Release()
	for _, pid := range append(esc, dbl) {
		if pidExists(pid) {
			t.Errorf("escapee %d survived release", pid)
		}
	}
}

func TestManagerCloseEndsEverything(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	a := h.start(t, StartOptions{ShellLine: "echo a=$$; (setsid sleep 300 &); echo spawned; sleep 300"})
	b := h.start(t, StartOptions{Argv: []string{"sleep", "300"}})
	h.waitOutput(t, a, "spawned\n") // the setsid child has been forked by now
	waitCh := make(chan ExitStatus, 1)
	go func() {
		st, _ := b.Wait(context.Background())
		waitCh <- st
	}()
	if n := len(findProcs(func(v string) bool { return v == a.marker }, 0, a.Pid())); n < 1 {
		t.Fatalf("found %d processes of a, want at least the setsid sleep", n)
	}
	pids := findProcs(func(v string) bool { return strings.HasPrefix(v, h.nonce+":") }, 0, 0)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if st := <-waitCh; st.String() != "SIGTERM" {
		t.Fatalf("waiter got %v", st)
	}
	for _, pid := range pids {
		if pidExists(pid) {
			t.Errorf("process %d survived Close", pid)
		}
	}
	if !a.Released() || !b.Released() {
		t.Fatal("not released")
	}
}

func TestConcurrentWaitersAndCancel(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: "read x; exit 7"})
	// A cancelled wait returns the context error and does not kill.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := term.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if _, done := term.Exit(); done {
		t.Fatal("cancelled wait ended the terminal")
	}
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := term.Wait(context.Background())
			results[i] = fmt.Sprint(st, err)
		}()
	}
	if err := term.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, r := range results {
		if r != "exit 7 <nil>" {
			t.Errorf("waiter %d: %s", i, r)
		}
	}
	_ = term.Release()
}

func TestReleaseResolvesPendingWaiter(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	fds := fdCount(t)
	term := h.start(t, StartOptions{Argv: []string{"sleep", "300"}})
	got := make(chan string, 1)
	go func() {
		st, err := term.Wait(context.Background())
		got <- fmt.Sprint(st, err)
	}()
	if err := term.Release(); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != "SIGTERM <nil>" {
		t.Fatalf("waiter: %s", r)
	}
	if err := term.Release(); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := term.Write([]byte("x")); !errors.Is(err, ErrReleased) {
		t.Fatalf("write after release: %v", err)
	}
	if err := term.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := fdCount(t); got != fds {
		t.Fatalf("fd count %d before, %d after", fds, got)
	}
}

func TestQueriesDoNotBlock(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	// -echo: the replies arrive as typed input, which the tty would echo.
	out := runText(t, h, `stty -echo; printf '\033[6n\033[c\033[5n'; echo after`, 0)
	if out.Text != "after\n" {
		t.Fatalf("got %q", out.Text)
	}
	// The replies reach the program: a cursor position report read back.
	term := h.start(t, StartOptions{ShellLine: `stty raw -echo; printf 'ab\033[6n'; dd bs=1 count=6 2>/dev/null | od -An -tx1`})
	waitExit(t, term)
	if got := term.Output().Text; got != "ab 1b 5b 31 3b 33 52\n" {
		t.Fatalf("CPR reply: got %q", got)
	}
	_ = term.Release()
}

func TestUTF8SplitAcrossWrites(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	out := runText(t, h, `printf '\342'; sleep 0.2; printf '\202\254\n'; printf 'bad\377\n'`, 0)
	if out.Text != "€\nbad\ufffd\n" {
		t.Fatalf("got %q", out.Text)
	}
}

func TestSttySizeAndResize(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: "stty size; read x; stty size", Size: Size{Cols: 100, Rows: 30}})
	h.waitOutput(t, term, "30 100\n")
	if err := term.Resize(Size{Cols: 120, Rows: 40}); err != nil {
		t.Fatal(err)
	}
	if got := term.Screen().Size(); got != (Size{120, 40}) {
		t.Fatalf("screen size %v", got)
	}
	_ = term.Write([]byte("\r"))
	waitExit(t, term)
	if got := term.Output().Text; got != "30 100\n\n40 120\n" {
		t.Fatalf("got %q", got)
	}
	if err := term.Resize(Size{Cols: 0, Rows: 3}); err == nil {
		t.Fatal("expected invalid size error")
	}
	_ = term.Release()
	// Default size.
	out := runText(t, h, "stty size", 0)
	if out.Text != "24 80\n" {
		t.Fatalf("default size: %q", out.Text)
	}
}

func TestAltScreenInAndOut(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{
		ShellLine: `printf 'main\n\033[?1049h\033[HALT SCREEN'; read x; printf '\033[?1049lback\n'`,
		Size:      Size{Cols: 20, Rows: 4},
	})
	scr := term.Screen()
	h.waitFor(t, "alt screen", func() bool {
		return scr.Modes().AltScreen && strings.HasPrefix(scr.Text(), "ALT SCREEN")
	})
	if got := scr.Text(); got != "ALT SCREEN\n\n\n" {
		t.Fatalf("alt screen text %q", got)
	}
	_ = term.Write([]byte("\r"))
	waitExit(t, term)
	_ = term.Release() // waits for the screen to catch up
	if scr.Modes().AltScreen {
		t.Fatal("still in alt screen")
	}
	if got := scr.Text(); got != "main\nback\n\n" {
		t.Fatalf("main screen after alt: %q", got)
	}
	if got := term.Output().Text; got != "main\nALT SCREEN\nback\n" {
		t.Fatalf("transcript %q", got)
	}
}

func TestInputKeysAndPaste(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: `stty raw -echo; printf 'R\n'; head -c 19 | od -An -tx1`})
	h.waitOutput(t, term, "R")
	_ = term.SendKey(uv.KeyPressEvent{Code: uv.KeyLeft, Mod: uv.ModCtrl})           // ESC [1;5D
	_ = term.SendKey(uv.KeyPressEvent{Code: 'c', Mod: uv.ModCtrl | uv.ModCapsLock}) // 03
	_ = term.Paste("a\x1b[201~b\n")                                                 // a b CR (not bracketed)
	_ = term.SendKey(uv.KeyPressEvent{Code: uv.KeyF5, Mod: uv.ModShift})            // ESC [15;2~
	_ = term.Write([]byte("xyz"))
	waitExit(t, term)
	want := "R\n 1b 5b 31 3b 35 44 03 61 62 0d 1b 5b 31 35 3b 32\n 7e 78 79\n"
	if got := term.Output().Text; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	_ = term.Release()
}

func TestMouseForwardedOnlyWhenEnabled(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{ShellLine: `stty raw -echo; printf 'R\n'; head -c 1 >/dev/null; printf '\033[?1000h\033[?1006hM\n'; head -c 9 | od -An -c`})
	h.waitOutput(t, term, "R")
	_ = term.SendMouse(uv.MouseClickEvent{X: 1, Y: 2, Button: uv.MouseLeft}) // ignored: no tracking yet
	_ = term.Write([]byte("."))
	h.waitFor(t, "mouse mode", func() bool { return term.Screen().Modes().Mouse && term.Screen().Modes().MouseSGR })
	_ = term.SendMouse(uv.MouseClickEvent{X: 4, Y: 2, Button: uv.MouseLeft})
	waitExit(t, term)
	want := "R\nM\n 033   [   <   0   ;   5   ;   3   M\n"
	if got := term.Output().Text; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	_ = term.Release()
	if err := term.SendMouse(uv.MouseClickEvent{}); !errors.Is(err, ErrReleased) {
		t.Fatalf("after release: %v", err)
	}
}

func TestReleaseLeavesOtherTerminalsAlone(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	a := h.start(t, StartOptions{ShellLine: "echo a"})
	b := h.start(t, StartOptions{ShellLine: "echo b=$$; exec sleep 300"})
	h.waitOutput(t, b, "b=")
	waitExit(t, a)
	_ = a.Release()
	_ = a.Kill() // on a released, exited terminal: must not touch b
	if !pidAlive(b.Pid()) {
		t.Fatal("releasing a killed b")
	}
	if _, done := b.Exit(); done {
		t.Fatal("b exited")
	}
	_ = b.Release()
	if pidExists(b.Pid()) {
		t.Fatal("b survived its release")
	}
}

func TestWriteNeverBlocks(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	term := h.start(t, StartOptions{Argv: []string{"sleep", "300"}}) // never reads its input
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	var err error
	for i := 0; i < 64 && err == nil; i++ { // 4 MiB offered
		err = term.Write(chunk)
	}
	if !errors.Is(err, ErrInputBacklog) {
		t.Fatalf("got %v, want ErrInputBacklog", err)
	}
	_ = term.Release() // the writer blocked in a PTY write must not hold this up
	if st, _ := term.Exit(); st.String() != "SIGTERM" {
		t.Fatalf("status %v", st)
	}
}

// A background process that keeps writing must not keep exit from being
// reported (the post-exit drain is bounded).
func TestBackgroundWriterDoesNotDelayExit(t *testing.T) {
	skipHostPids(t)
	h := newMgr(t, ManagerOptions{})
	// The writer's pid goes to a file: `yes` can push the start of the transcript past its limit.
	pidFile := filepath.Join(t.TempDir(), "bg.pid")
	// A large limit keeps "done" in the transcript however fast `yes` fills it.
	term := h.start(t, StartOptions{OutputLimit: 256 << 20,
		ShellLine: "trap '' HUP; (exec yes) & echo bg=$! > " + pidFile + "; sleep 0.2; echo done"})
	st := waitExit(t, term)
	out := term.Output().Text
	pidText, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	bg := intAfter(t, string(pidText), "bg=")
	if st.String() != "exit 0" || !strings.Contains(out, "done\n") || !strings.Contains(out, "y\ny\n") {
		t.Fatalf("status %v, output …%q", st, out[max(0, len(out)-40):])
	}
	if !pidAlive(bg) {
		t.Fatal("the writer is gone: the test proves nothing")
	}
	_ = term.Release()
	if pidExists(bg) {
		t.Fatalf("writer %d survived release", bg)
	}
}

func TestKillStoppedProcess(t *testing.T) {
	h := newMgr(t, ManagerOptions{KillGrace: 30 * time.Second})
	term := h.start(t, StartOptions{ShellLine: "echo ready; exec sleep 300"})
	h.waitOutput(t, term, "ready\n")
	if err := syscall.Kill(term.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo // wait (without reaping) until it has stopped
	if err := unix.Waitid(unix.P_PID, term.Pid(), &info, unix.WSTOPPED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := proctree.ReadStat(term.Pid()); st.State != 'T' {
		t.Fatalf("state %c, want stopped", st.State)
	}
	_ = term.Kill() // SIGTERM + SIGCONT: ends well before the 30 s grace
	if st, _ := term.Exit(); st.String() != "SIGTERM" {
		t.Fatalf("status %v", st)
	}
	_ = term.Release()
}

// A background terminal's output is read at ManagerOptions.BackgroundRate: the program blocks
// in write(2) meanwhile, and nothing is lost. The bound checked is a lower one (the run takes at
// least the paced time), which a slow machine cannot break.
func TestBackgroundReadsAtTheBackgroundRate(t *testing.T) {
	const rate = 64 << 10 // bytes/s; bursts of rate/16 = 4 KiB
	h := newMgr(t, ManagerOptions{BackgroundRate: rate})
	term := h.start(t, StartOptions{ShellLine: "read go; seq 1 20000"})
	term.SetBackground(true)
	t0 := time.Now()
	if err := term.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitExit(t, term)
	elapsed := time.Since(t0)
	out := term.Output()
	var want strings.Builder
	want.WriteString("\n") // the echo of the typed newline
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if out.Text != want.String() || out.Truncated {
		t.Fatalf("output: %d bytes (truncated %v), want %d", len(out.Text), out.Truncated, want.Len())
	}
	read := len(out.Text) + strings.Count(out.Text, "\n") // the PTY sends \r\n
	// Unpaced: the burst, a deficit below minPaceSleep, and what the kernel still buffered when
	// the program exited (read at once: an exited program cannot be slowed down; at most the
	// 64 KiB flip buffer and the 4 KiB line discipline buffer).
	unpaced := rate/16 + rate*int(minPaceSleep)/int(time.Second) + 68<<10
	floor := time.Duration(float64(read-unpaced) / rate * float64(time.Second))
	if elapsed < floor {
		t.Fatalf("%d bytes read in %v, faster than %d B/s allows (%v)", read, elapsed, rate, floor)
	}
	// Back in the foreground, the next output is read without pacing; it completes.
	term2 := h.start(t, StartOptions{ShellLine: "read go; seq 1 20000"})
	term2.SetBackground(true)
	term2.SetBackground(false)
	if err := term2.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitExit(t, term2)
	if got := term2.Output().Text; got != want.String() {
		t.Fatalf("foreground output: %d bytes, want %d", len(got), want.Len())
	}
}

func TestSetDefaultSizeAppliesToZeroSize(t *testing.T) {
	h := newMgr(t, ManagerOptions{})
	h.SetDefaultSize(Size{Cols: 100, Rows: 30})
	if out := runText(t, h, "stty size", 0); out.Text != "30 100\n" {
		t.Fatalf("stty size with the default set = %q, want \"30 100\\n\"", out.Text)
	}
	term := h.start(t, StartOptions{ShellLine: "stty size", Size: Size{Cols: 50, Rows: 10}})
	waitExit(t, term)
	if got := term.Output().Text; got != "10 50\n" {
		t.Fatalf("an explicit size = %q, want \"10 50\\n\"", got)
	}
	h.SetDefaultSize(Size{Cols: 0, Rows: 5}) // invalid: back to DefaultSize
	if out := runText(t, h, "stty size", 0); out.Text != "24 80\n" || h.DefaultSize() != DefaultSize {
		t.Fatalf("stty size after an invalid default = %q (%v), want \"24 80\\n\"", out.Text, h.DefaultSize())
	}
}
