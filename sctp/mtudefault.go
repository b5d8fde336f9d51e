package sctp

import (
	"net"
	"net/netip"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// Config.MTU's default (0) on the sockets the endpoint opens itself (UDP
// encapsulation, raw IP): the MTU of the interface the packets leave by,
// capped at 65535, so that path MTU discovery searches up to what the
// host's own link carries, and no further:
//   - an endpoint Dial opens for one peer: the MTU of the route to the
//     peer (the largest over the peer's addresses), as the kernel reports
//     it on a socket connected there (netio.RouteProbe.MTU), unless that
//     is below BASE_PLPMTU (1200), then the interface's (routeMTU);
//   - an endpoint bound to addresses (Listen on an address, LocalAddrs):
//     the largest MTU of the interfaces holding them;
//   - an endpoint bound to all addresses: the largest MTU of the
//     interfaces that are up (loopback's 65536 included, so usually
//     65535). An association whose route has a smaller MTU finds it with
//     its first probe: the kernel refuses a packet larger than the route's
//     MTU at once (EMSGSIZE), and the shell hands the core the route's
//     MTU as a Packet Too Big for that packet (writeCollected, localTooBig).
//     With DisablePMTUDiscovery there is no such correction (and packets
//     go without Don't Fragment), so such an endpoint keeps 1500.
//
// A user's PacketConn or Conn has no interface to ask: 1500. Nor does an
// interface that cannot be found: 1500.

// fixMTU turns an interface's MTU into a Config.MTU: 1500 when unknown,
// else within 576..65535.
func fixMTU(mtu int) int {
	if mtu <= 0 {
		return assoc.DefaultMTU
	}
	return min(max(mtu, 576), maxMTU)
}

// peerMTU is Config.MTU's default for an endpoint dialing peers.
func peerMTU(peers []netip.Addr) int {
	r, err := netio.NewRouteProbe()
	if err != nil {
		return assoc.DefaultMTU
	}
	defer r.Close()
	best := 0
	for _, ip := range peers {
		best = max(best, routeMTU(r, ip))
	}
	return fixMTU(best)
}

// routeMTU is the MTU of the route to ip as peerMTU takes it. A route MTU
// below BASE_PLPMTU is suspect: the kernel lowers a route's MTU for an
// ICMP "fragmentation needed" that quotes any UDP socket of the host
// (down to 552 bytes), which an off-path attacker can forge, and RFC 8899
// section 4.6 has such a report validated before it lowers anything,
// never below BASE_PLPMTU. So the route's interface MTU is taken instead
// (the MTU of the interfaces holding the route's source address), and
// path MTU discovery searches up from BASE_PLPMTU as on any path.
func routeMTU(r *netio.RouteProbe, ip netip.Addr) int {
	mtu := r.MTU(ip)
	if mtu <= 0 || mtu >= assoc.BasePLPMTU {
		return mtu
	}
	if src := r.Source(ip); src.IsValid() {
		mtu = max(mtu, localMTU(src, nil, true))
	}
	return mtu
}

// localMTU is Config.MTU's default for an endpoint bound to ip (the zero
// or unspecified Addr: all addresses) or to the addresses locals, with
// path MTU discovery on or off (pmtud).
func localMTU(ip netip.Addr, locals []netip.Addr, pmtud bool) int {
	all := len(locals) == 0 && (!ip.IsValid() || ip.IsUnspecified())
	if all && !pmtud {
		return assoc.DefaultMTU
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return assoc.DefaultMTU
	}
	if len(locals) == 0 && !all {
		locals = []netip.Addr{ip}
	}
	best := 0
	for i := range ifs {
		ifc := &ifs[i]
		if ifc.Flags&net.FlagUp == 0 || ifc.MTU <= best {
			continue
		}
		if all || holdsAny(ifc, locals) {
			best = ifc.MTU
		}
	}
	return fixMTU(best)
}

// holdsAny reports whether interface ifc has one of the addresses ips.
func holdsAny(ifc *net.Interface, ips []netip.Addr) bool {
	addrs, err := ifc.Addrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		got, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		for _, ip := range ips {
			if got.Unmap() == ip.Unmap().WithZone("") {
				return true
			}
		}
	}
	return false
}
