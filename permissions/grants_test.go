package permissions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

func askLeaf(prog string, argv ...string) Leaf {
	return Leaf{Argv: argv, Program: prog, Verdict: Ask, Rule: "unmatched"}
}

func askDecision(leaves ...Leaf) Decision {
	return Decision{Verdict: Ask, Rule: "unmatched", Leaves: leaves}
}

func TestGrantNarrowest(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, nil, EngineOptions{})
	g, err := e.Grant(askDecision(askLeaf("/usr/bin/go", "go", "vet", "./pkg/x")), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Argv, []string{"go", "vet", "./pkg/x"}) || g.Prefix || g.Saved || g.Program != "/usr/bin/go" || !strings.HasPrefix(g.ID, "g-") || len(g.ID) != 14 {
		t.Errorf("grant = %+v", g)
	}
	if g.Rule() != "grant: go vet ./pkg/x" {
		t.Errorf("Rule() = %q", g.Rule())
	}
	gs := e.GrantStore()
	cases := []struct {
		leaf Leaf
		ok   bool
	}{
		{askLeaf("/usr/bin/go", "go", "vet", "./pkg/x"), true},
		{askLeaf("/usr/bin/go", "go", "vet", "./pkg/y"), false},
		{askLeaf("/usr/bin/go", "go", "vet", "./pkg/x", "-run", "X"), false},
		{askLeaf("/usr/bin/go", "go", "vet"), false},
		{askLeaf("/home/u/proj/bin/go", "go", "vet", "./pkg/x"), false}, // another binary
		{askLeaf("/usr/bin/go", "go", "vet", DynamicWord), false},
	}
	for _, c := range cases {
		id, ok := gs.Allows("s1", c.leaf)
		if ok != c.ok || (ok && id != g.ID) {
			t.Errorf("Allows(%q %q) = %q %v, want %v", c.leaf.Program, c.leaf.Argv, id, ok, c.ok)
		}
	}
	// Granting the same thing again returns the existing grant.
	g2, err := e.Grant(askDecision(askLeaf("/usr/bin/go", "go", "vet", "./pkg/x")), false)
	if err != nil || g2.ID != g.ID || len(e.Grants()) != 1 {
		t.Errorf("regrant = %+v, %v; %d grants", g2, err, len(e.Grants()))
	}
}

func TestGrantSubcommandAndSession(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, nil, EngineOptions{})
	gs, err := e.GrantWith(askDecision(askLeaf("/usr/bin/go", "go", "vet", "--all"),
		Leaf{Argv: []string{"ls"}, Verdict: Allow, Rule: "allow: ls"}), GrantOptions{Session: "s1", Subcommand: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || !slices.Equal(gs[0].Argv, []string{"go", "vet"}) || !gs[0].Prefix || gs[0].Session != "s1" {
		t.Fatalf("grants = %+v", gs)
	}
	store := e.GrantStore()
	if _, ok := store.Allows("s1", askLeaf("/usr/bin/go", "go", "vet", "./x")); !ok {
		t.Error("go vet ./x not covered by go vet …")
	}
	if _, ok := store.Allows("s1", askLeaf("/usr/bin/go", "go", "version")); ok {
		t.Error("go version covered")
	}
	if _, ok := store.Allows("s2", askLeaf("/usr/bin/go", "go", "vet")); ok {
		t.Error("grant leaked into another session")
	}
	// A first word that is not a subcommand token stays exact.
	gs, err = e.GrantWith(askDecision(askLeaf("/usr/bin/du", "du", "-sh", ".")), GrantOptions{Subcommand: true})
	if err != nil || gs[0].Prefix || !slices.Equal(gs[0].Argv, []string{"du", "-sh", "."}) {
		t.Errorf("du grant = %+v, %v", gs, err)
	}
	// Tools whose names merely start like an interpreter's are fine.
	for _, prog := range []string{"phpunit", "luacheck", "perltidy", "rubocop", "pythonfmt"} {
		if _, err := e.GrantWith(askDecision(askLeaf("/usr/bin/"+prog, prog, "x")), GrantOptions{}); err != nil {
			t.Errorf("%s: %v", prog, err)
		}
	}
	for _, prog := range []string{"python3.12", "ruby3.2", "perl5.36", "php8", "lua5.4", "node20"} {
		if _, err := e.GrantWith(askDecision(askLeaf("/usr/bin/"+prog, prog, "x")), GrantOptions{}); err == nil || !strings.HasSuffix(err.Error(), prog+" is an interpreter") {
			t.Errorf("%s: %v", prog, err)
		}
	}
	// Several asking leaves: one grant each.
	gs, err = e.GrantWith(askDecision(askLeaf("", "make1", "a"), askLeaf("", "tool", "b")), GrantOptions{})
	if err != nil || len(gs) != 2 {
		t.Errorf("two leaves: %+v, %v", gs, err)
	}
}

func TestGrantRefused(t *testing.T) {
	s := newFSSandbox(t)
	e := s.engine(t, nil, EngineOptions{})
	cases := []struct {
		d    Decision
		want string
	}{
		{askDecision(askLeaf("/bin/bash", "bash", "-c", "ls")), `grant refused for "bash -c ls": bash is a shell`},
		{askDecision(askLeaf("", "sh")), `grant refused for "sh": sh is a shell`},
		{askDecision(askLeaf("/usr/bin/python3", "python3", "-c", "print(1)")), `grant refused for "python3 -c print(1)": python3 is an interpreter`},
		{askDecision(askLeaf("/usr/bin/python3.12", "python3.12", "x.py")), `grant refused for "python3.12 x.py": python3.12 is an interpreter`},
		{askDecision(askLeaf("", "node", "-e", "1")), `grant refused for "node -e 1": node is an interpreter`},
		{askDecision(askLeaf("", "awk", "{print}")), `grant refused for "awk {print}": awk is an interpreter`},
		{askDecision(askLeaf("", "env", "FOO=1", "ls")), `grant refused for "env FOO=1 ls": env is a wrapper that runs another program`},
		{askDecision(askLeaf("", "/usr/bin/sudo", "ls")), `grant refused for "/usr/bin/sudo ls": sudo is privilege escalation`},
		{askDecision(askLeaf("", "doas", "ls")), `grant refused for "doas ls": doas is privilege escalation`},
		{askDecision(askLeaf("", "su")), `grant refused for "su": su is privilege escalation`},
		{askDecision(askLeaf("", "xargs", "rm")), `grant refused for "xargs rm": xargs is a wrapper that runs another program`},
		{askDecision(askLeaf("", "find", ".", "-exec", "id", ";")), `grant refused for "find . -exec id ;": find -exec runs a command for every file found, so it is never granted`},
		{askDecision(askLeaf("", "git", "-c", "core.pager=sh", "log")), `grant refused for "git -c core.pager=sh log": git -c sets config, which can name programs git runs (core.pager, core.fsmonitor, alias.x=!cmd), so it is never granted`},
		{askDecision(askLeaf("", "npm", "run", "test")), `grant refused for "npm run test": npm run runs scripts from workspace files the agent can edit (package.json, Makefile …)`},
		{askDecision(askLeaf("", "make", "all")), `grant refused for "make all": make runs scripts from workspace files the agent can edit (package.json, Makefile …)`},
		{askDecision(askLeaf("", "just")), `grant refused for "just": just runs scripts from workspace files the agent can edit (package.json, Makefile …)`},
		{askDecision(askLeaf("/usr/bin/go", "go", "test", "./...")), `grant refused for "go test ./...": go test runs scripts from workspace files the agent can edit (test files, //go:generate lines, main packages)`},
		{askDecision(askLeaf("", "pytest", "-q")), `grant refused for "pytest -q": pytest runs scripts from workspace files the agent can edit (test files, conftest.py)`},
		{askDecision(askLeaf("", "ls", DynamicWord)), `grant refused for "ls <dynamic>": it has words only known when the shell runs`},
		{Decision{Verdict: Deny, Rule: "deny: rm", Leaves: []Leaf{{Argv: []string{"rm"}, Verdict: Deny, Rule: "deny: rm"}}}, `grant refused: the request is denied (deny: rm)`},
		{Decision{Verdict: Ask, Leaves: []Leaf{{Argv: []string{"rm", "x"}, Verdict: Deny, Rule: "deny: rm"}, askLeaf("", "tool")}}, `grant refused: "rm x" is denied (deny: rm)`},
		{Decision{Verdict: Ask, Rule: "link", Path: "/x"}, `grant refused for /x: only the [policy.fs] ask verdict can be granted (link)`},
		{Decision{Verdict: Ask, Rule: "unmatched"}, `grant refused: no command in the request needed approval`},
	}
	cases = append(cases,
		struct {
			d    Decision
			want string
		}{askDecision(askLeaf(filepath.Join(s.proj, "build.sh"), "./build.sh")), `grant refused for "./build.sh": ` + filepath.Join(s.proj, "build.sh") + ` is inside the roots, so its content can change`},
		struct {
			d    Decision
			want string
		}{askDecision(askLeaf("", "bin/tool", "x")), `grant refused for "bin/tool x": bin/tool is a relative program path`},
	)
	for _, c := range cases {
		_, err := e.Grant(c.d, false)
		if err == nil || err.Error() != c.want {
			t.Errorf("Grant(%v) err = %v\nwant %s", c.d.Leaves, err, c.want)
		}
	}
	if n := len(e.Grants()); n != 0 {
		t.Errorf("%d grants were created by refused requests", n)
	}
	// A mixed request where a later leaf is banned creates nothing.
	if _, err := e.Grant(askDecision(askLeaf("", "tool", "a"), askLeaf("", "bash")), false); err == nil {
		t.Error("mixed request granted")
	}
	if n := len(e.Grants()); n != 0 {
		t.Errorf("%d grants after a refused mixed request", n)
	}
	// Even a hand-built leaf with a banned head is never covered.
	if _, ok := e.GrantStore().Allows("s", askLeaf("", "bash", "-c", "ls")); ok {
		t.Error("banned leaf allowed")
	}
}

func TestGrantRevokeAndPersist(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.home, ".local", "state", "acpterm", "grants.json")
	e := s.engine(t, nil, EngineOptions{GrantsFile: file})
	saved, err := e.Grant(askDecision(askLeaf("/usr/bin/tool", "tool", "sync")), true)
	if err != nil {
		t.Fatal(err)
	}
	session, err := e.Grant(askDecision(askLeaf("/usr/bin/tool", "tool", "check")), false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("grants file: %v %v", st, err)
	}
	var onDisk struct {
		Version int     `json:"version"`
		Grants  []Grant `json:"grants"`
	}
	data, _ := os.ReadFile(file)
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Version != 1 || len(onDisk.Grants) != 1 || onDisk.Grants[0].ID != saved.ID {
		t.Fatalf("file content %s (%v)", data, err)
	}
	// A new engine (next run) sees the saved grant only.
	e2 := s.engine(t, nil, EngineOptions{GrantsFile: file})
	if got := e2.Grants(); len(got) != 1 || got[0].ID != saved.ID || !got[0].Saved || !slices.Equal(got[0].Argv, []string{"tool", "sync"}) {
		t.Fatalf("reloaded grants = %+v", got)
	}
	if id, ok := e2.GrantStore().Allows("any", askLeaf("/usr/bin/tool", "tool", "sync")); !ok || id != saved.ID {
		t.Error("saved grant not honoured after reload")
	}
	if _, ok := e2.GrantStore().Allows("any", askLeaf("/usr/bin/tool", "tool", "check")); ok {
		t.Error("session grant survived a restart")
	}
	// Revoke removes it from memory and the file.
	if err := e2.Revoke(saved.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := e2.GrantStore().Allows("any", askLeaf("/usr/bin/tool", "tool", "sync")); ok {
		t.Error("revoked grant still allows")
	}
	e3 := s.engine(t, nil, EngineOptions{GrantsFile: file})
	if n := len(e3.Grants()); n != 0 {
		t.Errorf("%d grants after revoke + reload", n)
	}
	if err := e.Revoke(session.ID); err != nil {
		t.Error(err)
	}
	if err := e.Revoke("g-nope"); err == nil || err.Error() != `revoke: no grant "g-nope"` {
		t.Errorf("Revoke(unknown) = %v", err)
	}
	// Saving without a grants file is an error.
	e4 := s.engine(t, nil, EngineOptions{})
	if _, err := e4.Grant(askDecision(askLeaf("", "tool")), true); err == nil || err.Error() != `grant: cannot save "tool": no grants file configured` {
		t.Errorf("persist without file: %v", err)
	}
}

func TestGrantsFileRejectsBanned(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.base, "grants.json")
	write(t, file, `{"version":1,"grants":[{"id":"g-1","argv":["bash","-c","id"],"created":"2026-11-29T00:00:00Z"}]}`)
	gs, err := NewGrantStore(file)
	if err != nil || len(gs.List()) != 0 || !slices.Equal(gs.Warnings(), []string{"grants file " + file + `: grant g-1 (bash -c id) ignored: bash is a shell`}) {
		t.Errorf("err = %v, grants %+v, warnings %q", err, gs.List(), gs.Warnings())
	}
	write(t, file, `{"version":1,"grants":[{"id":"g-1","argv":["git","status"]`)
	if _, err := NewGrantStore(file); err == nil || err.Error() != "grants file "+file+": unexpected EOF" {
		t.Errorf("truncated JSON: %v", err)
	}
	write(t, file, `{"version":1,"grants":[]}`)
	if err := os.Chmod(file, 0o664); err != nil {
		t.Fatal(err)
	}
	if _, err := NewGrantStore(file); err == nil || err.Error() != "grants file "+file+": writable by group or others (mode 0664); run chmod 600 on it" {
		t.Errorf("group-writable: %v", err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, file, `{"version":1,"grants":[],"extra":1}`)
	if _, err := NewGrantStore(file); err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Errorf("unknown field: %v", err)
	}
	if gs, err := NewGrantStore(filepath.Join(s.base, "none.json")); err != nil || len(gs.List()) != 0 {
		t.Errorf("missing file: %v", err)
	}
}

func TestFileGrants(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.base, "grants.json")
	main := filepath.Join(s.proj, "main.go")
	write(t, main, "package main\n")
	hl := filepath.Join(s.proj, "hl")
	write(t, filepath.Join(s.outside, "f"), "x")
	if err := os.Link(filepath.Join(s.outside, "f"), hl); err != nil {
		t.Fatal(err)
	}
	e := s.engine(t, func(c *config.Config) { c.Policy.FS.DenyWrite = []string{"go.sum"} }, EngineOptions{GrantsFile: file})
	d := e.DecideWrite(main)
	if d.Verdict != Ask || d.Rule != "fs.write" {
		t.Fatalf("before grant: %s %q", d.Verdict, d.Rule)
	}
	g, err := e.Grant(d, true)
	if err != nil {
		t.Fatal(err)
	}
	if g.Kind != "write" || g.Path != main || g.Rule() != "grant: write "+main {
		t.Errorf("grant = %+v", g)
	}
	d = e.DecideWrite(main)
	if d.Verdict != Allow || d.Grant != g.ID || d.Rule != "grant: write "+main {
		t.Errorf("after grant: %s %q grant %q", d.Verdict, d.Rule, d.Grant)
	}
	// Only that file, only writes.
	if d := e.DecideWrite(filepath.Join(s.proj, "other.go")); d.Verdict != Ask {
		t.Errorf("other file: %s", d.Verdict)
	}
	if d := e.DecideRead(main); d.Grant != "" {
		t.Errorf("read used the write grant: %+v", d)
	}
	// Link concerns are never granted.
	if _, err := e.Grant(e.DecideWrite(hl), false); err == nil {
		t.Error("hard-link ask was granted")
	}
	// Survives a restart.
	e2 := s.engine(t, nil, EngineOptions{GrantsFile: file})
	if d := e2.DecideWrite(main); d.Verdict != Allow || d.Grant != g.ID {
		t.Errorf("after reload: %s %q", d.Verdict, d.Grant)
	}
}

func TestProtectsOwnFiles(t *testing.T) {
	s := newFSSandbox(t)
	grants := filepath.Join(s.proj, "state", "grants.json")
	auditPath := filepath.Join(s.proj, "state", "audit.jsonl")
	log, err := OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	userCfg := filepath.Join(s.proj, "my.toml")
	e := s.engine(t, func(c *config.Config) {
		c.Policy.FS.Write = "allow"
		c.Source = userCfg
		c.Project = filepath.Join(s.proj, ".acpterm.toml")
	}, EngineOptions{GrantsFile: grants, Audit: log})
	for path, why := range map[string]string{
		grants:                                 "acpterm's grants file (" + grants + ")",
		auditPath:                              "acpterm's audit log (" + auditPath + ")",
		userCfg:                                "acpterm's config file (" + userCfg + ")",
		filepath.Join(s.proj, ".acpterm.toml"): "the project policy file (" + filepath.Join(s.proj, ".acpterm.toml") + ")",
	} {
		d := e.DecideWrite(path)
		if d.Verdict != Deny || d.Reason != "write of "+path+" denied: protected path: "+why {
			t.Errorf("DecideWrite(%s) = %s %q", path, d.Verdict, d.Reason)
		}
	}
	// The project file is protected before it exists, for an engine without one too.
	e2 := s.engine(t, func(c *config.Config) { c.Policy.FS.Write = "allow" }, EngineOptions{})
	if d := e2.DecideWrite(filepath.Join(s.proj, ".acpterm.toml")); d.Verdict != Deny || d.Rule != "protected" {
		t.Errorf("new .acpterm.toml: %s %q", d.Verdict, d.Reason)
	}
	// A symlink planted at a hook name is judged by its name as well as its target.
	mkdirAll(t, filepath.Join(s.proj, ".git", "hooks"))
	write(t, filepath.Join(s.proj, "hook.sh"), "#!/bin/sh\n")
	symlink(t, filepath.Join(s.proj, "hook.sh"), filepath.Join(s.proj, ".git", "hooks", "pre-push"))
	if d := e2.DecideWrite(filepath.Join(s.proj, ".git", "hooks", "pre-push")); d.Verdict != Deny || d.Rule != "protected" {
		t.Errorf("hook symlink: %s %q", d.Verdict, d.Reason)
	}
	if d := e.DecideWrite(filepath.Join(s.proj, "state", "notes")); d.Verdict != Allow {
		t.Errorf("neighbour: %s %q", d.Verdict, d.Reason)
	}
}

// Two acpterm processes share the grants file: each sees the other's saved grants, and a
// revocation is never undone by the other's next save.
func TestGrantsSharedBetweenProcesses(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.base, "state", "grants.json")
	a, err := NewGrantStore(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewGrantStore(file)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(w string) Leaf { return askLeaf("/usr/bin/tool", "tool", w) }
	g1, err := a.Add(Grant{Argv: []string{"tool", "one"}, Program: "/usr/bin/tool", Saved: true})
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := b.Allows("s", leaf("one")); !ok || id != g1.ID {
		t.Fatalf("b does not see a's saved grant: %q %v", id, ok)
	}
	g2, err := b.Add(Grant{Argv: []string{"tool", "two"}, Program: "/usr/bin/tool", Saved: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(gs []Grant) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.ID)
		}
		return out
	}
	if got := ids(a.List()); !slices.Equal(got, []string{g1.ID, g2.ID}) {
		t.Fatalf("a lists %q, want [%s %s]", got, g1.ID, g2.ID)
	}
	// a revokes g1; b must not resurrect it when it saves next.
	if err := a.Revoke(g1.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Allows("s", leaf("one")); ok {
		t.Error("b still allows a revoked grant")
	}
	g3, err := b.Add(Grant{Argv: []string{"tool", "three"}, Program: "/usr/bin/tool", Saved: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewGrantStore(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.List()); !slices.Equal(got, []string{g2.ID, g3.ID}) {
		t.Errorf("file holds %q, want [%s %s]", got, g2.ID, g3.ID)
	}
	// Revoking a grant someone else already revoked succeeds.
	if err := b.Revoke(g2.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.Revoke(g2.ID); err != nil {
		t.Errorf("revoke of an already revoked grant: %v", err)
	}
	// A corrupted file drops the saved grants (fail closed); session grants stay.
	if _, err := a.Add(Grant{Session: "s", Argv: []string{"tool", "mine"}}); err != nil {
		t.Fatal(err)
	}
	write(t, file, "{not json")
	if _, ok := a.Allows("s", leaf("three")); ok {
		t.Error("saved grant still allows after the file was corrupted")
	}
	if _, ok := a.Allows("s", leaf("mine")); !ok {
		t.Error("session grant lost")
	}
}

// Making and revoking an "always" grant is recorded in the audit log, and the log verifies.
func TestGrantsAreAudited(t *testing.T) {
	s := newFSSandbox(t)
	path := filepath.Join(s.base, "audit.jsonl")
	audit, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(s.proj, "main.go")
	write(t, main, "package main\n")
	e := s.engine(t, nil, EngineOptions{Audit: audit})
	d := e.DecideWrite(main)
	g, err := e.Grant(d, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Grant(d, false); err != nil { // the same again: not a new grant, not audited
		t.Fatal(err)
	}
	if err := e.Revoke(g.ID); err != nil {
		t.Fatal(err)
	}
	if err := audit.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev AuditEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %s %s", ev.Kind, ev.Verdict, ev.Rule, ev.Reason, ev.By, ev.Grant))
	}
	want := []string{
		"grant allow grant: write " + main + " session user " + g.ID,
		"revoke deny grant: write " + main + " session user " + g.ID,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, note, err := VerifyAuditNote(path); err != nil || note != "" || n != 2 {
		t.Fatalf("VerifyAudit = %d %q %v", n, note, err)
	}
}

// TestGrantsFileSkipsUngrantable: a saved grant this engine would not make (make, a build
// runner such as npm rb or cargo +nightly build, a grant without an id) does not stop the
// engine: it is skipped, reported by GrantWarnings, never consulted (npm rb still asks, also
// headless), and dropped when the file is next rewritten; valid grants beside it load.
func TestGrantsFileSkipsUngrantable(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.base, "grants.json")
	write(t, file, `{"version":1,"grants":[
 {"id":"g-make","argv":["make"],"created":"2026-11-29T00:00:00Z"},
 {"id":"g-cargo","argv":["cargo","+nightly","build"],"created":"2026-11-29T00:00:00Z"},
 {"id":"g-npm","argv":["npm","rb"],"created":"2026-11-29T00:00:00Z"},
 {"argv":["ls"],"created":"2026-11-29T00:00:00Z"},
 {"id":"g-ok","argv":["mytool","x"],"created":"2026-11-29T00:00:00Z"}]}`)
	e := s.engine(t, nil, EngineOptions{GrantsFile: file, Headless: true})
	pre := "grants file " + file + ": grant "
	want := []string{
		pre + "g-make (make) ignored: make runs scripts from workspace files the agent can edit (package.json, Makefile …)",
		pre + "g-cargo (cargo +nightly build) ignored: cargo build runs scripts from workspace files the agent can edit (package.json, Makefile …)",
		pre + "g-npm (npm rb) ignored: npm rb may run scripts from workspace files the agent can edit (package.json, build.rs, plugins …): it is not a subcommand known to leave them alone",
		pre + "4 ignored: it has no id",
	}
	if got := e.GrantWarnings(); !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if gs := e.Grants(); len(gs) != 1 || gs[0].ID != "g-ok" {
		t.Errorf("grants = %+v, want g-ok only", gs)
	}
	if d := e.DecideCommand(CommandRequest{Command: "npm", Args: []string{"rb"}}); d.Verdict != Ask || d.Rule != "runner: npm rb" {
		t.Errorf("npm rb: %s %q (%s)", d.Verdict, d.Rule, d.Reason)
	}
	if d := e.DecideCommand(CommandRequest{Command: "mytool", Args: []string{"x"}}); d.Verdict != Allow || d.Grant != "g-ok" {
		t.Errorf("mytool x: %s %q (%s)", d.Verdict, d.Rule, d.Reason)
	}
	if err := e.Revoke("g-ok"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil || strings.Contains(string(data), "g-make") || !strings.Contains(string(data), `"grants": []`) {
		t.Errorf("rewritten file: %s %v", data, err)
	}
	if got := e.GrantWarnings(); len(got) != 0 {
		t.Errorf("warnings after rewrite: %q", got)
	}
}

// TestToolGrants: a grant made from the agent's "always" for a file tool call covers only that
// tool kind and path (DecideToolWrite), never acpterm's own write checks; it is audited, saved
// and reloaded with its tool kind, and refused for anything but the [policy.fs] write ask.
func TestToolGrants(t *testing.T) {
	s := newFSSandbox(t)
	file := filepath.Join(s.base, "grants.json")
	auditPath := filepath.Join(s.base, "audit.jsonl")
	audit, err := OpenAuditLog(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	build := filepath.Join(s.proj, "build")
	e := s.engine(t, nil, EngineOptions{GrantsFile: file, Audit: audit})
	if _, err := e.GrantTool("fetch", e.DecideWrite(build), false); err == nil || !strings.Contains(err.Error(), `"fetch" tool calls are not remembered`) {
		t.Fatalf("GrantTool(fetch) = %v", err)
	}
	if _, err := e.GrantTool("delete", e.DecideWrite(filepath.Join(s.proj, ".git", "config")), false); err == nil {
		t.Fatal("a protected path was granted")
	}
	g, err := e.GrantTool("delete", e.DecideWrite(build), true)
	if err != nil {
		t.Fatal(err)
	}
	if g.Tool != "delete" || g.Path != build || !g.Saved || g.Rule() != "grant: agent delete "+build {
		t.Fatalf("grant = %+v", g)
	}
	for _, c := range []struct {
		name string
		d    Decision
		want Verdict
	}{
		{"the granted tool kind and path", e.DecideToolWrite("delete", build), Allow},
		{"another tool kind", e.DecideToolWrite("edit", build), Ask},
		{"another path", e.DecideToolWrite("delete", build+"2"), Ask},
		{"acpterm's own write check", e.DecideWrite(build), Ask},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.d.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s", c.d.Verdict, c.d.Rule, c.want)
			}
			if c.want == Allow && (c.d.Grant != g.ID || c.d.Rule != "grant: agent delete "+build) {
				t.Fatalf("decision %+v", c.d)
			}
		})
	}
	e2 := s.engine(t, nil, EngineOptions{GrantsFile: file})
	if d := e2.DecideToolWrite("delete", build); d.Verdict != Allow || d.Grant != g.ID {
		t.Fatalf("after reload: %s %q", d.Verdict, d.Grant)
	}
	if err := audit.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var ev AuditEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("audit log %q: %v", b, err)
	}
	if got := fmt.Sprintf("%s %s %s %s %s", ev.Kind, ev.Verdict, ev.Rule, ev.Reason, ev.Grant); got != "grant allow grant: agent delete "+build+" saved "+g.ID {
		t.Fatalf("audit event = %q", got)
	}
}
