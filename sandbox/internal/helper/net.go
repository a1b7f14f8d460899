package helper

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper's network pieces are raw system calls rather than package net, which would
// bring net's initialisation (and its place late in the program's init order) into the
// helper: see the package doc.

// bringUpLoopback sets the "lo" interface up in the calling thread's network namespace (a new
// network namespace has lo down, so not even 127.0.0.1 works). Linux: SIOCSIFFLAGS with
// IFF_UP. Errors: the ioctl failed (no CAP_NET_ADMIN in the namespace).
func bringUpLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: SIOCGIFFLAGS: %w", err)
	}
	flags := ifr.Uint16()
	if flags&unix.IFF_UP != 0 {
		return nil
	}
	ifr.SetUint16(flags | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: SIOCSIFFLAGS: %w", err)
	}
	return nil
}

// listenTCP4Loopback returns a close-on-exec TCP socket listening on 127.0.0.1:port, with
// SO_REUSEADDR as Go's own listeners have it.
func listenTCP4Loopback(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("SO_REUSEADDR: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen: %w", err)
	}
	return fd, nil
}

// listenAbstract returns a close-on-exec unix stream socket listening on the abstract name
// ("@…").
func listenAbstract(name string) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: name}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 1); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// sendProxyListener brings the namespace's loopback up, listens on 127.0.0.1:port and sends
// the listening socket to acpterm over ProxyFD (SCM_RIGHTS), keeping no copy: acpterm serves
// it from outside the sandbox, so nothing in the sandbox needs a unix socket to get out.
func sendProxyListener(port int) error {
	defer unix.Close(ProxyFD)
	if err := bringUpLoopback(); err != nil {
		return err
	}
	fd, err := listenTCP4Loopback(port)
	if err != nil {
		return fmt.Errorf("proxy listener: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.Sendmsg(ProxyFD, []byte{'L'}, unix.UnixRights(fd), nil, 0); err != nil {
		return fmt.Errorf("proxy listener: sending it to acpterm: %v", err)
	}
	return nil
}

// checkEmptyNet confirms a new network namespace with no interface but a loopback (the
// links as netlink's RTM_GETLINK lists them).
func checkEmptyNet(parent uint64) error {
	if id := NSID("net"); id == 0 || id == parent {
		return errors.New("not in a new network namespace")
	}
	rib, err := syscall.NetlinkRIB(syscall.RTM_GETLINK, syscall.AF_UNSPEC)
	if err != nil {
		return fmt.Errorf("listing interfaces: %v", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return fmt.Errorf("listing interfaces: %v", err)
	}
	links := 0
	for _, m := range msgs {
		if m.Header.Type == syscall.NLMSG_DONE {
			break
		}
		if m.Header.Type == syscall.NLMSG_ERROR {
			return errors.New("listing interfaces: netlink error")
		}
		if m.Header.Type != syscall.RTM_NEWLINK || len(m.Data) < syscall.SizeofIfInfomsg {
			continue
		}
		links++
		info := (*syscall.IfInfomsg)(unsafe.Pointer(&m.Data[0]))
		if info.Flags&syscall.IFF_LOOPBACK != 0 {
			continue
		}
		name := fmt.Sprintf("#%d", info.Index)
		if attrs, err := syscall.ParseNetlinkRouteAttr(&m); err == nil {
			for _, a := range attrs {
				if a.Attr.Type == syscall.IFLA_IFNAME && len(a.Value) > 0 {
					name = string(a.Value[:len(a.Value)-1]) // NUL-terminated
				}
			}
		}
		return fmt.Errorf("interface %s present in the network namespace", name)
	}
	if links == 0 {
		return errors.New("listing interfaces: netlink listed none (not even lo)")
	}
	return nil
}
