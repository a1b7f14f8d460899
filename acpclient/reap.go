package acpclient

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpterm/acpterm/internal/proctree"
)

// Orphan reaping. A terminals.Manager makes acpterm a child subreaper, so processes the agent
// started whose parent died (a tool's `sleep` after its shell was killed, a daemonised helper)
// are re-parented to acpterm, and it must reap them (whoever spawned them should). Every process of the agent's tree inherits agentMarkerVar=<nonce>. The
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
	nonce    string // the value of agentMarkerVar in the agent's tree
	self     int
	selfPgrp int
	selfSid  int
	agentPid int
	seen     map[int]bool // marked children of ours seen alive
	groups   map[int]bool // process groups / sessions of the agent's tree

	noChildren bool            // /proc/self/task/*/children is missing (no CONFIG_PROC_CHILDREN): scan /proc
	proc       proctree.Reader // reads /proc without allocating
}

func newMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newOrphanReaper(nonce string, agentPid int) *orphanReaper {
	r := &orphanReaper{
		nonce: nonce, self: os.Getpid(), agentPid: agentPid,
		seen: map[int]bool{}, groups: map[int]bool{},
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

// marked reports whether pid carries the agent's marker (agentMarkerVar=<nonce>).
func (r *orphanReaper) marked(pid int) bool {
	env, err := r.proc.Env(pid)
	if err != nil {
		return false
	}
	v, ok := proctree.EnvLookup(env, agentMarkerVar)
	return ok && string(v) == r.nonce
}

// sweep reaps attributable zombie children; with kill it also sends SIGKILL to every live
// process of the agent's tree (the agent is gone). Without kill it looks only at acpterm's
// children (all of /proc if the kernel does not list them); with kill, at all of /proc. It
// returns how many attributable processes are still around (live marked ones when kill, plus
// unreaped zombies).
func (r *orphanReaper) sweep(kill bool) int {
	left := 0
	if !kill && !r.noChildren {
		pids, ok := r.proc.Children()
		if ok {
			for _, pid := range pids {
				left += r.visit(pid, false)
			}
			return left
		}
		r.noChildren = true
	}
	for _, pid := range proctree.Pids() {
		left += r.visit(pid, kill)
	}
	return left
}

// visit handles one process for sweep and returns 1 if it is attributable and still around.
func (r *orphanReaper) visit(pid int, kill bool) int {
	if pid == r.self || pid == r.agentPid {
		return 0
	}
	st, ok := r.proc.Stat(pid)
	if !ok {
		return 0
	}
	inTree := r.inGroup(st.Pgrp) || r.inGroup(st.Sid)
	if st.State == 'Z' {
		if st.PPid == r.self && (r.seen[pid] || inTree) {
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
	if st.PPid != r.self && !kill && !r.inGroup(st.Pgrp) {
		return 0
	}
	if !r.marked(pid) {
		if kill && st.PPid == r.self && inTree {
			// Exiting: its environment is gone before it turns into a zombie. Wait for that
			// rather than stop sweeping and leave the zombie unreaped.
			return 1
		}
		return 0
	}
	r.addGroup(st.Pgrp)
	r.addGroup(st.Sid)
	if st.PPid == r.self {
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
