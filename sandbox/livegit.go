package sandbox

import (
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Live also watches the git directories a Watch knows for new entries below modules/ and
// worktrees/ (a planted submodule or worktree git directory, see gitdirs.go): each one is
// moved into the quarantine the moment it appears, not only after the command. Watched are
// each repository's git directory (for a modules/ or worktrees/ being made), those two
// directories, and every directory below them that existed when the command started (nested
// submodules, names with slashes). A new .git in a root is left to the sweep after the
// command: watching every directory of the roots would cost a watch each.

// gitWatchDirs returns the directories Live watches for new git directories: all maps a
// directory in which any new name matters (modules/, worktrees/ and the known entries below
// them), and gitDirs the repositories' git directories, where only a new "modules" or
// "worktrees" does.
func gitWatchDirs(repos []gitRepo, known map[string]bool) (all, gitDirs map[string]bool) {
	all, gitDirs = map[string]bool{}, map[string]bool{}
	for _, r := range repos {
		gitDirs[r.Dir] = true
		all[filepath.Join(r.Dir, "modules")] = true
		all[filepath.Join(r.Dir, "worktrees")] = true
	}
	walkGitSubs(repos, func(s gitSub) bool {
		if !known[s.path] {
			return false
		}
		all[s.path] = true
		all[filepath.Join(s.path, "modules")] = true
		all[filepath.Join(s.path, "worktrees")] = true
		return true
	})
	return all, gitDirs
}

// gitRelevant reports whether an event for name in the watched directory dir may concern a
// new git directory.
func (l *liveWatch) gitRelevant(dir, name string) bool {
	if l.gitAll[dir] {
		return true
	}
	return l.gitDirs[dir] && (name == "modules" || name == "worktrees")
}

// gitRescan places the watches gitWatchDirs names (those that exist), then moves every entry
// below modules/ and worktrees/ that the Watch did not know into the quarantine, reporting
// each as rescan does (a watch is placed before the walk, so a creation in between still
// wakes run).
func (l *liveWatch) gitRescan() {
	if len(l.g.st.Repos) == 0 {
		return
	}
	l.gitAll, l.gitDirs = gitWatchDirs(l.g.st.Repos, l.g.subs)
	for _, m := range []map[string]bool{l.gitDirs, l.gitAll} {
		for d := range m {
			if _, ok := l.watched[d]; ok {
				continue
			}
			wd, err := unix.InotifyAddWatch(l.fd, d, liveMask)
			if err != nil {
				continue // absent (yet): its parent is watched
			}
			if old, ok := l.dirs[wd]; ok && old != d {
				delete(l.watched, old)
			}
			l.dirs[wd] = d
			l.watched[d] = wd
		}
	}
	var subs []gitSub
	walkGitSubs(l.g.st.Repos, func(s gitSub) bool {
		if l.g.subs[s.path] {
			return true
		}
		subs = append(subs, s)
		return false
	})
	for _, s := range subs {
		sw := quarantineOne(s.path, l.quarantine, time.Now().UTC().Format("20060102T150405.000000000"), gitSubUse(s))
		if l.moved++; l.moved > liveReportLimit {
			l.g.mu.Lock()
			l.g.liveMore++
			l.g.mu.Unlock()
			continue
		}
		sw.Live = true
		l.g.mu.Lock()
		l.g.live = append(l.g.live, sw)
		l.g.mu.Unlock()
		if l.found != nil {
			l.found(sw)
		}
	}
}
