package netio

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"syscall"
)

// Opening the UDP socket a process's endpoints share (shared.go), and how
// it lives beside the process's other sockets of the same port and the
// other processes' sockets of the same address and port.
//
// Within a process the sockets of one port bound to different addresses
// overlap when one is a wildcard (0.0.0.0 covers every IPv4 address, the
// dual-stack [::] every address): the kernel binds such a pair only when
// both have SO_REUSEPORT, and then hands each datagram to the most
// specific socket for its destination address. A datagram that reaches a
// specific socket for an SCTP port served only on a wildcard socket of
// the process goes on to that socket's endpoint, as the kernel's SCTP
// picks the listener bound to the address if there is one, else the
// wildcard one (sharedSocket.wider).
//
// Across processes, a socket joins the host group of its address and port
// (portgroup.go) when the process may; otherwise it binds them for this
// process alone, and a bind refused because another process holds them
// fails with an error that says why and what to do.

// openSharedUDP opens the process's socket for key with uc, in the host
// group of its address and port unless uc.Exclusive or the process may
// not. Called with sharedSockets.mu held.
func openSharedUDP(uc UDPConfig, key socketKey) (Conn, *hostGroup, error) {
	why := errExclusive
	if !uc.Exclusive {
		why = groupAvailable()
	}
	// The process's sockets that overlap the new one, outside host groups
	// (whose sockets keep SO_REUSEPORT), let it bind beside them for the
	// time of its bind, and keep other processes from binding beside any
	// of them after.
	var overlapping []*UDPConn
	for k, s := range sharedSockets.socks {
		if u, ok := s.conn.(*UDPConn); ok && s.group == nil && !k.raw && k.port == key.port &&
			k.netns == key.netns && overlap(k.ip, key.ip) {
			overlapping = append(overlapping, u)
		}
	}
	for _, o := range overlapping {
		if err := o.setReusePort(true); err != nil {
			return nil, nil, fmt.Errorf("UDP %v beside %v: %w", uc.Addr, o.LocalAddr(), err)
		}
	}
	defer func() {
		for _, o := range overlapping {
			_ = o.setReusePort(false)
		}
	}()
	// A member of a host group keeps SO_REUSEPORT: the group's later
	// members bind beside it.
	uc.ReusePort = why == nil || len(overlapping) > 0
	u, err := ListenUDP(uc)
	if err != nil {
		return nil, nil, inUseError(uc.Addr, why, err)
	}
	if why != nil {
		if uc.ReusePort {
			if err := u.setReusePort(false); err != nil {
				u.Close()
				return nil, nil, err
			}
		}
		return u, nil, nil
	}
	rc, err := u.c.SyscallConn()
	if err == nil {
		var g *hostGroup
		if g, err = joinGroup(rc, u.LocalAddr(), key.netns); err == nil {
			return u, g, nil
		}
	}
	u.Close()
	return nil, nil, fmt.Errorf("UDP %v: sharing it with other processes: %w", uc.Addr, err)
}

// errExclusive is why a socket opened with UDPConfig.Exclusive does not
// share its port with other processes.
var errExclusive = errors.New("this endpoint asked for its UDP port alone")

// inUseError returns the error of a socket that could not bind addr: for
// an address and port another process holds, why this one could not
// share them (why; nil when it tried to) and what to do.
func inUseError(addr netip.AddrPort, why, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	if why == nil {
		return fmt.Errorf("UDP %v is held by a socket that does not share it (a process that may not load BPF programs, "+
			"or of another user, or another program): use another UDP port or address, or start every process on it "+
			"with CAP_BPF or CAP_SYS_ADMIN and bpffs at %s: %w", addr, bpffsRoot, syscall.EADDRINUSE)
	}
	if errors.Is(why, errExclusive) {
		return fmt.Errorf("UDP %v is held by another socket (%v): %w", addr, why, syscall.EADDRINUSE)
	}
	return fmt.Errorf("UDP %v is held by another process, and %v: use another UDP port or address, "+
		"or start every process on it with that privilege: %w", addr, why, syscall.EADDRINUSE)
}

// overlap reports whether sockets bound to a and b (same port) overlap:
// one is a wildcard that covers the other.
func overlap(a, b netip.Addr) bool {
	return covers(a, b) || covers(b, a)
}

// covers reports whether a socket bound to w receives datagrams for
// address a (UDP sockets of one port): w is [::] (dual-stack), or 0.0.0.0
// and a is IPv4.
func covers(w, a netip.Addr) bool {
	switch {
	case w == a:
		return true
	case w == netip.IPv6Unspecified():
		return true
	case w == netip.IPv4Unspecified():
		return a.Unmap().Is4()
	}
	return false
}

// relink sets, for each UDP socket of the process bound to port in
// network namespace netns, the wildcard sockets of the process that cover
// its address (sharedSocket.wider), most specific first. Called with
// sharedSockets.mu held, after a socket of the port opened or closed.
func relink(port uint16, netns uint64) {
	var socks []*sharedSocket
	for k, s := range sharedSockets.socks {
		if !k.raw && k.port == port && k.netns == netns {
			socks = append(socks, s)
		}
	}
	for _, s := range socks {
		var wider []*sharedSocket
		for _, w := range socks {
			if w != s && w.key.ip.IsUnspecified() && covers(w.key.ip, s.key.ip) {
				wider = append(wider, w)
			}
		}
		// 0.0.0.0 before [::]: the IPv4 wildcard is the more specific.
		slices.SortFunc(wider, func(a, b *sharedSocket) int {
			if a.key.ip.Is4() == b.key.ip.Is4() {
				return 0
			}
			if a.key.ip.Is4() {
				return -1
			}
			return 1
		})
		s.wider.Store(&wider)
		s.mu.Lock()
		s.updateSolo()
		s.mu.Unlock()
	}
}
