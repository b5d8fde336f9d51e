package sctp

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Multi-homed endpoints: several local addresses.
//
// An endpoint with two or more local addresses (ListenAddrs, an address
// list in Listen, Config.LocalAddrs) binds one socket to the wildcard
// address of their family (dual-stack [::] for UDP encapsulation with
// both families; raw IP sockets are one family, so a raw IP endpoint
// with both has a pair, netio.DualIPConn), rather than one socket per
// address: one reader serves them all, and the core sees one transport.
// It then
//   - lists its addresses in INIT and INIT ACK (RFC 9260 section 5.1.2),
//     and turns Config.Paths.Multihoming on, so the peer's addresses are
//     paths;
//   - accepts only packets sent to one of its addresses: the socket
//     learns each packet's destination (IP_PKTINFO), and a packet to
//     another address of the host is dropped and counted
//     (Counters.UnboundAddrDropped);
//   - sends each packet from one of its addresses, as netio.SourceChooser
//     chooses: the address its peer address's packets arrive on, else the
//     kernel's routes' choice if it is one of the endpoint's.
//
// A wildcard endpoint (no address given) with Config.Paths.Multihoming
// receives on every address of the host, and so announces them: the core
// lists in each INIT and INIT ACK those of the host's addresses that suit
// the peer (by scope, family and loopback), read from the kernel's
// address list (netio.HostAddrs, read again only after a change). Such an
// endpoint accepts packets to any address (wildcard) and sends each packet as
// a multi-homed one does. Without Multihoming a wildcard endpoint
// announces no address and lets the kernel choose every source.

// multiHome is the local address set of a multi-homed endpoint; the zero
// value (locals nil, not wildcard) is a single-homed one. Its fields are
// guarded by the endpoint's mu (chooser's Dropped excepted).
type multiHome struct {
	locals []netip.Addr // the endpoint's addresses; nil: not multi-homed
	// wildcard is set on a wildcard-bound endpoint that announces the
	// host's addresses: every address of the host is its own.
	wildcard bool
	families assoc.AddrFamilies   // the socket's families (wildcard)
	chooser  *netio.SourceChooser // each packet's source; nil: the kernel chooses
}

// choosesSource reports whether the endpoint chooses each packet's source.
func (m *multiHome) choosesSource() bool { return m.chooser != nil }

// initWild sets up a wildcard endpoint that announces the host's
// addresses: the kernel's list of them and its route lookups, opened in
// the calling thread's network namespace.
func (m *multiHome) initWild() error {
	src, err := netio.NewHostSourceChooser()
	if err != nil {
		return err
	}
	m.wildcard, m.chooser = true, src
	return nil
}

// hostAddrs is the core's Config.HostAddrs: the host's addresses, and the
// source of the packets to peer. Called with the endpoint's mu held.
func (m *multiHome) hostAddrs(peer netip.Addr) ([]netip.Addr, netip.Addr) {
	return m.chooser.HostAddrs(), m.chooser.Source(peer)
}

// close releases the kernel lookups.
func (m *multiHome) close() {
	if m.chooser != nil {
		m.chooser.Close()
	}
}

// init sets the address set up; probe asks for the kernel's route lookups
// (a socket of the operating system's, not a user's net.Conn).
func (m *multiHome) init(locals []netip.Addr, probe bool) error {
	if len(locals) < 2 {
		return nil
	}
	src, err := netio.NewSourceChooser(locals, probe)
	if err != nil {
		return err
	}
	m.locals, m.chooser = locals, src
	return nil
}

// noteArrival notes that a packet from peer arrived on the local address
// local, and reports whether local is one of the endpoint's.
func (m *multiHome) noteArrival(peer, local netip.Addr) bool { return m.chooser.Arrived(peer, local) }

// source returns the local address to send a packet to dst from.
func (m *multiHome) source(dst netip.Addr) netip.Addr { return m.chooser.Source(dst) }

// dropped returns the packets refused for their destination address.
func (m *multiHome) dropped() uint64 {
	if m.chooser == nil {
		return 0
	}
	return m.chooser.Dropped()
}

// bindAddrs returns the address to bind the socket to and, for a
// multi-homed endpoint, its address set: ip when it is a specific
// address; else the addresses of list (Config.LocalAddrs), one bound as
// ip, two or more through the wildcard of their family (the unspecified
// ip given keeps its family when list is empty).
func bindAddrs(ip netip.Addr, list []netip.Addr) (netip.Addr, []netip.Addr, error) {
	if ip.IsValid() && !ip.IsUnspecified() {
		return ip, nil, nil
	}
	var locals []netip.Addr
	for _, l := range list {
		l = l.Unmap()
		if !l.IsValid() || l.IsUnspecified() || l.IsMulticast() {
			return ip, nil, fmt.Errorf("sctp: local address %v: not a unicast address", l)
		}
		if !slices.Contains(locals, l) {
			locals = append(locals, l)
		}
	}
	switch len(locals) {
	case 0:
		return ip, nil, nil
	case 1:
		return locals[0], nil, nil
	}
	if len(locals) > maxLocalAddrs {
		return ip, nil, fmt.Errorf("sctp: %d local addresses, at most %d", len(locals), maxLocalAddrs)
	}
	// Both families over raw IP: the IPv6 wildcard stands for a pair of
	// raw sockets (netio.DualIPConn).
	return familyWildcard(locals), locals, nil
}

// maxLocalAddrs is the most local addresses an endpoint takes: as many as
// a peer's list keeps (the core's bound).
const maxLocalAddrs = 32

// LocalAddrs returns the endpoint's local IP addresses: those it was given
// (ListenAddrs, Config.LocalAddrs); on a wildcard endpoint with
// Multihoming, the host's addresses of its socket's families (those it
// picks from for each peer); else the one its socket is bound to (the
// unspecified address on a wildcard socket).
func (e *Endpoint) LocalAddrs() []netip.Addr {
	if e.multihome.locals != nil {
		return slices.Clone(e.multihome.locals)
	}
	if e.multihome.wildcard {
		e.mu.Lock()
		host := e.multihome.chooser.HostAddrs()
		fam := e.multihome.families
		var out []netip.Addr
		for _, ip := range host {
			if ip.Is4() && fam&assoc.FamilyIPv4 != 0 || ip.Is6() && fam&assoc.FamilyIPv6 != 0 {
				out = append(out, ip)
			}
		}
		e.mu.Unlock()
		return out
	}
	return []netip.Addr{e.conn.LocalAddr().Addr()}
}
