package permissions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory inside a root through which confined IO names one entry at a
// time (never a path with separators), so what is opened, created or renamed is always in the
// directory that was checked.
type dirHandle interface {
	// lstat describes the entry name without following a symlink.
	lstat(name string) (fs.FileInfo, error)
	// open opens the entry name; a symlink is never followed.
	open(name string, flag int, perm fs.FileMode) (*os.File, error)
	rename(from, to string) error
	remove(name string) error
	// sync flushes the directory itself (after a rename).
	sync() error
	close() error
}

// openDir opens dir (relative to root, "." for the root) for confined IO. With openat2 it is
// resolved with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS: the real path was checked and holds no
// symlinks, so a component swapped for a symlink after the check fails (ELOOP) instead of
// leading somewhere unchecked, such as .git/hooks (enforced at use, not only at
// decision). Where openat2 is unavailable (ENOSYS, or EPERM from a seccomp filter) it falls back
// to os.Root, which still refuses every escape from the root.
func openDir(root, dir string) (dirHandle, error) {
	if forceRootFallback {
		return openRootDir(root, dir)
	}
	rootfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(rootfd)
	fd, err := unix.Openat2(rootfd, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err == nil {
		return fdDir(fd), nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return nil, &fs.PathError{Op: "openat2", Path: dir, Err: err}
	}
	return openRootDir(root, dir)
}

// forceRootFallback makes openDir use os.Root as if openat2 were unavailable (tests run the
// fallback with it).
var forceRootFallback = false

func openRootDir(root, dir string) (dirHandle, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sub, err := r.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return rootDir{sub}, nil
}

// fdDir is a directory held as an O_PATH file descriptor (openat2 path).
type fdDir int

func (d fdDir) lstat(name string) (fs.FileInfo, error) {
	fd, err := unix.Openat(int(d), name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return f.Stat()
}

func (d fdDir) open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := unix.Openat(int(d), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (d fdDir) rename(from, to string) error {
	if err := unix.Renameat(int(d), from, int(d), to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

func (d fdDir) remove(name string) error {
	if err := unix.Unlinkat(int(d), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

func (d fdDir) sync() error {
	fd, err := unix.Openat(int(d), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

func (d fdDir) close() error { return unix.Close(int(d)) }

// rootDir is the os.Root fallback.
type rootDir struct{ r *os.Root }

func (d rootDir) lstat(name string) (fs.FileInfo, error) { return d.r.Lstat(name) }

func (d rootDir) open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return d.r.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
}

func (d rootDir) rename(from, to string) error { return d.r.Rename(from, to) }
func (d rootDir) remove(name string) error     { return d.r.Remove(name) }

func (d rootDir) sync() error {
	f, err := d.r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func (d rootDir) close() error { return d.r.Close() }

// confinedErr maps an error of confined IO on real onto the package's sentinel errors.
func confinedErr(real string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist", ErrNotFound, real)
	case errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) || strings.Contains(err.Error(), "path escapes"):
		return fmt.Errorf("%w: %s: a component is (or became) a symbolic link or leaves the root", ErrOutside, real)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %s: a parent is not a directory", ErrNotFound, real)
	}
	return fmt.Errorf("%s: %w", real, err)
}
