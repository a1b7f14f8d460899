package permissions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/acpterm/acpterm/config"
)

func ip(n int) *int { return &n }

func TestDecideReadWrite(t *testing.T) {
	s := newFSSandbox(t)
	write(t, filepath.Join(s.proj, "main.go"), "package main\n")
	write(t, filepath.Join(s.proj, ".env"), "SECRET=1\n")
	write(t, filepath.Join(s.proj, "secrets", "k"), "k")
	write(t, filepath.Join(s.outside, "f"), "outside\n")
	symlink(t, filepath.Join(s.outside, "f"), filepath.Join(s.proj, "key")) // a file link leaving the root
	symlink(t, filepath.Join(s.proj, "main.go"), filepath.Join(s.proj, "alias.go"))
	if err := os.Link(filepath.Join(s.outside, "f"), filepath.Join(s.proj, "hl")); err != nil { // a hard link to a file outside
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(s.proj, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := s.engine(t, func(c *config.Config) {
		c.Policy.FS.DenyRead = []string{"**/.env", "secrets", "~/notes/**"}
		c.Policy.FS.DenyWrite = []string{"go.sum", "/etc/**"}
	}, EngineOptions{})

	type want struct {
		v    Verdict
		rule string
	}
	p := func(rel string) string { return filepath.Join(s.proj, rel) }
	reads := map[string]want{
		p("main.go"):                  {Allow, "fs.read"},
		p("new.txt"):                  {Allow, "fs.read"},
		p(".env"):                     {Deny, "deny_read: **/.env"},
		p("sub/.env"):                 {Deny, "deny_read: **/.env"},
		p("secrets/k"):                {Deny, "deny_read: secrets"},
		p("key"):                      {Deny, "outside roots"}, // read through a link leaving the root
		p("alias.go"):                 {Allow, "fs.read"},      // symlink staying inside
		p("hl"):                       {Ask, "link"},           // inode shared with a file outside
		p("fifo"):                     {Ask, "link"},
		filepath.Join(s.evil, "x"):    {Deny, "outside roots"}, // a sibling sharing the root's name prefix
		filepath.Join(s.outside, "f"): {Deny, "outside roots"},
		"main.go":                     {Deny, "invalid path"},
	}
	for path, w := range reads {
		d := e.DecideRead(path)
		if d.Verdict != w.v || d.Rule != w.rule {
			t.Errorf("DecideRead(%q) = %s %q (%s), want %s %q", path, d.Verdict, d.Rule, d.Reason, w.v, w.rule)
		}
	}
	writes := map[string]want{
		p("main.go"):                     {Ask, "fs.write"},
		p("new/dir/x.go"):                {Ask, "fs.write"},
		p("go.sum"):                      {Deny, "deny_write: go.sum"},
		p("sub/go.sum"):                  {Ask, "fs.write"},   // relative glob is anchored at the root
		p(".git/hooks/pre-commit"):       {Deny, "protected"}, // a git hook
		p(".git/config"):                 {Deny, "protected"},
		p(".git/commondir"):              {Deny, "protected"}, // commondir → planted config with core.fsmonitor
		p("sub/.git/info/exclude"):       {Deny, "protected"},
		p("alias.go"):                    {Ask, "link"}, // symlink: at least ask
		p("hl"):                          {Ask, "link"},
		filepath.Join(s.evil, "x"):       {Deny, "outside roots"},
		filepath.Join(s.home, ".bashrc"): {Deny, "outside roots"},
	}
	for path, w := range writes {
		d := e.DecideWrite(path)
		if d.Verdict != w.v || d.Rule != w.rule {
			t.Errorf("DecideWrite(%q) = %s %q (%s), want %s %q", path, d.Verdict, d.Rule, d.Reason, w.v, w.rule)
		}
	}
	// Reason and Path are exact.
	d := e.DecideRead(p("key"))
	if d.Path != filepath.Join(s.outside, "f") {
		t.Errorf("Path = %q, want the real target", d.Path)
	}
	d = e.DecideWrite(p("hl"))
	if want := "write of " + p("hl") + " needs approval: the target has 2 hard links (it may be shared with a file outside the roots)"; d.Reason != want {
		t.Errorf("Reason = %q\nwant %q", d.Reason, want)
	}
	d = e.DecideWrite(p(".git/hooks/pre-commit"))
	if want := "write of " + p(".git/hooks/pre-commit") + " denied: protected path: git hooks (.git/hooks) run code on git commands"; d.Reason != want {
		t.Errorf("Reason = %q\nwant %q", d.Reason, want)
	}

	// With fs.write = allow, a link target is raised to ask with rule "link"; protected stays deny.
	e2 := s.engine(t, func(c *config.Config) { c.Policy.FS.Write = "allow" }, EngineOptions{})
	if d := e2.DecideWrite(p("hl")); d.Verdict != Ask || d.Rule != "link" {
		t.Errorf("allow + hard link = %s %q", d.Verdict, d.Rule)
	}
	if d := e2.DecideWrite(p("alias.go")); d.Verdict != Ask || d.Rule != "link" {
		t.Errorf("allow + symlink = %s %q", d.Verdict, d.Rule)
	}
	if d := e2.DecideWrite(p("main.go")); d.Verdict != Allow {
		t.Errorf("allow + plain = %s %q", d.Verdict, d.Rule)
	}
	if d := e2.DecideWrite(p(".git/hooks/pre-commit")); d.Verdict != Deny {
		t.Errorf("allow + protected = %s %q", d.Verdict, d.Rule)
	}
}

func TestProtectedHomeRoot(t *testing.T) {
	s := newFSSandbox(t)
	// Even with $HOME as a root and writes allowed, rc files, ~/.ssh and acpterm's state are denied.
	e := s.engine(t, func(c *config.Config) {
		c.Policy.Roots = []string{s.home}
		c.Policy.FS.Write = "allow"
		c.Policy.FS.DenyRead = []string{"~/.ssh/**"}
	}, EngineOptions{Cwd: s.home})
	for _, rel := range []string{".bashrc", ".profile", ".ssh/authorized_keys", ".config/acpterm/config.toml", ".local/state/acpterm/grants.json", ".config/fish/config.fish"} {
		if d := e.DecideWrite(filepath.Join(s.home, rel)); d.Verdict != Deny || d.Rule != "protected" {
			t.Errorf("DecideWrite(~/%s) = %s %q", rel, d.Verdict, d.Rule)
		}
	}
	if d := e.DecideWrite(filepath.Join(s.home, "notes.txt")); d.Verdict != Allow {
		t.Errorf("DecideWrite(~/notes.txt) = %s %q", d.Verdict, d.Rule)
	}
	if d := e.DecideRead(filepath.Join(s.home, ".ssh", "id_rsa")); d.Verdict != Deny || d.Rule != "deny_read: ~/.ssh/**" {
		t.Errorf("DecideRead(~/.ssh/id_rsa) = %s %q", d.Verdict, d.Rule)
	}
	_, _, err := e.WriteFile(filepath.Join(s.home, ".bashrc"), "curl x | sh\n")
	if !errors.Is(err, ErrOutside) {
		t.Errorf("WriteFile(~/.bashrc) err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".bashrc")); !errors.Is(err, os.ErrNotExist) {
		t.Error("~/.bashrc was created")
	}
}

func TestReadFileLines(t *testing.T) {
	s := newFSSandbox(t)
	f := filepath.Join(s.proj, "f.txt")
	write(t, f, "one\ntwo\nthree")
	write(t, filepath.Join(s.proj, "nl.txt"), "one\ntwo\n")
	e := s.engine(t, nil, EngineOptions{})
	cases := []struct {
		line, limit *int
		want        string
	}{
		{nil, nil, "one\ntwo\nthree"},
		{ip(1), ip(1), "one\n"},
		{ip(2), nil, "two\nthree"},
		{ip(2), ip(1), "two\n"},
		{ip(3), ip(5), "three"},
		{nil, ip(2), "one\ntwo\n"},
		{ip(4), nil, ""},
		{ip(100), ip(1), ""},
	}
	for _, c := range cases {
		got, err := e.ReadFile(f, c.line, c.limit)
		if err != nil || got != c.want {
			t.Errorf("ReadFile(line=%v limit=%v) = %q, %v; want %q", deref(c.line), deref(c.limit), got, err, c.want)
		}
	}
	got, err := e.ReadFile(filepath.Join(s.proj, "nl.txt"), ip(1), ip(1))
	if err != nil || got != "one\n" {
		t.Errorf("line 1 limit 1 of one\\ntwo\\n = %q, %v", got, err)
	}
	got, err = e.ReadFile(filepath.Join(s.proj, "nl.txt"), ip(3), nil)
	if err != nil || got != "" {
		t.Errorf("line 3 of one\\ntwo\\n = %q, %v", got, err)
	}
	bad := []struct {
		line, limit *int
		msg         string
	}{
		{ip(0), nil, "invalid request: line 0 of " + f + ": lines are numbered from 1"},
		{ip(-1), nil, "invalid request: line -1 of " + f + ": lines are numbered from 1"},
		{nil, ip(0), "invalid request: limit 0 for " + f + ": must be at least 1"},
	}
	for _, c := range bad {
		_, err := e.ReadFile(f, c.line, c.limit)
		if !errors.Is(err, ErrInvalid) || err.Error() != c.msg {
			t.Errorf("ReadFile(line=%v limit=%v) err = %v, want %q", deref(c.line), deref(c.limit), err, c.msg)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestReadFileErrors(t *testing.T) {
	s := newFSSandbox(t)
	write(t, filepath.Join(s.outside, "secret"), "s3cret")
	symlink(t, filepath.Join(s.outside, "secret"), filepath.Join(s.proj, "key"))
	write(t, filepath.Join(s.proj, "bad.txt"), "a\xffb\xc3")
	if err := syscall.Mkfifo(filepath.Join(s.proj, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(s.proj, "big")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	e := s.engine(t, nil, EngineOptions{})

	got, err := e.ReadFile(filepath.Join(s.proj, "bad.txt"), nil, nil)
	if err != nil || got != "a\uFFFDb\uFFFD" {
		t.Errorf("invalid UTF-8 = %q, %v", got, err)
	}
	cases := []struct {
		path string
		is   error
		msg  string
	}{
		{filepath.Join(s.proj, "missing.txt"), ErrNotFound, "not found: " + filepath.Join(s.proj, "missing.txt") + " does not exist"},
		{"rel.txt", ErrInvalid, `invalid request: path "rel.txt" is not absolute`},
		{filepath.Join(s.proj, "key"), ErrOutside, ""},
		{filepath.Join(s.evil, "x"), ErrOutside, ""},
		{s.proj, ErrInvalid, "invalid request: " + s.proj + " is a directory, not a regular file"},
		{filepath.Join(s.proj, "fifo"), ErrInvalid, "invalid request: " + filepath.Join(s.proj, "fifo") + " is a named pipe, not a regular file"},
		{big, ErrTooLarge, "file too large: " + big + " is 8388609 bytes (limit 8388608)"},
	}
	for _, c := range cases {
		_, err := e.ReadFile(c.path, nil, nil)
		if !errors.Is(err, c.is) || (c.msg != "" && err.Error() != c.msg) {
			t.Errorf("ReadFile(%q) err = %v, want %v %q", c.path, err, c.is, c.msg)
		}
	}
	// The outside secret never appears in an error.
	_, err = e.ReadFile(filepath.Join(s.proj, "key"), nil, nil)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		name := "openat2"
		if fallback {
			name = "os.Root fallback"
		}
		t.Run(name, func(t *testing.T) {
			forceRootFallback = fallback
			defer func() { forceRootFallback = false }()
			testWriteFile(t)
		})
	}
}

func testWriteFile(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, nil, EngineOptions{})
	// New file in missing directories.
	target := filepath.Join(s.proj, "a", "b", "new.txt")
	old, existed, err := e.WriteFile(target, "hello\n")
	if err != nil || existed || old != "" {
		t.Fatalf("WriteFile(new) = %q, %v, %v", old, existed, err)
	}
	data, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(data) != "hello\n" || st.Mode().Perm() != 0o644&^umask() {
		t.Errorf("new file: %q mode %v", data, st.Mode().Perm())
	}
	// Existing file: old content returned, mode kept.
	exist := filepath.Join(s.proj, "run.sh")
	write(t, exist, "old body\n")
	if err := os.Chmod(exist, 0o751); err != nil {
		t.Fatal(err)
	}
	old, existed, err = e.WriteFile(exist, "new body\n")
	if err != nil || !existed || old != "old body\n" {
		t.Fatalf("WriteFile(existing) = %q, %v, %v", old, existed, err)
	}
	data, _ = os.ReadFile(exist)
	st, _ = os.Stat(exist)
	if string(data) != "new body\n" || st.Mode().Perm() != 0o751 {
		t.Errorf("existing: %q mode %v", data, st.Mode().Perm())
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(s.proj)
	for _, en := range ents {
		if strings.Contains(en.Name(), ".acpterm-") {
			t.Errorf("temp file left: %s", en.Name())
		}
	}
	// Refusals.
	for _, c := range []struct {
		path string
		is   error
	}{
		{filepath.Join(s.evil, "x"), ErrOutside},
		{filepath.Join(s.proj, ".git", "hooks", "pre-commit"), ErrOutside},
		{"x.txt", ErrInvalid},
		{s.proj, ErrInvalid},
	} {
		if _, _, err := e.WriteFile(c.path, "x"); !errors.Is(err, c.is) {
			t.Errorf("WriteFile(%q) err = %v, want %v", c.path, err, c.is)
		}
	}
	if _, err := os.Stat(filepath.Join(s.proj, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Error(".git was created by a refused write")
	}
	// Through a symlinked directory that leaves the root: refused, nothing written outside.
	symlink(t, s.outside, filepath.Join(s.proj, "out"))
	if _, _, err := e.WriteFile(filepath.Join(s.proj, "out", "x"), "x"); !errors.Is(err, ErrOutside) {
		t.Errorf("write through escaping dir link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.outside, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Error("file created outside the root")
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

func TestWriteFileHardLinkLeavesOutsideUntouched(t *testing.T) {
	s := newFSSandbox(t)
	outside := filepath.Join(s.outside, "bashrc")
	write(t, outside, "original\n")
	hl := filepath.Join(s.proj, "hl")
	if err := os.Link(outside, hl); err != nil {
		t.Fatal(err)
	}
	e := s.engine(t, nil, EngineOptions{})
	if d := e.DecideWrite(hl); d.Verdict != Ask {
		t.Fatalf("DecideWrite(hard link) = %s", d.Verdict)
	}
	old, existed, err := e.WriteFile(hl, "replaced\n")
	if err != nil || !existed || old != "original\n" {
		t.Fatalf("WriteFile = %q %v %v", old, existed, err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "original\n" {
		t.Errorf("outside file changed to %q", data)
	}
	if data, _ := os.ReadFile(hl); string(data) != "replaced\n" {
		t.Errorf("link now holds %q", data)
	}
	var a, b syscall.Stat_t
	_ = syscall.Stat(outside, &a)
	_ = syscall.Stat(hl, &b)
	if a.Ino == b.Ino || a.Nlink != 1 {
		t.Errorf("inodes: outside %d (nlink %d), inside %d", a.Ino, a.Nlink, b.Ino)
	}
}

// FuzzSliceLines checks sliceLines against a reference built on strings.SplitAfter.
func FuzzSliceLines(f *testing.F) {
	f.Add("one\ntwo\nthree", 1, 1)
	f.Add("one\ntwo\n", 3, 0)
	f.Add("", 1, 5)
	f.Add("\n\n\n", 2, 2)
	f.Fuzz(func(t *testing.T, text string, line, limit int) {
		if line < 1 || limit < 0 || line > 1000 || limit > 1000 {
			return
		}
		var lim *int
		if limit > 0 {
			lim = &limit
		}
		got := sliceLines(text, &line, lim)
		l := -1
		if lim != nil {
			l = limit
		}
		streamed, err := readLineSlice(iotest.OneByteReader(strings.NewReader(text)), line, l, 1<<20)
		if err != nil || string(streamed) != got {
			t.Fatalf("readLineSlice(%q, %d, %d) = %q, %v; sliceLines gives %q", text, line, limit, streamed, err, got)
		}
		parts := strings.SplitAfter(text, "\n")
		if parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		want := ""
		if line-1 < len(parts) {
			end := len(parts)
			if lim != nil && line-1+limit < end {
				end = line - 1 + limit
			}
			want = strings.Join(parts[line-1:end], "")
		}
		if got != want {
			t.Fatalf("sliceLines(%q, %d, %d) = %q, want %q", text, line, limit, got, want)
		}
	})
}

func BenchmarkDecideWrite(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	proj := filepath.Join(base, "proj")
	_ = os.MkdirAll(filepath.Join(proj, "a", "b"), 0o755)
	_ = os.WriteFile(filepath.Join(proj, "a", "b", "f.go"), []byte("x"), 0o644)
	cfg := config.Default(proj)
	cfg.Policy.FS.DenyWrite = []string{"**/.env", ".git/**", "/etc/**"}
	getenv := func(k string) string { return map[string]string{"HOME": base}[k] }
	e, err := NewEngine(cfg.Permissions(getenv), EngineOptions{Cwd: proj, Getenv: getenv})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(proj, "a", "b", "f.go")
	b.ReportAllocs()
	for b.Loop() {
		if d := e.DecideWrite(p); d.Verdict != Ask {
			b.Fatal(d.Verdict)
		}
	}
}

func TestReadFileFallback(t *testing.T) {
	forceRootFallback = true
	defer func() { forceRootFallback = false }()
	s := newFSSandbox(t)
	write(t, filepath.Join(s.proj, "d", "f.txt"), "one\ntwo\n")
	write(t, filepath.Join(s.outside, "secret"), "s")
	symlink(t, filepath.Join(s.outside, "secret"), filepath.Join(s.proj, "key"))
	e := s.engine(t, nil, EngineOptions{})
	if got, err := e.ReadFile(filepath.Join(s.proj, "d", "f.txt"), ip(2), nil); err != nil || got != "two\n" {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
	if _, err := e.ReadFile(filepath.Join(s.proj, "key"), nil, nil); !errors.Is(err, ErrOutside) {
		t.Errorf("symlink out: %v", err)
	}
	if _, err := e.ReadFile(filepath.Join(s.proj, "d", "nope"), nil, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}

// The decision saw proj/sub as a plain directory; before the write, sub became a symlink to
// .git/hooks (a race by a background command). The checked directory is opened without
// following symlinks, so the write cannot land in .git/hooks.
func TestOpenDirRefusesSwappedSymlink(t *testing.T) {
	s := newFSSandbox(t)
	mkdirAll(t, filepath.Join(s.proj, ".git", "hooks"))
	mkdirAll(t, filepath.Join(s.proj, "sub"))
	e := s.engine(t, func(c *config.Config) { c.Policy.FS.Write = "allow" }, EngineOptions{})
	target := filepath.Join(s.proj, "sub", "pre-commit")
	if d := e.DecideWrite(target); d.Verdict != Allow {
		t.Fatalf("DecideWrite = %s %q", d.Verdict, d.Reason)
	}
	real, root, dir, name, err := e.locate(target)
	if err != nil || dir != "sub" || name != "pre-commit" || root != s.proj || real != target {
		t.Fatalf("locate = %q %q %q %q %v", real, root, dir, name, err)
	}
	// The swap.
	if err := os.Remove(filepath.Join(s.proj, "sub")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(".git", "hooks"), filepath.Join(s.proj, "sub"))
	_, err = openDir(root, dir)
	if !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("openDir through a swapped-in symlink: %v, want ELOOP", err)
	}
	if ce := confinedErr(real, err); !errors.Is(ce, ErrOutside) {
		t.Errorf("confinedErr = %v", ce)
	}
	// An escape through .. is refused as well.
	if _, err := openDir(root, "../outside"); !errors.Is(err, syscall.EXDEV) {
		t.Errorf("openDir(../outside) = %v, want EXDEV", err)
	}
	// Entry names are opened without following a symlink.
	d, err := openDir(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	write(t, filepath.Join(s.outside, "f"), "x")
	symlink(t, filepath.Join(s.outside, "f"), filepath.Join(s.proj, "link"))
	if _, err := d.open("link", os.O_RDONLY, 0); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("open(link) = %v, want ELOOP", err)
	}
	st, err := d.lstat("link")
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("lstat(link) = %v, %v", st, err)
	}
}

func TestReadFileLargeSlices(t *testing.T) {
	s := newFSSandbox(t)
	big := filepath.Join(s.proj, "big.log")
	var b strings.Builder
	b.WriteString("first\nsecond\n")
	for b.Len() < MaxFileBytes+100 {
		b.WriteString("0123456789012345678901234567890123456789\n")
	}
	b.WriteString("tail-1\ntail-2")
	write(t, big, b.String())
	total := strings.Count(b.String(), "\n") + 1
	e := s.engine(t, nil, EngineOptions{})
	if got, err := e.ReadFile(big, ip(1), ip(2)); err != nil || got != "first\nsecond\n" {
		t.Errorf("head of a large file = %q, %v", got, err)
	}
	if got, err := e.ReadFile(big, ip(total-1), nil); err != nil || got != "tail-1\ntail-2" {
		t.Errorf("tail of a large file = %q, %v", got, err)
	}
	if _, err := e.ReadFile(big, nil, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("whole large file: %v", err)
	}
	if _, err := e.ReadFile(big, ip(2), nil); !errors.Is(err, ErrTooLarge) || err.Error() != "file too large: the requested lines of "+big+" exceed 8388608 bytes" {
		t.Errorf("nearly whole large file: %v", err)
	}
}

// sliceLines is the in-memory reference for readLineSlice: limit lines starting at 1-based
// line (nil = from 1 / to the end).
func sliceLines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	start := 1
	if line != nil {
		start = *line
	}
	// Skip start-1 lines.
	pos := 0
	for i := 1; i < start; i++ {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			return ""
		}
		pos += nl + 1
	}
	if pos >= len(text) {
		return ""
	}
	if limit == nil {
		return text[pos:]
	}
	end := pos
	for i := 0; i < *limit; i++ {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 {
			return text[pos:]
		}
		end += nl + 1
	}
	return text[pos:end]
}

// A custom audit log (and its head file) or diagnostics log inside a root is protected from the
// agent like the default ones in the state dir.
func TestOwnLogsInsideRootProtected(t *testing.T) {
	s := newFSSandbox(t)
	audit, err := OpenAuditLog(filepath.Join(s.proj, "my-audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	e := s.engine(t, func(c *config.Config) { c.Policy.FS.Write = "allow" },
		EngineOptions{Audit: audit, LogFile: filepath.Join(s.proj, "logs", "acpterm.log")})
	for _, rel := range []string{"my-audit.jsonl", "my-audit.jsonl.head", "logs/acpterm.log"} {
		if d := e.DecideWrite(filepath.Join(s.proj, rel)); d.Verdict != Deny || d.Rule != "protected" {
			t.Errorf("DecideWrite(%s) = %s %q, want deny (protected)", rel, d.Verdict, d.Rule)
		}
	}
	if d := e.DecideWrite(filepath.Join(s.proj, "notes.txt")); d.Verdict != Allow {
		t.Errorf("DecideWrite(notes.txt) = %s %q", d.Verdict, d.Rule)
	}
}
