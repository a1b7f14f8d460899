// Package proctree finds, kills and reaps the processes of a tree on Linux, for acpterm's
// terminals and its agent process: becoming a child subreaper, reading /proc/PID/stat and the
// children lists of /proc/self/task/*, scanning environments for a marker variable, and
// kill-and-reap that waits only for the exact pids it was given (never wait(-1), which would
// steal the exit status of a child someone else waits for).
//
// Everything here reads /proc (proc(5)); nothing keeps state between calls except a Reader's
// scratch buffer.
package proctree

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once
var subreaperErr error

// BecomeSubreaper makes the calling process a child subreaper (prctl(PR_SET_CHILD_SUBREAPER)),
// once per process: a descendant whose parent dies is then re-parented to this process rather
// than to init, so it can still be found and reaped. The side effect is that orphans of every
// descendant come here, and whoever started them should reap them. It returns the prctl error
// (the same one on every call).
func BecomeSubreaper() error {
	subreaperOnce.Do(func() {
		subreaperErr = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
	return subreaperErr
}

// Stat holds the fields of /proc/PID/stat that process-tree decisions need.
type Stat struct {
	State byte // 'R', 'S', 'Z', 'T', …
	PPid  int  // parent
	Pgrp  int  // process group; 0 inside a PID namespace when the leader is outside it
	Sid   int  // session; 0 likewise
}

// ParseStat reads state, ppid, pgrp and session, the four fields after the command name's
// closing parenthesis in a /proc/PID/stat line (the name may contain anything, parentheses
// included), without allocating. ok is false for a malformed line.
func ParseStat(b []byte) (st Stat, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	var f [4][]byte
	rest := b[i+1:]
	for k := range f {
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexAny(rest, " \n")
		if j < 0 {
			j = len(rest)
		}
		f[k], rest = rest[:j], rest[j:]
	}
	ppid, ok1 := atoi(f[1])
	pgrp, ok2 := atoi(f[2])
	sid, ok3 := atoi(f[3])
	if len(f[0]) != 1 || !ok1 || !ok2 || !ok3 {
		return Stat{}, false
	}
	return Stat{State: f[0][0], PPid: ppid, Pgrp: pgrp, Sid: sid}, true
}

// atoi parses a non-negative decimal of at most 9 digits (pids fit: pid_max <= 2^22).
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ParseChildren appends to dst the pids of a /proc/PID/task/TID/children file (space-separated
// decimal pids) and returns it; anything that is not a pid is skipped.
func ParseChildren(b []byte, dst []int) []int {
	for len(b) > 0 {
		j := bytes.IndexAny(b, " \n")
		if j < 0 {
			j = len(b)
		}
		if pid, ok := atoi(b[:j]); ok && pid > 0 {
			dst = append(dst, pid)
		}
		if j < len(b) {
			j++
		}
		b = b[j:]
	}
	return dst
}

// Reader reads /proc files into a reused buffer, without the allocations of os.ReadFile. A
// Reader is not safe for concurrent use; the zero value is ready.
type Reader struct {
	buf  []byte
	pids []int
}

// Read returns the whole of a /proc file; the slice is valid until the next call on r.
func (r *Reader) Read(path string) ([]byte, error) {
	if len(r.buf) == 0 {
		r.buf = make([]byte, 4096)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := unix.Read(fd, r.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

// Stat reads /proc/PID/stat; ok is false when the process is gone or the line is malformed.
func (r *Reader) Stat(pid int) (Stat, bool) {
	b, err := r.Read("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	return ParseStat(b)
}

// Children lists the calling process's children, zombies included, from the children file of
// every thread (an orphan is re-parented to any thread of a subreaper). The slice is valid
// until the next call on r. ok is false when the kernel has no such files
// (CONFIG_PROC_CHILDREN unset).
func (r *Reader) Children() (pids []int, ok bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	r.pids = r.pids[:0]
	for i, t := range tasks {
		b, err := r.Read("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			if i == 0 && errors.Is(err, unix.ENOENT) {
				return nil, false
			}
			continue // the thread exited
		}
		r.pids = ParseChildren(b, r.pids)
	}
	return r.pids, true
}

// Env returns pid's environment as it was when the process started (/proc/PID/environ:
// NUL-separated "NAME=value" entries). It fails for a process that is gone, and for one whose
// environment this process may not read; a zombie's is empty. The slice is valid until the next
// call on r.
func (r *Reader) Env(pid int) ([]byte, error) {
	return r.Read("/proc/" + strconv.Itoa(pid) + "/environ")
}

// EnvLookup returns the value of the first "NAME=" entry of env (as Env returns it).
func EnvLookup(env []byte, name string) (value []byte, found bool) {
	for len(env) > 0 {
		kv := env
		if j := bytes.IndexByte(env, 0); j >= 0 {
			kv, env = env[:j], env[j+1:]
		} else {
			env = nil
		}
		if len(kv) > len(name) && kv[len(name)] == '=' && string(kv[:len(name)]) == name {
			return kv[len(name)+1:], true
		}
	}
	return nil, false
}

// ReadStat reads /proc/PID/stat with a fresh buffer (for callers without a Reader).
func ReadStat(pid int) (Stat, bool) {
	var r Reader
	return r.Stat(pid)
}

// Pids lists every pid in /proc (processes, not threads), unordered.
func Pids() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// KillAndReap sends SIGKILL to pids and waits, at most bound, until each is gone (Reap).
func KillAndReap(pids []int, bound time.Duration) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	Reap(pids, bound)
}

// Reap waits, at most bound, until each of pids is gone, reaping with wait4 on that exact pid
// the ones that are (or become, through subreaping) children of this process; a zombie that is
// not our child is left to its parent. It never waits for any other pid.
func Reap(pids []int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	pending := pids
	var r Reader
	self := os.Getpid()
	for len(pending) > 0 {
		next := pending[:0]
		for _, pid := range pending {
			var ws unix.WaitStatus
			got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			if got == pid {
				continue
			}
			st, alive := r.Stat(pid)
			if !alive || (st.State == 'Z' && st.PPid != self) {
				continue
			}
			if err != nil && !errors.Is(err, unix.ECHILD) {
				continue
			}
			next = append(next, pid)
		}
		pending = next
		if len(pending) == 0 || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Alive reports whether any of pids still runs (exists and is not a zombie).
func Alive(pids []int) bool {
	var r Reader
	for _, pid := range pids {
		if st, ok := r.Stat(pid); ok && st.State != 'Z' {
			return true
		}
	}
	return false
}

// FindMarked lists processes other than this one and skip that belong to a tree marked by the
// environment variable name: live ones whose value of name is accepted by match, plus, when
// sid > 0, live members of session (or group) sid that carry no value of name at all, and
// zombies of that session that are this process's children (a zombie's environment is gone).
// Requiring "no marker" of session members keeps a recycled session id from pointing at
// another tree's processes.
func FindMarked(name string, match func(value string) bool, sid, skip int) []int {
	self := os.Getpid()
	var r Reader
	var pids []int
	for _, pid := range Pids() {
		if pid == self || pid == skip {
			continue
		}
		st, ok := r.Stat(pid)
		if !ok {
			continue
		}
		inSession := sid > 0 && (st.Sid == sid || st.Pgrp == sid)
		if st.State == 'Z' {
			if inSession && st.PPid == self {
				pids = append(pids, pid)
			}
			continue
		}
		env, err := r.Env(pid)
		if err != nil {
			continue
		}
		v, marked := EnvLookup(env, name)
		if (marked && match(string(v))) || (inSession && !marked) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Descendants lists every live or zombie process below root (its children, theirs, and so on),
// read from the parent field of each /proc/PID/stat in one scan of /proc. A process that forks
// during the scan may be missed: callers that kill a tree call it again until it is empty.
func Descendants(root int) []int {
	var r Reader
	parent := map[int]int{}
	for _, pid := range Pids() {
		if st, ok := r.Stat(pid); ok {
			parent[pid] = st.PPid
		}
	}
	var out []int
	for pid := range parent {
		for p, hops := parent[pid], 0; p > 0 && hops < len(parent); p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
