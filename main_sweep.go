package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/sandbox"
	"github.com/acpterm/acpterm/ui"
)

// journalDir is where the watches of running sandboxed commands are journaled
// (sandbox.Watch.Journal): "watch" in acpterm's state dir, which no sandboxed process can
// write; "" without a state dir.
func journalDir(getenv func(string) string) string {
	if d := config.StateDir(getenv); filepath.IsAbs(d) {
		return filepath.Join(d, "watch")
	}
	return ""
}

// leftover is what the start-up sweep found: the messages to show, one per path moved into
// the quarantine, and the journal entries it could not sweep.
type leftover struct {
	found   []sandbox.Swept
	skipped []string
}

// sweepLeftovers sweeps what a journal entry left by an acpterm that died while a sandboxed
// command ran (kill -9, a crash, the OOM killer: its own sweep never came) lists, moving what
// the command planted into the quarantine, and makes the journal directory (0700, before the
// session's sandbox spec is built, so that the sandbox binds it read-only with the state
// dir). It runs before any config file is read, so that a config.toml or .acpterm.toml the
// command planted is never loaded. Each finding is printed on stderr ("acpterm: warning:
// sandbox: removed …") and logged when log is not nil.
func sweepLeftovers(getenv func(string) string, stderr io.Writer, log *slog.Logger) leftover {
	dir := journalDir(getenv)
	if dir == "" {
		return leftover{}
	}
	var l leftover
	l.found, l.skipped = sandbox.SweepJournal(dir, filepath.Join(filepath.Dir(dir), "quarantine"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		l.skipped = append(l.skipped, fmt.Sprintf("%s: %v (sandboxed commands will be refused: their watch cannot be journaled)", dir, err))
	}
	for _, s := range l.found {
		fmt.Fprintf(stderr, "acpterm: warning: %s\n", ui.SafeText(s.Message))
		if log != nil {
			log.Warn("sandbox watch journal", "path", s.Path, "found", s.Message)
		}
	}
	for _, s := range l.skipped {
		fmt.Fprintf(stderr, "acpterm: warning: sandbox: watch journal: %s\n", ui.SafeText(s))
		if log != nil {
			log.Warn("sandbox watch journal", "skipped", s)
		}
	}
	return l
}

// warnings are the start-up sweep's findings as banner texts.
func (l leftover) warnings() []string {
	var out []string
	for _, s := range l.found {
		out = append(out, s.Message)
	}
	for _, s := range l.skipped {
		out = append(out, "sandbox: watch journal: "+s)
	}
	return out
}
