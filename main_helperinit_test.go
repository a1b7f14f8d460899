package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/sandbox"
)

// initTrace returns the packages a GODEBUG=inittrace=1 trace says were initialised, in order
// (the runtime prints "init PKG @T ms, …" on stderr after each package's init).
func initTrace(stderr string) []string {
	var pkgs []string
	for _, line := range strings.Split(stderr, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			pkgs = append(pkgs, f[1])
		}
	}
	return pkgs
}

// heavyInit are the packages, of those acpterm links, whose initialisation the sandbox helper
// and the agent guard must not pay for: the syntax highlighter (its lexers and styles alone
// are some 20 ms), Markdown and HTML sanitising, the TUI, the network stack, and every
// package of acpterm's own (none is needed: the helper's package never prints its own line,
// it exits in its init).
func heavyInit(pkg string) bool {
	for _, p := range []string{"github.com/alecthomas/chroma/", "github.com/yuin/goldmark", "github.com/microcosm-cc/bluemonday",
		"github.com/gorilla/css", "charm.land/", "github.com/charmbracelet/bubbletea", "github.com/acpterm/acpterm/", "net/"} {
		if strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return pkg == "net" || pkg == "crypto/tls"
}

// helperDeps returns the import paths the helper's package depends on (go list -deps).
func helperDeps(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "./sandbox/internal/helper").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	return deps
}

// checkLightInit fails t when the trace of who (the helper, the guard) names a heavy package,
// or any package after the last of the helper package's own dependencies (the helper must
// run the moment Go can initialise its package: what comes before that are small packages
// that sort, and are ready, before golang.org/x/sys/unix, such as the MCP SDK's GODEBUG
// reader), or lacks the packages it must have initialised (so an empty or lost trace fails).
//
// It also fails when who initialised half or more of the n packages the whole binary does: a
// dependency that Go initialises late (path/filepath did) makes the helper wait for the small
// packages sorted before it, which the other checks let pass.
func checkLightInit(t *testing.T, who, stderr string, deps map[string]bool, n int, must ...string) {
	t.Helper()
	pkgs := initTrace(stderr)
	if len(pkgs) >= n/2 {
		t.Errorf("%s initialised %d of the binary's %d packages", who, len(pkgs), n)
	}
	if heavy := slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool { return !heavyInit(p) }); len(heavy) > 0 {
		t.Errorf("%s initialised %q (of %d packages)", who, heavy, len(pkgs))
	}
	last := -1
	for i, p := range pkgs {
		if deps[p] {
			last = i
		}
	}
	if last < len(pkgs)-1 {
		t.Errorf("%s initialised %q after its last dependency %s", who, pkgs[last+1:], pkgs[max(last, 0)])
	}
	for _, m := range append([]string{"runtime", "os", "encoding/json", "golang.org/x/sys/unix"}, must...) {
		if !slices.Contains(pkgs, m) {
			t.Errorf("%s's init trace lacks %s: %q", who, m, pkgs)
		}
	}
	var strays []string
	for _, p := range pkgs {
		if !deps[p] {
			strays = append(strays, p)
		}
	}
	t.Logf("%s: %d packages initialised, %d of them not its own dependencies: %q", who, len(pkgs), len(strays), strays)
}

// TestSandboxHelperInitialisesNoHeavyPackage: the sandbox helper and the agent guard, both
// this test binary (which links all of acpterm, as the real one does) re-executed, run and
// exit before any of acpterm's heavy packages is initialised. The control run of the same
// binary shows those packages are there to be initialised.
func TestSandboxHelperInitialisesNoHeavyPackage(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctl := exec.Command(self, "-test.run=^$")
	ctl.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var ctlErr bytes.Buffer
	ctl.Stderr = &ctlErr
	if err := ctl.Run(); err != nil {
		t.Fatalf("control run: %v\n%s", err, ctlErr.String())
	}
	all := initTrace(ctlErr.String())
	for _, p := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles", "net", "github.com/acpterm/acpterm/netproxy"} {
		if !slices.Contains(all, p) {
			t.Fatalf("control: %s was not initialised in the test binary: %q", p, all)
		}
	}

	deps := helperDeps(t)
	root := t.TempDir()
	spec := &sandbox.Spec{Mode: sandbox.ModeAuto, Roots: []string{root}, TempDir: root, Network: sandbox.NetworkOff, Seccomp: true}
	cmd := exec.Command("/bin/true")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var helperErr bytes.Buffer
	cmd.Stderr = &helperErr
	p, err := sandbox.Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if st, ok := p.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("true in the sandbox: %+v %v (stderr %q)", st, ok, helperErr.String())
	}
	if r := p.Report(); !r.Layers.Landlock.Enforced || !r.Layers.Seccomp || r.Layers.Net != "off" {
		t.Errorf("the helper did not apply its layers: %+v", r)
	}
	checkLightInit(t, "the helper", helperErr.String(), deps, len(all), "github.com/landlock-lsm/go-landlock/landlock", "github.com/elastic/go-seccomp-bpf")

	cmd = exec.Command("/bin/true")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var guardErr bytes.Buffer
	cmd.Stderr = &guardErr
	g, err := sandbox.Guard(cmd, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if st, ok := g.Exit(5 * time.Second); !ok || st.Code == nil || *st.Code != 0 {
		t.Fatalf("true below the guard: %+v %v (stderr %q)", st, ok, guardErr.String())
	}
	checkLightInit(t, "the guard", guardErr.String(), deps, len(all))
}
