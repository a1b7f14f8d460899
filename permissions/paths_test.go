package permissions

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpterm/acpterm/config"
)

// fsSandbox is a temp tree: base/{home, proj, proj-evil, outside}, all real paths.
type fsSandbox struct {
	base, home, proj, evil, outside string
	env                             map[string]string
}

func newFSSandbox(t *testing.T) *fsSandbox {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &fsSandbox{
		base: base, home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"),
		evil: filepath.Join(base, "proj-evil"), outside: filepath.Join(base, "outside"),
	}
	for _, d := range []string{s.home, s.proj, s.evil, s.outside} {
		mkdirAll(t, d)
	}
	s.env = map[string]string{
		"HOME":            s.home,
		"XDG_CONFIG_HOME": filepath.Join(s.home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(s.home, ".local", "state"),
	}
	return s
}

func (s *fsSandbox) getenv(k string) string { return s.env[k] }

// engine builds an Engine over cfg (default: config.Default(s.proj)) with the sandbox env.
func (s *fsSandbox) engine(t *testing.T, edit func(*config.Config), o EngineOptions) *Engine {
	t.Helper()
	cfg := config.Default(s.proj)
	if edit != nil {
		edit(cfg)
	}
	if o.Getenv == nil {
		o.Getenv = s.getenv
	}
	if o.Cwd == "" {
		o.Cwd = s.proj
	}
	e, err := NewEngine(cfg.Permissions(o.Getenv), o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mkdirAll(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	mkdirAll(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestNewRootsErrors(t *testing.T) {
	s := newFSSandbox(t)
	_, err := NewRoots([]string{filepath.Join(s.base, "missing")})
	if !errors.Is(err, ErrNotFound) || err.Error() != "not found: root \""+filepath.Join(s.base, "missing")+"\" does not exist" {
		t.Errorf("missing root: %v", err)
	}
	_, err = NewRoots([]string{"rel/dir"})
	if !errors.Is(err, ErrInvalid) || err.Error() != `invalid request: root "rel/dir" is not an absolute path` {
		t.Errorf("relative root: %v", err)
	}
	f := filepath.Join(s.base, "file")
	write(t, f, "x")
	if _, err = NewRoots([]string{f}); !errors.Is(err, ErrInvalid) {
		t.Errorf("file root: %v", err)
	}
	// A symlinked root is stored real.
	link := filepath.Join(s.base, "link")
	symlink(t, s.proj, link)
	r, err := NewRoots([]string{link})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.List(), []string{s.proj}) {
		t.Errorf("List = %q", r.List())
	}
}

func TestResolveContainment(t *testing.T) {
	s := newFSSandbox(t)
	r, err := NewRoots([]string{s.proj})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.proj, "a", "f.txt"), "x")
	symlink(t, s.outside, filepath.Join(s.proj, "out"))                         // a directory link leaving the root
	symlink(t, filepath.Join(s.proj, "a"), filepath.Join(s.proj, "in"))         // stays inside
	symlink(t, "/nonexistent-target-xyz", filepath.Join(s.proj, "dangling"))    // dangling
	symlink(t, filepath.Join(s.outside, "k"), filepath.Join(s.proj, "keylink")) // a file link leaving the root (its target missing yet)
	symlink(t, "a/later.txt", filepath.Join(s.proj, "dangling-in"))             // relative, inside, missing

	cases := []struct {
		in, real, root string
		err            error
	}{
		{filepath.Join(s.proj, "a", "f.txt"), filepath.Join(s.proj, "a", "f.txt"), s.proj, nil},
		{s.proj, s.proj, s.proj, nil},
		{filepath.Join(s.proj, "new", "deep", "x.go"), filepath.Join(s.proj, "new", "deep", "x.go"), s.proj, nil},
		{filepath.Join(s.proj, "in", "f.txt"), filepath.Join(s.proj, "a", "f.txt"), s.proj, nil},
		{filepath.Join(s.proj, "in", "new.txt"), filepath.Join(s.proj, "a", "new.txt"), s.proj, nil},
		{filepath.Join(s.proj, "a", "..", "a", "f.txt"), filepath.Join(s.proj, "a", "f.txt"), s.proj, nil},
		{filepath.Join(s.proj, "dangling"), "/nonexistent-target-xyz", "", ErrOutside},
		{filepath.Join(s.proj, "dangling-in"), filepath.Join(s.proj, "a", "later.txt"), s.proj, nil},
		// A sibling whose name starts with the root's: a string prefix test would say inside.
		{filepath.Join(s.evil, "x"), filepath.Join(s.evil, "x"), "", ErrOutside},
		{s.evil, s.evil, "", ErrOutside},
		// A symlinked directory and .. escape.
		{filepath.Join(s.proj, "out", "x"), filepath.Join(s.outside, "x"), "", ErrOutside},
		{filepath.Join(s.proj, "out"), s.outside, "", ErrOutside},
		{filepath.Join(s.proj, "..", "outside", "y"), filepath.Join(s.outside, "y"), "", ErrOutside},
		{filepath.Join(s.proj, "keylink"), filepath.Join(s.outside, "k"), "", ErrOutside},
		{"/", "/", "", ErrOutside},
		{"relative/x", "", "", ErrInvalid},
		{"", "", "", ErrInvalid},
		{s.proj + "/a\x00b", "", "", ErrInvalid},
	}
	for _, c := range cases {
		real, root, err := r.Resolve(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Resolve(%q) err = %v, want %v", c.in, err, c.err)
			}
			if c.real != "" && real != c.real {
				t.Errorf("Resolve(%q) real = %q, want %q", c.in, real, c.real)
			}
			continue
		}
		if err != nil || real != c.real || root != c.root {
			t.Errorf("Resolve(%q) = %q, %q, %v; want %q, %q", c.in, real, root, err, c.real, c.root)
		}
	}
	// The message names the path, its real form and the roots.
	_, _, err = r.Resolve(filepath.Join(s.proj, "out", "x"))
	want := "outside the roots or denied: " + filepath.Join(s.proj, "out", "x") + " (really " + filepath.Join(s.outside, "x") + ") is outside the roots " + s.proj
	if err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
	if r.Contains(filepath.Join(s.evil, "x")) || !r.Contains(filepath.Join(s.proj, "x")) || !r.Contains(s.proj) {
		t.Error("Contains disagrees with filepath.Rel containment")
	}
}

func TestIsProtected(t *testing.T) {
	s := newFSSandbox(t)
	cases := []struct {
		path string
		want bool
		why  string
	}{
		{filepath.Join(s.proj, ".git", "hooks", "pre-commit"), true, "git hooks (.git/hooks) run code on git commands"},
		{filepath.Join(s.proj, ".git", "hooks"), true, "git hooks (.git/hooks) run code on git commands"},
		{filepath.Join(s.proj, "sub", ".git", "config"), true, "git config (.git/config) can name programs git runs"},
		{filepath.Join(s.proj, ".git", "config.bak"), true, gitDirReason},
		{filepath.Join(s.proj, ".git", "modules", "sub", "hooks", "post-checkout"), true, "git hooks (.git/hooks) run code on git commands"},
		{filepath.Join(s.proj, ".git", "modules", "sub", "config"), true, "git config (.git/config) can name programs git runs"},
		{filepath.Join(s.proj, ".git", "worktrees", "w", "config.worktree"), true, "git config (.git/config) can name programs git runs"},
		{filepath.Join(s.proj, "sub", ".git"), true, "the .git entry decides which repository, hooks and config git uses"},
		{filepath.Join(s.proj, ".git", "objects", "ab", "cdef"), true, gitDirReason},
		{filepath.Join(s.proj, "src", "hooks", "config"), false, ""},
		{filepath.Join(s.proj, ".git", "HEAD"), true, gitDirReason},
		{filepath.Join(s.proj, ".git", "commondir"), true, "the git directory (.git/**) decides which repository, config and hooks git uses (e.g. .git/commondir), so a write there can make a later git command run code"},
		{filepath.Join(s.proj, ".git", "worktrees", "w", "gitdir"), true, gitDirReason},
		{filepath.Join(s.proj, "sub", ".GIT", "info", "attributes"), true, gitDirReason},
		{filepath.Join(s.proj, "sub", "x.git", "commondir"), false, ""},
		{filepath.Join(s.proj, ".github", "workflows", "ci.yml"), false, ""},
		{filepath.Join(s.proj, "hooks", "x"), false, ""},
		{filepath.Join(s.home, ".bashrc"), true, "shell startup file ~/.bashrc"},
		{filepath.Join(s.home, ".zshenv"), true, "shell startup file ~/.zshenv"},
		{filepath.Join(s.home, ".bashrc.d", "x"), false, ""},
		{filepath.Join(s.home, "sub", ".bashrc"), false, ""},
		{filepath.Join(s.home, ".config", "fish", "config.fish"), true, "shell startup files ~/.config/fish"},
		{filepath.Join(s.home, ".ssh", "authorized_keys"), true, "ssh keys and config ~/.ssh"},
		{filepath.Join(s.home, ".config", "acpterm", "config.toml"), true, "acpterm's config dir (" + filepath.Join(s.home, ".config", "acpterm") + ")"},
		{filepath.Join(s.home, ".local", "state", "acpterm", "audit.jsonl"), true, "acpterm's state dir (" + filepath.Join(s.home, ".local", "state", "acpterm") + "): grants and audit log"},
		{filepath.Join(s.home, ".config", "acpterm-other"), false, ""},
		{filepath.Join(s.proj, "main.go"), false, ""},
		{filepath.Join(s.home, ".gitconfig"), true, "git's global config ~/.gitconfig (it can name programs git runs)"},
		{filepath.Join(s.home, ".config", "git", "config"), true, "git's global config ~/.config/git/config (it can name programs git runs)"},
		{filepath.Join(s.home, "bin", "git"), true, "a directory on PATH (" + filepath.Join(s.home, "bin") + "): a program placed there would run in place of an allowed one"},
		{filepath.Join(s.home, "bin"), true, "a directory on PATH (" + filepath.Join(s.home, "bin") + "): a program placed there would run in place of an allowed one"},
		{filepath.Join(s.home, "bin", "sub", "x"), false, ""},
	}
	s.env["PATH"] = filepath.Join(s.home, "bin") + ":relative/bin:/usr/bin"
	for _, c := range cases {
		got, why := isProtected(fsView{}, c.path, s.getenv, config.Default(s.proj).Permissions(s.getenv).Protected)
		if got != c.want || why != c.why {
			t.Errorf("isProtected(%q) = %v %q, want %v %q", c.path, got, why, c.want, c.why)
		}
	}
	// A symlinked HOME still protects the real rc files.
	link := filepath.Join(s.base, "homelink")
	symlink(t, s.home, link)
	env := map[string]string{"HOME": link}
	if got, _ := isProtected(fsView{}, filepath.Join(s.home, ".profile"), func(k string) string { return env[k] }, nil); !got {
		t.Error("real ~/.profile not protected when $HOME is a symlink")
	}
}
