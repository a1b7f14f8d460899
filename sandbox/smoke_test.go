package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	root := t.TempDir()
	tmp := t.TempDir()
	spec := &Spec{Mode: ModeAuto, Roots: []string{root}, TempDir: tmp, Network: NetworkOff, Seccomp: true}
	cmd := exec.Command("/bin/sh", "-c", os.Getenv("SMOKE_CMD"))
	cmd.Path = "/bin/sh"
	cmd.Dir = root
	cmd.Env = os.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(spec, cmd)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(p.Report(), "", " ")
	t.Logf("report %s", b)
	err = cmd.Wait()
	st, ok := p.Exit(time.Second)
	t.Logf("wait %v exit %+v %v out:\n%s", err, st, ok, out.String())
}
