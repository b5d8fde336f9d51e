//go:build linux

package netio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sockets handed to another process. A process that must not leave its
// peers waiting when it dies gives a duplicate of each socket to a
// watchdog process (package sctp's exit watchdog), which sends the last
// packets from the socket's own address and port once this process is
// gone: the peers' associations are keyed by that address and port, and
// a duplicate needs no bind that a shared port (SO_REUSEPORT) would have
// to allow.

// DupSocket returns a duplicate of the descriptor of the UDP or raw IP
// socket that c sends through (close-on-exec, owned by the caller), for
// another process to send on with SendOnSocket. c is a UDPConn, an
// IPConn, a SharedConn over one of them, or Capture's wrapper of one of
// those; for any other Conn (an adapter over a net.PacketConn, the pair
// of raw sockets of a DualIPConn, the simulated network) it fails with an
// error matching errors.ErrUnsupported.
func DupSocket(c Conn) (int, error) {
	for {
		switch t := c.(type) {
		case *captureConn:
			c = t.Conn
			continue
		case *SharedConn:
			c = t.s.conn
			continue
		case *UDPConn:
			return dupRaw(t.c.SyscallConn())
		case *IPConn:
			return dupRaw(t.c.SyscallConn())
		}
		return -1, fmt.Errorf("netio: no socket of its own behind a %T: %w", c, errors.ErrUnsupported)
	}
}

// rawConner is the SyscallConn of a net.UDPConn or net.IPConn.
type rawConner interface {
	Control(f func(fd uintptr)) error
}

func dupRaw[R rawConner](rc R, err error) (int, error) {
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, fmt.Errorf("netio: dup: %w", derr)
	}
	return fd, nil
}

// sendOnSocketWait bounds how long SendOnSocket waits for room in a full
// socket buffer.
const sendOnSocketWait = 100 * time.Millisecond

// SendOnSocket sends the SCTP packet pkt from socket fd, a descriptor
// DupSocket returned (in this process or, passed over a Unix socket, in
// another), to dst: its UDP port for a UDP encapsulation socket, port 0
// for a raw IP one. A valid src is the source address, for a socket bound
// to the wildcard address (IP_PKTINFO, IPV6_PKTINFO); the zero Addr lets
// the kernel choose. A socket buffer that stays full for 100 ms fails it
// with EAGAIN.
func SendOnSocket(fd int, pkt []byte, dst netip.AddrPort, src netip.Addr) error {
	domain, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return err
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return err
	}
	port := dst.Port()
	if typ == unix.SOCK_RAW {
		port = 0 // the protocol comes from the socket
	}
	var sa unix.RawSockaddrInet6
	var salen uint32
	a := dst.Addr().Unmap()
	var pb [2]byte
	binary.BigEndian.PutUint16(pb[:], port)
	switch {
	case domain == unix.AF_INET6:
		sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: a.As16(), Scope_id: zoneIndex(a.Zone())}
		*(*[2]byte)(unsafe.Pointer(&sa.Port)) = pb
		salen = unix.SizeofSockaddrInet6
	case a.Is4():
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(&sa))
		*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.As4()}
		*(*[2]byte)(unsafe.Pointer(&sa4.Port)) = pb
		salen = unix.SizeofSockaddrInet4
	default:
		return fmt.Errorf("netio: IPv6 destination %v on an IPv4 socket", a)
	}
	oob := make([]byte, pktinfoSpace)
	var oobn int
	if src.IsValid() {
		oobn = putSourceCmsg(oob, src, a)
	}
	iov := unix.Iovec{Base: unsafe.SliceData(pkt)}
	iov.SetLen(len(pkt))
	msg := unix.Msghdr{Name: (*byte)(unsafe.Pointer(&sa)), Namelen: salen, Iov: &iov, Iovlen: 1}
	if oobn > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(oobn)
	}
	deadline := time.Now().Add(sendOnSocketWait)
	for {
		_, _, errno := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_DONTWAIT)
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			left := time.Until(deadline)
			if left <= 0 {
				return errno
			}
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			if _, err := unix.Poll(pfd, int(left/time.Millisecond)+1); err != nil && err != unix.EINTR {
				return err
			}
			continue
		}
		return errno
	}
}
