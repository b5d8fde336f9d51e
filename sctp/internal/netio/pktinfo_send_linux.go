//go:build linux

package netio

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sending from a chosen local address.
//
// A multi-homed endpoint binds one socket to the wildcard address (of its
// family, or dual-stack for UDP encapsulation) rather than one socket per
// address: it then receives on all of its addresses through one reader,
// and picks the source of each packet with a control message, the path's
// own local address (Packet.Local on WriteBatch). Linux takes IP_PKTINFO
// (ipi_spec_dst) on IPv4 and IPv6 sockets alike for an IPv4 source, the
// IPv4-mapped traffic of a dual-stack socket included, and IPV6_PKTINFO for
// an IPv6 source; raw IP sockets take them too. With sendmmsg the control
// message is per message, so one batch mixes sources freely; a GSO run
// holds packets of one source only.

// sendCmsgSpace is the control buffer of one sent message: a UDP_SEGMENT
// message, then an IP_PKTINFO or IPV6_PKTINFO one.
var sendCmsgSpace = gsoCmsgSpace + pktinfoSpace

// putSourceCmsg writes the control message that sends a packet to dst from
// the local address src into oob, and returns its length: 0, and nothing
// written, when the families differ (the kernel then chooses).
func putSourceCmsg(oob []byte, src, dst netip.Addr) int {
	src, dst = src.Unmap(), dst.Unmap()
	switch {
	case src.Is4() && dst.Is4():
		n := unix.CmsgSpace(unix.SizeofInet4Pktinfo)
		clear(oob[:n])
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		c.Level, c.Type = unix.IPPROTO_IP, unix.IP_PKTINFO
		c.SetLen(unix.CmsgLen(unix.SizeofInet4Pktinfo))
		pi := (*unix.Inet4Pktinfo)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
		pi.Spec_dst = src.As4()
		return n
	case src.Is6() && dst.Is6():
		n := unix.CmsgSpace(unix.SizeofInet6Pktinfo)
		clear(oob[:n])
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		c.Level, c.Type = unix.IPPROTO_IPV6, unix.IPV6_PKTINFO
		c.SetLen(unix.CmsgLen(unix.SizeofInet6Pktinfo))
		pi := (*unix.Inet6Pktinfo)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
		pi.Addr = src.As16()
		pi.Ifindex = zoneIndex(src.Zone())
		return n
	}
	return 0
}
