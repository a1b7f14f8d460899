package acpclient

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
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

// agentMarkerVar is set in the agent's environment; its value is a per-client nonce.
const agentMarkerVar = "ACPTERM_AGENT"

type orphanReaper struct {
	marker   []byte // "ACPTERM_AGENT=<nonce>"
	self     int
	selfPgrp int
	selfSid  int
	agentPid int
	seen     map[int]bool // marked children of ours seen alive
	groups   map[int]bool // process groups / sessions of the agent's tree
}

func newMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newOrphanReaper(nonce string, agentPid int) *orphanReaper {
	r := &orphanReaper{
		marker: []byte(agentMarkerVar + "=" + nonce), self: os.Getpid(), agentPid: agentPid,
		seen: map[int]bool{}, groups: map[int]bool{agentPid: true},
	}
	r.selfPgrp = syscall.Getpgrp()
	r.selfSid, _ = unix.Getsid(0)
	return r
}

type pstat struct {
	state           byte
	ppid, pgrp, sid int
}

func readPstat(pid int) (pstat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return pstat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return pstat{}, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 4 {
		return pstat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	return pstat{state: f[0][0], ppid: ppid, pgrp: pgrp, sid: sid}, true
}

func (r *orphanReaper) marked(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, r.marker) {
			return true
		}
	}
	return false
}

// sweep scans /proc once. It reaps attributable zombie children; with kill it also sends
// SIGKILL to every live process of the agent's tree (the agent is gone). It returns how many
// attributable processes are still around (live marked ones when kill, plus unreaped zombies).
func (r *orphanReaper) sweep(kill bool) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	left := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == r.self || pid == r.agentPid {
			continue
		}
		st, ok := readPstat(pid)
		if !ok {
			continue
		}
		if st.state == 'Z' {
			if st.ppid == r.self && (r.seen[pid] || r.groups[st.pgrp] || r.groups[st.sid]) {
				var ws unix.WaitStatus
				if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got != pid {
					left++
				}
				delete(r.seen, pid)
			}
			continue
		}
		// Live: only our children and, when killing, everything, need the environment read.
		if st.ppid != r.self && !kill && !r.groups[st.pgrp] {
			continue
		}
		if !r.marked(pid) {
			continue
		}
		if st.pgrp != r.selfPgrp {
			r.groups[st.pgrp] = true
		}
		if st.sid != r.selfSid {
			r.groups[st.sid] = true
		}
		if st.ppid == r.self {
			r.seen[pid] = true
		}
		if kill {
			_ = unix.Kill(pid, unix.SIGKILL)
			left++
		}
	}
	return left
}

// finish kills what is left of the agent's tree and reaps it, for at most d.
func (r *orphanReaper) finish(d time.Duration) {
	deadline := time.Now().Add(d)
	for r.sweep(true) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}
