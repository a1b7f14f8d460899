package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// secretDirEntries are the secretDirs entries that are directories (the rest are files).
var secretDirEntries = []string{".ssh", ".aws", ".gnupg", ".config/gh", ".kube", ".config/gcloud", ".azure",
	".password-store", ".local/share/keyrings", ".config/op", ".copilot/mcp-oauth-config", ".config/github-copilot"}

// secretHome makes every secretDirs entry in a fresh HOME: a file holding "SECRET <name>",
// or a directory with a file "f" holding it; ~/.npmrc holds an npm token. It returns HOME
// and the file path to read for each entry.
func secretHome(t *testing.T) (string, map[string]string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]string{}
	for _, d := range secretDirs {
		p := filepath.Join(home, d)
		if slices.Contains(secretDirEntries, d) {
			p = filepath.Join(p, "f")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		body := "SECRET " + d + "\n"
		if d == ".npmrc" {
			body = "registry=https://registry.example/\n//registry.example/:_authToken=SECRET-npm\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		read[d] = p
	}
	return home, read
}

// catEach runs, in the sandbox of spec, a `cat` of each path, printing per path its exit
// code and the number of bytes it read ("rc=0 bytes=0"), and returns that output and
// whatever else it printed.
func catEach(t *testing.T, spec *Spec, home string, paths []string) string {
	t.Helper()
	line := `for p in "$@"; do cat "$p" > "$TMPDIR/out" 2>/dev/null; rc=$?; printf '%s rc=%s bytes=%s\n' "$p" "$rc" "$(wc -c < "$TMPDIR/out")"; done`
	cmd := exec.Command("/bin/sh", append([]string{"-c", line, "sh"}, paths...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + spec.TempDir}
	out, err := sandboxed(t, spec, cmd)
	if err != nil {
		t.Fatalf("sandboxed cat: %v\n%s", err, out)
	}
	return out
}

func sandboxed(t *testing.T, spec *Spec, cmd *exec.Cmd) (string, error) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(spec, cmd)
	if err != nil {
		return "", err
	}
	_ = cmd.Wait()
	if st, ok := p.Exit(5e9); !ok || st.Code == nil || *st.Code != 0 {
		return out.String(), fmt.Errorf("exit %+v", st)
	}
	return out.String(), nil
}

// TestSandboxSecretStoresUnreadable: a sandboxed `cat` of every built-in secret (git
// credentials, .netrc, Docker, Kubernetes, gcloud, Azure, pass, keyrings, 1Password, cargo,
// PyPI, an ~/.npmrc with a token, the agents' credentials …), made in a temp HOME, reads
// nothing: a masked file reads as empty, a file in a masked directory does not exist. The
// same cat outside the sandbox reads every one (so the test can fail).
func TestSandboxSecretStoresUnreadable(t *testing.T) {
	home, read := secretHome(t)
	root := filepath.Join(home, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true,
		Mask: SecretPaths(home)}
	if len(spec.Mask) != len(secretDirs) {
		t.Fatalf("SecretPaths masks %d of %d: %q", len(spec.Mask), len(secretDirs), spec.Mask)
	}
	var paths, want []string
	for _, d := range secretDirs {
		paths = append(paths, read[d])
		if slices.Contains(secretDirEntries, d) {
			want = append(want, read[d]+" rc=1 bytes=0")
		} else {
			want = append(want, read[d]+" rc=0 bytes=0")
		}
	}
	if got := catEach(t, spec, home, paths); got != strings.Join(want, "\n")+"\n" {
		t.Errorf("sandboxed cat:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), "SECRET") {
			t.Errorf("outside the sandbox %s: %q %v", p, b, err)
		}
	}
}

// TestSandboxNpmrcWithoutCredentialsReadable: an ~/.npmrc with registry and proxy settings
// only is not masked (npm in the sandbox needs them); one with an auth key in any of npm's
// spellings is.
func TestSandboxNpmrcWithoutCredentialsReadable(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".npmrc")
	for body, masked := range map[string]bool{
		"registry=https://registry.example/\nproxy=http://proxy:3128\n; _authToken=commented\n": false,
		"//registry.example/:_authToken=${NPM_TOKEN}\n":                                         true,
		"_auth = dXNlcjpwYXNz\n": true,
		"@scope:registry=https://r.example/\n//r.example/:_password=cA==\n": true,
		"//r.example/:username=u\n":                                         true,
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(SecretPaths(home), p); got != masked {
			t.Errorf("%q: masked %v, want %v", body, got, masked)
		}
	}
}

// TestSandboxAgentReadsOnlyItsOwnCredentials: a sandboxed agent's mask (UnmaskFor with
// AgentOwnSecrets and its state directories) leaves it its own credentials: claude-agent-acp
// reads ~/.claude/.credentials.json, but neither Codex's auth.json nor ~/.git-credentials.
func TestSandboxAgentReadsOnlyItsOwnCredentials(t *testing.T) {
	home, read := secretHome(t)
	root := filepath.Join(home, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	argv := []string{"/x/bin/claude-agent-acp"}
	write := AgentStateDirs(argv, home, nil)
	mask := UnmaskFor(SecretPaths(home), append(AgentOwnSecrets(argv, home), write...))
	own := filepath.Join(home, ".claude", ".credentials.json")
	if slices.Contains(mask, own) || len(mask) != len(secretDirs)-1 {
		t.Fatalf("agent mask %q", mask)
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true,
		Write: write, Mask: mask}
	got := catEach(t, spec, home, []string{own, read[".codex/auth.json"], read[".git-credentials"]})
	want := fmt.Sprintf("%s rc=0 bytes=%d\n%s rc=0 bytes=0\n%s rc=0 bytes=0\n", own, len("SECRET .claude/.credentials.json\n"),
		read[".codex/auth.json"], read[".git-credentials"])
	if got != want {
		t.Errorf("agent's cat:\n%s\nwant\n%s", got, want)
	}
}

// TestSandboxAgentSecretsFromEnv: an agent's credentials in the directory its variable names
// (CODEX_HOME, XDG_DATA_HOME for opencode …) are masked for commands too, and a sandboxed
// Codex, whose state directories include CODEX_HOME, still reads its own auth.json there.
func TestSandboxAgentSecretsFromEnv(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, codex, data := filepath.Join(base, "home"), filepath.Join(base, "codex"), filepath.Join(base, "data")
	auth, oc := filepath.Join(codex, "auth.json"), filepath.Join(data, "opencode", "auth.json")
	for _, p := range []string{auth, oc} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("SECRET\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"CODEX_HOME": codex, "XDG_DATA_HOME": data}[k] }
	mask := AgentSecretsFromEnv(getenv)
	if !slices.Equal(mask, []string{auth, oc}) {
		t.Fatalf("mask %q", mask)
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{filepath.Join(home, "proj")}, TempDir: t.TempDir(), Network: NetworkOff, Seccomp: true, Mask: mask}
	if got, want := catEach(t, spec, home, []string{auth, oc}), auth+" rc=0 bytes=0\n"+oc+" rc=0 bytes=0\n"; got != want {
		t.Errorf("command's cat:\n%s\nwant\n%s", got, want)
	}
	argv := []string{"codex-acp"}
	write := AgentStateDirs(argv, home, getenv)
	spec.Write, spec.Mask = write, UnmaskFor(mask, append(AgentOwnSecrets(argv, home), write...))
	if got, want := catEach(t, spec, home, []string{auth, oc}), auth+" rc=0 bytes=7\n"+oc+" rc=0 bytes=0\n"; got != want {
		t.Errorf("sandboxed codex's cat:\n%s\nwant\n%s", got, want)
	}
}
