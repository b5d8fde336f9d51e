//go:build linux

package netio

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxNoticeBatch bounds the notices one ReadBatch returns; the rest stay
// in the socket's error queue for the next call.
const maxNoticeBatch = 16

// noticeState is the reader's error-queue machinery, allocated once by
// enableNotices. It belongs to the reader (b.r's lock).
type noticeState struct {
	// pending: recvmmsg reported an ICMP error (isNoticeErrno), whose
	// notices wait in the error queue. The kernel reports the error ahead
	// of the datagrams queued before the ICMP message came, so they are
	// read first, one batch at most, and the notices after them
	// (takeNotices): a SHUTDOWN COMPLETE that arrived before the port
	// unreachable of a packet that crossed it then completes the
	// shutdown instead of the notice aborting it. The reader (b.r) holds
	// it.
	pending bool
	hdr     unix.Msghdr
	iov     unix.Iovec
	sa      unix.RawSockaddrInet6
	oob     [256]byte
	quote   [maxNoticeBatch][maxNoticeQuote]byte // views for readBatchView
	drop    [maxNoticeQuote]byte                 // for notices not kept
}

// enableNotices turns on IP_RECVERR (and IPV6_RECVERR on an IPv6 socket,
// which also keeps IP_RECVERR for IPv4-mapped traffic): the kernel then
// queues the ICMP errors it matches to the socket, and local errors such
// as EMSGSIZE, on the socket's error queue and reports the latest as the
// socket's pending error, which the next recvmmsg returns.
func (b *batchIO) enableNotices() error {
	var serr error
	err := b.rc.Control(func(fd uintptr) {
		if b.v6 {
			if serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVERR, 1); serr != nil {
				return
			}
			// IPv4-mapped traffic of a dual-stack socket; an IPv6-only
			// socket may refuse it, which is harmless.
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVERR, 1)
			return
		}
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVERR, 1)
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	b.ns = new(noticeState)
	return nil
}

// isNoticeErrno reports whether errno, returned by recvmmsg on a socket
// with notices on, is a network error whose details wait in the error
// queue, not a fault of the socket.
func isNoticeErrno(err error) bool {
	switch err {
	case unix.ECONNREFUSED, unix.EHOSTUNREACH, unix.ENETUNREACH, unix.ENOPROTOOPT, unix.EMSGSIZE,
		unix.EACCES, unix.EPROTO, unix.ENETDOWN, unix.EHOSTDOWN, unix.ENONET, unix.EOPNOTSUPP,
		unix.ETIMEDOUT, unix.ECONNRESET:
		return true
	}
	return false
}

// noticeErr handles the error recvF left in b.r.err, for a read into pkts:
// a notice errno marks the notices pending and has the read go on
// (again: true) for the datagrams queued before them; the EAGAIN recvF
// returns then, with the socket drained, reads the notices (k of them,
// again when there were none). Other errors are the read's.
func (b *batchIO) noticeErr(pkts []Packet, view bool) (k int, again bool) {
	switch {
	case b.ns == nil:
		return 0, false
	case isNoticeErrno(b.r.err):
		b.ns.pending = true
		return 0, true
	case b.r.err == unix.EAGAIN && b.ns.pending:
		b.ns.pending = false
		k = b.readNotices(pkts, view)
		return k, k == 0
	}
	return 0, false
}

// takeNotices reads the notices a read left pending after the batch of
// datagrams it returned (noticeErr), and returns how many it filled.
func (b *batchIO) takeNotices(pkts []Packet, view bool) int {
	if b.ns == nil || !b.ns.pending {
		return 0
	}
	b.ns.pending = false
	return b.readNotices(pkts, view)
}

// readNotices drains the socket's error queue into pkts (at most
// maxNoticeBatch entries) and returns how many notices it filled; errors
// that say nothing usable (an ICMP parameter problem, a local error other
// than EMSGSIZE) are read and dropped. With view, the notices' Buf point
// into b's own quote buffers. The caller holds b.r.
func (b *batchIO) readNotices(pkts []Packet, view bool) int {
	ns := b.ns
	k := 0
	b.rc.Control(func(fd uintptr) {
		for k < len(pkts) && k < maxNoticeBatch {
			p := &pkts[k]
			buf := ns.drop[:]
			switch {
			case view:
				buf = ns.quote[k][:]
			case len(p.Buf) > 0:
				buf = p.Buf[:min(len(p.Buf), maxNoticeQuote)]
			}
			ns.iov.Base = &buf[0]
			ns.iov.SetLen(len(buf))
			ns.hdr = unix.Msghdr{Name: (*byte)(unsafe.Pointer(&ns.sa)), Namelen: unix.SizeofSockaddrInet6}
			ns.hdr.Iov = &ns.iov
			ns.hdr.SetIovlen(1)
			ns.hdr.Control = &ns.oob[0]
			ns.hdr.SetControllen(len(ns.oob))
			n, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&ns.hdr)),
				unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
			if errno == unix.EINTR {
				continue
			}
			if errno != 0 {
				return // EAGAIN: the queue is empty
			}
			kind, mtu, errno := noticeOf(ns.oob[:ns.hdr.Controllen])
			addr := sockaddrToAddrPort(&ns.sa)
			if kind == NoticeNone || !addr.IsValid() || len(p.Buf) == 0 && !view {
				continue
			}
			if view {
				p.Buf = buf
			}
			p.N, p.Addr, p.Notice, p.MTU, p.Local, p.Errno = min(int(n), len(buf)), addr, kind, mtu, netip.Addr{}, errno
			k++
		}
	})
	b.notices.Add(uint64(k))
	return k
}

// noticeOf reads the extended error of an error-queue message's control
// data and says what it means for SCTP: the notice, the MTU it reports
// and the errno the kernel gave it.
func noticeOf(oob []byte) (NoticeKind, int, unix.Errno) {
	for len(oob) >= unix.SizeofCmsghdr {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(c.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			break
		}
		if (c.Level == unix.IPPROTO_IP && c.Type == unix.IP_RECVERR ||
			c.Level == unix.IPPROTO_IPV6 && c.Type == unix.IPV6_RECVERR) &&
			l >= unix.CmsgLen(int(unsafe.Sizeof(unix.SockExtendedErr{}))) {
			ee := (*unix.SockExtendedErr)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
			kind, mtu := classify(ee.Origin, ee.Type, ee.Code, ee.Errno, ee.Info)
			return kind, mtu, unix.Errno(ee.Errno)
		}
		sp := unix.CmsgSpace(l - unix.CmsgLen(0))
		if sp > len(oob) {
			break
		}
		oob = oob[sp:]
	}
	return NoticeNone, 0, 0
}

// ICMP and ICMPv6 types and codes that classify reads (RFC 792, RFC
// 1191, RFC 4443).
const (
	icmpDestUnreach   = 3
	icmpTimeExceeded  = 11
	icmpProtoUnreach  = 2
	icmpPortUnreach   = 3
	icmpFragNeeded    = 4
	icmp6DestUnreach  = 1
	icmp6PacketTooBig = 2
	icmp6TimeExceeded = 3
	icmp6ParamProblem = 4
	icmp6PortUnreach  = 4
	icmp6NextHeader   = 1 // parameter problem: unrecognized Next Header
)

// classify maps an extended error to a notice: refused where nothing at
// the destination takes the packet (port or protocol unreachable),
// unreachable where it cannot be reached, too big with the MTU reported.
func classify(origin, typ, code uint8, errno, info uint32) (NoticeKind, int) {
	switch origin {
	case unix.SO_EE_ORIGIN_ICMP:
		switch typ {
		case icmpDestUnreach:
			switch code {
			case icmpPortUnreach, icmpProtoUnreach:
				return NoticeRefused, 0
			case icmpFragNeeded:
				return NoticeTooBig, int(info)
			}
			return NoticeUnreachable, 0
		case icmpTimeExceeded:
			return NoticeUnreachable, 0
		}
	case unix.SO_EE_ORIGIN_ICMP6:
		switch typ {
		case icmp6DestUnreach:
			if code == icmp6PortUnreach {
				return NoticeRefused, 0
			}
			return NoticeUnreachable, 0
		case icmp6PacketTooBig:
			return NoticeTooBig, int(info)
		case icmp6TimeExceeded:
			return NoticeUnreachable, 0
		case icmp6ParamProblem:
			if code == icmp6NextHeader {
				return NoticeRefused, 0
			}
		}
	case unix.SO_EE_ORIGIN_LOCAL:
		if unix.Errno(errno) == unix.EMSGSIZE {
			return NoticeLocalTooBig, int(info)
		}
	}
	return NoticeNone, 0
}

// localMTU takes the kernel's report of the send it just refused with
// EMSGSIZE from the socket's error queue and returns the MTU it carries,
// or 0 (no notices on this socket, or no such report). The report is
// queued before the send returns, so the writer finds it at once; the
// reader, which is not woken for a local report (it sets no pending
// socket error), would find it late. ICMP reports queued before it are
// read and dropped (at most a few: the reader drains the queue as soon
// as an ICMP error arrives). Called by the writer (b.w held).
func (b *batchIO) localMTU() int {
	if b.ns == nil {
		return 0
	}
	var buf [64]byte
	var oob [128]byte
	var sa unix.RawSockaddrInet6
	iov := unix.Iovec{Base: &buf[0]}
	iov.SetLen(len(buf))
	mtu := 0
	b.rc.Control(func(fd uintptr) {
		for range 4 {
			hdr := unix.Msghdr{Name: (*byte)(unsafe.Pointer(&sa)), Namelen: unix.SizeofSockaddrInet6, Iov: &iov}
			hdr.SetIovlen(1)
			hdr.Control = &oob[0]
			hdr.SetControllen(len(oob))
			_, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&hdr)),
				unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
			if errno == unix.EINTR {
				continue
			}
			if errno != 0 {
				return
			}
			if kind, m, _ := noticeOf(oob[:hdr.Controllen]); kind == NoticeLocalTooBig {
				mtu = m
				return
			}
		}
	})
	return mtu
}
