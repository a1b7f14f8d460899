package permissions

import (
	"io/fs"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/config"
)

// fakeFS is an in-memory file system implementing Resolver, for table tests that need no
// temporary directories. Entries are absolute clean paths; every parent of an entry must be a
// directory entry too (newFakeFS adds them).
type fakeFS struct {
	entries map[string]fakeEntry
}

var _ Resolver = (*fakeFS)(nil)

// fakeEntry is one file: its type and permission bits, and a symlink's target.
type fakeEntry struct {
	mode   fs.FileMode
	target string
}

// newFakeFS builds a fakeFS from path → spec: "dir", "file", "exec" (a regular file with mode
// 0755), "fifo", "chardev", or "-> target" (a symlink). Missing parent directories are added.
func newFakeFS(t testing.TB, spec map[string]string) *fakeFS {
	t.Helper()
	f := &fakeFS{entries: map[string]fakeEntry{"/": {mode: fs.ModeDir | 0o755}}}
	for p, s := range spec {
		if !path.IsAbs(p) || path.Clean(p) != p {
			t.Fatalf("fake path %q is not absolute and clean", p)
		}
		var e fakeEntry
		switch {
		case s == "dir":
			e.mode = fs.ModeDir | 0o755
		case s == "file":
			e.mode = 0o644
		case s == "exec":
			e.mode = 0o755
		case s == "fifo":
			e.mode = fs.ModeNamedPipe | 0o644
		case s == "chardev":
			e.mode = fs.ModeDevice | fs.ModeCharDevice | 0o666
		case strings.HasPrefix(s, "-> "):
			e.mode, e.target = fs.ModeSymlink|0o777, strings.TrimPrefix(s, "-> ")
		default:
			t.Fatalf("fake path %q: unknown spec %q", p, s)
		}
		f.entries[p] = e
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := f.entries[d]; !ok {
				f.entries[d] = fakeEntry{mode: fs.ModeDir | 0o755}
			}
		}
	}
	return f
}

// resolve walks p from "/" as the kernel does: symlinks in the middle are followed, the last
// one only when follow is set, ".." goes up from where the walk really is. It returns the
// resolved path and its entry.
func (f *fakeFS) resolve(op, p string, follow bool, hops *int) (string, fakeEntry, error) {
	if !path.IsAbs(p) {
		return "", fakeEntry{}, &fs.PathError{Op: op, Path: p, Err: syscall.EINVAL}
	}
	parts := strings.Split(p, "/")
	cur, e := "/", f.entries["/"]
	for i, c := range parts {
		last := true
		for _, rest := range parts[i+1:] {
			if rest != "" && rest != "." {
				last = false
			}
		}
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			e = f.entries[cur]
			continue
		}
		if !e.mode.IsDir() {
			return "", fakeEntry{}, &fs.PathError{Op: op, Path: p, Err: syscall.ENOTDIR}
		}
		next := path.Join(cur, c)
		ne, ok := f.entries[next]
		if !ok {
			return "", fakeEntry{}, &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
		}
		if ne.mode&fs.ModeSymlink != 0 && (!last || follow) {
			if *hops++; *hops > 40 {
				return "", fakeEntry{}, &fs.PathError{Op: op, Path: p, Err: syscall.ELOOP}
			}
			target := ne.target
			if !path.IsAbs(target) {
				target = cur + "/" + target
			}
			var err error
			if next, ne, err = f.resolve(op, target, true, hops); err != nil {
				return "", fakeEntry{}, err
			}
		}
		cur, e = next, ne
	}
	return cur, e, nil
}

// Lstat is os.Lstat on the fake tree.
func (f *fakeFS) Lstat(name string) (fs.FileInfo, error) {
	hops := 0
	p, e, err := f.resolve("lstat", name, false, &hops)
	if err != nil {
		return nil, err
	}
	return fakeInfo{name: path.Base(p), mode: e.mode}, nil
}

// Stat is os.Stat on the fake tree.
func (f *fakeFS) Stat(name string) (fs.FileInfo, error) {
	hops := 0
	p, e, err := f.resolve("stat", name, true, &hops)
	if err != nil {
		return nil, err
	}
	return fakeInfo{name: path.Base(p), mode: e.mode}, nil
}

// Readlink is os.Readlink on the fake tree.
func (f *fakeFS) Readlink(name string) (string, error) {
	hops := 0
	_, e, err := f.resolve("readlink", name, false, &hops)
	if err != nil {
		return "", err
	}
	if e.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return e.target, nil
}

// EvalSymlinks is filepath.EvalSymlinks on the fake tree (absolute paths only).
func (f *fakeFS) EvalSymlinks(p string) (string, error) {
	hops := 0
	real, _, err := f.resolve("lstat", p, true, &hops)
	return real, err
}

// fakeInfo is the fs.FileInfo of a fake entry (no size, no Stat_t).
type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return 0 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

// TestFakeFS: the fake resolves like the kernel: links in the middle and at the end, ".."
// after a link from where the link leads, missing components and loops as errors.
func TestFakeFS(t *testing.T) {
	f := newFakeFS(t, map[string]string{
		"/a/b/file": "file", "/l": "-> /a/b", "/rel": "-> a/b/file", "/loop": "-> /loop", "/dangling": "-> /nowhere/x",
	})
	for _, c := range []struct{ in, want, err string }{
		{"/l/file", "/a/b/file", ""},
		{"/rel", "/a/b/file", ""},
		{"/l/../b/file", "/a/b/file", ""},
		{"/l/missing", "", "file does not exist"},
		{"/loop", "", "too many levels of symbolic links"},
		{"/dangling", "", "file does not exist"},
		{"/a/b/file/x", "", "not a directory"},
	} {
		got, err := f.EvalSymlinks(c.in)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("EvalSymlinks(%q) = %q, %v; want %q, error containing %q", c.in, got, err, c.want, c.err)
		}
	}
	if st, err := f.Lstat("/dangling"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(/dangling) = %v, %v; want a symlink", st, err)
	}
	if target, err := f.Readlink("/dangling"); target != "/nowhere/x" || err != nil {
		t.Errorf("Readlink(/dangling) = %q, %v", target, err)
	}
}

// TestDecisionsOnFakeFS: the table of redirect, program and file decisions judged entirely on
// a fake file system (EngineOptions.Resolver): no temporary directory, the same verdicts and
// reasons as on a real one (TestRedirectTargets, TestCdTracking, TestIsProtected).
func TestDecisionsOnFakeFS(t *testing.T) {
	f := newFakeFS(t, map[string]string{
		"/proj/README.md": "file", "/proj/sub/notes.txt": "file", "/proj/link": "-> /outside/a/b",
		"/outside/a/b/x": "file", "/proj/fifo": "fifo", "/proj/out-link": "-> /dev/stdout",
		"/proj/.git/config": "file", "/proj/bin/tool": "exec", "/home/u/.bashrc": "file",
		"/dev/null": "chardev", "/dev/zero": "chardev", "/dev/stdout": "-> /proc/self/fd/1", "/proc/self/fd/1": "chardev",
		"/usr/bin/git": "exec", "/usr/bin/ls": "exec", "/usr/bin/cat": "exec", "/usr/bin/head": "exec",
		"/usr/bin/rm": "exec", "/usr/bin/echo": "exec", "/usr/bin/wc": "exec", "/bin": "-> usr/bin",
	})
	env := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin:/bin", "USER": "u", "LANG": "C.UTF-8"}
	getenv := func(k string) string { return env[k] }
	cfg := &config.Config{Source: config.DefaultsSource, Policy: config.Policy{
		Roots: []string{"/proj"}, Unmatched: "ask", Commands: typicalCommands,
		FS: config.FS{Read: "allow", Write: "allow"},
	}}
	e, err := NewEngine(cfg.Permissions(getenv), EngineOptions{Cwd: "/proj", Getenv: getenv, Resolver: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, line string
		want       Verdict
		reason     string
	}{
		{"pipeline", "git status && ls -la | head -n 5", Allow, ""},
		{"in-and-back", "cd sub && wc -l notes.txt && cd ..", Allow, ""},
		{"deny-rule", "rm -rf sub", Deny, `deny rule "rm"`},
		{"dev-stdout", "echo x > /dev/stdout", Ask, "/dev/stdout re-opens whatever file sits behind a file descriptor"},
		{"link-to-stdout", "echo x > out-link", Ask, "/proc/self/fd/1 is under /proc, not a regular file"},
		{"dotdot-after-symlink", "echo x > link/../pwn", Deny, "/outside/a/pwn"},
		{"dotdot-after-symlink-read", "cat < link/../b/x", Allow, ""},
		{"fifo", "echo x > fifo", Ask, "/proj/fifo is not a regular file (named pipe)"},
		{"directory", "cat < sub", Ask, "/proj/sub is not a regular file (directory)"},
		{"dev-null", "ls > /dev/null 2>/dev/null", Allow, ""},
		{"dev-zero", "head -c 1 < /dev/zero", Ask, "/dev/zero is under /dev, not a regular file"},
		{"protected", "echo x >> .git/config", Deny, "git config (.git/config) can name programs git runs"},
		{"outside-write", "echo x > ../x", Deny, "outside the roots"},
		{"workspace-program", "./bin/tool", Ask, "./bin/tool"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := e.DecideCommand(CommandRequest{Session: "s", Command: c.line})
			if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("%q: %s %q (%s), want %s with reason containing %q", c.line, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
			}
		})
	}
	for _, c := range []struct {
		name, path string
		write      bool
		want       Verdict
		reason     string
	}{
		{"read", "/proj/README.md", false, Allow, `read of /proj/README.md: [policy.fs] read = "allow"`},
		{"read-through-link", "/proj/link/x", false, Deny, "/proj/link/x (really /outside/a/b/x) is outside the roots"},
		{"write-new", "/proj/sub/new.txt", true, Allow, `write of /proj/sub/new.txt: [policy.fs] write = "allow"`},
		{"write-git", "/proj/.git/hooks/pre-commit", true, Deny, "git hooks (.git/hooks) run code on git commands"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := e.DecideRead(c.path)
			if c.write {
				d = e.DecideWrite(c.path)
			}
			if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("%s %q: %s %q (%s), want %s with reason containing %q", map[bool]string{false: "read", true: "write"}[c.write], c.path, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
			}
		})
	}
	for _, c := range []struct{ path, why string }{
		{"/home/u/.bashrc", "shell startup file ~/.bashrc"},
		{"/home/u/.config/acpterm/config.toml", "acpterm's config dir (/home/u/.config/acpterm)"},
		{"/usr/bin/git", "a directory on PATH (/usr/bin): a program placed there would run in place of an allowed one"},
		{"/bin/x", "a directory on PATH (/bin): a program placed there would run in place of an allowed one"},
		{"/proj/sub/notes.txt", ""},
	} {
		if ok, why := e.Protected(c.path); ok != (c.why != "") || why != c.why {
			t.Errorf("Protected(%q) = %v %q, want %q", c.path, ok, why, c.why)
		}
	}
}
