// Package e2e holds acpterm's end-to-end tests: they build the real binary once (TestMain) and
// drive it in a real terminal through tmux (new-session, send-keys, capture-pane, resize-window),
// against the built-in demo agent, plus the headless mode and the `policy check` / `audit verify`
// subcommands. Every test gets its own HOME and XDG_* directories and its own tmux server socket.
// The TUI tests are skipped, with a message, only when tmux is not installed.
package e2e
