package api

import (
	"net/netip"
	"strconv"
)

// Addr is an SCTP transport address: an IP address and SCTP port, and the
// UDP encapsulation port when there is one. The same type names a peer
// address in paths (PathInfo) and in events (Event.Addr).
type Addr struct {
	IP      netip.Addr
	Port    uint16 // SCTP port
	UDPPort uint16 // UDP encapsulation port; 0 for plain SCTP
}

// Network returns "sctp".
func (a Addr) Network() string { return "sctp" }

// String returns "IP:PORT", with "/udp:N" for UDP encapsulation.
func (a Addr) String() string {
	s := netip.AddrPortFrom(a.IP, a.Port).String()
	if a.UDPPort != 0 {
		s += "/udp:" + strconv.Itoa(int(a.UDPPort))
	}
	return s
}
