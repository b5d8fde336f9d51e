package sctp

import (
	"fmt"
	"net/netip"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// portClaimer is a socket shared with other endpoints of the process
// (netio.SharedConn; netio.DualIPConn, a pair of raw sockets): each
// endpoint gets the packets of the SCTP ports it claims, its listening
// port as it opens and each dialed association's port while the
// association lives.
type portClaimer interface {
	Claim(port uint16) error
	Release(port uint16)
}

// openConn opens the transport that cfg selects, for an endpoint that
// listens on SCTP port listen or only dials (listen 0). A UDP
// encapsulation socket bound to a fixed port is the process's shared
// socket of that address and port, and a raw IP socket the process's of
// that address (netio.SharedConn); listen is claimed on it.
func openConn(c *Config, ip netip.Addr, listen uint16) (netio.Conn, netip.AddrPort, error) {
	switch {
	case c.Conn != nil:
		a := netio.NewConnAdapter(c.Conn, netio.AdapterConfig{RemotePort: c.RemoteUDPPort})
		return a, a.RemoteAddr(), nil
	case c.PacketConn != nil:
		return netio.NewAdapter(c.PacketConn, netio.AdapterConfig{RemotePort: c.RemoteUDPPort}),
			netip.AddrPort{}, nil
	case c.Transport == IP:
		conn, err := netio.OpenSharedIP(netio.IPConfig{Addr: ip, BusyPoll: c.BusyPoll, Notices: true, DontFragment: !c.DisablePMTUDiscovery}, listen)
		if err != nil {
			return nil, netip.AddrPort{}, fmt.Errorf("sctp: raw IP: %w", err)
		}
		return conn, netip.AddrPort{}, nil
	}
	uc := udpConfig(c, ip, listen != 0)
	if uc.Addr.Port() != 0 {
		conn, err := netio.OpenSharedUDP(uc, listen)
		if err != nil {
			return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP encapsulation: %w", err)
		}
		return conn, netip.AddrPort{}, nil
	}
	conn, err := netio.ListenUDP(uc)
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("sctp: UDP encapsulation: %w", err)
	}
	return conn, netip.AddrPort{}, nil
}

// udpConfig is the UDP encapsulation socket cfg selects for an endpoint
// bound to ip that listens or only dials.
func udpConfig(c *Config, ip netip.Addr, listening bool) netio.UDPConfig {
	// UDPPort 0 is the default port of the endpoint's role, as with TCP:
	// a listener's is the well-known 9899, where peers send their INITs;
	// a dialer's is one the system picks, so that any number of Dials
	// (and a Listen on 9899) live side by side in a process or on a host.
	// The peer answers the port an association's packets come from (RFC
	// 6951 section 5.4), so nobody needs to know a dialer's in advance.
	port := c.UDPPort
	if port == 0 && listening && !c.EphemeralUDPPort {
		port = netio.DefaultUDPPort
	}
	if !ip.IsValid() {
		ip = netip.IPv6Unspecified()
	}
	u := netio.UDPConfig{Addr: netip.AddrPortFrom(ip, port), RemotePort: c.RemoteUDPPort, GRO: true,
		BusyPoll: c.BusyPoll, Notices: true, DontFragment: !c.DisablePMTUDiscovery, Exclusive: c.ExclusiveUDPPort}
	if listening {
		u.SocketBuffer = listenSocketBuffer
	}
	return u
}

// listenSocketBuffer is the SO_RCVBUF and SO_SNDBUF a listening endpoint
// asks for: 16 MiB (the kernel doubles it for its overhead; without
// CAP_NET_ADMIN net.core.rmem_max caps it). Many peers send to a
// listener at once, each within its own association's window (1 MiB,
// growing by autotuning): with the 4 MiB a dialing endpoint asks for,
// many associations sending to one listener overflow its socket, and
// every drop costs a retransmission and a SACK for each packet after it
// (docs/PERFORMANCE.md has the figures). It is a bound, not an
// allocation: the kernel charges only what is queued.
const listenSocketBuffer = 16 << 20

// socketFamilies returns the address families of the socket an endpoint
// bound to ip opens: a raw IP socket is one family (IPv4 when ip is not
// given; oneRaw false for a pair of them); a UDP one bound to [::] or to
// no address is dual-stack.
func socketFamilies(ip netip.Addr, oneRaw bool) assoc.AddrFamilies {
	switch {
	case ip.IsValid() && ip.Unmap().Is4():
		return assoc.FamilyIPv4
	case oneRaw && !ip.IsValid():
		return assoc.FamilyIPv4
	case oneRaw:
		return assoc.FamilyIPv6
	}
	return assoc.FamilyBoth
}
