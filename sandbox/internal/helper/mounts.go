package helper

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts prepares the helper's mount namespace: nothing propagates back, a fresh
// /proc for the new PID namespace, a private /dev/shm, a /dev/pts holding only the
// terminal's own pty (privatePts), every mount read-only but the writable places
// (readOnlyOutside), the protected paths read-only and the masked paths hidden.
func (h *helper) setupMounts() error {
	spec := &h.req.Spec
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %v", err)
	}
	if h.rep.Layers.PidNS {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			h.rep.Layers.PidNS = false
			h.missing("pid_ns", "mounting a fresh /proc: "+err.Error())
		}
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("private /dev/shm: %v", err)
		}
		h.privateShm = true
	}
	if err := privatePts(spec.TTY); err != nil {
		return fmt.Errorf("private /dev/pts: %v", err)
	}
	// Read-only outside the writable paths before the binds below, so that those inside a
	// root (pinned git dirs writable, protected paths read-only) keep their own flags. A
	// failure is reported once the rest is in place: the protected paths still are.
	roErr := h.readOnlyOutside()
	for _, p := range spec.Pin {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("pinning %s: %v", p, err)
		}
	}
	for _, p := range spec.ReadOnly {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := bindReadOnly(p, p); err != nil {
			return fmt.Errorf("binding %s read-only: %v", p, err)
		}
	}
	for _, p := range spec.Mask {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		} else {
			err = bindReadOnly("/dev/null", p)
		}
		if err != nil {
			return fmt.Errorf("masking %s: %v", p, err)
		}
	}
	if roErr != nil {
		return fmt.Errorf("read-only outside the writable paths: %v", roErr)
	}
	return nil
}

// writablePlaces are the paths that stay writable mounts: the roots, the temp dir, the
// spec's Write paths (an agent's state dirs) that exist, and the Landlock canary file (so
// that its canary sees Landlock's EACCES, not EROFS; it is an empty file of acpterm's).
func (h *helper) writablePlaces() []string {
	spec := &h.req.Spec
	var out []string
	for _, p := range existing(append(append(append([]string(nil), spec.Roots...), spec.TempDir), append(spec.Write, h.req.Canary)...)) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// readOnlyOutside makes every mount of the namespace read-only except the writablePlaces
// and the private /dev/shm: Landlock does not govern chmod, chown, utimes, setxattr or
// the setuid bit, and a command running as root (its user namespace maps every uid) could
// otherwise change them on any file of the host. Each writable place is first bound onto
// itself (a mount of its own), then mount_setattr(2) sets MOUNT_ATTR_RDONLY on the whole
// tree at once (keeping every other flag, the ones the user namespace locks included) and
// clears it again on each writable place with what lies below it. Writing to a device
// (/dev/null, the pty) is not affected by a read-only mount. Errors: a bind or mount_setattr
// failing (ENOSYS before Linux 5.12); the tree is then made writable again.
func (h *helper) readOnlyOutside() error {
	places := h.writablePlaces()
	for _, p := range places {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s: %v", p, err)
		}
	}
	setRO := func(p string, ro bool) error {
		a := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if !ro {
			a = unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
		}
		return unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE|unix.AT_NO_AUTOMOUNT, &a)
	}
	if err := setRO("/", true); err != nil {
		return fmt.Errorf("mount_setattr /: %v", err)
	}
	if h.privateShm {
		places = append(places, "/dev/shm")
	}
	for _, p := range places {
		if err := setRO(p, false); err != nil {
			// A mount below p that was read-only already outside stays so (its flag is
			// locked): clear p's own mount alone.
			a := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
			err2 := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_NO_AUTOMOUNT, &a)
			if errors.Is(err2, unix.EPERM) {
				// p's own mount is locked read-only: it was read-only outside the sandbox
				// too (the namespace's copies are ours, so EPERM means a locked flag), and
				// stays so.
				continue
			}
			if err2 != nil {
				_ = setRO("/", false)
				return fmt.Errorf("making %s writable again: %v", p, err)
			}
		}
	}
	return nil
}

// checkReadOnly confirms, from /proc/self/mountinfo, that every mount outside the writable
// places and the private /dev/shm is read-only.
func (h *helper) checkReadOnly() error {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	places := h.writablePlaces()
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			return fmt.Errorf("mountinfo line %q", line)
		}
		mp := unescapeMountinfo(f[4])
		if slices.Contains(strings.Split(f[5], ","), "ro") || (h.privateShm && mp == "/dev/shm") ||
			slices.ContainsFunc(places, func(w string) bool { return Within(mp, w) }) {
			continue
		}
		return fmt.Errorf("%s is still a writable mount", mp)
	}
	return nil
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space, \011, \012, \134).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				out = append(out, byte(n))
				i += 3
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}

// ptsDir is where the pty slaves of the host's devpts are.
const ptsDir = "/dev/pts"

// privatePts hides every other terminal's pty: any process of the user may open another pty's
// slave read-only (Landlock grants reads everywhere) and take the keys typed there. An empty
// read-only tmpfs covers /dev/pts, and the terminal's own slave tty (when it lies in
// /dev/pts) is bound at its same path, so ttyname(3), tty and job control find it as before.
// A new devpts instance would not do: the inherited slave belongs to the host's instance, so
// ttyname would not find it in the new one. Opening /dev/ptmx then fails (ENODEV: no devpts
// at /dev/pts), so no program inside can make a pty of its own.
func privatePts(tty string) error {
	if fi, err := os.Stat(ptsDir); err != nil || !fi.IsDir() {
		return nil
	}
	own := -1
	if tty != "" && path.Dir(tty) == ptsDir {
		fd, err := unix.Open(tty, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("the terminal's pty %s: %v", tty, err)
		}
		defer unix.Close(fd)
		own = fd
	}
	const fl = unix.MS_NOSUID | unix.MS_NOEXEC
	if err := unix.Mount("tmpfs", ptsDir, "tmpfs", fl, "size=4k,nr_inodes=16,mode=0755"); err != nil {
		return err
	}
	if own >= 0 {
		f, err := os.OpenFile(tty, os.O_CREATE|os.O_EXCL|os.O_RDONLY, 0o600)
		if err != nil {
			return err
		}
		f.Close()
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", own), tty, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s: %v", tty, err)
		}
	}
	return unix.Mount("", ptsDir, "", unix.MS_REMOUNT|unix.MS_RDONLY|fl, "")
}

// checkPts confirms /dev/pts is a read-only tmpfs holding nothing but the terminal's own
// pty tty, which is the very device the helper's standard input is when that is a tty.
func checkPts(tty string) error {
	var fs unix.Statfs_t
	if err := unix.Statfs(ptsDir, &fs); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	if fs.Type != unix.TMPFS_MAGIC || fs.Flags&unix.ST_RDONLY == 0 {
		return errors.New("/dev/pts still shows the host's ptys")
	}
	ents, err := os.ReadDir(ptsDir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if path.Join(ptsDir, e.Name()) != tty {
			return fmt.Errorf("/dev/pts still holds %s", e.Name())
		}
	}
	return nil
}

// bindReadOnly binds src onto dst, recursively, and makes the whole bind read-only
// (mount_setattr keeps the other flags the mount already has).
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	err := unix.MountSetattr(unix.AT_FDCWD, dst, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if errors.Is(err, unix.ENOSYS) {
		var st unix.Statfs_t
		if err := unix.Statfs(dst, &st); err != nil {
			return err
		}
		fl := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		for _, m := range [][2]uintptr{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
			{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
			{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
			if uintptr(st.Flags)&m[0] != 0 {
				fl |= m[1]
			}
		}
		return unix.Mount("", dst, "", fl, "")
	}
	return err
}

// checkMounts confirms each protected path sits on a read-only mount and each masked
// path is hidden.
func (h *helper) checkMounts() error {
	spec := &h.req.Spec
	for _, p := range spec.ReadOnly {
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("checking %s: %v", p, err)
		}
		if st.Flags&unix.ST_RDONLY == 0 {
			return fmt.Errorf("%s is still writable", p)
		}
	}
	for _, p := range spec.Pin {
		var stx unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_BASIC_STATS, &stx); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("checking %s: %v", p, err)
		}
		if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT == 0 {
			return fmt.Errorf("%s is not pinned", p)
		}
	}
	if err := checkPts(spec.TTY); err != nil {
		return err
	}
	if err := h.checkReadOnly(); err != nil {
		return err
	}
	var null unix.Stat_t
	if err := unix.Stat("/dev/null", &null); err != nil {
		return fmt.Errorf("stat /dev/null: %v", err)
	}
	for _, p := range spec.Mask {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("checking mask %s: %v", p, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			var fs unix.Statfs_t
			ents, err := os.ReadDir(p)
			if unix.Statfs(p, &fs) != nil || fs.Type != unix.TMPFS_MAGIC || err != nil || len(ents) != 0 {
				return fmt.Errorf("%s is not masked", p)
			}
		} else if st.Rdev != null.Rdev || st.Mode&unix.S_IFMT != unix.S_IFCHR {
			return fmt.Errorf("%s is not masked", p)
		}
	}
	return nil
}
