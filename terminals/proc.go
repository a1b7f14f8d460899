package terminals

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// markerVar is the environment variable every process started from a
// terminal inherits; its value is "<manager nonce>:<terminal id>".
const markerVar = "ACPTERM_TERMINAL"

// reapBound is how long release waits for the processes it killed to
// disappear.
const reapBound = 3 * time.Second

var subreaperOnce sync.Once
var subreaperErr error

// becomeSubreaper makes this process a child subreaper (Linux
// prctl(PR_SET_CHILD_SUBREAPER)), once per process.
func becomeSubreaper() error {
	subreaperOnce.Do(func() {
		subreaperErr = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
	return subreaperErr
}

// procStat holds the fields of /proc/PID/stat that matter here.
type procStat struct {
	state           byte
	ppid, pgrp, sid int
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name is in parentheses and may contain anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 4 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp, sid: sid}, true
}

// findProcs lists processes, other than this one and skip, started from a
// terminal: live ones whose environment marker is accepted by match, plus,
// when sid > 0, live members of session (or group) sid that carry no
// marker of another terminal, and zombies of that session that are this
// process's children (a zombie's environment is gone). The marker check
// keeps a recycled session id from pointing at another terminal's
// processes.
func findProcs(match func(marker string) bool, sid, skip int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	prefix := []byte(markerVar + "=")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid == skip {
			continue
		}
		st, ok := readStat(pid)
		if !ok {
			continue
		}
		inSession := sid > 0 && (st.sid == sid || st.pgrp == sid)
		if st.state == 'Z' {
			if inSession && st.ppid == self {
				pids = append(pids, pid)
			}
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		marked, mine := false, false
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok {
				marked, mine = true, match(string(v))
				break
			}
		}
		if mine || (inSession && !marked) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killAndReap sends SIGKILL to pids and waits (at most reapBound) until
// each is gone: it reaps the ones that are (or become, through subreaping)
// children of this process with wait4 on that exact pid, and otherwise
// waits for their own parent to reap them. It never waits for other pids.
func killAndReap(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	reap(pids, reapBound)
}

// reap waits (at most bound) until each of pids is gone, reaping with
// wait4 on that exact pid the ones that are children of this process. A
// zombie that is not our child is left to its parent.
func reap(pids []int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	pending := pids
	for len(pending) > 0 {
		next := pending[:0]
		for _, pid := range pending {
			var ws unix.WaitStatus
			got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			if got == pid {
				continue
			}
			st, alive := readStat(pid)
			if !alive || (st.state == 'Z' && st.ppid != os.Getpid()) {
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

// alive reports whether any of pids still runs (exists and is not a zombie).
func alive(pids []int) bool {
	for _, pid := range pids {
		if st, ok := readStat(pid); ok && st.state != 'Z' {
			return true
		}
	}
	return false
}
