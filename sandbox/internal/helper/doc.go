// Package helper is the process side of package sandbox: the code that runs in the sandbox
// helper (the program re-executed with Arg: it applies and confirms the layers, starts the
// command and supervises it as its PID namespace's init) and in the agent guard (GuardArg),
// and the wire types the parent and that process exchange (Request, Message, Report).
//
// It is a package of its own for the helper's start-up time. Go initialises the packages of
// a program before main, in the order of their import paths among those whose imports are
// already initialised; the helper is the whole calling program re-executed, so with the
// helper in main it paid for the initialisation of everything the program links — for
// acpterm some 20–30 ms of syntax-highlighting lexers and styles, Markdown, CSS and MCP
// schema tables — on every sandboxed command. This package imports only the standard
// library's early packages (no net, no net/http), golang.org/x/sys/unix, go-landlock,
// go-seccomp-bpf and internal/proctree, so it is initialised before any of those, and its
// init runs the helper or the guard to completion and exits when the process was started as
// one: none of the program's other packages is initialised in the helper at all (the tests
// check both the import list and a GODEBUG=inittrace=1 trace of a real helper).
//
// Consequences for the code here: it must not import net (the in-namespace proxy listener is
// made with raw socket calls, the interfaces are listed over netlink with package syscall),
// nor path/filepath (Go initialises it late, after some twenty small packages sorted before
// it; package path has the same string functions), nor anything of acpterm's beyond
// internal/proctree; everything the helper needs from the rest of acpterm comes in the
// Request.
package helper
