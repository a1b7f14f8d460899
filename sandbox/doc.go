// Package sandbox confines a command with the kernel, so that what the policy decided on text
// also holds at run time: the command may write only where its Spec says, cannot read the
// masked secrets, reaches the network only as Spec.Network allows, cannot type into the user's
// terminal, and does not outlive the process that started it.
//
// Start runs an *exec.Cmd through a helper: the calling program itself, re-executed with the
// hidden first argument HelperArg. The helper's code is in package sandbox/internal/helper,
// whose init runs it and exits before the program's other packages are initialised (a
// program linking this package needs no call in main, and its start-up cost stays out of
// every sandboxed command). The helper is created in new user, mount, PID and, unless the network is
// "on", network namespaces, with a parent-death signal. Before it starts the command it sets
// up the layers and confirms each one with a canary rather than assuming it:
//
//   - no_new_privs and every inherited file descriptor above 2 closed;
//   - Landlock (read and execute everywhere, write only in the roots, the session temp dir,
//     the extra writable paths and a few devices; TCP refused when the network is off; signals
//     and abstract unix sockets scoped from ABI 6);
//   - the mount namespace: protected paths inside the roots (ProtectedPaths: git directories,
//     project config, shell rc files) bound read-only, secrets (SecretPaths, MaskPaths) masked,
//     a private /dev/shm;
//   - the PID namespace, with the helper as its init: when the helper dies, so does everything
//     the command started (without one, the helper is a subreaper that ends the tree itself
//     when the command exits or acpterm is gone);
//   - seccomp refusing the ioctls that inject input into a terminal (TIOCSTI, TIOCLINUX).
//
// The helper reports what is in force (Report, Layers) on a status pipe, then the command's
// exit status (ExitStatus). Mode decides what a missing layer means: ModeAuto runs with what
// the kernel offers and says what is missing (Report.Missing), ModeRequired refuses to run.
// Check runs the same canaries for `acpterm sandbox check` without a command. A root that
// is the home directory or a parent of it is reported missing too (HomeExposure).
//
// What no layer can refuse, creating a protected path that did not exist inside a writable
// root, is detected instead: Watch.Live moves it into a quarantine the moment it appears,
// Watch.Sweep again once the command ended.
//
// The package imports neither terminals nor acpclient: they call Start with their own
// commands. docs/sandbox.md describes the layers and their limits for users.
package sandbox
