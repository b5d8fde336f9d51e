package assoc

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/usctp/usctp/sctp/chunk"
)

// The host's addresses in INIT and INIT ACK, for an endpoint bound to the
// wildcard address (Config.HostAddrs): as Linux does, it lists them (RFC
// 9260 section 5.1.2) so the peer gets a path for each, leaving out:
//   - the packet's own source, which the peer records anyway;
//   - addresses of narrower scope than the peer's (Linux's rule): no
//     private IPv4 to a global peer, link-local only to a link-local peer
//     in the same zone, loopback only to a loopback peer;
//   - to a loopback peer, every non-loopback address (they would be paths
//     over the same device; this stack keeps it single-homed);
//   - families the peer does not support (section 3.3.2.1) or the socket
//     cannot use (Config.Families).
//
// An INIT ACK's list is also cut to stay within maxInitAckFactor times the
// INIT (the reflection bound the rate limiter assumes).

// AddrFamilies is a set of IP address families.
type AddrFamilies uint8

// The address families.
const (
	FamilyIPv4 AddrFamilies = 1 << iota
	FamilyIPv6

	// FamilyBoth is both families.
	FamilyBoth = FamilyIPv4 | FamilyIPv6
)

// familyOf returns the family of ip.
func familyOf(ip netip.Addr) AddrFamilies {
	if ip.Unmap().Is4() {
		return FamilyIPv4
	}
	return FamilyIPv6
}

// maxInitAckFactor bounds an INIT ACK that lists the host's addresses to
// this many times the size of the INIT packet it answers.
const maxInitAckFactor = 4

// Address scopes, narrowest last (Linux's sctp_scope_t order).
const (
	scopeGlobal = iota
	scopePrivate
	scopeLink
	scopeLoopback
)

// addrScope returns the scope of ip, with Linux's private ranges (RFC 1918,
// 198.18.0.0/15, IPv6 site-local) and link-local ranges.
func addrScope(ip netip.Addr) int {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return scopeLoopback
	case ip.IsLinkLocalUnicast():
		return scopeLink
	case ip.Is4() && (ip.IsPrivate() || benchNet.Contains(ip)):
		return scopePrivate
	case ip.Is6() && siteLocal.Contains(ip):
		return scopePrivate
	}
	return scopeGlobal
}

var (
	benchNet  = netip.MustParsePrefix("198.18.0.0/15")
	siteLocal = netip.MustParsePrefix("fec0::/10")
)

// announced appends to dst the host addresses to list in an INIT or INIT
// ACK from src to peer (see the file comment), without zones, peer's
// family first. ours is the socket's families (0: both).
func announced(dst, host []netip.Addr, peer, src netip.Addr, peerFam, ours AddrFamilies) []netip.Addr {
	peer, src = peer.Unmap(), src.Unmap().WithZone("")
	if peerFam == 0 {
		peerFam = FamilyBoth
	}
	if ours == 0 {
		ours = FamilyBoth
	}
	ps := addrScope(peer)
	start := len(dst)
	for pass := 0; pass < 2; pass++ {
		for _, ip := range host {
			ip = ip.Unmap()
			fam := familyOf(ip)
			if (fam == familyOf(peer)) != (pass == 0) {
				continue
			}
			bare := ip.WithZone("")
			switch {
			case !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast():
				continue
			case bare == src || slices.Contains(dst[start:], bare):
				continue
			case peerFam&fam == 0 || ours&fam == 0:
				continue
			}
			s := addrScope(ip)
			switch {
			case ps == scopeLoopback:
				// Only the loopback addresses of the peer's family.
				if s != scopeLoopback || fam != familyOf(peer) {
					continue
				}
			case s > ps:
				continue // narrower than the peer's scope
			case s == scopeLink && ip.Is6() && (ip.Zone() == "" || ip.Zone() != peer.Zone()):
				continue // a link-local address of another interface
			}
			dst = append(dst, bare)
		}
	}
	return dst
}

// peerFamilies returns the families a peer's INIT supports: its Supported
// Address Types (none: all), plus those of its source and listed addresses
// (section 5.1.2).
func (in *initInfo) peerFamilies(src netip.Addr) AddrFamilies {
	if !in.typesSeen {
		return FamilyBoth
	}
	f := in.types | familyOf(src)
	for _, ip := range in.addrs[:in.naddrs] {
		f |= familyOf(ip)
	}
	return f
}

// parseAddrTypes reads a Supported Address Types parameter's value: a list
// of 16-bit address parameter types (IPv4 5, IPv6 6, Host Name 11).
func parseAddrTypes(v []byte) AddrFamilies {
	var f AddrFamilies
	for ; len(v) >= 2; v = v[2:] {
		switch chunk.ParamType(binary.BigEndian.Uint16(v)) {
		case chunk.ParamIPv4Address:
			f |= FamilyIPv4
		case chunk.ParamIPv6Address:
			f |= FamilyIPv6
		}
	}
	return f
}

// hostAddrsFor returns the addresses a wildcard endpoint lists to peer, in
// ep's scratch list, and the source they leave out; nil when the endpoint
// does not announce the host's addresses.
func (ep *Endpoint) hostAddrsFor(peer netip.Addr, peerFam AddrFamilies) ([]netip.Addr, netip.Addr) {
	if ep.cfg.HostAddrs == nil || len(ep.cfg.LocalAddrs) > 0 {
		return nil, netip.Addr{}
	}
	host, src := ep.cfg.HostAddrs(peer)
	ep.announce = announced(ep.announce[:0], host, peer, src, peerFam, ep.cfg.Families)
	if len(ep.announce) > maxPeerAddrs {
		ep.announce = ep.announce[:maxPeerAddrs]
	}
	return ep.announce, src
}

// appendAddrParams appends an address parameter for each of ips.
func appendAddrParams(b []byte, ips []netip.Addr) []byte {
	for _, ip := range ips {
		b, _ = chunk.AppendAddrParam(b, ip)
	}
	return b
}

// addrParamLen is the size of ip's address parameter.
func addrParamLen(ip netip.Addr) int {
	if ip.Is4() {
		return 8
	}
	return 20
}

// insertHostAddrs inserts the announced host addresses into the INIT ACK
// at pkt[at:], as many as keep it within maxInitAckFactor times initLen.
func (ep *Endpoint) insertHostAddrs(pkt []byte, at int, p *inPacket, in *initInfo, initLen int) []byte {
	ips, _ := ep.hostAddrsFor(p.from.Addr(), in.peerFamilies(p.from.Addr()))
	room := maxInitAckFactor*initLen - len(pkt)
	n, size := 0, 0
	for ; n < len(ips) && size+addrParamLen(ips[n]) <= room; n++ {
		size += addrParamLen(ips[n])
	}
	if n == 0 {
		return pkt
	}
	params := appendAddrParams(ep.scratch[:0], ips[:n])
	ep.scratch = params[:0]
	// After the fixed fields (tag, a_rwnd, streams, TSN), where
	// appendInitAck lists the endpoint's own addresses.
	pos := at + 4 + 16
	pkt = slices.Insert(pkt, pos, params...)
	binary.BigEndian.PutUint16(pkt[at+2:], binary.BigEndian.Uint16(pkt[at+2:])+uint16(len(params)))
	return pkt
}

// appendSupportedAddrTypes appends a Supported Address Types parameter
// naming the families fam (section 3.3.2.1).
func appendSupportedAddrTypes(b []byte, fam AddrFamilies) []byte {
	var v [4]byte
	n := 0
	if fam&FamilyIPv4 != 0 {
		binary.BigEndian.PutUint16(v[n:], uint16(chunk.ParamIPv4Address))
		n += 2
	}
	if fam&FamilyIPv6 != 0 {
		binary.BigEndian.PutUint16(v[n:], uint16(chunk.ParamIPv6Address))
		n += 2
	}
	b, _ = chunk.AppendParam(b, chunk.ParamSupportedAddressTypes, v[:n])
	return b
}

// AppendAnnouncedAddrs appends to dst the host addresses a wildcard
// endpoint uses with a's peer: the source toward the peer's primary, then
// those announced lists, worked out from the host's addresses now. Nothing
// is appended when the endpoint does not announce them.
func (a *Assoc) AppendAnnouncedAddrs(dst []netip.Addr) []netip.Addr {
	peer := a.key.peer.Addr().Unmap()
	fam := familyOf(peer)
	for _, ip := range a.peerAddrs {
		fam |= familyOf(ip)
	}
	list, src := a.ep.hostAddrsFor(peer, fam)
	if list == nil {
		return dst
	}
	if src.IsValid() {
		dst = append(dst, src)
	}
	return append(dst, list...)
}
