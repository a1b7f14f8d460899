package terminals

import (
	"time"

	"github.com/acpterm/acpterm/internal/proctree"
)

// markerVar is the environment variable every process started from a
// terminal inherits; its value is "<manager nonce>:<terminal id>".
const markerVar = "ACPTERM_TERMINAL"

// reapBound is how long release waits for the processes it killed to
// disappear.
const reapBound = 3 * time.Second

// findProcs lists processes, other than this one and skip, started from a
// terminal: live ones whose environment marker is accepted by match, plus,
// when sid > 0, live members of session (or group) sid that carry no
// marker of another terminal, and zombies of that session that are this
// process's children (proctree.FindMarked).
func findProcs(match func(marker string) bool, sid, skip int) []int {
	return proctree.FindMarked(markerVar, match, sid, skip)
}

// killAndReap sends SIGKILL to pids and waits (at most reapBound) until
// each is gone, reaping only those exact pids.
func killAndReap(pids []int) { proctree.KillAndReap(pids, reapBound) }
