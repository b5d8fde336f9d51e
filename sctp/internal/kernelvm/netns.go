package kernelvm

import (
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// tapName is the host side of transport B inside the test's network namespace;
// tapName2 the second tap of Config.Tap2.
const (
	tapName  = "usctp0"
	tapName2 = "usctp1"
)

var tapNames = [2]string{tapName, tapName2}

// netns is an anonymous network namespace holding the tap device of transport B and a
// raw SCTP socket that stays open so that the host kernel, which has no SCTP, does not
// answer the guest's packets with ICMP protocol unreachable. The namespace disappears
// with its last file descriptor; nothing is left behind if the test dies.
type netns struct {
	fd    int      // the namespace (/proc/thread-self/ns/net)
	tap   *os.File // the tap device, handed to QEMU
	tap2  *os.File // the second tap (Config.Tap2), or nil
	guard int      // raw IPPROTO_SCTP socket
}

// newNetns creates the namespace, the tap with HostTapIP (and with two, the second
// with HostTap2IP), and the guard socket.
func newNetns(two bool) (*netns, error) {
	n := &netns{fd: -1, guard: -1}
	err := onThread(func() error {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("unshare(CLONE_NEWNET): %w (transport B needs root)", err)
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		n.fd = fd
		if err := n.setup(); err != nil || !two {
			return err
		}
		return n.setupSecond()
	}, -1)
	if err != nil {
		n.close()
		return nil, fmt.Errorf("kernelvm: transport B: %w", err)
	}
	return n, nil
}

func (n *netns) setup() error {
	tfd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		// Some containers lack the node though the kernel has the driver.
		os.MkdirAll("/dev/net", 0o755)
		unix.Mknod("/dev/net/tun", unix.S_IFCHR|0o600, int(unix.Mkdev(10, 200)))
		tfd, err = unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return fmt.Errorf("/dev/net/tun: %w", err)
	}
	n.tap = os.NewFile(uintptr(tfd), "/dev/net/tun")
	ifr, err := unix.NewIfreq(tapName)
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_TAP | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(tfd, unix.TUNSETIFF, ifr); err != nil {
		return fmt.Errorf("TUNSETIFF: %w", err)
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	if err := ifUp(s, "lo"); err != nil {
		return err
	}
	ifr, _ = unix.NewIfreq(tapName)
	if err := ifr.SetInet4Addr(net.ParseIP(HostTapIP).To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCSIFADDR, ifr); err != nil {
		return fmt.Errorf("SIOCSIFADDR: %w", err)
	}
	ifr, _ = unix.NewIfreq(tapName)
	ifr.SetInet4Addr(net.CIDRMask(tapPrefix, 32))
	if err := unix.IoctlIfreq(s, unix.SIOCSIFNETMASK, ifr); err != nil {
		return fmt.Errorf("SIOCSIFNETMASK: %w", err)
	}
	if err := ifUp(s, tapName); err != nil {
		return err
	}
	n.guard, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_SCTP)
	if err != nil {
		return fmt.Errorf("raw SCTP socket: %w", err)
	}
	// The guard only has to exist; it keeps a small buffer and is never read.
	unix.SetsockoptInt(n.guard, unix.SOL_SOCKET, unix.SO_RCVBUF, 4096)
	return nil
}

// setupSecond creates the second tap, with HostTap2IP.
func (n *netns) setupSecond() error {
	f, err := openTap(tapName2)
	if err != nil {
		return err
	}
	n.tap2 = f
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	return setAddrUp(s, tapName2, HostTap2IP)
}

// openTap opens /dev/net/tun as the tap device name.
func openTap(name string) (*os.File, error) {
	tfd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("/dev/net/tun: %w", err)
	}
	f := os.NewFile(uintptr(tfd), "/dev/net/tun")
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		f.Close()
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TAP | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(tfd, unix.TUNSETIFF, ifr); err != nil {
		f.Close()
		return nil, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	return f, nil
}

// setAddrUp gives the interface name the address ip/tapPrefix and brings it up.
func setAddrUp(s int, name, ip string) error {
	ifr, _ := unix.NewIfreq(name)
	if err := ifr.SetInet4Addr(net.ParseIP(ip).To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCSIFADDR, ifr); err != nil {
		return fmt.Errorf("SIOCSIFADDR %s: %w", name, err)
	}
	ifr, _ = unix.NewIfreq(name)
	ifr.SetInet4Addr(net.CIDRMask(tapPrefix, 32))
	if err := unix.IoctlIfreq(s, unix.SIOCSIFNETMASK, ifr); err != nil {
		return fmt.Errorf("SIOCSIFNETMASK %s: %w", name, err)
	}
	return ifUp(s, name)
}

// setLink brings the interface name up or down (inside the namespace).
func (n *netns) setLink(name string, up bool) error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS %s: %w", name, err)
	}
	fl := ifr.Uint16()
	if up {
		fl |= unix.IFF_UP
	} else {
		fl &^= unix.IFF_UP
	}
	ifr.SetUint16(fl)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS %s: %w", name, err)
	}
	return nil
}

func ifUp(s int, name string) error {
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS %s: %w", name, err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS %s: %w", name, err)
	}
	return nil
}

// do runs fn on a thread inside the namespace.
func (n *netns) do(fn func() error) error {
	return onThread(fn, n.fd)
}

// onThread runs fn on a locked OS thread that first enters the namespace nsfd (or stays
// where it is when nsfd < 0), then returns the thread to the original namespace. A thread
// that cannot go back is not unlocked, so the runtime retires it.
func onThread(fn func() error, nsfd int) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer unix.Close(orig)
		if nsfd >= 0 {
			if err := unix.Setns(nsfd, unix.CLONE_NEWNET); err != nil {
				runtime.UnlockOSThread()
				done <- fmt.Errorf("setns: %w", err)
				return
			}
		}
		ferr := fn()
		if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("setns back: %w", err) // thread stays locked and exits
			return
		}
		runtime.UnlockOSThread()
		done <- ferr
	}()
	return <-done
}

func (n *netns) close() {
	if n.guard >= 0 {
		unix.Close(n.guard)
	}
	if n.tap != nil {
		n.tap.Close()
	}
	if n.tap2 != nil {
		n.tap2.Close()
	}
	if n.fd >= 0 {
		unix.Close(n.fd)
	}
}

// SetTapMTU sets the MTU of the host side of transport B (the tap device in the test's
// namespace): packets from the host larger than it do not reach the guest, as if a
// link on the path had a smaller MTU. The guest's own MTU is unchanged.
func (vm *VM) SetTapMTU(mtu int) error {
	if vm.ns == nil {
		return fmt.Errorf("kernelvm: no tap (transport B needs root)")
	}
	return vm.ns.do(func() error {
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(s)
		ifr, err := unix.NewIfreq(tapName)
		if err != nil {
			return err
		}
		ifr.SetUint32(uint32(mtu))
		if err := unix.IoctlIfreq(s, unix.SIOCSIFMTU, ifr); err != nil {
			return fmt.Errorf("SIOCSIFMTU %s %d: %w", tapName, mtu, err)
		}
		return nil
	})
}
