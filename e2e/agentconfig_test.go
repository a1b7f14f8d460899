package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxedAgentCannotPlantHostConfig: a sandboxed agent (--sandbox-agent) may write its
// own state directories, but not the files in them that configure programs its next,
// unsandboxed run starts (Claude Code's settings.json hooks, codex's config.toml notify, opencode's
// plugins, gemini's mcpServers). The scripted agent runs under a name that makes it each of
// claude, codex, gemini and opencode at once, and its own process tries what a Bash tool
// would: overwrite, append to, remove and rename over the existing config files (each bound
// read-only: all fail, their bytes unchanged), and create the missing ones (each moved into the
// quarantine once it appears, said in the output). A file beside them in the same directories
// is written, so the directories themselves stay the agent's.
func TestSandboxedAgentCannotPlantHostConfig(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\n")
	opencodeDir := filepath.Join(e.configD, "opencode") // $XDG_CONFIG_HOME/opencode
	existing := map[string]string{
		filepath.Join(e.home, ".claude", "settings.json"): `{"model": "opus"}` + "\n",
		filepath.Join(e.home, ".codex", "config.toml"):    "model = \"gpt-5\"\n",
		filepath.Join(opencodeDir, "opencode.json"):       `{"autoupdate": false}` + "\n",
	}
	for p, body := range existing {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	planted := []string{
		filepath.Join(e.home, ".claude", "settings.local.json"),
		filepath.Join(e.home, ".codex", "hooks.json"),
		filepath.Join(e.home, ".gemini", "settings.json"),
		filepath.Join(opencodeDir, "plugin"),
	}
	beside := []string{
		filepath.Join(e.home, ".claude", "projects-note"),
		filepath.Join(e.home, ".codex", "history.jsonl"),
		filepath.Join(e.home, ".gemini", "installation_id"),
		filepath.Join(opencodeDir, ".gitignore"),
	}
	var script strings.Builder
	for p := range existing {
		q := shellQuote(p)
		script.WriteString("echo evil > " + q + " && echo WROTE " + q + "; ")
		script.WriteString("echo evil >> " + q + " && echo APPENDED " + q + "; ")
		script.WriteString("rm -f " + q + " && echo REMOVED " + q + "; ")
		script.WriteString("echo evil > " + q + ".new && mv -f " + q + ".new " + q + " && echo RENAMED " + q + "; ")
	}
	for _, p := range planted {
		q := shellQuote(p)
		if filepath.Base(p) == "plugin" {
			// Made whole in $TMPDIR and renamed into place: the live watch may take a
			// directory away the moment it appears, even before mv's own checks after the
			// rename (mv then fails with "cannot stat"), so mv's status is not looked at; the
			// watch's message below says it was created.
			script.WriteString(`mkdir "$TMPDIR/p" && echo 'require("child_process").execSync("touch /tmp/pwned")' > "$TMPDIR/p/evil.js" && { mv "$TMPDIR/p" ` + q + "; echo PLANTED " + q + "; }; ")
		} else {
			script.WriteString(`echo '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}' > ` + q + " && echo PLANTED " + q + "; ")
		}
	}
	for _, p := range beside {
		script.WriteString("echo state > " + shellQuote(p) + " && echo BESIDE " + shellQuote(p) + "; ")
	}
	// A config file that is a symbolic link to the user's dotfiles: its target is bound
	// read-only, and the link, replaced by a file of the agent's, is put back afterwards.
	dotfile := filepath.Join(e.root, "dotfiles", "mcp-config.json")
	link := filepath.Join(e.home, ".copilot", "mcp-config.json")
	for _, d := range []string{filepath.Dir(dotfile), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dotfile, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfile, link); err != nil {
		t.Fatal(err)
	}
	script.WriteString("echo evil > " + shellQuote(link) + " && echo WROTE " + shellQuote(link) + "; ")
	script.WriteString("rm " + shellQuote(link) + " && echo evil > " + shellQuote(link) + " && echo RELINKED; ")
	agent := filepath.Join(e.root, "claude-codex-gemini-opencode-copilot-agent")
	if err := os.Symlink(scriptAgent(t), agent); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--sandbox-agent", "--approve", "allow", "--cwd", e.project, "--prompt", "self "+script.String(), "--", agent)
	log := e.logText(t)
	if !strings.Contains(r.stdout, "self exit 0") {
		t.Fatalf("the agent's own command did not run (exit %d):\n%s\n%s\n%s", r.code, r.stdout, r.stderr, log)
	}
	for p, body := range existing {
		for _, verb := range []string{"WROTE", "APPENDED", "REMOVED", "RENAMED"} {
			if strings.Contains(log, `line="`+verb+" "+p+`"`) {
				t.Errorf("the sandboxed agent %s %s", strings.ToLower(verb), p)
			}
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != body {
			t.Errorf("%s now %q (%v), want %q", p, b, err, body)
		}
	}
	q := filepath.Join(e.stateD, "acpterm", "quarantine")
	b, err := os.ReadFile(filepath.Join(e.stateD, "acpterm", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	audit := string(b)
	for _, p := range planted {
		if !strings.Contains(log, `line="PLANTED `+p+`"`) {
			t.Errorf("the agent could not create %s (want: created, then quarantined)", p)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
		// Said in the log and the audit log (in the output too when it is found before the
		// turn ends: headless stops printing with the last prompt).
		if !strings.Contains(log, "found=\"sandbox: removed "+p+", created by the sandboxed command (moved to "+q+"/") {
			t.Errorf("the log does not say %s was removed", p)
		}
		if !strings.Contains(audit, `"path":"`+p+`"`) {
			t.Errorf("no audit record of the removal of %s", p)
		}
	}
	for _, p := range beside {
		if b, err := os.ReadFile(p); err != nil || string(b) != "state\n" {
			t.Errorf("%s: %q %v; the agent's state dirs must stay writable", p, b, err)
		}
	}
	if !strings.Contains(log, `line=RELINKED`) || strings.Contains(log, `line="WROTE `+link+`"`) {
		t.Errorf("the link: want it replaceable (RELINKED), its target not writable (no WROTE)")
	}
	if got, err := os.Readlink(link); err != nil || got != dotfile {
		t.Errorf("%s now leads to %q (%v), want %s", link, got, err, dotfile)
	}
	if b, err := os.ReadFile(dotfile); err != nil || string(b) != "{}\n" {
		t.Errorf("%s now %q %v", dotfile, b, err)
	}
	if !strings.Contains(log, "sandbox: the symbolic link "+link+" (to "+dotfile+"), replaced or removed by the sandboxed agent, is back") {
		t.Errorf("the log does not say the link was put back")
	}
	if t.Failed() {
		t.Logf("output:\n%s\nlog:\n%s", r.stdout, log)
	}
}

// TestSandboxedAgentGetsPrivateCaches: a sandboxed agent's caches are its own
// ($XDG_CACHE_HOME/acpterm/agent-cache), not the user's, which programs outside the sandbox
// run code from (the npx cache behind `npx -y …`, Go's build cache): the agent's process sees
// XDG_CACHE_HOME, npm_config_cache and GOCACHE there (npm and go agree), writes there, and
// cannot write the user's ~/.npm/_npx, ~/.cache/go-build or $XDG_CACHE_HOME, even with the
// user's own npm_config_cache and GOCACHE pointing at them.
func TestSandboxedAgentGetsPrivateCaches(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(demoConfig("ask") + "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\n")
	userCache := filepath.Join(e.root, "cache") // $XDG_CACHE_HOME
	npx := filepath.Join(e.home, ".npm", "_npx", "0a1b", "node_modules", "x")
	gocache := filepath.Join(userCache, "go-build", "00")
	for _, d := range []string{npx, gocache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.extraEnv = append(e.extraEnv, "npm_config_cache="+filepath.Join(e.home, ".npm"), "GOCACHE="+filepath.Join(userCache, "go-build"))
	private := filepath.Join(userCache, "acpterm", "agent-cache")
	script := `echo "ENV $XDG_CACHE_HOME $npm_config_cache $GOCACHE"; echo "NPM $(npm config get cache)"; echo "GO $(go env GOCACHE)"; ` +
		"echo evil > " + shellQuote(filepath.Join(npx, "index.js")) + " && echo WROTE npx; " +
		"echo evil > " + shellQuote(filepath.Join(gocache, "planted-d")) + " && echo WROTE gocache; " +
		"echo evil > " + shellQuote(filepath.Join(userCache, "planted")) + " && echo WROTE cache; " +
		`mkdir -p "$npm_config_cache/_npx" && echo ok > "$npm_config_cache/_npx/own" && echo PRIVATE ok`
	r := e.run("--headless", "--sandbox-agent", "--approve", "allow", "--cwd", e.project, "--prompt", "self "+script, "--", scriptAgent(t))
	log := e.logText(t)
	if !strings.Contains(r.stdout, "self exit 0") {
		t.Fatalf("the agent's own command did not run (exit %d):\n%s\n%s\n%s", r.code, r.stdout, r.stderr, log)
	}
	want := []string{
		`line="ENV ` + private + " " + filepath.Join(private, "npm") + " " + filepath.Join(private, "go-build") + `"`,
		`line="NPM ` + filepath.Join(private, "npm") + `"`,
		`line="GO ` + filepath.Join(private, "go-build") + `"`,
		`line="PRIVATE ok"`,
	}
	for _, w := range want {
		if !strings.Contains(log, w) {
			t.Errorf("the log lacks %s", w)
		}
	}
	if strings.Contains(log, `line="WROTE`) {
		t.Errorf("the sandboxed agent wrote a cache of the user's")
	}
	for _, p := range []string{filepath.Join(npx, "index.js"), filepath.Join(gocache, "planted-d"), filepath.Join(userCache, "planted")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v)", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(private, "npm", "_npx", "own")); err != nil || string(b) != "ok\n" {
		t.Errorf("the agent's own cache: %q %v", b, err)
	}
	if t.Failed() {
		t.Logf("output:\n%s\nlog:\n%s", r.stdout, log)
	}
}
