package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpterm/acpterm/permissions/policy"
)

var update = flag.Bool("update", false, "rewrite the golden .want files")

// env is a fake environment for Load.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// sandbox makes a HOME with XDG dirs and a session cwd, all real paths.
func sandbox(t *testing.T) (home, cwd string, e env) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "home")
	cwd = filepath.Join(base, "proj")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, cwd, env{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		t.Run(name, func(t *testing.T) {
			_, cwd, e := sandbox(t)
			_, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want an error", f)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a *config.Error", err, err)
			}
			got := err.Error()
			wantFile := strings.TrimSuffix(f, ".toml") + ".want"
			if *update {
				if err := os.WriteFile(wantFile, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatalf("missing golden file (run with -update): %v", err)
			}
			if got != strings.TrimRight(string(want), "\n") {
				t.Errorf("error message:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		e    Error
		want string
	}{
		{Error{File: "a.toml", Line: 3, Col: 13, Key: "policy.unmatched", Msg: "bad"}, "a.toml:3:13: policy.unmatched: bad"},
		{Error{File: "a.toml", Msg: "no such file or directory"}, "a.toml: no such file or directory"},
		{Error{File: "a.toml", Line: 1, Col: 8, Msg: "expected ']'"}, "a.toml:1:8: expected ']'"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	_, cwd, e := sandbox(t)
	cfg, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != DefaultsSource || cfg.Project != "" {
		t.Errorf("Source=%q Project=%q", cfg.Source, cfg.Project)
	}
	p := cfg.Policy
	if !slices.Equal(p.Roots, []string{cwd}) {
		t.Errorf("Roots = %v, want [%s]", p.Roots, cwd)
	}
	if p.Unmatched != "ask" || p.OutputByteLimit != 1048576 || p.KillGrace != 2*time.Second || p.MaxTerminals != 16 {
		t.Errorf("scalars: %q %d %s %d", p.Unmatched, p.OutputByteLimit, p.KillGrace, p.MaxTerminals)
	}
	if p.FS.Read != "allow" || p.FS.Write != "ask" {
		t.Errorf("fs = %q/%q", p.FS.Read, p.FS.Write)
	}
	for _, c := range []string{"ls", "cat", "git status", "git diff", "git log", "git show", "rg", "date"} {
		if !slices.Contains(p.Commands.Allow, c) {
			t.Errorf("built-in allow lacks %q", c)
		}
	}
	for _, c := range []string{"sudo", "su"} {
		if !slices.Contains(p.Commands.Deny, c) {
			t.Errorf("built-in deny lacks %q", c)
		}
	}
	for _, v := range []string{"LD_*", "BASH_ENV", "PATH", "GIT_*"} {
		if !slices.Contains(p.Env.Deny, v) {
			t.Errorf("built-in env deny lacks %q", v)
		}
	}
	if cfg.UI.Theme != "auto" {
		t.Errorf("theme %q", cfg.UI.Theme)
	}
}

func TestDiscoveryOrder(t *testing.T) {
	home, cwd, e := sandbox(t)
	xdg := filepath.Join(home, "cfg", "acpterm", "config.toml")
	writeFile(t, xdg, "[policy]\nunmatched = \"deny\"\n")
	explicit := filepath.Join(home, "explicit.toml")
	writeFile(t, explicit, "[policy]\nunmatched = \"allow\"\n")

	// 1. --config wins over XDG.
	cfg, err := Load(LoadOptions{Path: explicit, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != explicit || cfg.UserFile != explicit || cfg.Policy.Unmatched != "allow" {
		t.Errorf("explicit: Source=%q UserFile=%q unmatched=%q", cfg.Source, cfg.UserFile, cfg.Policy.Unmatched)
	}
	// 2. XDG_CONFIG_HOME.
	cfg, err = Load(LoadOptions{Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != xdg || cfg.UserFile != xdg || cfg.Policy.Unmatched != "deny" {
		t.Errorf("xdg: Source=%q UserFile=%q unmatched=%q", cfg.Source, cfg.UserFile, cfg.Policy.Unmatched)
	}
	// 3. XDG unset: ~/.config/acpterm/config.toml.
	dotcfg := filepath.Join(home, ".config", "acpterm", "config.toml")
	writeFile(t, dotcfg, "[policy]\noutput_byte_limit = 4096\n")
	e2 := env{"HOME": home}
	cfg, err = Load(LoadOptions{Cwd: cwd, Getenv: e2.get})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != dotcfg || cfg.Policy.OutputByteLimit != 4096 || cfg.Policy.Unmatched != "ask" {
		t.Errorf("~/.config: Source=%q limit=%d unmatched=%q", cfg.Source, cfg.Policy.OutputByteLimit, cfg.Policy.Unmatched)
	}
	// 4. Nothing: built-in defaults.
	e3 := env{"HOME": filepath.Join(home, "empty"), "XDG_CONFIG_HOME": filepath.Join(home, "nothing")}
	cfg, err = Load(LoadOptions{Cwd: cwd, Getenv: e3.get})
	if err != nil {
		t.Fatal(err)
	}
	// UserFile names where the user file would go, for messages such as "set [agent] command in …".
	if want := filepath.Join(home, "nothing", "acpterm", "config.toml"); cfg.Source != DefaultsSource || cfg.UserFile != want {
		t.Errorf("defaults: Source=%q UserFile=%q, want %q, %q", cfg.Source, cfg.UserFile, DefaultsSource, want)
	}
	e4 := env{"HOME": filepath.Join(home, "empty")}
	cfg, err = Load(LoadOptions{Cwd: cwd, Getenv: e4.get})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "empty", ".config", "acpterm", "config.toml"); cfg.Source != DefaultsSource || cfg.UserFile != want {
		t.Errorf("defaults without XDG: Source=%q UserFile=%q, want %q, %q", cfg.Source, cfg.UserFile, DefaultsSource, want)
	}
	// A --config that does not exist is an error, never a fallback.
	_, err = Load(LoadOptions{Path: filepath.Join(home, "missing.toml"), Cwd: cwd, Getenv: e.get})
	want := filepath.Join(home, "missing.toml") + ": no such file or directory"
	if err == nil || err.Error() != want {
		t.Errorf("missing --config: err = %v, want %q", err, want)
	}
}

func TestUserListsExtendBuiltins(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, `[policy.commands]
allow = ["go test", "git  status"]
ask = ["git push"]
deny = ["rm", "curl"]
[policy.env]
deny = ["MY_SECRET_*"]
allow = ["CI"]
[policy.fs]
deny_read = ["**/.env"]
`)
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Policy.Commands
	wantAllow := append(BuiltinAllow(), "go test") // "git  status" normalises to a duplicate
	if !slices.Equal(c.Allow, wantAllow) {
		t.Errorf("allow = %q\nwant %q", c.Allow, wantAllow)
	}
	if !slices.Equal(c.Ask, []string{"git push"}) {
		t.Errorf("ask = %q", c.Ask)
	}
	if !slices.Equal(c.Deny, append(BuiltinDeny(), "rm", "curl")) {
		t.Errorf("deny = %q", c.Deny)
	}
	if got := cfg.Policy.Env.Deny; got[len(got)-1] != "MY_SECRET_*" || len(got) != len(policy.BuiltinEnvDeny())+1 {
		t.Errorf("env deny = %q", got)
	}
	if !slices.Equal(cfg.Policy.Env.Allow, []string{"CI"}) || !slices.Equal(cfg.Policy.FS.DenyRead, []string{"**/.env"}) {
		t.Errorf("env allow %q, deny_read %q", cfg.Policy.Env.Allow, cfg.Policy.FS.DenyRead)
	}
}

func TestFullSchema(t *testing.T) {
	home, cwd, e := sandbox(t)
	other := filepath.Join(home, "src", "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	e["PROJ"] = "src"
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, `[agent]
command = ["claude-agent-acp", "--verbose"]
[policy]
roots = ["~/src/other", "${HOME}/$PROJ/other", "`+cwd+`"]
unmatched = "deny"
output_byte_limit = 2048
kill_grace = "500ms"
max_terminals = 4
[policy.fs]
read = "ask"
write = "deny"
deny_write = ["~/.config/**", ".git/**"]
[ui]
theme = "light"
[ui.keys]
leave_pane = ["ctrl+]", "ctrl+alt+x"]
approve_once = ["a"]
scroll_up = ["pgup", "shift+up", "f12"]
`)
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Agent.Command, []string{"claude-agent-acp", "--verbose"}) {
		t.Errorf("agent %q", cfg.Agent.Command)
	}
	p := cfg.Policy
	if !slices.Equal(p.Roots, []string{other, cwd}) { // ~ and ${HOME}/$PROJ name the same dir: kept once
		t.Errorf("roots %q", p.Roots)
	}
	if p.Unmatched != "deny" || p.OutputByteLimit != 2048 || p.KillGrace != 500*time.Millisecond || p.MaxTerminals != 4 {
		t.Errorf("scalars %q %d %s %d", p.Unmatched, p.OutputByteLimit, p.KillGrace, p.MaxTerminals)
	}
	if p.FS.Read != "ask" || p.FS.Write != "deny" || !slices.Equal(p.FS.DenyWrite, []string{filepath.Join(home, ".config/**"), ".git/**"}) {
		t.Errorf("fs %+v", p.FS)
	}
	if cfg.UI.Theme != "light" || !slices.Equal(cfg.UI.Keys["leave_pane"], []string{"ctrl+]", "ctrl+alt+x"}) || len(cfg.UI.Keys) != 3 {
		t.Errorf("ui %+v", cfg.UI)
	}
}

func TestSymlinkedRootResolved(t *testing.T) {
	home, cwd, e := sandbox(t)
	link := filepath.Join(home, "link")
	if err := os.Symlink(cwd, link); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, "[policy]\nroots = [\"~/link\"]\n")
	cfg, err := Load(LoadOptions{Path: f, Cwd: link, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Policy.Roots, []string{cwd}) {
		t.Errorf("roots %q, want the real %q", cfg.Policy.Roots, cwd)
	}
	// The default root is the real session cwd too.
	cfg, err = Load(LoadOptions{Cwd: link, Getenv: env{"HOME": home}.get})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Policy.Roots, []string{cwd}) {
		t.Errorf("default roots %q, want %q", cfg.Policy.Roots, cwd)
	}
}

func TestExpandPath(t *testing.T) {
	e := env{"HOME": "/home/u", "A": "x", "B_2": "y"}
	cases := []struct{ in, want, err string }{
		{"~", "/home/u", ""},
		{"~/src", "/home/u/src", ""},
		{"$HOME/a", "/home/u/a", ""},
		{"${A}b/$B_2", "xb/y", ""},
		{"/lit/$$x", "/lit/$x", ""},
		{"/a~b", "/a~b", ""},
		{"~bob/x", "", `"~bob/x": only ~ and ~/ are expanded (not ~user)`},
		{"$NOPE/x", "", `"$NOPE/x": $NOPE is not set`},
		{"${A", "", `"${A": unterminated ${`},
		{"/x/$", "", `"/x/$": bad variable reference (write $$ for a literal $)`},
	}
	for _, c := range cases {
		got, err := expandPath(c.in, e.get)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("expandPath(%q) err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("expandPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestCheckKey(t *testing.T) {
	good := []string{"ctrl+]", "ctrl+q", "a", "?", "+", "ctrl++", "shift+tab", "alt+enter", "f1", "f63", "pgdown", "esc", "ctrl+alt+shift+x", "é"}
	for _, k := range good {
		if err := CheckKey(k); err != nil {
			t.Errorf("CheckKey(%q) = %v, want ok", k, err)
		}
	}
	bad := map[string]string{
		"":            "empty key name",
		"ctrl+foo":    `"ctrl+foo": unknown key "foo"`,
		"ctrl":        `"ctrl": a key must follow the modifier "ctrl"`,
		"hold+a":      `"hold+a": unknown modifier "hold" (ctrl, alt, shift, meta, hyper or super)`,
		"ctrl+ctrl+a": `"ctrl+ctrl+a": modifier "ctrl" given twice`,
		"f64":         `"f64": unknown key "f64"`,
		"ctrl+":       `"ctrl+": missing key after "+"`,
		" ":           `" ": unknown key " "`,
	}
	for k, want := range bad {
		err := CheckKey(k)
		if err == nil || err.Error() != want {
			t.Errorf("CheckKey(%q) = %v, want %q", k, err, want)
		}
	}
}

func TestDirs(t *testing.T) {
	e := env{"HOME": "/h"}
	if got := ConfigDir(e.get); got != "/h/.config/acpterm" {
		t.Errorf("ConfigDir = %q", got)
	}
	if got := StateDir(e.get); got != "/h/.local/state/acpterm" {
		t.Errorf("StateDir = %q", got)
	}
	if got := UserConfigFile(e.get); got != "/h/.config/acpterm/config.toml" {
		t.Errorf("UserConfigFile = %q", got)
	}
	e = env{"HOME": "/h", "XDG_CONFIG_HOME": "/x/c", "XDG_STATE_HOME": "/x/s"}
	if got := UserConfigFile(e.get); got != "/x/c/acpterm/config.toml" {
		t.Errorf("UserConfigFile with XDG = %q", got)
	}
	if got := ConfigDir(e.get); got != "/x/c/acpterm" {
		t.Errorf("ConfigDir = %q", got)
	}
	if got := StateDir(e.get); got != "/x/s/acpterm" {
		t.Errorf("StateDir = %q", got)
	}
	// A relative XDG value is ignored (XDG Base Directory spec).
	e = env{"HOME": "/h", "XDG_STATE_HOME": "rel"}
	if got := StateDir(e.get); got != "/h/.local/state/acpterm" {
		t.Errorf("StateDir with relative XDG = %q", got)
	}
	if got := DefaultAuditLog(e.get); got != "/h/.local/state/acpterm/audit.jsonl" {
		t.Errorf("DefaultAuditLog = %q", got)
	}
}

func TestWorldWritableRefused(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, "[policy]\nunmatched = \"allow\"\n")
	if err := os.Chmod(f, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	want := f + ": refusing a policy file that anyone can write (mode 0666); run chmod o-w on it"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestCwdOutsideRoots(t *testing.T) {
	home, cwd, e := sandbox(t)
	other := filepath.Join(home, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(home, "c.toml")
	writeFile(t, f, "[policy]\nroots = [\"~/other\"]\n")
	_, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	want := f + ":2:1: policy.roots: the session cwd " + cwd + " is outside every root; add it (or a parent) or start acpterm inside a root"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	// A parent root is fine; so is proj-evil vs proj containment by path, not prefix.
	writeFile(t, f, "[policy]\nroots = [\""+filepath.Dir(cwd)+"\"]\n")
	if _, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get}); err != nil {
		t.Error(err)
	}
	evil := cwd + "-evil"
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f, "[policy]\nroots = [\""+cwd+"\"]\n")
	if _, err := Load(LoadOptions{Path: f, Cwd: evil, Getenv: e.get}); err == nil {
		t.Error("cwd proj-evil accepted for root proj")
	}
}

// The documented example must load and mean what it says.
func TestExampleLoads(t *testing.T) {
	home, cwd, e := sandbox(t)
	cfg, err := Load(LoadOptions{Path: "testdata/example.toml", Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if wd, _ := os.Getwd(); cfg.Source != filepath.Join(wd, "testdata", "example.toml") {
		t.Errorf("Source = %q, want it absolute", cfg.Source)
	}
	p := cfg.Policy
	if !slices.Equal(cfg.Agent.Command, []string{"claude-agent-acp"}) || !slices.Equal(p.Roots, []string{cwd}) ||
		p.Unmatched != "ask" || p.OutputByteLimit != DefaultOutputByteLimit || p.KillGrace != DefaultKillGrace ||
		p.MaxTerminals != DefaultMaxTerminals || p.FS.Read != "allow" || p.FS.Write != "ask" || cfg.UI.Theme != "auto" {
		t.Errorf("example defaults differ from Default: %+v", cfg)
	}
	if !slices.Contains(p.Commands.Allow, "go test") || !slices.Contains(p.Commands.Allow, "git status") ||
		!slices.Contains(p.Commands.Deny, "sudo") || !slices.Contains(p.Commands.Deny, "curl") {
		t.Errorf("commands %+v", p.Commands)
	}
	if !slices.Equal(p.FS.DenyRead, []string{"**/.env", filepath.Join(home, ".ssh/**")}) {
		t.Errorf("deny_read %q", p.FS.DenyRead)
	}
	if !slices.Equal(cfg.UI.Keys["quit"], []string{"ctrl+q"}) {
		t.Errorf("keys %v", cfg.UI.Keys)
	}
}

func TestConfigNotRegular(t *testing.T) {
	home, cwd, e := sandbox(t)
	fifo := filepath.Join(home, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Path: fifo, Cwd: cwd, Getenv: e.get})
	if err == nil || err.Error() != fifo+": not a regular file" {
		t.Errorf("fifo: %v", err)
	}
	_, err = Load(LoadOptions{Path: home, Cwd: cwd, Getenv: e.get})
	if err == nil || err.Error() != home+": not a regular file" {
		t.Errorf("dir: %v", err)
	}
}

// TestByteOrderMark: a UTF-8 BOM at the start of a config file (as Windows editors write it) is
// skipped; before, the file was rejected as "invalid character … U+00EF". Error positions in
// such a file still name the right line.
func TestByteOrderMark(t *testing.T) {
	home, cwd, e := sandbox(t)
	f := filepath.Join(home, "bom.toml")
	writeFile(t, f, "\xEF\xBB\xBF[policy]\nunmatched = \"deny\"\n")
	cfg, err := Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatalf("Load with a BOM: %v", err)
	}
	if cfg.Policy.Unmatched != "deny" {
		t.Errorf("unmatched = %q, want deny", cfg.Policy.Unmatched)
	}
	writeFile(t, f, "\xEF\xBB\xBF[policy]\nunmatched = \"maybe\"\n")
	_, err = Load(LoadOptions{Path: f, Cwd: cwd, Getenv: e.get})
	if err == nil || !strings.HasPrefix(err.Error(), f+":2:13: policy.unmatched: ") {
		t.Errorf("bad value after a BOM: %v, want an error at %s:2:13", err, f)
	}
}
