package permissions

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAppendGitConfig: the safe.bareRepository setting is appended after the entries a
// GIT_CONFIG_COUNT already declares, and the count is updated in place.
func TestAppendGitConfig(t *testing.T) {
	render := func(kv []envKV) []string {
		var out []string
		for _, e := range kv {
			out = append(out, e.k+"="+e.v)
		}
		return out
	}
	cases := []struct {
		in, want []string
	}{
		{nil, []string{"GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=explicit", "GIT_CONFIG_COUNT=1"}},
		{[]string{"HOME=/h", "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=1", "GIT_CONFIG_KEY_1=c.d", "GIT_CONFIG_VALUE_1=2"},
			[]string{"HOME=/h", "GIT_CONFIG_COUNT=3", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=1", "GIT_CONFIG_KEY_1=c.d", "GIT_CONFIG_VALUE_1=2",
				"GIT_CONFIG_KEY_2=safe.bareRepository", "GIT_CONFIG_VALUE_2=explicit"}},
		{[]string{"GIT_CONFIG_COUNT=x"}, []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=explicit"}},
	}
	for _, c := range cases {
		var kv []envKV
		for _, s := range c.in {
			k, v, _ := strings.Cut(s, "=")
			kv = append(kv, envKV{k, v})
		}
		if got := render(appendGitConfig(kv, gitSafeConfig)); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// fakeBareRepo writes what the tester's agent wrote: plain files HEAD and config (bare, a pager
// and an external diff program that leave a marker) and empty objects/ and refs/heads/ in
// dir/sub2, plus two files to diff. It returns sub2 and the marker path.
func fakeBareRepo(t *testing.T, dir, markerDir string) (string, string) {
	t.Helper()
	sub := filepath.Join(dir, "sub2")
	marker := filepath.Join(markerDir, "PWNED")
	ext := filepath.Join(markerDir, "ext.sh")
	for _, d := range []string{filepath.Join(sub, "objects"), filepath.Join(sub, "refs", "heads")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(sub, "HEAD"):   "ref: refs/heads/main\n",
		filepath.Join(sub, "config"): "[core]\n\tbare = true\n\tpager = touch " + marker + "; cat\n[diff]\n\texternal = " + ext + "\n",
		filepath.Join(sub, "a"):      "a\n",
		filepath.Join(sub, "b"):      "b\n",
		ext:                          "#!/bin/sh\ntouch " + marker + "\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return sub, marker
}

// TestFakeBareRepo: every child environment carries safe.bareRepository=explicit, so git run in
// a bare repository layout the agent planted does not use its config (here diff.external; in a
// pty, core.pager). The control run without those variables shows the planted config does run.
func TestFakeBareRepo(t *testing.T) {
	f := newCorpusFixture(t)
	_, marker := fakeBareRepo(t, f.root, f.home)
	line := "cd sub2 && git diff --no-index a b"
	d := f.e.DecideCommand(CommandRequest{Command: line})
	if d.Verdict != Allow {
		t.Fatalf("%q: %s (%s); the test expects the policy to allow it and the environment to defuse it", line, d.Verdict, d.Reason)
	}
	for _, kv := range []string{gitKey0, gitVal0, gitCount1} {
		if !slices.Contains(d.Env, kv) {
			t.Errorf("decision env lacks %s: %q", kv, d.Env)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the end-to-end half is skipped")
	}
	run := func(env []string) string {
		t.Helper()
		cmd := exec.Command(d.Argv[0], d.Argv[1:]...)
		cmd.Dir, cmd.Env = d.Cwd, env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: the files differ
			t.Fatalf("%q: %v\n%s", d.Argv, err, out)
		}
		return string(out)
	}
	out := run(d.Env)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("git used the planted bare repository's config with the policy environment:\n%s", out)
	}
	if !strings.Contains(out, "-a\n+b\n") {
		t.Errorf("git diff --no-index output %q, want the a/b diff", out)
	}
	var bare []string
	for _, kv := range d.Env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_") {
			bare = append(bare, kv)
		}
	}
	run(bare)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: without safe.bareRepository git did not run the planted diff.external (%v); this test would not catch a regression", err)
	}
}

// TestGitSafeConfigKept: the agent cannot drop the GIT_CONFIG_* variables: setting, unsetting
// or clearing them is denied or asked.
func TestGitSafeConfigKept(t *testing.T) {
	f := newCorpusFixture(t)
	cases := []struct {
		command string
		args    []string
		env     []EnvVar
		want    Verdict
		reason  string
	}{
		{"git", []string{"status"}, []EnvVar{{"GIT_CONFIG_COUNT", "0"}}, Deny, "GIT_CONFIG_COUNT, which is on the env deny list (GIT_*)"},
		{"unset GIT_CONFIG_COUNT; git status", nil, nil, Deny, "script sets GIT_CONFIG_COUNT (unset)"},
		{"export GIT_CONFIG_COUNT=0; git status", nil, nil, Deny, "GIT_CONFIG_COUNT"},
		{"env", []string{"-u", "GIT_CONFIG_COUNT", "git", "status"}, nil, Deny, "script sets GIT_CONFIG_COUNT (env -u)"},
		{"env", []string{"--uns=GIT_CONFIG_KEY_0", "git", "status"}, nil, Deny, "GIT_CONFIG_KEY_0 (env -u)"},
		{"env", []string{"-i", "git", "status"}, nil, Ask, "env -i runs the command without the environment acpterm built"},
		{"env", []string{"-", "git", "status"}, nil, Ask, "env -i"},
		{"exec -c git status", nil, nil, Ask, "exec -c runs the command without the environment acpterm built"},
		{"env", []string{"CI=1", "git", "status"}, nil, Allow, ""},
	}
	for _, c := range cases {
		d := f.e.DecideCommand(CommandRequest{Command: c.command, Args: c.args, Env: c.env})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%q %q: %s %q (%s), want %s with reason containing %q", c.command, c.args, d.Verdict, d.Rule, d.Reason, c.want, c.reason)
		}
	}
}

// TestNestedGitProtected: .git directories of nested repositories and a bare repository layout
// are protected wherever they are under a root.
func TestNestedGitProtected(t *testing.T) {
	f := newCorpusFixture(t)
	for _, p := range []string{"vendor/lib/.git/config", "a/b/c/.git/hooks/pre-commit", "a/.git/HEAD", "x/.GIT/commondir"} {
		if d := f.e.DecideWrite(filepath.Join(f.root, p)); d.Verdict != Deny || d.Rule != "protected" {
			t.Errorf("write %s: %s %q (%s), want deny protected", p, d.Verdict, d.Rule, d.Reason)
		}
	}
	dir := filepath.Join(f.root, "sub2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The first of HEAD/config is an ordinary file; the second makes a bare repository layout.
	if d := f.e.DecideWrite(filepath.Join(dir, "HEAD")); d.Verdict == Deny {
		t.Errorf("lone HEAD: %s (%s), want not denied", d.Verdict, d.Reason)
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := f.e.DecideWrite(filepath.Join(dir, "config")); d.Verdict != Deny || !strings.Contains(d.Reason, bareRepoReason) {
		t.Errorf("config next to HEAD: %s (%s), want deny naming the bare repository layout", d.Verdict, d.Reason)
	}
	d := f.e.DecideCommand(CommandRequest{Command: "printf '[core]\\n\\tbare = true\\n' > sub2/config"})
	if d.Verdict != Deny || !strings.Contains(d.Reason, bareRepoReason) {
		t.Errorf("redirect into sub2/config: %s (%s), want deny", d.Verdict, d.Reason)
	}
	other := filepath.Join(f.root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "config"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := f.e.DecideWrite(filepath.Join(other, "HEAD")); d.Verdict != Deny || !strings.Contains(d.Reason, bareRepoReason) {
		t.Errorf("HEAD next to config: %s (%s), want deny", d.Verdict, d.Reason)
	}
}
