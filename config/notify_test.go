package config

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestUINotify(t *testing.T) {
	home, cwd, e := sandbox(t)
	file := filepath.Join(home, "c.toml")
	writeFile(t, file, "[ui]\nnotify = [\"osc777\", \"bell\", \"bell\"]\nnotify_after = \"0s\"\n")
	cfg, err := Load(LoadOptions{Path: file, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.UI.Notify, []string{"osc777", "bell"}) || cfg.UI.NotifyAfter != 0 {
		t.Fatalf("notify = %q, after %s", cfg.UI.Notify, cfg.UI.NotifyAfter)
	}
	writeFile(t, file, "[ui]\nnotify = []\n")
	if cfg, err = Load(LoadOptions{Path: file, Cwd: cwd, Getenv: e.get}); err != nil || len(cfg.UI.Notify) != 0 || cfg.UI.NotifyAfter != 10*time.Second {
		t.Fatalf("notify = [] gives %q, %s, %v", cfg.UI.Notify, cfg.UI.NotifyAfter, err)
	}
	for body, want := range map[string]string{
		"[ui]\nnotify = [\"bell\", \"beep\"]\n": file + `:2:19: ui.notify: must be "bell", "title", "desktop", "osc9" or "osc777", not "beep"`,
		"[ui]\nnotify_after = \"soon\"\n":       file + `:2:16: ui.notify_after: must be a duration such as "10s" or "0s" (every turn), not "soon"`,
	} {
		writeFile(t, file, body)
		_, err := Load(LoadOptions{Path: file, Cwd: cwd, Getenv: e.get})
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v\nwant %s", body, err, want)
		}
	}
}
