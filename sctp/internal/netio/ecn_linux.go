//go:build linux

package netio

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// setECT0 sets the socket's outgoing ECN field to ECT(0), keeping the
// DSCP bits: IP_TOS for IPv4 (and the IPv4 traffic of a dual-stack
// socket), IPV6_TCLASS for IPv6.
func setECT0(rc syscall.RawConn) error {
	v6, err := socketIsV6(rc)
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		set := func(level, opt int) error {
			v, err := unix.GetsockoptInt(int(fd), level, opt)
			if err != nil {
				return err
			}
			return unix.SetsockoptInt(int(fd), level, opt, v&^3|ECT0)
		}
		if v6 {
			if serr = set(unix.IPPROTO_IPV6, unix.IPV6_TCLASS); serr != nil {
				return
			}
			_ = set(unix.IPPROTO_IP, unix.IP_TOS) // an IPv6-only socket may refuse
			return
		}
		serr = set(unix.IPPROTO_IP, unix.IP_TOS)
	})
	if err == nil {
		err = serr
	}
	return err
}

// ecnSpace is the control buffer for one IP_TOS or IPV6_TCLASS message.
var ecnSpace = unix.CmsgSpace(4)

// enableRecvECN makes the reads report each packet's ECN field
// (Packet.ECN): IP_RECVTOS, and IPV6_RECVTCLASS on an IPv6 socket (with
// IP_RECVTOS for the IPv4 traffic of a dual-stack one). Raw IPv4 reads
// take it from the IPv4 header and need neither. It resizes the control
// buffers, so it runs before the first read (EnableECN on a new conn).
func (b *batchIO) enableRecvECN() error {
	if b.raw4 {
		return nil
	}
	if err := b.setRecvOption(unix.IPV6_RECVTCLASS, unix.IP_RECVTOS); err != nil {
		return err
	}
	b.r.Lock()
	defer b.r.Unlock()
	if b.ecn {
		return nil
	}
	b.ecn = true
	b.r.space += ecnSpace
	b.r.oob = make([]byte, maxBatch*b.r.space)
	if g := b.g; g != nil {
		g.space += ecnSpace
		g.oob = make([]byte, len(g.bufs)*g.space)
	}
	return nil
}

// cmsgECN returns the ECN field an IP_TOS or IPV6_TCLASS control message
// in oob reports, or 0.
func cmsgECN(oob []byte) uint8 {
	for len(oob) >= unix.SizeofCmsghdr {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(c.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			break
		}
		data := oob[unix.CmsgLen(0):l]
		switch {
		case c.Level == unix.IPPROTO_IP && c.Type == unix.IP_TOS && len(data) >= 1:
			return data[0] & 3
		case c.Level == unix.IPPROTO_IPV6 && c.Type == unix.IPV6_TCLASS && len(data) >= 4:
			return uint8(binary.NativeEndian.Uint32(data)) & 3
		}
		sp := unix.CmsgSpace(l - unix.CmsgLen(0))
		if sp > len(oob) {
			break
		}
		oob = oob[sp:]
	}
	return 0
}

// recvECN turns on the ECN field reports of a batched conn.
func recvECN(b batcher) error {
	if bi, ok := b.(*batchIO); ok {
		return bi.enableRecvECN()
	}
	return nil
}
