package sandbox

import (
	"os/exec"
	"testing"
	"time"
)

// BenchmarkStartTrue is the wall time of one sandboxed start of /bin/true, from Start to
// the helper's exit (every layer set up and confirmed, network off), a root and temp dir of
// their own: `go test -run '^$' -bench StartTrue -count 5 ./sandbox/`.
func BenchmarkStartTrue(b *testing.B) {
	root, tmp := b.TempDir(), b.TempDir()
	spec := &Spec{Mode: ModeRequired, Roots: []string{root}, TempDir: tmp, Network: NetworkOff, Seccomp: true}
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		cmd.Dir = root
		p, err := Start(spec, cmd)
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		if st, ok := p.Exit(time.Second); !ok || st.Code == nil || *st.Code != 0 {
			b.Fatalf("exit %+v %v", st, ok)
		}
	}
}
