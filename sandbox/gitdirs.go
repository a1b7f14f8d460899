package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Git reaches some git directories without the user naming them: below a repository's git
// directory, modules/NAME is the git directory of its submodule NAME (a plain `git status` in
// the superproject enters every submodule that the index records as a gitlink and .gitmodules
// names, and runs that directory's config there: core.fsmonitor, hooks), modules/NAME/modules/SUB
// that of a nested submodule, and worktrees/NAME the administrative directory of a linked
// worktree (its config.worktree and commondir are read by git run in that worktree). The
// mount namespace can protect only those that exist when a command starts, so a Watch notes
// every entry below modules/ and worktrees/ then, and Sweep moves each new one into the
// quarantine, as it does a created protected file.

// gitRepo is a repository git is used in: its git directory and the working tree where git
// finds it.
type gitRepo struct {
	Dir  string `json:"dir"`
	Work string `json:"work"`
}

// gitSub is one entry below a repository's modules/ or worktrees/ directory.
type gitSub struct {
	path string
	what string // "submodule foo", "submodule bar of submodule foo", "worktree w"
	work string // the working tree of the repository it was found in
	tree bool   // a linked worktree's administrative directory (or below one)
}

// gitSubDepth bounds the nesting of submodules and worktrees walkGitSubs follows.
const gitSubDepth = 8

// gitRepos returns the repositories of a root walk's .git entries: each .git directory (its
// working tree the directory it is in), and the git directory a .git file names when it lies
// in a root (a submodule's or worktree's .git file; targets elsewhere are not writable
// in the sandbox). Without duplicates.
func gitRepos(entries, roots []string) []gitRepo {
	seen := map[string]bool{}
	var out []gitRepo
	for _, p := range entries {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		dir := p
		if !fi.IsDir() {
			t := readGitdirFile(p)
			if t == "" {
				continue
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			r, err := filepath.EvalSymlinks(t)
			if err != nil || !inAny(r, roots) {
				continue
			}
			dir = r
		}
		if !seen[dir] {
			seen[dir] = true
			out = append(out, gitRepo{Dir: dir, Work: filepath.Dir(p)})
		}
	}
	return out
}

func inAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// walkGitSubs calls visit for every entry below modules/ and worktrees/ of each repo, and,
// where visit returns true, goes on below it: into a git directory's own modules/ and
// worktrees/ (a directory with a HEAD: nested submodules), or into a directory without
// HEAD as part of a submodule name with slashes ("a/b"). Symbolic links are visited, not
// followed. At most gitSubDepth levels and walkLimit entries in all.
func walkGitSubs(repos []gitRepo, visit func(gitSub) bool) {
	n := 0
	var inGitDir func(dir, work, of string, tree bool, depth int)
	var inContainer func(dir, prefix, work, of string, tree, worktrees bool, depth int)
	inGitDir = func(dir, work, of string, tree bool, depth int) {
		if depth > gitSubDepth {
			return
		}
		inContainer(filepath.Join(dir, "modules"), "", work, of, tree, false, depth)
		inContainer(filepath.Join(dir, "worktrees"), "", work, of, tree, true, depth)
	}
	inContainer = func(dir, prefix, work, of string, tree, worktrees bool, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if n++; n > walkLimit {
				return
			}
			p := filepath.Join(dir, e.Name())
			name := prefix + e.Name()
			what := "submodule " + name
			if worktrees {
				what = "worktree " + name
			}
			if of != "" {
				what += " of " + of
			}
			s := gitSub{path: p, what: what, work: work, tree: tree || worktrees}
			if !visit(s) || !e.IsDir() {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil && !fi.IsDir() || worktrees {
				inGitDir(p, work, what, s.tree, depth+1)
			} else {
				inContainer(p, name+"/", work, of, tree, worktrees, depth+1)
			}
		}
	}
	for _, r := range repos {
		inGitDir(r.Dir, r.Work, "", false, 0)
	}
}

// gitSubUse says where git would use a new entry below modules/ or worktrees/.
func gitSubUse(s gitSub) string {
	if s.tree {
		// worktrees/NAME/gitdir holds the path of the worktree's .git file.
		if b, err := os.ReadFile(filepath.Join(s.path, "gitdir")); err == nil && len(b) < 4096 {
			if t := strings.TrimSpace(string(b)); filepath.IsAbs(t) {
				return "git in " + filepath.Dir(t) + " would run its config: " + s.what + " of " + s.work
			}
		}
		return "git in a linked worktree of " + s.work + " would run its config: " + s.what
	}
	return "git status in " + s.work + " would run its config: " + s.what
}

// gitEntryUse says where git would use a new .git entry p (a directory, or a file naming
// a git directory).
func gitEntryUse(p string) string {
	if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
		if t := readGitdirFile(p); t != "" {
			return "git in " + filepath.Dir(p) + " would use the git directory it names (" + t + ") and run its config"
		}
		return "git in " + filepath.Dir(p) + " would read it"
	}
	return "git in " + filepath.Dir(p) + " would run its hooks and config"
}
