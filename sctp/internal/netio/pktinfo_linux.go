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
	if err := b.setRecvOption(unix.IPV6_RECVPKTINFO, unix.IP_PKTINFO); err != nil {
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

// setRecvOption turns on a receive option of the socket: v6opt
// (IPPROTO_IPV6) on an IPv6 socket, where v4opt (IPPROTO_IP) is also tried
// for the IPv4 traffic of a dual-stack one (an IPv6-only socket may refuse
// it), else v4opt.
func (b *batchIO) setRecvOption(v6opt, v4opt int) error {
	var serr error
	err := b.rc.Control(func(fd uintptr) {
		if b.v6 {
			if serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, v6opt, 1); serr != nil {
				return
			}
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, v4opt, 1)
			return
		}
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, v4opt, 1)
	})
	if err == nil {
		err = serr
	}
	return err
}
