package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// inittrace runs the acpterm binary with args and GODEBUG=inittrace=1 and returns its exit
// code and the packages the runtime says it initialised, in order.
func inittrace(t *testing.T, args ...string) (int, []string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	var pkgs []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			pkgs = append(pkgs, f[1])
		}
	}
	return code, pkgs
}

// TestSandboxHelperInitLight: the real binary started as the sandbox helper or the agent guard
// (here without a request, so each fails at once with 125) initialises none of acpterm's heavy
// packages (syntax highlighting, Markdown, the TUI, the network stack, acpterm's own) before
// it runs: those are what made every sandboxed command 20–30 ms slower. The binary's own
// start (--version) initialises them, so their absence means something.
func TestSandboxHelperInitLight(t *testing.T) {
	heavy := func(p string) bool {
		for _, pre := range []string{"github.com/alecthomas/chroma/", "github.com/yuin/goldmark", "github.com/microcosm-cc/bluemonday",
			"charm.land/", "github.com/acpterm/acpterm/", "net/"} {
			if strings.HasPrefix(p, pre) {
				return true
			}
		}
		return p == "net" || p == "crypto/tls"
	}
	code, all := inittrace(t, "--version")
	if code != 0 || !slices.Contains(all, "github.com/alecthomas/chroma/v2/styles") || !slices.Contains(all, "net") ||
		!slices.Contains(all, "github.com/acpterm/acpterm/ui") {
		t.Fatalf("acpterm --version: exit %d, initialised %q", code, all)
	}
	for _, arg := range []string{"__sandbox-exec", "__agent-guard"} {
		code, pkgs := inittrace(t, arg)
		if code != 125 {
			t.Errorf("%s: exit %d, want 125", arg, code)
		}
		if h := slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool { return !heavy(p) }); len(h) > 0 {
			t.Errorf("%s initialised %q", arg, h)
		}
		for _, p := range []string{"golang.org/x/sys/unix", "github.com/landlock-lsm/go-landlock/landlock", "github.com/elastic/go-seccomp-bpf"} {
			if !slices.Contains(pkgs, p) {
				t.Errorf("%s: %s not initialised (trace %q)", arg, p, pkgs)
			}
		}
		if len(pkgs) >= len(all)/2 {
			t.Errorf("%s initialised %d of the binary's %d packages: %q", arg, len(pkgs), len(all), pkgs)
		}
	}
}
