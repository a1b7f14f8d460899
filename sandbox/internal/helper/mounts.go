package helper

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setupMounts prepares the helper's mount namespace: nothing propagates back, a fresh
// /proc for the new PID namespace, a private /dev/shm, the protected paths read-only and
// the masked paths hidden.
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
	}
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
