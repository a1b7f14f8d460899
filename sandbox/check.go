package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Check runs the helper under spec on a program that does nothing (/bin/true) and returns
// what it found in force: the same canaries every sandboxed command passes, without a
// terminal. Errors: the helper could not run (in ModeRequired: a missing layer).
func Check(spec *Spec) (Report, error) {
	path := "/bin/true"
	if _, err := os.Stat(path); err != nil {
		path = "/usr/bin/true"
	}
	cmd := exec.Command(path)
	cmd.Dir = spec.TempDir
	cmd.Env = os.Environ()
	p, err := Start(spec, cmd)
	if err != nil {
		return Report{}, err
	}
	if ln := p.Listener(); ln != nil {
		_ = ln.Close() // network "proxy": nothing to serve for /bin/true
	}
	if err := cmd.Wait(); err != nil {
		return p.Report(), fmt.Errorf("sandbox: check: the helper ended with %v", err)
	}
	if st, ok := p.Exit(time.Second); !ok || st.Code == nil || *st.Code != 0 {
		return p.Report(), fmt.Errorf("sandbox: check: %s did not exit 0 in the sandbox", path)
	}
	return p.Report(), nil
}
