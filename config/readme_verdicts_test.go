package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
)

// verdictSandbox makes a HOME whose ~/src/project (the README example's root) is the session
// cwd, holding a .env file; it returns the cwd and a fake environment.
func verdictSandbox(t *testing.T) (home, cwd string, getenv func(string) string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "home")
	cwd = filepath.Join(home, "src", "project")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".env"), []byte("TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_STATE_HOME": filepath.Join(home, "state"), "PATH": "/usr/local/bin:/usr/bin:/bin"}
	return home, cwd, func(k string) string { return env[k] }
}

type verdictCase struct {
	name    string
	decide  func(e *permissions.Engine) permissions.Decision
	verdict permissions.Verdict
	rule    string
}

func cmd(argv ...string) func(e *permissions.Engine) permissions.Decision {
	return func(e *permissions.Engine) permissions.Decision {
		return e.DecideCommand(permissions.CommandRequest{Command: argv[0], Args: argv[1:]})
	}
}

func checkVerdicts(t *testing.T, cfg *config.Config, cwd string, getenv func(string) string, cases []verdictCase) {
	t.Helper()
	e, err := permissions.NewEngine(cfg.Permissions(getenv), permissions.EngineOptions{Cwd: cwd, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		d := c.decide(e)
		if d.Verdict != c.verdict || d.Rule != c.rule {
			t.Errorf("%s: %s by %q (%s), want %s by %q", c.name, d.Verdict, d.Rule, d.Reason, c.verdict, c.rule)
		}
	}
}

func withEnv(name string) func(e *permissions.Engine) permissions.Decision {
	return func(e *permissions.Engine) permissions.Decision {
		return e.DecideCommand(permissions.CommandRequest{Command: "ls", Env: []permissions.EnvVar{{Name: name, Value: "1"}}})
	}
}

func read(p string) func(e *permissions.Engine) permissions.Decision {
	return func(e *permissions.Engine) permissions.Decision { return e.DecideRead(p) }
}

func write(p string) func(e *permissions.Engine) permissions.Decision {
	return func(e *permissions.Engine) permissions.Decision { return e.DecideWrite(p) }
}

// With no config file the verdicts are the ones the README's "Built-in defaults" section states:
// only the built-in read-only commands run, everything else is asked about (rm and curl
// included), sudo is denied, any file in the root (.env included) is readable, writes are asked
// about, protected paths are denied.
func TestReadmeDefaultVerdicts(t *testing.T) {
	_, cwd, getenv := verdictSandbox(t)
	cfg, err := config.Load(config.LoadOptions{Cwd: cwd, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != config.DefaultsSource {
		t.Fatalf("Source = %q, want the built-in defaults", cfg.Source)
	}
	checkVerdicts(t, cfg, cwd, getenv, []verdictCase{
		{"ls", cmd("ls"), permissions.Allow, "allow: ls"},
		{"cat README.md", cmd("cat", "README.md"), permissions.Allow, "allow: cat"},
		{"git status", cmd("git", "status"), permissions.Allow, "allow: git status"},
		{"rm x", cmd("rm", "x"), permissions.Ask, "unmatched"},
		{"curl", cmd("curl", "https://example.com"), permissions.Ask, "unmatched"},
		{"git push", cmd("git", "push"), permissions.Ask, "unmatched"},
		{"go test ./...", cmd("go", "test", "./..."), permissions.Ask, "runner: go test"},
		{"sudo ls", cmd("sudo", "ls"), permissions.Deny, "deny: sudo"},
		{"env CI", withEnv("CI"), permissions.Allow, "allow: ls"},
		{"env RUST_LOG", withEnv("RUST_LOG"), permissions.Allow, "allow: ls"},
		{"env LD_PRELOAD", withEnv("LD_PRELOAD"), permissions.Deny, "env deny: LD_*"},
		{"env LOCPATH", withEnv("LOCPATH"), permissions.Deny, "env deny: LOCPATH"},
		{"env TERMINFO", withEnv("TERMINFO"), permissions.Deny, "env deny: TERMINFO"},
		{"env FOO", withEnv("FOO"), permissions.Ask, "env: not allowed"},
		{"read .env", read(filepath.Join(cwd, ".env")), permissions.Allow, "fs.read"},
		{"write notes.txt", write(filepath.Join(cwd, "notes.txt")), permissions.Ask, "fs.write"},
		{"write .git/config", write(filepath.Join(cwd, ".git", "config")), permissions.Deny, "protected"},
	})
}

// The README's example config file means what the text under it says: rm and curl are denied,
// git push is asked about, go test runs once commands run confined (asked about until then),
// and .env files cannot be read.
func TestReadmeExampleVerdicts(t *testing.T) {
	home, cwd, getenv := verdictSandbox(t)
	file := filepath.Join(home, "example.toml")
	if err := os.WriteFile(file, []byte(config.ReadmeTOML(t, "### An example config file")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: file, Cwd: cwd, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	checkVerdicts(t, cfg, cwd, getenv, []verdictCase{
		{"ls", cmd("ls"), permissions.Allow, "allow: ls"},
		{"rm x", cmd("rm", "x"), permissions.Deny, "deny: rm"},
		{"curl", cmd("curl", "https://example.com"), permissions.Deny, "deny: curl"},
		{"git push", cmd("git", "push"), permissions.Ask, "ask: git push"},
		{"go test ./...", cmd("go", "test", "./..."), permissions.Ask, "runner: go test"}, // allowed once commands run confined
		{"sudo ls", cmd("sudo", "ls"), permissions.Deny, "deny: sudo"},
		{"read .env", read(filepath.Join(cwd, ".env")), permissions.Deny, "deny_read: **/.env"},
		{"read notes.txt", read(filepath.Join(cwd, "notes.txt")), permissions.Allow, "fs.read"},
		{"write .git/x", write(filepath.Join(cwd, ".git", "x")), permissions.Deny, "deny_write: .git/**"},
	})
}
