//go:build linux

package netio

import (
	"net/netip"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RouteProbe asks the kernel which local address it would send from to a
// destination (the source of the route), in the network namespace the
// probe was opened in, whichever thread asks later: one unbound UDP socket
// per family, connected to the destination (which sends nothing) and
// read back with getsockname.
type RouteProbe struct {
	mu     sync.Mutex
	fd4    int
	fd6    int
	closed bool
}

// NewRouteProbe opens a probe in the calling thread's network namespace.
// A family the host lacks is left out (its lookups find nothing).
func NewRouteProbe() (*RouteProbe, error) {
	fd4, err4 := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	fd6, err6 := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err4 != nil && err6 != nil {
		return nil, err4
	}
	if err4 != nil {
		fd4 = -1
	}
	if err6 != nil {
		fd6 = -1
	}
	return &RouteProbe{fd4: fd4, fd6: fd6}, nil
}

// Source returns the local address the kernel chooses for packets to dst,
// or the zero Addr when it has no route there.
func (r *RouteProbe) Source(dst netip.Addr) netip.Addr {
	dst = dst.Unmap()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || !dst.IsValid() {
		return netip.Addr{}
	}
	if dst.Is4() {
		if r.fd4 < 0 || disconnect(r.fd4) != nil || unix.Connect(r.fd4, &unix.SockaddrInet4{Addr: dst.As4(), Port: 9}) != nil {
			return netip.Addr{}
		}
		if sa, err := unix.Getsockname(r.fd4); err == nil {
			if s, ok := sa.(*unix.SockaddrInet4); ok {
				return netip.AddrFrom4(s.Addr)
			}
		}
		return netip.Addr{}
	}
	if r.fd6 < 0 || disconnect(r.fd6) != nil || unix.Connect(r.fd6, &unix.SockaddrInet6{Addr: dst.As16(), Port: 9, ZoneId: zoneIndex(dst.Zone())}) != nil {
		return netip.Addr{}
	}
	if sa, err := unix.Getsockname(r.fd6); err == nil {
		if s, ok := sa.(*unix.SockaddrInet6); ok {
			a := netip.AddrFrom16(s.Addr)
			if s.ZoneId != 0 && a.IsLinkLocalUnicast() {
				a = a.WithZone(zoneName(s.ZoneId))
			}
			return a
		}
	}
	return netip.Addr{}
}

// MTU returns the MTU of the route to dst, IP header included (the
// device's, or a smaller one the route or a Packet Too Big set), as the
// kernel reports it on a socket connected there (IP_MTU, IPV6_MTU), or 0
// when it has no route there.
func (r *RouteProbe) MTU(dst netip.Addr) int {
	dst = dst.Unmap()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || !dst.IsValid() {
		return 0
	}
	var sa unix.Sockaddr
	fd, lvl, opt := r.fd6, unix.IPPROTO_IPV6, unix.IPV6_MTU
	if dst.Is4() {
		fd, lvl, opt = r.fd4, unix.IPPROTO_IP, unix.IP_MTU
		sa = &unix.SockaddrInet4{Addr: dst.As4(), Port: 9}
	} else {
		sa = &unix.SockaddrInet6{Addr: dst.As16(), Port: 9, ZoneId: zoneIndex(dst.Zone())}
	}
	if fd < 0 || unix.Connect(fd, sa) != nil {
		return 0
	}
	mtu, err := unix.GetsockoptInt(fd, lvl, opt)
	if err != nil || mtu <= 0 {
		return 0
	}
	return mtu
}

// Close closes the probe's sockets.
func (r *RouteProbe) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		if r.fd4 >= 0 {
			unix.Close(r.fd4)
		}
		if r.fd6 >= 0 {
			unix.Close(r.fd6)
		}
	}
	return nil
}

// disconnect dissolves the association of the UDP socket fd (connect to an
// AF_UNSPEC address), which also forgets the source address the previous
// connect chose: without it, the kernel keeps the first destination's
// source for every later one, and the probe would name it for all.
func disconnect(fd int) error {
	var sa [16]byte // struct sockaddr, sa_family AF_UNSPEC (0)
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa[0])), uintptr(len(sa)))
	if e != 0 {
		return e
	}
	return nil
}
