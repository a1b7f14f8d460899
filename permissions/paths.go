package permissions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/acpterm/acpterm/permissions/policy"
)

// Roots is the set of directories the agent may work in, held as real (symlink-resolved,
// absolute, cleaned) paths. Containment is always decided with filepath.Rel against the real
// root, never with a string prefix (/proj-evil is not inside /proj).
// A Roots is immutable after NewRoots and safe for concurrent use.
type Roots struct {
	real []string
	fs   fsView // how paths are resolved (the real file system unless EngineOptions.Resolver)
}

// Resolver is the file-system view the engine's decisions read: what a path is (Lstat, Stat),
// where a symlink points (Readlink) and a path's real form (EvalSymlinks, as
// filepath.EvalSymlinks: every symlink followed, an error when a component is missing).
// Decisions do no other file-system I/O, so a table test can give the engine a fake file
// system (EngineOptions.Resolver) and need no temporary directories. ReadFile and WriteFile
// always use the real file system. Implementations must be safe for concurrent use.
type Resolver interface {
	Lstat(name string) (fs.FileInfo, error)
	Stat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	EvalSymlinks(path string) (string, error)
}

// OSResolver is the Resolver of the real file system: os.Lstat, os.Stat, os.Readlink and
// filepath.EvalSymlinks.
type OSResolver struct{}

// Lstat is os.Lstat.
func (OSResolver) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Stat is os.Stat.
func (OSResolver) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Readlink is os.Readlink.
func (OSResolver) Readlink(name string) (string, error) { return os.Readlink(name) }

// EvalSymlinks is filepath.EvalSymlinks.
func (OSResolver) EvalSymlinks(path string) (string, error) { return filepath.EvalSymlinks(path) }

// fsView is a Resolver with the path helpers decisions use and the memo of variants. The
// zero fsView reads the real file system and shares one process-wide memo.
type fsView struct {
	r     Resolver
	cache *sync.Map // clean path → []string (variants); nil: variantCache
}

// newFSView returns the view of r (nil: the real file system).
func newFSView(r Resolver) fsView {
	if r == nil {
		return fsView{}
	}
	return fsView{r: r, cache: &sync.Map{}}
}

func (v fsView) res() Resolver {
	if v.r == nil {
		return OSResolver{}
	}
	return v.r
}

func (v fsView) lstat(name string) (fs.FileInfo, error) { return v.res().Lstat(name) }
func (v fsView) stat(name string) (fs.FileInfo, error)  { return v.res().Stat(name) }
func (v fsView) evalSymlinks(p string) (string, error)  { return v.res().EvalSymlinks(p) }
func (v fsView) readlink(name string) (string, error)   { return v.res().Readlink(name) }

// NewRoots resolves each root with filepath.EvalSymlinks and keeps the real paths (duplicates
// and roots nested in another root are kept; the first containing root wins in Resolve).
// Errors: a root that is relative, does not exist, or is not a directory; the message names it.
func NewRoots(roots []string) (*Roots, error) { return newRoots(roots, fsView{}) }

// newRoots is NewRoots through the file-system view v.
func newRoots(roots []string, v fsView) (*Roots, error) {
	r := &Roots{fs: v}
	for _, p := range roots {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: root %q is not an absolute path", ErrInvalid, p)
		}
		real, err := v.evalSymlinks(filepath.Clean(p))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: root %q does not exist", ErrNotFound, p)
			}
			return nil, fmt.Errorf("root %q: %w", p, err)
		}
		st, err := v.stat(real)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", p, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%w: root %q is not a directory", ErrInvalid, p)
		}
		r.real = append(r.real, real)
	}
	return r, nil
}

// List returns the real root paths in configuration order (a copy).
func (r *Roots) List() []string {
	return append([]string(nil), r.real...)
}

// Contains reports whether real (an already resolved absolute path) is one of the roots or lies
// beneath one, by filepath.Rel.
func (r *Roots) Contains(real string) bool {
	_, ok := r.rootOf(real)
	return ok
}

// rootOf returns the first root containing real.
func (r *Roots) rootOf(real string) (string, bool) {
	for _, root := range r.real {
		if within(root, real) {
			return root, true
		}
	}
	return "", false
}

// within reports whether p is base or beneath it, both absolute and clean.
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// Resolve makes p real and finds the root containing it. p must be absolute (else ErrInvalid);
// it is cleaned and its symlinks resolved; for a path that does not exist yet the longest
// existing parent is resolved and the rest appended. It returns the real path and its root.
// Errors: ErrInvalid for a relative path or one containing NUL; ErrOutside when the real path
// lies outside every root (the message names both the path and its real form).
func (r *Roots) Resolve(p string) (real, root string, err error) {
	real, err = r.fs.realPath(p)
	if err != nil {
		return "", "", err
	}
	root, ok := r.rootOf(real)
	if !ok {
		roots := strings.Join(r.real, ", ")
		if roots == "" {
			roots = "(none configured)"
		}
		if real != filepath.Clean(p) {
			return real, "", fmt.Errorf("%w: %s (really %s) is outside the roots %s", ErrOutside, p, real, roots)
		}
		return real, "", fmt.Errorf("%w: %s is outside the roots %s", ErrOutside, p, roots)
	}
	return real, root, nil
}

// physicalClean removes "." and ".." from the absolute path p the way the kernel walks it: a
// ".." goes up from where the components before it really lead (symlinks followed), not from
// the text before it, so link/../x is the x next to link's target. The last component is not
// followed. A ".." after a component that does not exist is applied to the text (the kernel
// would fail the lookup; the result is only used to judge the path).
func (v fsView) physicalClean(p string) string {
	if !strings.Contains(p, "..") || !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	cur := "/"
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if real, err := v.evalSymlinks(cur); err == nil {
				cur = real
			}
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, c)
		}
	}
	return cur
}

// realPath resolves p physically (physicalClean, then symlinks in its longest existing prefix;
// a dangling last link is followed by hand).
func (v fsView) realPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalid)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%w: path %q contains a NUL byte", ErrInvalid, p)
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%w: path %q is not absolute", ErrInvalid, p)
	}
	clean := v.physicalClean(p)
	var rest []string
	cur := clean
	for hops := 0; ; {
		real, err := v.evalSymlinks(cur)
		if err == nil {
			parts := append([]string{real}, rest...)
			return filepath.Join(parts...), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		// A missing component is appended unresolved below its existing parent. Any other
		// error (permission, loop) is reported.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		// A dangling symlink: follow it by hand, so a link to a not-yet-existing file
		// outside the roots is judged by where it points.
		if st, lerr := v.lstat(cur); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return "", fmt.Errorf("resolve %s: too many levels of symbolic links", p)
			}
			target, rerr := v.readlink(cur)
			if rerr != nil {
				return "", fmt.Errorf("resolve %s: %w", p, rerr)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(parent, target)
			}
			cur = filepath.Clean(target)
			continue
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// gitDirReason explains why a path inside a .git directory (other than hooks and config) is
// protected.
const gitDirReason = "the git directory (.git/**) decides which repository, config and hooks git uses (e.g. .git/commondir), so a write there can make a later git command run code"

// bareRepoReason explains why HEAD and config side by side are protected.
const bareRepoReason = "a bare git repository layout (HEAD and config side by side): git run in that directory would use its config, which can name programs git runs"

// isProtected reports whether real (a resolved absolute path) is a path the agent must never
// write, whatever the rules say, and names which: the directories in own (acpterm's config and
// state directories, from the policy), any path with a .git component (the .git entry itself
// and everything beneath it: hooks, config, commondir, gitdir files of worktrees and submodules
// …, in nested repositories too), a file named HEAD or config next to an existing config or
// HEAD file (a bare repository layout git would discover), the shell rc files in $HOME
// (.bashrc .bash_profile .profile .zshrc .zprofile .zshenv .bash_login .bash_logout,
// .config/fish/**), ~/.ssh/**, git's global config (~/.gitconfig, ~/.config/git/config), and
// the directories on $PATH with their direct entries. getenv (nil: os.Getenv) gives HOME and
// PATH.
func isProtected(v fsView, real string, getenv func(string) string, own []policy.Protected) (bool, string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	real = filepath.Clean(real)
	// A .git entry and everything beneath it, in every root: hooks (also .git/modules/<sub>/hooks),
	// config files, and the rest (commondir, gitdir files, info/, worktrees/ …), since git reads
	// which repository and config to use from them. A .git file names the git dir, and so whose
	// hooks run. The name is compared without case (case-insensitive file systems).
	parts := strings.Split(real, string(filepath.Separator))
	for i, part := range parts {
		if !strings.EqualFold(part, ".git") {
			continue
		}
		rest := parts[i+1:]
		switch {
		case len(rest) == 0:
			return true, "the .git entry decides which repository, hooks and config git uses"
		case slices.Contains(rest, "hooks"):
			return true, "git hooks (.git/hooks) run code on git commands"
		case rest[len(rest)-1] == "config" || rest[len(rest)-1] == "config.worktree":
			return true, "git config (.git/config) can name programs git runs"
		default:
			return true, gitDirReason
		}
	}
	// A bare repository layout outside any .git: git discovers a directory holding HEAD,
	// objects/ and refs/ as a repository when run in it (unless safe.bareRepository=explicit,
	// which acpterm sets for its own children but not for the user's shell), and its config
	// can name programs git runs (core.pager, core.fsmonitor, diff.external, alias.x=!cmd).
	// So whichever of HEAD and config is written second is refused.
	switch base := filepath.Base(real); base {
	case "config", "HEAD":
		other := "HEAD"
		if base == "HEAD" {
			other = "config"
		}
		if st, err := v.lstat(filepath.Join(filepath.Dir(real), other)); err == nil && !st.IsDir() {
			return true, bareRepoReason
		}
	}
	for _, f := range hostRunFiles {
		if strings.HasSuffix(real, string(filepath.Separator)+f) {
			return true, f + " is run by a tool on your machine when you open or enter its directory, or when a coding agent next runs there (direnv, Mercurial, VS Code, JetBrains, Vim, mise, Claude Code, codex, gemini, opencode)"
		}
	}
	if ok, why := onPath(v, real, getenv); ok {
		return true, why
	}
	for _, pd := range protectedDirs(getenv, own) {
		for _, base := range v.variants(pd.path) {
			if pd.exact {
				if real == base {
					return true, pd.reason
				}
			} else if within(base, real) {
				return true, pd.reason
			}
		}
	}
	return false, ""
}

type protectedDir struct {
	path   string
	exact  bool // the path itself only; otherwise the path and everything beneath
	reason string
}

// protectedDirs lists the protected directories and files isProtected checks: the
// directories in own, then the shell start-up files, ~/.ssh and git's global config under HOME.
func protectedDirs(getenv func(string) string, own []policy.Protected) []protectedDir {
	var out []protectedDir
	for _, p := range own {
		if p.Dir && filepath.IsAbs(p.Path) {
			out = append(out, protectedDir{filepath.Clean(p.Path), false, p.Reason})
		}
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" && filepath.IsAbs(home) {
		for _, f := range []string{".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv", ".bash_login", ".bash_logout"} {
			out = append(out, protectedDir{filepath.Join(home, f), true, "shell startup file ~/" + f})
		}
		out = append(out,
			protectedDir{filepath.Join(home, ".config", "fish"), false, "shell startup files ~/.config/fish"},
			protectedDir{filepath.Join(home, ".ssh"), false, "ssh keys and config ~/.ssh"},
			protectedDir{filepath.Join(home, ".gitconfig"), true, "git's global config ~/.gitconfig (it can name programs git runs)"},
			protectedDir{filepath.Join(home, ".config", "git", "config"), true, "git's global config ~/.config/git/config (it can name programs git runs)"})
	}
	return out
}

// onPath reports whether real is a directory on acpterm's PATH or an entry directly in one: a
// program planted there would run in place of an allowed one.
func onPath(fv fsView, real string, getenv func(string) string) (bool, string) {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, v := range fv.variants(dir) {
			if real == v || filepath.Dir(real) == v {
				return true, "a directory on PATH (" + dir + "): a program placed there would run in place of an allowed one"
			}
		}
	}
	return false, ""
}

// variants returns p cleaned and, when different, its real form (so a symlinked $HOME or
// config dir still matches a real path). Results are memoised per path: the protected
// locations are resolved once per process, not on every decision.
func (v fsView) variants(p string) []string {
	cache := v.cache
	if cache == nil {
		cache = &variantCache
	}
	p = filepath.Clean(p)
	if got, ok := cache.Load(p); ok {
		return got.([]string)
	}
	out := []string{p}
	if r, err := v.realPath(p); err == nil && r != p {
		out = append(out, r)
	}
	cache.Store(p, out)
	return out
}

var variantCache sync.Map // clean path → []string

// hostRunFiles are the project files a tool on the host runs code from when the user merely
// opens or enters their directory (the sandbox binds the same list read-only): protected
// wherever they are, so neither fs/write_text_file nor a command's write target plants one.
var hostRunFiles = []string{
	".envrc", ".hg/hgrc", ".vscode/tasks.json", ".vscode/settings.json", ".idea/workspace.xml",
	".exrc", ".nvimrc", ".nvim.lua", "mise.toml", ".mise.toml",
	".claude/settings.json", ".mcp.json", ".gemini/settings.json",
	".codex/config.toml", "opencode.json", "opencode.jsonc",
}

// HostRunFiles returns (a copy of) the project files a host tool runs when their directory is
// opened or entered, which every write check refuses.
func HostRunFiles() []string { return slices.Clone(hostRunFiles) }
