package permissions

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// Sentinel errors of the confined file operations, for the ACP layer to map onto JSON-RPC
// errors. Errors returned by Roots.Resolve, ReadFile and WriteFile wrap one of them with %w and a
// message naming the path.
var (
	// ErrNotFound: the file (or a root) does not exist. ACP maps it to -32002 "resource not found".
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the request itself is malformed (relative path, NUL byte, line/limit <= 0,
	// a directory or other non-regular file). ACP maps it to -32602 "invalid params".
	ErrInvalid = errors.New("invalid request")
	// ErrOutside: the path is outside every root, or a deny rule / protected path forbids it.
	ErrOutside = errors.New("outside the roots or denied")
	// ErrTooLarge: the file exceeds MaxFileBytes.
	ErrTooLarge = errors.New("file too large")
)

// MaxFileBytes is the largest file ReadFile reads, and the largest old content WriteFile returns
// for a diff (8 MiB).
const MaxFileBytes = 8 << 20

// DecideRead decides an fs/read_text_file of path: path must be absolute;
// outside the roots → deny; a [policy.fs] deny_read glob → deny; an existing target with more
// than one hard link or that is not a regular file → at least ask; otherwise the
// [policy.fs] read verdict. Decision.Path is the real path (symlinks resolved).
func (e *Engine) DecideRead(path string) Decision {
	return e.decideFile(path, false, false)
}

// DecideWrite decides an fs/write_text_file of path: like DecideRead with the write verdict
// and deny_write globs, plus: protected paths (Engine.Protected: git hooks and config, acpterm's own
// config and state, shell rc files, ~/.ssh) are denied whatever the rules say; an existing target
// that is a symlink, has Nlink > 1 or is not a regular file is at least ask.
func (e *Engine) DecideWrite(path string) Decision {
	return e.decideFile(path, true, false)
}

// decideEntry decides removing or renaming the directory entry path itself (rm, unlink, the
// sources of mv): when path is a symbolic link, only the link goes, so it is judged by its own
// location (its directory resolved, its name not followed) rather than by its target. Anything
// else is DecideWrite.
func (e *Engine) decideEntry(path string) Decision {
	return e.decideFile(path, true, true)
}

func (e *Engine) decideFile(path string, write, entry bool) Decision {
	op, verdictCfg, globs := "read", e.policy.FS.Read, e.policy.FS.DenyRead
	if write {
		op, verdictCfg, globs = "write", e.policy.FS.Write, e.policy.FS.DenyWrite
	}
	d := Decision{Verdict: Deny, Path: path}
	if entry {
		if st, err := e.roots.fs.lstat(e.roots.fs.physicalClean(path)); err != nil || st.Mode()&os.ModeSymlink == 0 || !filepath.IsAbs(path) {
			entry = false
		}
	}
	var real string
	var err error
	if entry {
		var dir string
		if dir, _, err = e.roots.Resolve(filepath.Dir(e.roots.fs.physicalClean(path))); err == nil {
			real = filepath.Join(dir, filepath.Base(e.roots.fs.physicalClean(path)))
		}
	} else {
		real, _, err = e.roots.Resolve(path)
	}
	if real != "" {
		d.Path = real
	}
	if err != nil {
		d.Rule = "outside roots"
		if !errors.Is(err, ErrOutside) {
			d.Rule = "invalid path"
		}
		d.Reason = fmt.Sprintf("%s denied: %v", op, err)
		return d
	}
	if g, ok := matchDenyGlob(e.roots.fs, globs, path, real, e.roots.List(), e.getenv); ok {
		d.Rule = "deny_" + op + ": " + g
		d.Reason = fmt.Sprintf("%s of %s denied by [policy.fs] deny_%s %q", op, real, op, g)
		return d
	}
	if write {
		ok, why := e.Protected(real)
		if !ok { // the name asked for counts too (a link planted at .git/hooks/x)
			ok, why = e.Protected(e.roots.fs.physicalClean(path))
		}
		if ok {
			d.Rule = "protected"
			d.Reason = fmt.Sprintf("write of %s denied: protected path: %s", real, why)
			return d
		}
	}
	v := Verdict(verdictCfg)
	switch v {
	case Allow, Ask, Deny:
	default:
		v = Ask
	}
	d.Verdict, d.Rule = v, "fs."+op
	d.Reason = fmt.Sprintf("%s of %s: [policy.fs] %s = %q", op, real, op, v)
	if v == Deny {
		return d
	}
	// The target's inode may be shared with a file outside the roots; a symlink at the
	// requested name is itself a concern for writes.
	// Removing or renaming a link (entry) touches neither its target nor the target's inode.
	var why string
	if st, err := e.roots.fs.lstat(e.roots.fs.physicalClean(path)); err == nil && !entry {
		why = oddFile(st, write)
	}
	if why == "" && real != e.roots.fs.physicalClean(path) && !entry {
		if st, err := e.roots.fs.lstat(real); err == nil {
			why = oddFile(st, write)
		}
	}
	if why != "" {
		d.Verdict, d.Rule = Ask, "link" // v is allow or ask here
		d.Reason = fmt.Sprintf("%s of %s needs approval: %s", op, real, why)
		return d
	}
	// A person's "always" for this exact file turns the configured ask into allow.
	if v == Ask {
		if id, ok := e.grants.AllowsPath(op, real); ok {
			d.Verdict, d.Rule, d.Grant = Allow, "grant: "+op+" "+real, id
			d.Reason = fmt.Sprintf("%s of %s allowed by grant %s", op, real, id)
		}
	}
	return d
}

// Protected reports whether real (a resolved absolute path) may never be written by the agent,
// whatever the rules say, and why: the policy's protected directories (policy.Policy.Protected:
// acpterm's config and state directories), any path with a .git component (the .git entry and
// everything beneath it: hooks, config, commondir, gitdir files of worktrees and submodules …,
// in nested repositories too), a file named HEAD or config next to an existing config or HEAD
// file (a bare repository layout git would discover), the shell rc files in $HOME (.bashrc
// .bash_profile .profile .zshrc .zprofile .zshenv .bash_login .bash_logout, .config/fish/**),
// ~/.ssh/**, git's global config (~/.gitconfig, ~/.config/git/config), the directories on
// $PATH with their direct entries (HOME and PATH read through EngineOptions.Getenv), and the
// files this engine itself uses — the grants file, the policy's protected files (the user
// config file, the applied project file), the project file in the session cwd whether or not
// it exists yet (policy.Policy.ProjectFile), the audit log and its head file, the diagnostics
// log (EngineOptions.LogFile). The command analysis uses it for redirect targets too.
func (e *Engine) Protected(real string) (bool, string) {
	if ok, why := isProtected(e.roots.fs, real, e.getenv, e.policy.Protected); ok {
		return true, why
	}
	type ownFile struct{ path, why string }
	own := []ownFile{{e.opts.GrantsFile, "acpterm's grants file (" + e.opts.GrantsFile + ")"}}
	for _, p := range e.policy.Protected {
		if !p.Dir {
			own = append(own, ownFile{p.Path, p.Reason})
		}
	}
	if e.opts.Cwd != "" && filepath.IsAbs(e.opts.Cwd) && e.policy.ProjectFile != "" {
		f := filepath.Join(e.opts.Cwd, e.policy.ProjectFile)
		own = append(own, ownFile{f, "the project policy file (" + f + ")"})
	}
	if e.audit != nil {
		own = append(own, ownFile{e.audit.Path(), "acpterm's audit log (" + e.audit.Path() + ")"},
			ownFile{AuditHeadPath(e.audit.Path()), "acpterm's audit log head (" + AuditHeadPath(e.audit.Path()) + ")"})
	}
	if e.opts.LogFile != "" {
		own = append(own, ownFile{e.opts.LogFile, "acpterm's diagnostics log (" + e.opts.LogFile + ")"})
	}
	for _, o := range own {
		if o.path == "" || !filepath.IsAbs(o.path) {
			continue
		}
		for _, v := range e.roots.fs.variants(o.path) {
			if real == v {
				return true, o.why
			}
		}
	}
	return false, ""
}

// oddFile describes why an existing file needs a person's approval: a symlink (writes only), more
// than one hard link, or not a regular file. "" when it is an ordinary file.
func oddFile(st fs.FileInfo, write bool) string {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		if write {
			return "the target is a symbolic link"
		}
		return ""
	case !st.Mode().IsRegular():
		return fmt.Sprintf("the target is not a regular file (%s)", fileType(st.Mode()))
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
		return fmt.Sprintf("the target has %d hard links (it may be shared with a file outside the roots)", sys.Nlink)
	}
	return ""
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

func (e *Engine) getenv(k string) string {
	if e.opts.Getenv != nil {
		return e.opts.Getenv(k)
	}
	return os.Getenv(k)
}

// matchDenyGlob reports the first glob that matches path. Globs starting with "~/" are expanded
// against $HOME; absolute globs are matched against the requested (cleaned) path and the real
// path; relative globs are matched against the real path relative to every root. A glob that
// matches a parent directory of the path also matches (deny "secrets" covers secrets/key).
func matchDenyGlob(v fsView, globs []string, path, real string, roots []string, getenv func(string) string) (string, bool) {
	clean := v.physicalClean(path)
	for _, g := range globs {
		pat := g
		if pat == "~" || strings.HasPrefix(pat, "~/") {
			if h := getenv("HOME"); h != "" {
				pat = filepath.Join(h, pat[1:])
			}
		}
		if filepath.IsAbs(pat) {
			pat = filepath.Clean(pat)
			if globMatchOrParent(pat, clean, "/") || globMatchOrParent(pat, real, "/") {
				return g, true
			}
			continue
		}
		// Relative: against the path below every root containing it, in its real form and
		// as requested (a link named .env is caught by "**/.env" whatever it points to).
		for _, r := range roots {
			for _, p := range []string{real, clean} {
				if !within(r, p) {
					continue
				}
				rel, err := filepath.Rel(r, p)
				if err != nil || rel == "." {
					continue
				}
				if globMatchOrParent(pat, rel, "") {
					return g, true
				}
			}
		}
	}
	return "", false
}

// globMatchOrParent matches pat against p and each of its ancestors down to stop.
func globMatchOrParent(pat, p, stop string) bool {
	for p != "" && p != "." && p != stop {
		if ok, _ := doublestar.Match(pat, filepath.ToSlash(p)); ok {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	return false
}

// locate resolves path to its real form inside a root and splits it into the root, the
// directory below the root ("." for the root itself) and the entry name.
func (e *Engine) locate(path string) (real, root, dir, name string, err error) {
	real, root, err = e.roots.Resolve(path)
	if err != nil {
		return "", "", "", "", err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return "", "", "", "", fmt.Errorf("%w: %s: %v", ErrOutside, path, err)
	}
	if rel == "." {
		return real, root, ".", "", nil
	}
	dir, name = filepath.Split(rel)
	return real, root, filepath.Clean(dir), name, nil
}

// ReadFile reads a text file for ACP fs/read_text_file, confined to the roots. path must be
// absolute; line (1-based) and limit (number of lines) are optional and, when given, must be
// >= 1 (else ErrInvalid). Lines keep their "\n" endings: line=1,limit=1 of "one\ntwo\n" is
// "one\n"; a line past the end gives "". The file is opened in its checked directory (see
// openDir: openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, else os.Root of its root) without
// following a symlink, must be a regular file (ErrInvalid otherwise); the whole file, or
// the requested lines (streamed, so a slice of a larger file works), may be at most MaxFileBytes
// (ErrTooLarge); invalid UTF-8 becomes U+FFFD. A path denied by deny_read or
// outside the roots is ErrOutside; a missing file ErrNotFound. ReadFile does not ask: the
// caller decides with DecideRead first.
func (e *Engine) ReadFile(path string, line, limit *int) (string, error) {
	if line != nil && *line < 1 {
		return "", fmt.Errorf("%w: line %d of %s: lines are numbered from 1", ErrInvalid, *line, path)
	}
	if limit != nil && *limit < 1 {
		return "", fmt.Errorf("%w: limit %d for %s: must be at least 1", ErrInvalid, *limit, path)
	}
	if d := e.DecideRead(path); d.Verdict == Deny {
		return "", e.fileErr(path, d)
	}
	real, root, dir, name, err := e.locate(path)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", fmt.Errorf("%w: %s is a directory, not a regular file", ErrInvalid, real)
	}
	d, err := openDir(root, dir)
	if err != nil {
		return "", confinedErr(real, err)
	}
	defer d.close()
	if line == nil && limit == nil {
		data, err := readRegular(d, name, real)
		if err != nil {
			return "", err
		}
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	// A slice of a file is streamed, so a few lines of a large log can be read: only what is
	// returned counts against MaxFileBytes.
	f, err := openRegular(d, name, real)
	if err != nil {
		return "", err
	}
	defer f.Close()
	start, lim := 1, -1
	if line != nil {
		start = *line
	}
	if limit != nil {
		lim = *limit
	}
	data, err := readLineSlice(f, start, lim, MaxFileBytes)
	if errors.Is(err, ErrTooLarge) {
		return "", fmt.Errorf("%w: the requested lines of %s exceed %d bytes", ErrTooLarge, real, MaxFileBytes)
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", real, err)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// fileErr turns a deny decision into an error wrapping the matching sentinel.
func (e *Engine) fileErr(path string, d Decision) error {
	if d.Rule == "invalid path" {
		_, _, err := e.roots.Resolve(path)
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("%w: %s", ErrOutside, d.Reason)
}

// readRegular opens the entry name of d (never following a symlink, never blocking on a FIFO)
// and returns its contents (at most MaxFileBytes). Errors name real.
func readRegular(d dirHandle, name, real string) ([]byte, error) {
	f, err := openRegular(d, name, real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", real, err)
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, real, st.Size(), MaxFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", real, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s grew beyond %d bytes", ErrTooLarge, real, MaxFileBytes)
	}
	return data, nil
}

// openRegular opens the entry name of d for reading (no symlink followed, no blocking on a FIFO)
// and checks that it is a regular file (ErrInvalid otherwise).
func openRegular(d dirHandle, name, real string) (*os.File, error) {
	f, err := d.open(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, confinedErr(real, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", real, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a %s, not a regular file", ErrInvalid, real, fileType(st.Mode()))
	}
	return f, nil
}

// readLineSlice streams r and returns limit lines (limit < 0: to the end) starting at the 1-based
// line start, each with its "\n"; a start past the end gives nothing. More than max bytes of
// result is ErrTooLarge.
func readLineSlice(r io.Reader, start, limit, max int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 64<<10)
	cur, taken := 1, 0
	if limit == 0 {
		return nil, nil
	}
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if cur < start { // skipping
				if i < 0 {
					break
				}
				chunk = chunk[i+1:]
				cur++
				continue
			}
			if i < 0 {
				out = append(out, chunk...)
				chunk = nil
			} else {
				out = append(out, chunk[:i+1]...)
				chunk = chunk[i+1:]
				cur++
				taken++
			}
			if len(out) > max {
				return nil, ErrTooLarge
			}
			if limit > 0 && taken == limit {
				return out, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// WriteFile writes content to path for ACP fs/write_text_file, confined to the roots. Missing
// parent directories are created inside the root (os.Root.MkdirAll, mode 0755 before umask).
// In the checked directory (openDir: a component swapped for a symlink after the decision is
// refused) the content goes to a temp file ".<name>.acpterm-<rand>" created with O_EXCL; it is
// fsynced and renamed over the target, so a hard link to an outside file is never written
// through (the outside inode keeps its content). An existing file keeps its permission bits
// (and owner when permitted); a new one gets 0644 minus the umask. It returns the old content
// (for a diff; "" when larger than MaxFileBytes) and whether the file existed. Errors:
// ErrInvalid (relative path, target not a regular file), ErrOutside (outside the roots,
// deny_write, protected path, a symlink swapped in). WriteFile does not ask: the caller decides
// with DecideWrite first.
func (e *Engine) WriteFile(path, content string) (old string, existed bool, err error) {
	if d := e.DecideWrite(path); d.Verdict == Deny {
		return "", false, e.fileErr(path, d)
	}
	real, root, dir, name, err := e.locate(path)
	if err != nil {
		return "", false, err
	}
	if name == "" {
		return "", false, fmt.Errorf("%w: %s is a root directory, not a file", ErrInvalid, real)
	}
	if dir != "." {
		r, err := os.OpenRoot(root)
		if err != nil {
			return "", false, fmt.Errorf("open root %s: %w", root, err)
		}
		err = r.MkdirAll(dir, 0o755)
		r.Close()
		if err != nil {
			return "", false, fmt.Errorf("create parent directories of %s: %w", real, confinedErr(real, err))
		}
	}
	d, err := openDir(root, dir)
	if err != nil {
		return "", false, confinedErr(real, err)
	}
	defer d.close()
	mode := fs.FileMode(0o644)
	uid, gid := -1, -1
	if st, err := d.lstat(name); err == nil {
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			// A symlink whose target resolution appended nothing (e.g. a link loop): the
			// rename below replaces the link itself, never what it points to.
		case !st.Mode().IsRegular():
			return "", false, fmt.Errorf("%w: %s is a %s, not a regular file", ErrInvalid, real, fileType(st.Mode()))
		default:
			existed = true
			mode = st.Mode().Perm()
			if sys, ok := st.Sys().(*syscall.Stat_t); ok {
				uid, gid = int(sys.Uid), int(sys.Gid)
			}
			if st.Size() <= MaxFileBytes {
				if data, err := readRegular(d, name, real); err == nil {
					old = strings.ToValidUTF8(string(data), "\uFFFD")
				}
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("stat %s: %w", real, confinedErr(real, err))
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	short := name
	if len(short) > 200 { // keep the temp name under NAME_MAX (255)
		short = short[:200]
	}
	tmp := "." + short + ".acpterm-" + hex.EncodeToString(rnd[:])
	f, err := d.open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", false, fmt.Errorf("create temp file for %s: %w", real, confinedErr(real, err))
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			_ = d.remove(tmp)
		}
	}()
	if _, err := io.WriteString(f, content); err != nil {
		return "", false, fmt.Errorf("write %s: %w", real, err)
	}
	if existed { // a new file keeps the umask; a replaced one its old mode (and owner, if we may)
		if err := f.Chmod(mode); err != nil {
			return "", false, fmt.Errorf("chmod %s: %w", real, err)
		}
		if uid >= 0 {
			_ = f.Chown(uid, gid)
		}
	}
	if err := f.Sync(); err != nil {
		return "", false, fmt.Errorf("sync %s: %w", real, err)
	}
	if err := f.Close(); err != nil {
		return "", false, fmt.Errorf("close %s: %w", real, err)
	}
	if err := d.rename(tmp, name); err != nil {
		return "", false, fmt.Errorf("rename into %s: %w", real, confinedErr(real, err))
	}
	ok = true
	_ = d.sync()
	return old, existed, nil
}
