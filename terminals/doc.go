// Package terminals is acpterm's PTY terminal engine: one process tree in a
// real pseudo-terminal, its screen emulated by x/vt for display, and a
// plain-text transcript for the agent (ACP terminal/output).
//
// It knows nothing of ACP or the UI. The pieces:
//
//   - [Manager] starts and tracks [Terminal]s, bounds how many are live, and
//     ends everything on [Manager.Close].
//   - [Terminal] is one command in a PTY (own session and process group, the
//     PTY as controlling terminal). A reader goroutine drains the PTY at all
//     times; every byte goes first into the [Transcript] and then into a
//     bounded backlog that a feeder goroutine hands to the [Screen] in small
//     slices. A slow screen therefore never slows the child.
//   - [Screen] is an x/vt emulator behind its own mutex (never
//     vt.SafeEmulator), usable on its own for agent-owned, read-only screens.
//     When a terminal's output has ended its screen drops the emulator
//     (about 4.5 MB at 80x24) and keeps only what it shows ([Screen.Compact]),
//     so a finished terminal costs memory in proportion to its output.
//   - [Transcript] turns the raw byte stream into what a person would read.
//
// # Process reaping
//
// With [ManagerOptions].Subreaper, [NewManager] makes the calling process a
// child subreaper (prctl(PR_SET_CHILD_SUBREAPER)): a process that leaves its terminal's
// process group (setsid, double fork) is re-parented to acpterm instead of
// init when its parent dies, so it can still be found and reaped. Every
// process started from a terminal inherits the environment variable
// ACPTERM_TERMINAL (a per-manager nonce plus the terminal id); on release
// and on [Manager.Close] the engine scans /proc for processes carrying that
// marker or belonging to the terminal's session, kills them and reaps the
// ones that are its children (it waits only for those specific pids, never
// wait(-1), so exit statuses of other children of the process are not
// stolen). A side effect of being a subreaper: orphans of unrelated
// descendants (for example an agent's own background processes) are also
// re-parented to this process; whoever spawned them should reap them.
package terminals
