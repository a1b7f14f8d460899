package permissions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/config"
)

func TestPolicyPath(t *testing.T) {
	base := cmdRealTemp(t)
	root := filepath.Join(base, "proj")
	good := filepath.Join(base, "bin")
	open := filepath.Join(base, "open")
	for _, d := range []string{filepath.Join(root, "bin"), good, open} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bin"), filepath.Join(base, "tobin")); err != nil {
		t.Fatal(err)
	}
	roots, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	p, err := compileCommandPolicy(permsOf(&config.Config{}), roots)
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{"bin", filepath.Join(root, "bin"), filepath.Join(base, "tobin"), open, filepath.Join(base, "missing"), good, good + "/", ""}, ":")
	rt := p.buildRuntime(func(k string) string {
		return map[string]string{"PATH": path, "HOME": "/home/u", "LANG": "C.UTF-8", "SECRET": "x"}[k]
	})
	if !slices.Equal(rt.pathDirs, []string{good}) {
		t.Errorf("policy PATH %q, want only %q (relative, in-root, symlink-into-root, world-writable and missing dirs dropped)", rt.pathDirs, good)
	}
	rt = p.buildRuntime(func(k string) string { return "" })
	if len(rt.pathDirs) == 0 || !slices.Contains(rt.pathDirs, "/usr/bin") {
		t.Errorf("fallback policy PATH %q", rt.pathDirs)
	}
}

// The git settings every child environment ends with (GitSafeConfig).
const (
	gitKey0   = "GIT_CONFIG_KEY_0=safe.bareRepository"
	gitVal0   = "GIT_CONFIG_VALUE_0=explicit"
	gitCount1 = "GIT_CONFIG_COUNT=1"
)

func TestBuildEnv(t *testing.T) {
	p, err := compileCommandPolicy(permsOf(&config.Config{Policy: config.Policy{Env: config.Env{Deny: []string{"SECRET_*"}, Allow: []string{"MY_*", "GIT_PAGER"}}}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	rt := p.buildRuntime(func(k string) string {
		return map[string]string{"HOME": "/home/u", "USER": "u", "LANG": "C.UTF-8", "PATH": "/usr/bin", "AWS_SECRET": "x", "LD_PRELOAD": "/x.so"}[k]
	})
	cases := []struct {
		vars  []EnvVar
		env   []string
		added []string
		rules []string
		why   string
	}{
		{nil, []string{"HOME=/home/u", "USER=u", "LANG=C.UTF-8", "PATH=/usr/bin", gitKey0, gitVal0, gitCount1, "LESSSECURE=1"}, nil, nil, ""},
		{[]EnvVar{{"CI", "1"}, {"LANG", "C"}, {"MY_X", "2"}, {"CI", "true"}},
			[]string{"HOME=/home/u", "USER=u", "PATH=/usr/bin", "LANG=C", "MY_X=2", "CI=true", gitKey0, gitVal0, gitCount1, "LESSSECURE=1"}, []string{"CI", "LANG", "MY_X"}, nil, ""},
		{[]EnvVar{{"FOO", "1"}}, []string{"HOME=/home/u", "USER=u", "LANG=C.UTF-8", "PATH=/usr/bin", "FOO=1", gitKey0, gitVal0, gitCount1, "LESSSECURE=1"}, []string{"FOO"}, []string{"env: not allowed"}, "the agent sets FOO, which is not on the env allow list"},
		{[]EnvVar{{"GIT_PAGER", "sh -c id"}}, nil, nil, []string{"env deny: GIT_*"}, "GIT_PAGER, which is on the env deny list (GIT_*)"},
		// A plain pager is harmless even though GIT_* is denied.
		{[]EnvVar{{"GIT_PAGER", "cat"}}, []string{"HOME=/home/u", "USER=u", "LANG=C.UTF-8", "PATH=/usr/bin", "GIT_PAGER=cat", gitKey0, gitVal0, gitCount1, "LESSSECURE=1"}, []string{"GIT_PAGER"}, nil, ""},
		{[]EnvVar{{"npm_config_script_shell", "/w/x"}}, nil, nil, []string{"env deny: NPM_CONFIG_*"}, ""},
		{[]EnvVar{{"BASH_FUNC_ls%%", "() { id; }"}}, nil, nil, []string{"env: invalid name"}, `"BASH_FUNC_ls%%" is not valid`},
		{[]EnvVar{{"BASH_FUNC_ls", "() { id; }"}}, nil, nil, []string{"env deny: BASH_FUNC_*"}, ""},
		{[]EnvVar{{"SECRET_TOKEN", "x"}}, nil, nil, []string{"env deny: SECRET_*"}, ""},
		{[]EnvVar{{"", "x"}, {"A=B", "x"}}, nil, nil, []string{"env: invalid name", "env: invalid name"}, ""},
		// A locale variable naming a path loads locale data from it.
		{[]EnvVar{{"LC_ALL", "/tmp/x"}}, nil, nil, []string{"env: locale path"}, "the agent sets LC_ALL=/tmp/x, a path"},
		{[]EnvVar{{"LANGUAGE", "../../tmp"}}, nil, nil, []string{"env: locale path"}, "LANGUAGE=../../tmp, a path"},
		{[]EnvVar{{"LANG", "C.UTF-8"}, {"LC_ALL", "C"}}, nil, nil, nil, ""},
		// less's secure mode cannot be taken back: LESSSECURE is on the deny list.
		{[]EnvVar{{"LESSSECURE", "0"}}, nil, nil, []string{"env deny: LESSSECURE"}, ""},
	}
	for _, c := range cases {
		env, added, fs := p.buildEnv(c.vars, rt, nil)
		var rules []string
		for _, f := range fs {
			rules = append(rules, f.rule)
		}
		if !slices.Equal(rules, c.rules) {
			t.Errorf("%v: findings %q, want %q", c.vars, rules, c.rules)
		}
		if c.why != "" && (len(fs) == 0 || !strings.Contains(fs[0].reason, c.why)) {
			t.Errorf("%v: reason %+v, want ~%q", c.vars, fs, c.why)
		}
		if c.env != nil && !slices.Equal(env, c.env) {
			t.Errorf("%v: env %q, want %q", c.vars, env, c.env)
		}
		if c.env != nil && !slices.Equal(added, c.added) {
			t.Errorf("%v: added %q, want %q", c.vars, added, c.added)
		}
		for _, kv := range env {
			if strings.HasPrefix(kv, "AWS_SECRET=") || strings.HasPrefix(kv, "LD_PRELOAD=") {
				t.Errorf("acpterm's own %s leaked into the child env", kv)
			}
		}
	}
}

func TestDecideCommandEnv(t *testing.T) {
	f := newCorpusFixture(t)
	d := f.e.DecideCommand(CommandRequest{Command: "ls", Env: []EnvVar{{"CLAUDECODE", "1"}, {"NO_COLOR", "1"}}})
	if d.Verdict != Allow || !slices.Equal(d.EnvAdded, []string{"CLAUDECODE", "NO_COLOR"}) {
		t.Errorf("allowed vars: %s %q (%s)", d.Verdict, d.EnvAdded, d.Reason)
	}
	if !slices.Contains(d.Env, "CLAUDECODE=1") || !slices.Contains(d.Env, "HOME="+f.home) {
		t.Errorf("env %q", d.Env)
	}
	var path string
	for _, kv := range d.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path == "" || strings.Contains(path, f.root) {
		t.Errorf("PATH %q", path)
	}
	d = f.e.DecideCommand(CommandRequest{Command: "ls", Env: []EnvVar{{"FOO", "1"}}})
	if d.Verdict != Ask || d.Rule != "env: not allowed" || !strings.Contains(d.Reason, "FOO") {
		t.Errorf("unknown var: %s %q %q", d.Verdict, d.Rule, d.Reason)
	}
	d = f.e.DecideCommand(CommandRequest{Command: "ls", Env: []EnvVar{{"FOO", "1"}, {"PATH", "/w"}}})
	if d.Verdict != Deny || !strings.Contains(d.Reason, "PATH") {
		t.Errorf("denied var after unknown: %s %q", d.Verdict, d.Reason)
	}
}
