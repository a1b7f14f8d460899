package acpclient

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Orphan reaping. A terminals.Manager makes acpterm a child subreaper, so processes the agent
// started whose parent died (a tool's `sleep` after its shell was killed, a daemonised helper)
// are re-parented to acpterm, and it must reap them (terminals/doc.go: "whoever spawned them
// should reap them"). Every process of the agent's tree inherits agentMarkerVar=<nonce>. The
// reaper waits only for specific pids it can attribute to the agent (never wait(-1), which would
// steal the exit status of the agent or of a terminal): children of acpterm that carry the
// marker, and zombie children of acpterm in the agent's process group or in a group or session
// where marked processes were seen.
//
// What triggers a sweep (run): SIGCHLD, which the kernel sends to acpterm when one of its
// children (re-parented orphans included) exits, coalesced to at most one sweep per
// sweepGap with a trailing sweep so the last signal of a burst is not lost; and a sweep every
// sweepPeriod, which learns the groups of live marked children before they exit (a zombie
// seen first in an unknown group of its own cannot be attributed). While the agent runs a
// sweep reads only acpterm's own children (/proc/self/task/*/children), not all of /proc: a
// live process that is not our child but sits in an agent group teaches nothing new, since a
// process group lies within one session. Once the agent is gone (finish) every sweep scans
// all of /proc to kill the rest of its tree.

// agentMarkerVar is set in the agent's environment; its value is a per-client nonce.
const agentMarkerVar = "ACPTERM_AGENT"

const (
	// sweepGap is the least time between two SIGCHLD-triggered sweeps.
	sweepGap = 100 * time.Millisecond
	// sweepPeriod is the time between sweeps when no SIGCHLD arrives.
	sweepPeriod = 2 * time.Second
)

type orphanReaper struct {
	marker   []byte // "ACPTERM_AGENT=<nonce>"
	self     int
	selfPgrp int
	selfSid  int
	agentPid int
	seen     map[int]bool // marked children of ours seen alive
	groups   map[int]bool // process groups / sessions of the agent's tree

	noChildren bool   // /proc/self/task/*/children is missing (no CONFIG_PROC_CHILDREN): scan /proc
	buf        []byte // scratch for reading /proc files
	pids       []int  // scratch for the children list
}

func newMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newOrphanReaper(nonce string, agentPid int) *orphanReaper {
	r := &orphanReaper{
		marker: []byte(agentMarkerVar + "=" + nonce), self: os.Getpid(), agentPid: agentPid,
		seen: map[int]bool{}, groups: map[int]bool{},
		buf: make([]byte, 4096),
	}
	r.selfPgrp = syscall.Getpgrp()
	r.selfSid, _ = unix.Getsid(0)
	r.addGroup(agentPid)
	return r
}

// addGroup records id as a process group or session of the agent's tree. Zero is never one:
// in a PID namespace /proc shows 0 for a group or session whose leader lives outside it (a
// container's processes, acpterm's own among them), so 0 attributes nothing. Nor are
// acpterm's own group and session.
func (r *orphanReaper) addGroup(id int) {
	if id > 0 && id != r.selfPgrp && id != r.selfSid {
		r.groups[id] = true
	}
}

// inGroup reports whether id is a process group or session of the agent's tree (addGroup).
func (r *orphanReaper) inGroup(id int) bool {
	return id > 0 && r.groups[id]
}

// watchSIGCHLD returns a channel that receives SIGCHLD (buffered: a pending signal stands for
// any number). Notify does not disturb os/exec, which waits for its own pids (wait4(pid)).
func watchSIGCHLD() chan os.Signal {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	return sigs
}

// run sweeps when sigs (from watchSIGCHLD) receives, at most once per gap with a trailing
// sweep after a burst, and every period, until final is closed; then it kills and reaps what
// is left of the agent's tree (finish), stops sigs and returns.
func (r *orphanReaper) run(sigs chan os.Signal, final <-chan struct{}, gap, period time.Duration) {
	defer signal.Stop(sigs)
	tick := time.NewTicker(period)
	defer tick.Stop()
	trail := time.NewTimer(gap)
	trail.Stop()
	defer trail.Stop()
	trailing := false // trail is armed
	var last time.Time
	for {
		select {
		case <-sigs:
			if trailing {
				continue // the trailing sweep is already due
			}
			if wait := gap - time.Since(last); wait > 0 {
				trail.Reset(wait)
				trailing = true
				continue
			}
		case <-trail.C:
			trailing = false
		case <-tick.C:
		case <-final:
			r.finish(2 * time.Second)
			return
		}
		r.sweep(false)
		last = time.Now()
	}
}

type pstat struct {
	state           byte
	ppid, pgrp, sid int
}

// readProc reads the whole of a /proc file into r.buf (grown as needed; valid until the next
// call) without the allocations of os.ReadFile.
func (r *orphanReaper) readProc(path string) ([]byte, error) {
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

func (r *orphanReaper) readPstat(pid int) (pstat, bool) {
	b, err := r.readProc("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return pstat{}, false
	}
	return parseStat(b)
}

// parseStat reads state, ppid, pgrp and session, the four fields after the command name's
// closing parenthesis in /proc/PID/stat (proc(5)), without allocating.
func parseStat(b []byte) (pstat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return pstat{}, false
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
		return pstat{}, false
	}
	return pstat{state: f[0][0], ppid: ppid, pgrp: pgrp, sid: sid}, true
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

// parseChildren appends to dst the pids of a /proc/PID/task/TID/children file (proc(5):
// space-separated decimal pids) and returns it; anything that is not a pid is skipped.
func parseChildren(b []byte, dst []int) []int {
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

// children lists acpterm's child processes, zombies included, from the children file of every
// thread (an orphan is re-parented to any thread of the subreaper). ok is false when the
// kernel has no such files (CONFIG_PROC_CHILDREN unset).
func (r *orphanReaper) children() (pids []int, ok bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	r.pids = r.pids[:0]
	for i, t := range tasks {
		b, err := r.readProc("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			if i == 0 && errors.Is(err, unix.ENOENT) {
				return nil, false
			}
			continue // the thread exited
		}
		r.pids = parseChildren(b, r.pids)
	}
	return r.pids, true
}

func (r *orphanReaper) marked(pid int) bool {
	env, err := r.readProc("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for len(env) > 0 {
		kv := env
		if j := bytes.IndexByte(env, 0); j >= 0 {
			kv, env = env[:j], env[j+1:]
		} else {
			env = nil
		}
		if bytes.Equal(kv, r.marker) {
			return true
		}
	}
	return false
}

// sweep reaps attributable zombie children; with kill it also sends SIGKILL to every live
// process of the agent's tree (the agent is gone). Without kill it looks only at acpterm's
// children (all of /proc if the kernel does not list them); with kill, at all of /proc. It
// returns how many attributable processes are still around (live marked ones when kill, plus
// unreaped zombies).
func (r *orphanReaper) sweep(kill bool) int {
	left := 0
	if !kill && !r.noChildren {
		pids, ok := r.children()
		if ok {
			for _, pid := range pids {
				left += r.visit(pid, false)
			}
			return left
		}
		r.noChildren = true
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			left += r.visit(pid, kill)
		}
	}
	return left
}

// visit handles one process for sweep and returns 1 if it is attributable and still around.
func (r *orphanReaper) visit(pid int, kill bool) int {
	if pid == r.self || pid == r.agentPid {
		return 0
	}
	st, ok := r.readPstat(pid)
	if !ok {
		return 0
	}
	inTree := r.inGroup(st.pgrp) || r.inGroup(st.sid)
	if st.state == 'Z' {
		if st.ppid == r.self && (r.seen[pid] || inTree) {
			delete(r.seen, pid)
			var ws unix.WaitStatus
			if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got != pid {
				return 1
			}
			return 0
		}
		if kill && inTree {
			return 1 // its parent is dying too: it comes to us (the subreaper) next
		}
		return 0
	}
	// Live: only our children and, when killing, everything, need the environment read.
	if st.ppid != r.self && !kill && !r.inGroup(st.pgrp) {
		return 0
	}
	if !r.marked(pid) {
		if kill && st.ppid == r.self && inTree {
			// Exiting: its environment is gone before it turns into a zombie. Wait for that
			// rather than stop sweeping and leave the zombie unreaped.
			return 1
		}
		return 0
	}
	r.addGroup(st.pgrp)
	r.addGroup(st.sid)
	if st.ppid == r.self {
		r.seen[pid] = true
	}
	if kill {
		_ = unix.Kill(pid, unix.SIGKILL)
		return 1
	}
	return 0
}

// finish kills what is left of the agent's tree and reaps it, for at most d.
func (r *orphanReaper) finish(d time.Duration) {
	deadline := time.Now().Add(d)
	for r.sweep(true) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}
