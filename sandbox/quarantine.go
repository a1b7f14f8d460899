package sandbox

import (
	"fmt"
	"golang.org/x/sys/unix"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Neither Landlock nor a bind mount can stop a sandboxed process from creating a file that
// does not exist yet inside a writable root (Landlock cannot exclude a name below a
// writable directory, a bind needs an existing mount point, and creating a placeholder
// would change what the host sees: an empty .git/commondir breaks git). Some of those
// names make code run outside the sandbox the next time the host reads them: git follows a
// new .git/commondir to a planted config (core.fsmonitor), reads a new config.worktree,
// acpterm reads a new .acpterm.toml or its own config, a shell reads a new rc file. So
// they are detected instead: a Watch lists the ones absent when a command starts; Live
// (live.go) moves each into a quarantine directory, where nothing reads it, the moment it
// appears while the command runs; and Sweep, once everything the command started has ended,
// moves every one that exists then, as a backstop, and says what was removed.

// WatchCandidates returns the paths a Watch watches for a spec: below each git directory
// (spec.Pin) commondir, config.worktree and config; in each root and each repository's
// working tree (a Pin ending in /.git) .acpterm.toml and projectFiles; home's
// rcFiles with .config/git/config and .config/fish/config.fish; and extra (acpterm's own
// config and state directories). Only paths inside a writable root or spec.Write are
// kept: Landlock already refuses creating anything elsewhere.
func WatchCandidates(spec *Spec, home string, extra []string) []string {
	var c []string
	for _, g := range spec.Pin {
		c = append(c, filepath.Join(g, "commondir"), filepath.Join(g, "config.worktree"), filepath.Join(g, "config"))
	}
	// Project directories: each root and each repository's working tree in it.
	projects := append([]string(nil), spec.Roots...)
	for _, g := range spec.Pin {
		if filepath.Base(g) == ".git" {
			projects = append(projects, filepath.Dir(g))
		}
	}
	for _, r := range projects {
		c = append(c, filepath.Join(r, ".acpterm.toml"))
		for _, f := range projectFiles {
			c = append(c, filepath.Join(r, f))
		}
	}
	if home != "" {
		for _, f := range append(append([]string(nil), rcFiles...), ".config/git/config", ".config/fish/config.fish") {
			c = append(c, filepath.Join(home, f))
		}
	}
	c = append(c, extra...)
	seen := map[string]bool{}
	var out []string
	for _, p := range c {
		if !filepath.IsAbs(p) || seen[p] {
			continue
		}
		seen[p] = true
		for _, w := range append(append([]string(nil), spec.Roots...), spec.Write...) {
			if within(p, w) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Swept is one finding of Sweep or Live: the path and the message saying what was done.
type Swept struct {
	Path    string
	Message string
	// Live is true for a path Live moved while the command ran (already handed to its
	// found callback), false for one the sweep after the command found.
	Live bool
}

func swept(p, format string, a ...any) Swept {
	return Swept{Path: p, Message: fmt.Sprintf(format, a...)}
}

// Watch remembers, for one sandboxed command, which watched paths were absent, which .git
// entries existed in the roots and which entries existed below their git directories'
// modules/ and worktrees/ when it started.
type Watch struct {
	st      watchState
	gits    map[string]bool
	subs    map[string]bool
	journal *os.File      // the journal entry while the command may run (see Journal); nil: none
	synced  chan struct{} // closed once the journal entry is synced to disk
	syncErr error         // why it could not be, read after synced is closed

	mu       sync.Mutex
	live     []Swept // what Live moved and reported, in order
	liveMore int     // what Live moved beyond liveReportLimit
}

// watchState is what a Watch knows, as a journal entry stores it.
type watchState struct {
	Absent []string `json:"absent"`
	// Where maps each absent path to where its parent directory really was when the command
	// started (resolvedDir): the sweep touches a path only while that still holds, so a
	// directory the command swapped for a symbolic link never leads it outside the roots.
	Where   map[string]string `json:"where,omitempty"`
	Gits    []string          `json:"gits"`
	Repos   []gitRepo         `json:"repos"`
	Subs    []string          `json:"subs"`
	Roots   []string          `json:"roots"`
	Label   string            `json:"label,omitempty"`
	Started time.Time         `json:"started"`
}

// NewWatch records which of candidates (see WatchCandidates) do not exist now, every .git
// directory or file in roots (node_modules not searched, at most walkLimit entries per root)
// and every entry below those git directories' modules/ and worktrees/ (nested submodules
// too). Call it before the command starts.
func NewWatch(candidates, roots []string) *Watch {
	st := watchState{Roots: roots, Started: time.Now().UTC(), Where: map[string]string{}}
	for _, p := range candidates {
		if _, err := os.Lstat(p); err != nil {
			st.Absent = append(st.Absent, p)
			st.Where[p] = resolvedDir(filepath.Dir(p))
		}
	}
	st.Gits = gitEntries(roots)
	st.Repos = gitRepos(st.Gits, roots)
	walkGitSubs(st.Repos, func(s gitSub) bool {
		st.Subs = append(st.Subs, s.path)
		return true
	})
	return watchFrom(st)
}

func watchFrom(st watchState) *Watch {
	g := &Watch{st: st, gits: map[string]bool{}, subs: map[string]bool{}}
	for _, p := range st.Gits {
		g.gits[p] = true
	}
	for _, p := range st.Subs {
		g.subs[p] = true
	}
	return g
}

// Watched returns the absent paths the watch holds.
func (g *Watch) Watched() []string { return append([]string(nil), g.st.Absent...) }

// gitEntries returns every .git entry below roots.
func gitEntries(roots []string) []string {
	var out []string
	for _, root := range roots {
		n := 0
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > walkLimit {
				return fs.SkipAll
			}
			if d.Name() == ".git" {
				out = append(out, p)
				if d.IsDir() {
					return fs.SkipDir
				}
			} else if d.IsDir() && d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		})
	}
	return out
}

// Sweep moves into quarantine (created 0700 when missing), under a name made of the time and
// the path, every watched path that exists now, every new entry below the git directories'
// modules/ and worktrees/ (a planted submodule or worktree git directory), and every new .git
// directory or file in the roots (a repository the command made), and returns one Swept per
// path it moved or failed to move ("sandbox: removed /p/.git/commondir, created by the
// sandboxed command (moved to Q/…)"; for git directories followed by where git would run
// their config: ": git status in /p would run its config: submodule foo"). Call it once
// nothing the command started runs any more; it ends the journal entry (see Journal) once
// done. What Live moved meanwhile comes first (Live set); call Live's stop before. nil when
// nothing was created.
func (g *Watch) Sweep(quarantine string) []Swept {
	defer g.endJournal()
	syncWarning := g.journalSyncWarning()
	g.mu.Lock()
	msgs := append([]Swept(nil), g.live...)
	if syncWarning != "" {
		msgs = append(msgs, swept("", "%s", syncWarning))
	}
	if g.liveMore > 0 {
		msgs = append(msgs, swept("", "sandbox: warning: the sandboxed command created watched paths %d more times; each was moved into %s as well", g.liveMore, quarantine))
	}
	g.mu.Unlock()
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	var created []string
	for _, p := range g.st.Absent {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if was, ok := g.st.Where[p]; ok {
			if now := resolvedDir(filepath.Dir(p)); now != was {
				msgs = append(msgs, swept(p, "sandbox: %s appeared while a sandboxed command ran, but a directory above it is no longer what it was (it was %s, it now leads to %s): acpterm left it alone; check it before using git or acpterm there", p, was, now))
				continue
			}
		}
		created = append(created, p)
	}
	for _, p := range created {
		if m, ok := removeCreated(p, quarantine, stamp); ok {
			msgs = append(msgs, m)
		}
	}
	// Git directories below the ones the command found: a planted submodule or worktree.
	var subs []gitSub
	walkGitSubs(g.st.Repos, func(s gitSub) bool {
		if g.subs[s.path] {
			return true
		}
		subs = append(subs, s)
		return false
	})
	for _, s := range subs {
		msgs = append(msgs, quarantineOne(s.path, quarantine, stamp, gitSubUse(s)))
	}
	for _, p := range gitEntries(g.st.Roots) {
		if !g.gits[p] {
			msgs = append(msgs, quarantineOne(p, quarantine, stamp, gitEntryUse(p)))
		}
	}
	return msgs
}

// resolvedDir is where directory d really is: its deepest existing ancestor with symbolic
// links resolved, joined with the part below it that does not exist yet.
func resolvedDir(d string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Join(d, rest)
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// quarantineOne moves p into quarantine, or, when it cannot be moved there (another file
// system), renames it beside itself to a name nothing reads ("NAME.acpterm-quarantined-STAMP");
// it never deletes. It says what it did; use, when not "", says where git would have run it
// and ends the message.
func quarantineOne(p, quarantine, stamp, use string) Swept {
	tail := ""
	if use != "" {
		tail = ": " + use
		// A git directory found below the roots (whose paths are real): every directory above
		// it must still be one, not a symbolic link the command put there, or the move would
		// take files from wherever that link leads.
		if dir := filepath.Dir(p); resolvedDir(dir) != dir {
			return swept(p, "sandbox: %s appeared while a sandboxed command ran, but a directory above it now leads to %s: acpterm left it alone; check it before using git there%s", p, resolvedDir(dir), tail)
		}
	}
	// The move goes through a descriptor of p's directory, opened where that directory really
	// is with no symbolic link on the way (openat2 RESOLVE_NO_SYMLINKS): a command still
	// running cannot swap a directory above p for a link between this check and the rename,
	// and so never makes acpterm move a file from outside the roots.
	realDir := resolvedDir(filepath.Dir(p))
	dirFD, err := unix.Openat2(unix.AT_FDCWD, realDir, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return swept(p, "sandbox: %s appeared while a sandboxed command ran, but its directory %s could not be opened without following a symbolic link (%v): acpterm left it alone; check it before using git or acpterm there%s", p, realDir, err, tail)
	}
	defer unix.Close(dirFD)
	name := filepath.Base(p)
	dst := filepath.Join(quarantine, stamp+strings.ReplaceAll(p, "/", "%"))
	err = os.MkdirAll(quarantine, 0o700)
	if err == nil {
		err = unix.Renameat(dirFD, name, unix.AT_FDCWD, dst)
	}
	if err != nil {
		// Not movable there: rename it where it is, so the host never reads it by its name.
		beside := p + ".acpterm-quarantined-" + stamp
		if rerr := unix.Renameat(dirFD, name, dirFD, filepath.Base(beside)); rerr != nil {
			return swept(p, "sandbox: %s was created by the sandboxed command and could NOT be moved away (%v; %v): remove it before using git or acpterm here%s", p, err, rerr, tail)
		}
		return swept(p, "sandbox: removed %s, created by the sandboxed command (renamed to %s: the quarantine is on another file system)%s", p, beside, tail)
	}
	return swept(p, "sandbox: removed %s, created by the sandboxed command (moved to %s)%s", p, dst, tail)
}

// removeCreated moves p, a watched path the sandboxed command created, into quarantine
// (quarantineOne), or removes it when the quarantine lies inside it, and says what it did;
// false when p no longer exists (gone meanwhile, or inside one removed before).
func removeCreated(p, quarantine, stamp string) (Swept, bool) {
	if _, err := os.Lstat(p); err != nil {
		return Swept{}, false
	}
	if within(quarantine, p) {
		// The command made a directory the quarantine lies in: nothing of it is kept.
		if err := os.RemoveAll(p); err != nil {
			return swept(p, "sandbox: %s was created by the sandboxed command and could NOT be removed (%v): remove it before using git or acpterm here", p, err), true
		}
		return swept(p, "sandbox: removed %s, created by the sandboxed command", p), true
	}
	return quarantineOne(p, quarantine, stamp, ""), true
}
