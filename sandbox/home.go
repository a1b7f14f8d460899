package sandbox

import (
	"os"
	"os/user"
	"path/filepath"
)

// HomeLayer is the name a Report's Missing entry uses when a root (or a further writable
// path) is the user's home directory or one of its parents.
//
// Why it is a missing protection: the shell and tool start-up files of $HOME (rcFiles) that
// exist are bound read-only, but one that does not exist yet (a .zshrc for a bash user, a
// .profile, .config/fish/config.fish) cannot be: a bind needs an existing mount point, and
// Landlock cannot exclude a name inside a directory it lets the process write. A sandboxed
// command with $HOME writable can therefore create one, and the user's next shell runs it
// outside the sandbox. Likewise acpterm's own config directory when it is missing. The
// watch (Watch) quarantines such files, but only after they were created: required mode
// refuses instead.
const HomeLayer = "home_root"

// homeDir returns the home directory whose start-up files spec protects: spec.Home, else
// $HOME, else the password database's entry for this user; symlinks resolved. "" when none
// is known.
func homeDir(spec *Spec) string {
	h := spec.Home
	if h == "" {
		h = os.Getenv("HOME")
	}
	if h == "" {
		if u, err := user.Current(); err == nil {
			h = u.HomeDir
		}
	}
	if !filepath.IsAbs(h) {
		return ""
	}
	return resolve(h)
}

// HomeExposure returns one Missing entry ("home_root: …") per root and per Write path of
// spec that is the user's home directory or a parent of it (/ included), saying which path,
// why it matters and what to do, e.g. "home_root: root /root is your home directory: shell
// start-up files there that do not exist yet (.profile, .zshrc, …) could be created and run
// outside the sandbox; use a project directory as root". nil when no writable path covers
// the home directory (or none is known). Start adds these to the Report's Missing, and in
// ModeRequired refuses with them.
func HomeExposure(spec *Spec) []string {
	home := homeDir(spec)
	if home == "" {
		return nil
	}
	const why = "shell start-up files there that do not exist yet (.profile, .zshrc, .config/fish/config.fish, …) could be created and run outside the sandbox"
	var out []string
	seen := map[string]bool{}
	check := func(kind, p, fix string) {
		r := resolve(p)
		if seen[r] || !within(home, r) {
			return
		}
		seen[r] = true
		if r == home {
			out = append(out, HomeLayer+": "+kind+" "+p+" is your home directory: "+why+"; "+fix)
		} else {
			out = append(out, HomeLayer+": "+kind+" "+p+" contains your home directory "+home+": "+why+"; "+fix)
		}
	}
	for _, r := range spec.Roots {
		check("root", r, "use a project directory as root")
	}
	for _, w := range spec.Write {
		check("writable path", w, "grant a directory below it instead")
	}
	return out
}
