package acpclient

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/internal/sandboxtest"
	"github.com/acpterm/acpterm/sandbox"
)

// TestSandboxedAgentEscapesFail runs the escape script as the agent process (through
// startAgent with a sandbox spec, as [sandbox] agent = true does): every escape fails and
// changes nothing on disk, network on works, writes in the root and $TMPDIR and a git commit
// work, and the agent's exit status comes through the helper.
func TestSandboxedAgentEscapesFail(t *testing.T) {
	w := sandboxtest.New(t)
	before, gitConfig := w.Snapshot(t), w.GitConfig(t)
	spec := w.Spec(sandbox.NetworkOn)
	p, err := startAgent([]string{"/bin/sh", "-c", sandboxtest.Script + "; exit 5"}, w.Root, w.Env(), spec, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	out, _ := io.ReadAll(p.stdout)
	<-p.exited
	res, ended := sandboxtest.Results(string(out))
	if !ended {
		t.Fatalf("escape script did not finish:\n%s", out)
	}
	if p.code == nil || *p.code != 5 {
		t.Errorf("agent exit %s, want exit 5", p.exitString())
	}
	if r := p.sb.Report(); !r.Confined() || !r.Layers.PidNS || !r.Layers.Seccomp || len(r.Missing) != 0 {
		t.Errorf("report %+v", r)
	}
	w.Check(t, res, sandbox.NetworkOn, before, gitConfig)
}

// TestSandboxedAgentFSService: acpterm's fs/* service for a sandboxed agent refuses what the
// agent's own sandbox would: no read of a masked secret, no write outside its writable paths
// or into a protected path, even where the policy alone would allow it.
func TestSandboxedAgentFSService(t *testing.T) {
	w := sandboxtest.New(t)
	spec := w.Spec(sandbox.NetworkOn)
	for _, c := range []struct {
		path  string
		read  bool
		write bool
	}{
		{w.Home + "/.ssh/id_ed25519", false, false},
		{w.Root + "/main.go", true, true},
		{w.Root + "/new/file.txt", true, true},
		{w.Root + "/.git/config", true, false},
		{w.Home + "/.bashrc", true, false},
		{w.State + "/grants.json", true, false},
		{w.Outside + "/x", true, false},
		{w.Tmp + "/x", true, true},
	} {
		if got := spec.MayRead(c.path); got != c.read {
			t.Errorf("MayRead(%s) = %v", strings.TrimPrefix(c.path, w.Home), got)
		}
		if got := spec.MayWrite(c.path); got != c.write {
			t.Errorf("MayWrite(%s) = %v", strings.TrimPrefix(c.path, w.Home), got)
		}
	}
}

// TestSandboxedAgentFSRequests: fs/read_text_file of a path the agent's sandbox masks and
// fs/write_text_file of a path it binds read-only are refused by acpterm too, although the
// policy alone would allow them (the scripted agent itself runs in the sandbox).
func TestSandboxedAgentFSRequests(t *testing.T) {
	tmp := t.TempDir()
	var dir string
	h := start(t, setup{opts: func(o *Options) {
		dir = o.Cwd
		for _, f := range []string{"secret.txt", "ro.txt"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o.Sandbox = &sandbox.Spec{Mode: sandbox.ModeRequired, Roots: []string{dir}, TempDir: tmp, Network: sandbox.NetworkOn,
			Seccomp: true, Mask: []string{filepath.Join(dir, "secret.txt")}, ReadOnly: []string{filepath.Join(dir, "ro.txt")}}
	}, policy: func(p *config.Policy) { p.FS.Write = "allow" }})
	h.turn("read " + filepath.Join(dir, "secret.txt"))
	if got := h.lastAgentText(); !strings.HasPrefix(got, "read error code=-32603 message=acpterm policy denied read of "+dir+"/secret.txt: the sandboxed agent may not read it (masked in its sandbox) (rule: sandbox: masked") {
		t.Errorf("read: %q", got)
	}
	h.turn("write " + filepath.Join(dir, "ro.txt") + " 3")
	if got := h.lastAgentText(); !strings.HasPrefix(got, "write error code=-32603 message=acpterm policy denied write of "+dir+"/ro.txt: the sandboxed agent may not write there (outside its writable paths, or protected) (rule: sandbox: read-only") {
		t.Errorf("write: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ro.txt")); string(b) != "x\n" {
		t.Errorf("ro.txt now %q", b)
	}
	h.turn("write " + filepath.Join(dir, "ok.txt") + " 3")
	if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || len(b) != 3 {
		t.Errorf("ok.txt: %q %v (agent: %q)", b, err, h.lastAgentText())
	}
}
