// Command oraclestub stands in for every external program while the permissions oracle tests
// (permissions/oracle_test.go) run shell lines in real bash and dash. The test links it under
// each program name in a directory that is the only PATH entry and that is bind-mounted over
// the system's program directories, so nothing but this stub can be executed by name or path.
//
// Run under any other name it appends one JSON line to .logs/.log next to its own executable: the
// argv it got (argv[0] as the shell passed it), the physical working directory and the whole
// environment. It then exits 0, except for the names that have a copy of the real program in
// .real/ (shells and a few wrappers): those it replaces itself with the real program, so the
// commands they start are recorded too.
//
// Run as ".oracle-setup -log LOGDIR DIR... -- PROGRAM ARGS..." it is the first process of a
// fresh user, mount, PID and network namespace: it makes the mounts private, binds LOGDIR over
// its own directory's .logs and its own directory over every DIR, runs PROGRAM (with fd 3
// passed on when it is open), waits for every process of the namespace and exits with PROGRAM's
// status (128+signal when it was killed).
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"unsafe"
)

type record struct {
	Argv []string `json:"argv"`
	// Exec is the path the program was executed by (the kernel's AT_EXECFN): it differs from
	// argv[0] when the shell ran a program under another name (exec -a, a planted hash entry).
	Exec string   `json:"exec"`
	Cwd  string   `json:"cwd"`
	Env  []string `json:"env"`
}

// execFn returns the file name the kernel executed this process by: the AT_EXECFN entry of
// the auxiliary vector, which points at a NUL-terminated string in this process's memory.
func execFn() string {
	const atExecFn = 31
	aux, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	for i := 0; i+16 <= len(aux); i += 16 {
		tag := binary.NativeEndian.Uint64(aux[i:])
		if tag != atExecFn {
			continue
		}
		p := uintptr(binary.NativeEndian.Uint64(aux[i+8:]))
		var b []byte
		for j := uintptr(0); j < 4096; j++ {
			c := *(*byte)(unsafe.Pointer(p + j))
			if c == 0 {
				break
			}
			b = append(b, c)
		}
		return string(b)
	}
	return "(unknown: no AT_EXECFN)"
}

func main() {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub:", err)
		os.Exit(126)
	}
	dir := filepath.Dir(exe)
	if filepath.Base(os.Args[0]) == ".oracle-setup" {
		os.Exit(setup(dir, os.Args[1:]))
	}
	cwd, err := syscall.Getwd()
	if err != nil {
		cwd = "(unknown: " + err.Error() + ")"
	}
	line, _ := json.Marshal(record{Argv: os.Args, Exec: execFn(), Cwd: cwd, Env: os.Environ()})
	f, err := os.OpenFile(filepath.Join(dir, ".logs", ".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub:", err)
		os.Exit(126)
	}
	// One write per record: appends to a regular file do not interleave.
	if _, err := f.Write(append(line, '\n')); err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub:", err)
		os.Exit(126)
	}
	f.Close()
	real := filepath.Join(dir, ".real", filepath.Base(os.Args[0]))
	if _, err := os.Stat(real); err == nil {
		err = syscall.Exec(real, os.Args, os.Environ())
		fmt.Fprintln(os.Stderr, "oraclestub: exec", real+":", err)
		os.Exit(126)
	}
}

// setup prepares the namespace and runs the program after "--" (see the package comment).
func setup(dir string, args []string) int {
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub: make mounts private:", err)
		return 125
	}
	if len(args) < 2 || args[0] != "-log" {
		fmt.Fprintln(os.Stderr, "oraclestub: setup: -log LOGDIR missing")
		return 125
	}
	if err := syscall.Mount(args[1], filepath.Join(dir, ".logs"), "", syscall.MS_BIND, ""); err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub: bind the log directory:", err)
		return 125
	}
	i := 2
	for ; i < len(args) && args[i] != "--"; i++ {
		err := syscall.Mount(dir, args[i], "", syscall.MS_BIND|syscall.MS_REC, "")
		if err == syscall.EACCES {
			continue // not reachable by this user, so nothing here can run a program from it
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oraclestub: bind over", args[i]+":", err)
			return 125
		}
	}
	if i+1 >= len(args) {
		fmt.Fprintln(os.Stderr, "oraclestub: setup: no program after --")
		return 125
	}
	cmd := exec.Command(args[i+1], args[i+2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if f := os.NewFile(3, "fd 3"); f != nil {
		if _, err := f.Stat(); err == nil {
			cmd.ExtraFiles = []*os.File{f} // the -x trace file, kept as fd 3
		}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "oraclestub: start:", err)
		return 125
	}
	code := 0
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			} else {
				code = ee.ExitCode()
			}
		} else {
			code = 125
		}
	}
	// Wait for what the program left running (background jobs re-parented to this process);
	// the test's timeout kills the whole namespace by killing this process.
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err != nil && err != syscall.EINTR {
			break // ECHILD: nothing left
		}
	}
	return code
}
