package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	if mark := os.Getenv("SBX_FAKE_ACPTERM"); mark != "" {
		os.Exit(fakeAcpterm(mark))
	}
	if path := os.Getenv("SBX_URING_ATTEMPT"); path != "" {
		os.Exit(uringAttempt(path))
	}
	if key := os.Getenv("SBX_SHM_KEY"); key != "" {
		os.Exit(shmAttempt(key))
	}
	if victim := os.Getenv("SBX_PTS_VICTIM"); victim != "" {
		os.Exit(ptsAttempt(victim))
	}
	if files := os.Getenv("SBX_META_FILES"); files != "" {
		os.Exit(metaAttempt(files))
	}
	if path := os.Getenv("SBX_DGRAM_PATH"); path != "" {
		os.Exit(dgramAttempt(path))
	}
	if arg := os.Getenv("SBX_MOUNTAPI"); arg != "" {
		os.Exit(mountAPIAttempt(arg))
	}
	if arg := os.Getenv("SBX_ROROOT"); arg != "" {
		os.Exit(roRootAttempt(arg))
	}
	os.Exit(m.Run())
}

// fakeAcpterm plays acpterm for TestKilledParentTakesEverything: it starts a sandboxed
// shell whose setsid child would outlive a plain parent (with SBX_FAKE_NOPIDNS=1 in auto
// mode without namespaces, as when the kernel refuses them), says "ready" once the child
// runs, and waits to be killed.
func fakeAcpterm(mark string) int {
	tmp, err := os.MkdirTemp("", "sbx-fake-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	spec := &Spec{Mode: ModeRequired, Roots: []string{tmp}, TempDir: tmp, Network: NetworkOn, Seccomp: true}
	noPidNS := os.Getenv("SBX_FAKE_NOPIDNS") == "1"
	if noPidNS {
		// As when the kernel refuses namespaces: auto mode goes on without them.
		nsBroken = "namespaces disabled by the test"
		spec.Mode = ModeAuto
	}
	// (setsid in a background job of a shell without job control execs in place: $! is it.)
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & "+
		"until grep -qx sleep /proc/$!/comm 2>/dev/null; do :; done; echo started; wait")
	cmd.Env = append(os.Environ(), "SBX_MARK="+mark)
	cmd.Dir = tmp
	out, _ := cmd.StdoutPipe()
	p, err := Start(spec, cmd)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if p.Report().Layers.PidNS == noPidNS {
		fmt.Printf("pid_ns %v, want %v: %+v\n", p.Report().Layers.PidNS, !noPidNS, p.Report())
		return 1
	}
	sc := bufio.NewScanner(out)
	if sc.Scan() && sc.Text() == "started" {
		fmt.Println("ready")
	}
	select {}
}
