package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveStaleSessionDirs: a session temp dir whose acpterm is gone (no lock held) is
// removed with what a command left in it; one still locked by a running acpterm, one of an
// older name and other files are left alone.
func TestRemoveStaleSessionDirs(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "left-by-command"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(sessionDirPrefix + "999999-123")
	live := mk(sessionDirPrefix + "4242-456")
	old := mk(sessionDirPrefix + "789")
	other := mk("something-else")
	lock, err := lockSessionDir(live)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	removeStaleSessionDirs(dir, os.Getuid())
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale session dir still there: %v", err)
	}
	for _, p := range []string{live, old, other} {
		if _, err := os.Stat(filepath.Join(p, "left-by-command")); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	lock.Close()
	removeStaleSessionDirs(dir, os.Getuid())
	if _, err := os.Lstat(live); !os.IsNotExist(err) {
		t.Errorf("session dir still there once its lock was released: %v", err)
	}
	mine := mk(sessionDirPrefix + "999998-789")
	removeStaleSessionDirs(dir, os.Getuid()+1)
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("another user's acpterm removed %s: %v", mine, err)
	}
}
