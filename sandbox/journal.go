package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A Watch lives in acpterm's memory, so when acpterm dies by SIGKILL (the OOM killer, a
// crash, `kill -9`) while a sandboxed command runs, Sweep never runs and what the command
// planted (a config.toml for acpterm's next start, an rc file, a submodule git directory)
// stays. So before the command starts its Watch is also written to a journal entry, a file
// in a directory of acpterm's state dir (which no sandboxed process can write), synced to
// disk and locked (flock) by acpterm for as long as the command may run; Sweep removes it.
// An entry whose lock nobody holds was left by an acpterm that is gone: SweepJournal, run at
// start-up before any config is read, sweeps what it lists.

// journalPrefix and journalSuffix make a journal entry's name ("watch-123.json").
const journalPrefix, journalSuffix = "watch-", ".json"

// Journal writes the watch to a new entry in dir (created 0700 when missing), syncs it and
// the directory to disk (in the background: see journalSyncWarning) and keeps the entry open
// and locked until Sweep or Discard ends it.
// label names the command in what SweepJournal says ("sh ./build.sh"). Call it after
// NewWatch and before the command starts; an error (the entry could not be written or
// synced) means the watch would not survive acpterm being killed.
func (g *Watch) Journal(dir, label string) error {
	if g.journal != nil {
		return errors.New("sandbox: watch journal: already written")
	}
	g.st.Label = label
	b, err := json.Marshal(g.st)
	if err != nil {
		return fmt.Errorf("sandbox: watch journal: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: watch journal: %w", err)
	}
	f, err := os.CreateTemp(dir, journalPrefix+"*"+journalSuffix)
	if err != nil {
		return fmt.Errorf("sandbox: watch journal: %w", err)
	}
	fail := func(err error) error {
		_ = os.Remove(f.Name())
		_ = f.Close()
		return fmt.Errorf("sandbox: watch journal %s: %w", f.Name(), err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail(err)
	}
	if _, err := f.Write(b); err != nil {
		return fail(err)
	}
	// Written, the entry survives acpterm being killed. Syncing it and its directory to disk
	// (so that it survives the machine losing power too) takes milliseconds of disk latency,
	// so it runs while the command starts; Sweep waits for it and says when it failed.
	g.journal, g.synced = f, make(chan struct{})
	go func() {
		defer close(g.synced)
		err := f.Sync()
		if err == nil {
			err = syncDir(dir)
		}
		g.syncErr = err
	}()
	return nil
}

// journalSyncWarning waits until the journal entry is synced and says when that failed ("" when
// it did not, or there is no entry).
func (g *Watch) journalSyncWarning() string {
	if g.journal == nil {
		return ""
	}
	<-g.synced
	if g.syncErr == nil {
		return ""
	}
	return fmt.Sprintf("sandbox: warning: the watch journal %s could not be synced to disk (%v): had the machine lost power while the command ran, the next start could not have swept what it planted", g.journal.Name(), g.syncErr)
}

// Discard ends the watch's journal entry without sweeping: for a command that never started.
func (g *Watch) Discard() { g.endJournal() }

// endJournal removes the journal entry (if any), then closes it, which drops the lock. The
// removal is not synced to disk: should the machine lose power before it is written, the next
// start sweeps the entry once more, which finds only what was created since (and says so).
func (g *Watch) endJournal() {
	if g.journal == nil {
		return
	}
	<-g.synced
	_ = os.Remove(g.journal.Name())
	_ = g.journal.Close()
	g.journal = nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// SweepJournal sweeps (see Watch.Sweep) what every journal entry in dir left by an acpterm
// that is gone lists, moving what was planted into quarantine, and removes each such entry;
// entries still locked by a running acpterm are left alone. Each message says that it was
// found at start-up and which command of which run left it, so that the user can move back
// what they made themselves since. skipped are the entries that could not be read (a run
// killed while writing one, before its command started: removed) or removed. Call it before
// reading any config file.
func SweepJournal(dir, quarantine string) (found []Swept, skipped []string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, journalPrefix) || !strings.HasSuffix(name, journalSuffix) {
			continue
		}
		f, s, err := sweepEntry(filepath.Join(dir, name), quarantine)
		found = append(found, f...)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", filepath.Join(dir, name), err))
		} else if s != "" {
			skipped = append(skipped, s)
		}
	}
	return found, skipped
}

func sweepEntry(p, quarantine string) ([]Swept, string, error) {
	f, err := os.OpenFile(p, os.O_RDWR|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, "", nil // a running acpterm's command: its own Sweep will come
		}
		return nil, "", err
	}
	// Another start-up may have swept and removed it while this one waited for the lock.
	var a, b unix.Stat_t
	if unix.Fstat(int(f.Fd()), &a) != nil || unix.Stat(p, &b) != nil || a.Ino != b.Ino || a.Dev != b.Dev {
		return nil, "", nil
	}
	var st watchState
	raw, err := os.ReadFile(p)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	if err != nil {
		// Written only partly: acpterm was killed before the command started.
		if rerr := os.Remove(p); rerr != nil {
			return nil, "", rerr
		}
		return nil, fmt.Sprintf("%s: unreadable (%v), removed: written by an acpterm killed before its command started", p, err), nil
	}
	found := watchFrom(st).Sweep(quarantine)
	when := st.Started.Local().Format(time.DateTime)
	for i := range found {
		found[i].Message += fmt.Sprintf(" (found at start-up: the acpterm that ran %q in the sandbox at %s ended before it could check; if you made this yourself since, move it back)", st.Label, when)
	}
	if err := os.Remove(p); err != nil {
		return found, "", err
	}
	_ = syncDir(filepath.Dir(p))
	return found, "", nil
}
