//go:build linux

package netio

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pktinfoSpace is the control buffer for one IP_PKTINFO or IPV6_PKTINFO
// message (CmsgSpace of the larger, struct in6_pktinfo).
var pktinfoSpace = unix.CmsgSpace(unix.SizeofInet6Pktinfo)

// enablePktinfo makes the reads learn the local address each packet was
// sent to, for a socket bound to the wildcard address (where LocalAddr
// says only 0.0.0.0 or ::): IP_PKTINFO, and IPV6_RECVPKTINFO on an IPv6
// socket (IP_PKTINFO there covers IPv4-mapped traffic of a dual-stack
// socket). A raw IPv4 socket needs neither: its reads carry the IPv4
// header, whose destination is the address. Call it before initGRO.
func (b *batchIO) enablePktinfo() error {
	if b.raw4 {
		b.pi = true
		return nil
	}
	var serr error
	err := b.rc.Control(func(fd uintptr) {
		if b.v6 {
			if serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1); serr != nil {
				return
			}
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1) // an IPv6-only socket may refuse
			return
		}
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1)
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	b.pi = true
	b.r.space = pktinfoSpace
	b.r.oob = make([]byte, maxBatch*b.r.space)
	return nil
}

// pktinfoAddr returns the destination address an IP_PKTINFO or
// IPV6_PKTINFO control message in oob reports, or the zero Addr.
func pktinfoAddr(oob []byte) netip.Addr {
	for len(oob) >= unix.SizeofCmsghdr {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(c.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			break
		}
		data := oob[unix.CmsgLen(0):l]
		switch {
		case c.Level == unix.IPPROTO_IP && c.Type == unix.IP_PKTINFO && len(data) >= unix.SizeofInet4Pktinfo:
			pi := (*unix.Inet4Pktinfo)(unsafe.Pointer(&data[0]))
			return netip.AddrFrom4(pi.Addr)
		case c.Level == unix.IPPROTO_IPV6 && c.Type == unix.IPV6_PKTINFO && len(data) >= unix.SizeofInet6Pktinfo:
			pi := (*unix.Inet6Pktinfo)(unsafe.Pointer(&data[0]))
			a := netip.AddrFrom16(pi.Addr).Unmap()
			if a.Is6() && a.IsLinkLocalUnicast() && pi.Ifindex != 0 {
				a = a.WithZone(zoneName(pi.Ifindex))
			}
			return a
		}
		sp := unix.CmsgSpace(l - unix.CmsgLen(0))
		if sp > len(oob) {
			break
		}
		oob = oob[sp:]
	}
	return netip.Addr{}
}
