package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary documents to Load: it must never panic, and every failure must be a
// *Error naming the file.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/errors/*.toml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("[policy]\nunmatched = \"deny\"\n[policy.commands]\nallow = [\"go test\"]\n[ui.keys]\nquit = [\"ctrl+q\"]\n")
	f.Add("[policy.fs]\ndeny_read = [\"**/.env\", \"~/x/**\"]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		dir := t.TempDir()
		file := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		e := env{"HOME": dir}
		cfg, err := Load(LoadOptions{Path: file, Cwd: dir, Getenv: e.get})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != file {
				t.Fatalf("error %T %v does not name %s", err, err, file)
			}
			return
		}
		if len(cfg.Policy.Roots) == 0 || cfg.Policy.OutputByteLimit <= 0 || cfg.Policy.MaxTerminals <= 0 || cfg.Policy.KillGrace <= 0 {
			t.Fatalf("accepted config has invalid values: %+v", cfg.Policy)
		}
	})
}
