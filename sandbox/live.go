package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Live narrows the window in which a protected path the sandboxed command created exists:
// the sweep after the command is only the backstop. Landlock cannot refuse creating a name
// inside a directory it lets the process write (its rules are per directory hierarchy, not
// per name), and a bind mount needs an existing file, so creating such a path cannot be
// prevented; it can only be noticed. Live notices it within milliseconds through inotify,
// watched from acpterm (outside the sandbox, so nothing the command does can remove the
// watches): for every watched path that is absent, the nearest existing directory on its way
// is watched for IN_CREATE and IN_MOVED_TO; a directory created on the way is watched in turn;
// and the moment the path itself appears (created, renamed in, linked) it is moved into the
// quarantine as Sweep would move it. This is detection, not prevention: between the creation
// and the move (the time inotify takes to wake acpterm and a rename) a host process reading
// the path at that very moment can still see it.

// liveMask is what Live watches for in a directory: a name appearing in it, and the directory
// itself going away (then its parent is watched again).
const liveMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// Live starts watching the absent paths of g with inotify until stop is called, moving each
// one into quarantine the moment it appears and calling found (from Live's goroutine; it must
// not block for long) with the Swept that says so (Live set). Sweep returns those findings
// too. stop ends the watching and waits for it; it may be called more than once. Call Live
// before the command starts, stop once it ended, then Sweep.
//
// Errors (the sweep is then the only protection): inotify unavailable (inotify_init1), or no
// watch could be placed (ENOSPC: fs.inotify.max_user_watches reached).
func (g *Watch) Live(quarantine string, found func(Swept)) (stop func(), err error) {
	if len(g.st.Absent) == 0 && len(g.st.Repos) == 0 {
		return func() {}, nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("sandbox: inotify_init1: %w", err)
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sandbox: live watch pipe: %w", err)
	}
	l := &liveWatch{g: g, fd: fd, quarantine: quarantine, found: found, dirs: map[int]string{}, watched: map[string]int{},
		relevant: map[string]bool{}}
	for _, p := range g.st.Absent {
		for d := p; d != "/" && d != "."; d = filepath.Dir(d) {
			l.relevant[d] = true
		}
	}
	err = l.rescan()
	l.gitRescan()
	if err != nil && len(l.dirs) == 0 {
		unix.Close(fd)
		unix.Close(wake[0])
		unix.Close(wake[1])
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(fd)
		defer unix.Close(wake[0])
		l.run(wake[0])
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			_, _ = unix.Write(wake[1], []byte{0})
			<-done
			unix.Close(wake[1])
		})
	}, nil
}

// liveWatch is the state of one Live.
type liveWatch struct {
	g          *Watch
	fd         int
	quarantine string
	found      func(Swept)
	dirs       map[int]string  // watch descriptor → directory
	watched    map[string]int  // directory → watch descriptor
	relevant   map[string]bool // the absent paths and every directory on their way
	gitAll     map[string]bool // directories where a new name may be a git directory (livegit.go)
	gitDirs    map[string]bool // git directories where a new modules/ or worktrees/ matters
	moved      int             // paths found so far
}

// liveReportLimit is how many paths one Live reports one by one; the ones after are moved
// all the same and counted (Sweep says how many).
const liveReportLimit = 32

// run reads inotify events until a byte arrives on wake, rescanning when one concerns a
// watched path or a directory on the way to one.
func (l *liveWatch) run(wake int) {
	buf := make([]byte, 64*1024)
	fds := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		n, err := unix.Read(l.fd, buf)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		again, gitAgain := false, false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				again = true // events were lost: look at everything
			case ev.Mask&unix.IN_IGNORED != 0:
				if d, ok := l.dirs[int(ev.Wd)]; ok {
					delete(l.dirs, int(ev.Wd))
					delete(l.watched, d)
				}
				again = true
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
				again = true
			default:
				if d, ok := l.dirs[int(ev.Wd)]; ok && l.relevant[filepath.Join(d, string(name))] {
					again = true
				}
				if d, ok := l.dirs[int(ev.Wd)]; ok && l.gitRelevant(d, string(name)) {
					gitAgain = true
				}
			}
		}
		if again {
			_ = l.rescan()
		}
		if again || gitAgain {
			l.gitRescan()
		}
	}
}

// rescan watches, for every absent path, the nearest existing directory on its way, then
// moves every absent path that exists now into the quarantine (a watch is placed before the
// path is looked at, so a creation in between still wakes run). Errors: the last watch that
// could not be placed.
func (l *liveWatch) rescan() error {
	var werr error
	for _, p := range l.g.st.Absent {
		d := filepath.Dir(p)
		for d != "/" && d != "." {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				break
			}
			d = filepath.Dir(d)
		}
		if _, ok := l.watched[d]; ok {
			continue
		}
		wd, err := unix.InotifyAddWatch(l.fd, d, liveMask)
		if err != nil {
			werr = fmt.Errorf("sandbox: inotify_add_watch %s: %w", d, err)
			continue
		}
		if old, ok := l.dirs[wd]; ok && old != d {
			delete(l.watched, old) // the same directory under another name
		}
		l.dirs[wd] = d
		l.watched[d] = wd
	}
	for _, p := range l.g.st.Absent {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if was, ok := l.g.st.Where[p]; ok && resolvedDir(filepath.Dir(p)) != was {
			// A directory above it was swapped for a symbolic link: the path now names a
			// file elsewhere, which is not to be moved; Sweep reports it after the command.
			continue
		}
		if l.moved++; l.moved > liveReportLimit {
			// A command creating the same paths over and over: still moved, no longer
			// reported one by one (Sweep says how many more there were).
			if _, ok := removeCreated(p, l.quarantine, time.Now().UTC().Format("20060102T150405.000000000")); ok {
				l.g.mu.Lock()
				l.g.liveMore++
				l.g.mu.Unlock()
			}
			continue
		}
		s, ok := removeCreated(p, l.quarantine, time.Now().UTC().Format("20060102T150405.000000000"))
		if !ok {
			continue
		}
		s.Live = true
		l.g.mu.Lock()
		l.g.live = append(l.g.live, s)
		l.g.mu.Unlock()
		if l.found != nil {
			l.found(s)
		}
	}
	return werr
}
