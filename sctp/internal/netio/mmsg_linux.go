//go:build linux

package netio

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Batch limits.
const (
	// maxBatch is the most messages one recvmmsg or sendmmsg call takes.
	maxBatch = 64
	// maxGSOSegments is the most UDP segments in one GSO send; Linux
	// accepts 64 since 4.18 (UDP_MAX_SEGMENTS), more on newer kernels.
	maxGSOSegments = 64
	// maxGSOBytes bounds the UDP payload of one GSO send (a datagram
	// holds at most 65507 bytes over IPv4).
	maxGSOBytes = 65000
	// gsoCmsgSpace is the control buffer for one UDP_SEGMENT message.
	gsoCmsgSpace = unix.SizeofCmsghdr + 8
	// v4HeaderScratch receives the IPv4 header of a raw IPv4 socket in a
	// separate iovec, so the SCTP packet lands at the start of the
	// caller's buffer without a copy.
	v4HeaderScratch = IPv4HeaderLen
)

// mmsghdr is struct mmsghdr: Go pads it like C does.
type mmsghdr struct {
	hdr unix.Msghdr
	n   uint32
}

// batchIO moves packets with recvmmsg and sendmmsg on one socket, with
// no allocation per call once its arrays are sized. It serves UDP
// encapsulation and raw IP.
type batchIO struct {
	rc          syscall.RawConn
	v6          bool   // the socket is AF_INET6 (maybe dual-stack)
	raw4        bool   // raw IPv4: received data starts with the IPv4 header
	udp         bool   // UDP encapsulation: drop source port 0, default port
	defaultPort uint16 // peer UDP port for a Packet.Addr with port 0
	df          bool   // sends with DF (setDontFragment)

	gso          atomic.Bool // UDP_SEGMENT works; cleared on EIO
	g            *groState   // non-nil when UDP_GRO is on
	dropped      atomic.Uint64
	gsoSends     atomic.Uint64
	gsoFailure   atomic.Uint64
	groCoalesced atomic.Uint64
	recvCalls    atomic.Uint64
	recvMsgs     atomic.Uint64
	sendCalls    atomic.Uint64
	sendMsgs     atomic.Uint64
	sendPkts     atomic.Uint64
	busyPolls    atomic.Uint64
	busyPollHits atomic.Uint64
	notices      atomic.Uint64

	ns *noticeState // non-nil when notices are on (enableNotices)
	pi bool         // learn each packet's local address (enablePktinfo)

	ecn bool // learn each packet's ECN field from a control message (enableRecvECN)

	r struct {
		sync.Mutex
		hs    []mmsghdr
		iov   []unix.Iovec // 2 per message for raw4 (header, payload), else 1
		sa    []unix.RawSockaddrInet6
		hdr   []byte // raw4 header scratch, v4HeaderScratch per message
		oob   []byte // space per message when pi or ecn (not raw4)
		space int    // control buffer per message
		count int
		n     int
		err   error
		poll  busyPoll
		fn    func(fd uintptr) bool
	}
	w struct {
		sync.Mutex
		hs    []mmsghdr
		iov   []unix.Iovec
		sa    []unix.RawSockaddrInet6
		oob   []byte // sendCmsgSpace per message: UDP_SEGMENT, then the source (pktinfo_send_linux.go)
		runs  []int  // packets per message
		raw   bool   // small: sendmmsg by RawSyscall6
		count int
		sent  int
		err   error
		fn    func(fd uintptr) bool
	}
}

func newBatchIO(rc syscall.RawConn, v6, raw4, udp bool, defaultPort uint16, busyPoll time.Duration) *batchIO {
	b := &batchIO{rc: rc, v6: v6, raw4: raw4, udp: udp, defaultPort: defaultPort}
	b.r.poll.budget = busyPoll
	b.r.hs = make([]mmsghdr, maxBatch)
	iovPer := 1
	if raw4 {
		iovPer = 2
		b.r.hdr = make([]byte, maxBatch*v4HeaderScratch)
	}
	b.r.iov = make([]unix.Iovec, maxBatch*iovPer)
	b.r.sa = make([]unix.RawSockaddrInet6, maxBatch)
	b.r.fn = b.recvF
	b.w.hs = make([]mmsghdr, maxBatch)
	b.w.iov = make([]unix.Iovec, maxBatch*maxGSOSegments)
	b.w.sa = make([]unix.RawSockaddrInet6, maxBatch)
	b.w.oob = make([]byte, maxBatch*sendCmsgSpace)
	b.w.runs = make([]int, maxBatch)
	b.w.fn = b.sendF
	return b
}

// recvF reads what the socket holds without blocking; on an empty
// socket it busy-polls when b.r.poll says so (the caller holds b.r, so
// the poll is one reader's), then returns false to sleep in the
// netpoller. SetReadDeadline and Close end a poll (interruptPoll), so
// that they take effect at once as on a sleeping read.
func (b *batchIO) recvF(fd uintptr) bool {
	var until time.Time // polling until then, when not zero
	for {
		n, _, errno := unix.RawSyscall6(unix.SYS_RECVMMSG, fd,
			uintptr(unsafe.Pointer(&b.r.hs[0])), uintptr(b.r.count), unix.MSG_DONTWAIT, 0, 0)
		switch errno {
		case 0:
			b.r.n = int(n)
			b.recvCalls.Add(1)
			b.recvMsgs.Add(uint64(n))
			if !until.IsZero() {
				b.busyPollHits.Add(1)
			}
			if b.r.poll.budget > 0 {
				b.r.poll.arrived(b.readBytes())
			}
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if b.g != nil && len(b.g.bufs) > groBuffers {
				b.shrinkGRO() // caught up: the wait takes the usual buffers
			}
			if b.ns != nil && b.ns.pending {
				b.r.err = errno // drained: the notices now (noticeErr)
				return true
			}
			if until.IsZero() {
				if until = b.r.poll.empty(); until.IsZero() {
					return false
				}
				b.busyPolls.Add(1)
				continue
			}
			if time.Now().Before(until) {
				// Let this process's other goroutines run on
				// this P meanwhile: a poll only uses idle time.
				runtime.Gosched()
				if b.r.poll.kicked() {
					return false
				}
				continue
			}
			return false
		default:
			b.r.err = errno
			return true
		}
	}
}

// readBytes returns the bytes the last recvmmsg brought.
func (b *batchIO) readBytes() int {
	n := 0
	for i := range b.r.n {
		n += int(b.r.hs[i].n)
	}
	return n
}

func (b *batchIO) sendF(fd uintptr) bool {
	sys := unix.Syscall6
	if b.w.raw {
		sys = unix.RawSyscall6
	}
	for b.w.sent < b.w.count {
		n, _, errno := sys(unix.SYS_SENDMMSG, fd,
			uintptr(unsafe.Pointer(&b.w.hs[b.w.sent])), uintptr(b.w.count-b.w.sent), 0, 0, 0)
		switch errno {
		case 0:
			b.sendCalls.Add(1)
			b.sendMsgs.Add(uint64(n))
			pk := 0
			for _, r := range b.w.runs[b.w.sent : b.w.sent+int(n)] {
				pk += r
			}
			b.sendPkts.Add(uint64(pk))
			b.w.sent += int(n)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			b.w.err = errno
			return true
		}
	}
	return true
}

func (b *batchIO) readBatch(pkts []Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, errEmptyBatch
	}
	b.r.Lock()
	defer b.r.Unlock()
	if b.g != nil {
		return b.readGRO(pkts, false)
	}
	count := min(len(pkts), maxBatch)
	if k := b.takeNotices(pkts[:count], false); k > 0 {
		return k, nil
	}
	for {
		for i := range count {
			if len(pkts[i].Buf) == 0 {
				return 0, errors.New("netio: ReadBatch with an empty Buf")
			}
			h := &b.r.hs[i]
			h.n = 0
			h.hdr = unix.Msghdr{}
			h.hdr.Name = (*byte)(unsafe.Pointer(&b.r.sa[i]))
			h.hdr.Namelen = unix.SizeofSockaddrInet6
			if b.raw4 {
				iov := b.r.iov[2*i : 2*i+2]
				iov[0].Base = &b.r.hdr[i*v4HeaderScratch]
				iov[0].SetLen(v4HeaderScratch)
				iov[1].Base = &pkts[i].Buf[0]
				iov[1].SetLen(len(pkts[i].Buf))
				h.hdr.Iov = &iov[0]
				h.hdr.SetIovlen(2)
			} else {
				iov := &b.r.iov[i]
				iov.Base = &pkts[i].Buf[0]
				iov.SetLen(len(pkts[i].Buf))
				h.hdr.Iov = iov
				h.hdr.SetIovlen(1)
			}
			if b.r.oob != nil {
				h.hdr.Control = &b.r.oob[i*b.r.space]
				h.hdr.SetControllen(b.r.space)
			}
		}
		b.r.count, b.r.n, b.r.err = count, 0, nil
		b.r.poll.reset()
		if err := b.rc.Read(b.r.fn); err != nil {
			return 0, err
		}
		if b.r.err != nil {
			if k, again := b.noticeErr(pkts[:count], false); k > 0 {
				return k, nil
			} else if again {
				continue
			}
			return 0, os.NewSyscallError("recvmmsg", b.r.err)
		}
		k := 0
		for i := range b.r.n {
			if !b.unpack(i, &pkts[i]) {
				b.dropped.Add(1)
				continue
			}
			if k != i {
				pkts[k], pkts[i] = pkts[i], pkts[k]
			}
			k++
		}
		if k > 0 {
			return k, nil
		}
	}
}

// unpack fills p from received message i and reports whether to keep it.
func (b *batchIO) unpack(i int, p *Packet) bool {
	h := &b.r.hs[i]
	if h.hdr.Flags&unix.MSG_TRUNC != 0 {
		return false // larger than the caller's buffer: never deliver a prefix
	}
	n := int(h.n)
	if b.raw4 {
		hdr := b.r.hdr[i*v4HeaderScratch : (i+1)*v4HeaderScratch]
		if n < IPv4HeaderLen || hdr[0]>>4 != 4 {
			return false
		}
		ihl := int(hdr[0]&0x0f) * 4
		if ihl < IPv4HeaderLen || n < ihl {
			return false
		}
		n -= IPv4HeaderLen
		if extra := ihl - IPv4HeaderLen; extra > 0 { // IP options: rare
			copy(p.Buf, p.Buf[extra:n])
			n -= extra
		}
	}
	p.N, p.Notice, p.MTU, p.Local, p.ECN = n, NoticeNone, 0, netip.Addr{}, 0
	if b.raw4 {
		p.ECN = b.r.hdr[i*v4HeaderScratch+1] & 3 // the IPv4 header's ECN field
	}
	if b.pi {
		if b.raw4 {
			hdr := b.r.hdr[i*v4HeaderScratch:]
			p.Local = netip.AddrFrom4([4]byte(hdr[16:20])) // the IPv4 header's destination
		} else {
			p.Local = pktinfoAddr(b.r.oob[i*b.r.space : i*b.r.space+int(h.hdr.Controllen)])
		}
	}
	if b.ecn {
		p.ECN = cmsgECN(b.r.oob[i*b.r.space : i*b.r.space+int(h.hdr.Controllen)])
	}
	p.Addr = sockaddrToAddrPort(&b.r.sa[i])
	if !p.Addr.IsValid() {
		return false
	}
	// A UDP datagram from source port 0 cannot be answered: RFC 6951
	// section 5.4 stores the UDP source port as the peer's encapsulation
	// port for replies, and port 0 is not a port one can send to.
	if b.udp && p.Addr.Port() == 0 {
		return false
	}
	return true
}

func sockaddrToAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	port := (*[2]byte)(unsafe.Pointer(&sa.Port))
	p := binary.BigEndian.Uint16(port[:])
	switch sa.Family {
	case unix.AF_INET:
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), p)
	case unix.AF_INET6:
		a := netip.AddrFrom16(sa.Addr).Unmap()
		if sa.Scope_id != 0 && a.Is6() {
			a = a.WithZone(zoneName(sa.Scope_id))
		}
		return netip.AddrPortFrom(a, p)
	}
	return netip.AddrPort{}
}

// zones caches interface indexes as zone strings, so that packets from
// link-local peers do not allocate one each.
var zones sync.Map // uint32 -> string

// zoneName returns the zone of an IPv6 scope id: the index in decimal,
// which net and netip accept wherever they take a zone.
func zoneName(scope uint32) string {
	if z, ok := zones.Load(scope); ok {
		return z.(string)
	}
	z := strconv.FormatUint(uint64(scope), 10)
	zones.Store(scope, z)
	return z
}

// zoneIndex returns the scope id of a zone: a decimal index or an
// interface name.
func zoneIndex(zone string) uint32 {
	if zone == "" {
		return 0
	}
	if n, err := strconv.ParseUint(zone, 10, 32); err == nil {
		return uint32(n)
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return uint32(ifi.Index)
	}
	return 0
}

// putSockaddr writes the destination of p into sa and returns its length.
func (b *batchIO) putSockaddr(sa *unix.RawSockaddrInet6, ap netip.AddrPort) (uint32, error) {
	a := ap.Addr().Unmap()
	if !a.IsValid() {
		return 0, errors.New("netio: packet without a destination address")
	}
	port := ap.Port()
	if !b.udp {
		port = 0 // raw sockets: the protocol comes from the socket
	} else if port == 0 {
		port = b.defaultPort
	}
	var pb [2]byte
	binary.BigEndian.PutUint16(pb[:], port)
	if b.v6 {
		*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: a.As16(), Scope_id: zoneIndex(a.Zone())}
		*(*[2]byte)(unsafe.Pointer(&sa.Port)) = pb
		return unix.SizeofSockaddrInet6, nil
	}
	if !a.Is4() {
		return 0, errors.New("netio: IPv6 destination " + a.String() + " on an IPv4 socket")
	}
	sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
	*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.As4()}
	*(*[2]byte)(unsafe.Pointer(&sa4.Port)) = pb
	return unix.SizeofSockaddrInet4, nil
}

func (b *batchIO) writeBatch(pkts []Packet) (int, error) {
	b.w.Lock()
	defer b.w.Unlock()
	return b.writeLocked(pkts)
}

// writeFragmentable is writeBatch for packets the IP layer may fragment:
// a socket that sends with DF (setDontFragment) lets the kernel fragment
// them for the duration of the call (IP_PMTUDISC_DONT: IPv4 routers may
// fragment further; IPV6_PMTUDISC_DONT with IPV6_MTU 1280: IPv6 routers
// never fragment, so the fragments are cut for the IPv6 minimum MTU,
// which every path carries, also when no Packet Too Big told the kernel
// the path's) and then goes back to IP_PMTUDISC_PROBE. The write lock
// makes the switch invisible to other writes.
func (b *batchIO) writeFragmentable(pkts []Packet) (int, error) {
	b.w.Lock()
	defer b.w.Unlock()
	if !b.df {
		return b.writeLocked(pkts)
	}
	b.setPMTUDisc(unix.IP_PMTUDISC_DONT, unix.IPV6_PMTUDISC_DONT, ipv6MinMTU)
	defer b.setPMTUDisc(unix.IP_PMTUDISC_PROBE, unix.IPV6_PMTUDISC_PROBE, 0)
	return b.writeLocked(pkts)
}

// ipv6MinMTU is the IPv6 minimum link MTU (RFC 8200 section 5).
const ipv6MinMTU = 1280

// setPMTUDisc sets IP_MTU_DISCOVER to v4 and, on an IPv6 socket,
// IPV6_MTU_DISCOVER to v6 and IPV6_MTU to mtu (0: the route's).
func (b *batchIO) setPMTUDisc(v4, v6, mtu int) {
	b.rc.Control(func(fd uintptr) {
		if b.v6 {
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, v6)
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_MTU, mtu)
		}
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, v4)
	})
}

// writeLocked is writeBatch with b.w held.
func (b *batchIO) writeLocked(pkts []Packet) (int, error) {
	done := 0
	gsoOK := b.gso.Load()
	for done < len(pkts) {
		count, err := b.pack(pkts[done:], gsoOK)
		if count == 0 {
			return done, err
		}
		b.w.count, b.w.sent, b.w.err = count, 0, nil
		b.w.raw = smallSend(pkts[done:], count, b.w.runs)
		if rerr := b.rc.Write(b.w.fn); rerr != nil {
			return done + b.sentPackets(), rerr
		}
		done += b.sentPackets()
		if werr := b.w.err; werr != nil {
			failed := b.w.runs[b.w.sent] > 1
			if failed && (werr == unix.EIO || werr == unix.EINVAL || werr == unix.EMSGSIZE) {
				// EIO: the device cannot checksum segments; EMSGSIZE
				// or EINVAL, by kernel version): a segment does not fit the
				// route's MTU. Resend the rest one datagram per
				// message; EIO disables GSO for good.
				b.gsoFailure.Add(1)
				if werr == unix.EIO {
					b.gso.Store(false)
				}
				gsoOK = false
				continue
			}
			if werr == unix.EMSGSIZE {
				return done, &TooBigError{Size: pkts[done].N, MTU: b.localMTU(), Err: os.NewSyscallError("sendmmsg", werr)}
			}
			return done, os.NewSyscallError("sendmmsg", werr)
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// smallSend reports whether the first count messages of a packed batch
// (runs[i] packets each, from pkts) carry at most RawSendBytes.
func smallSend(pkts []Packet, count int, runs []int) bool {
	n, size := 0, 0
	for _, r := range runs[:count] {
		n += r
	}
	if n > len(pkts) {
		return false
	}
	for i := range pkts[:n] {
		if size += pkts[i].N; size > RawSendBytes {
			return false
		}
	}
	return true
}

// sentPackets counts the packets in the messages sent so far.
func (b *batchIO) sentPackets() int {
	n := 0
	for _, r := range b.w.runs[:b.w.sent] {
		n += r
	}
	return n
}

// pack builds up to maxBatch messages from pkts, coalescing runs of
// equal-size packets to one destination into one GSO message when gso is
// set, and returns the message count. An error is for the packet after
// the packed ones.
func (b *batchIO) pack(pkts []Packet, gso bool) (int, error) {
	msgs, iovs, i := 0, 0, 0
	for i < len(pkts) && msgs < maxBatch {
		p := &pkts[i]
		if !validLength(p) {
			return msgs, errBadLength
		}
		salen, err := b.putSockaddr(&b.w.sa[msgs], p.Addr)
		if err != nil {
			return msgs, err
		}
		// The I/O vectors this message may take: the iov array's room left,
		// at most maxMsgIovs.
		iovRoom := min(len(b.w.iov)-iovs, maxMsgIovs)
		need := iovsOf(p)
		if need > iovRoom {
			if msgs == 0 {
				return 0, errTooManyHoles
			}
			break // the next call packs it
		}
		run := 1
		if gso && p.N > 0 {
			size := p.N
			for i+run < len(pkts) && run < maxGSOSegments && (run+1)*size <= maxGSOBytes {
				q := &pkts[i+run]
				if q.Addr != p.Addr || q.N > size || q.N <= 0 || !validLength(q) || b.pi && q.Local != p.Local ||
					!sameAssociation(p, q) || need+iovsOf(q) > iovRoom {
					break
				}
				run++
				need += iovsOf(q)
				if q.N < size {
					break // only the last segment may be shorter
				}
			}
		}
		h := &b.w.hs[msgs]
		h.n = 0
		h.hdr = unix.Msghdr{}
		h.hdr.Name = (*byte)(unsafe.Pointer(&b.w.sa[msgs]))
		h.hdr.Namelen = salen
		iov := b.w.iov[iovs:iovs]
		for j := range run {
			iov = appendIovs(iov, &pkts[i+j])
		}
		if len(iov) == 0 {
			iov = append(iov, unix.Iovec{}) // an empty datagram
		}
		h.hdr.Iov = &iov[0]
		h.hdr.SetIovlen(len(iov))
		oob, no := b.w.oob[msgs*sendCmsgSpace:(msgs+1)*sendCmsgSpace], 0
		if run > 1 {
			putSegmentCmsg(oob[:gsoCmsgSpace], uint16(p.N))
			no = gsoCmsgSpace
			b.gsoSends.Add(1)
		}
		if b.pi && p.Local.IsValid() {
			no += putSourceCmsg(oob[no:], p.Local, p.Addr.Addr())
		}
		if no > 0 {
			h.hdr.Control = &oob[0]
			h.hdr.SetControllen(no)
		}
		b.w.runs[msgs] = run
		iovs += len(iov)
		i += run
		msgs++
	}
	return msgs, nil
}

// maxMsgIovs bounds the I/O vectors of one message (the kernel's
// UIO_MAXIOV).
const maxMsgIovs = 1024

// errTooManyHoles is returned by WriteBatch for a packet with more holes
// than one message's I/O vectors hold.
var errTooManyHoles = errors.New("netio: packet with too many holes")

// iovsOf returns the I/O vectors packet p takes at most: its buffer's
// pieces and its holes.
func iovsOf(p *Packet) int { return 1 + 2*len(p.Holes) }

// appendIovs appends the I/O vectors of packet p to iov: the pieces of
// Buf[:N] between its holes and the holes' Data, in order, leaving out
// empty ones.
func appendIovs(iov []unix.Iovec, p *Packet) []unix.Iovec {
	at := 0
	for _, h := range p.Holes {
		iov = appendIov(iov, p.Buf[at:h.At])
		iov = appendIov(iov, h.Data)
		at = h.At + len(h.Data)
	}
	return appendIov(iov, p.Buf[at:p.N])
}

// appendIov appends an I/O vector for b unless it is empty.
func appendIov(iov []unix.Iovec, b []byte) []unix.Iovec {
	if len(b) == 0 {
		return iov
	}
	v := unix.Iovec{Base: &b[0]}
	v.SetLen(len(b))
	return append(iov, v)
}

// putSegmentCmsg writes a UDP_SEGMENT control message carrying size.
func putSegmentCmsg(oob []byte, size uint16) {
	clear(oob)
	c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	c.Level = unix.SOL_UDP
	c.Type = unix.UDP_SEGMENT
	c.SetLen(unix.CmsgLen(2))
	binary.NativeEndian.PutUint16(oob[unix.CmsgLen(0):], size)
}

// sameAssociation reports whether SCTP packets p and q carry the same
// source and destination ports, the first four bytes of the common
// header. A GSO send holds one association's packets: on loopback and
// virtual links it reaches the receiving host whole, and the socket
// found for its first packet gets them all, while a host group
// (portgroup.go) may serve the two associations in different processes.
func sameAssociation(p, q *Packet) bool {
	return p.N >= 4 && q.N >= 4 && [4]byte(p.Buf[:4]) == [4]byte(q.Buf[:4])
}

// probeGSO reports whether the socket accepts UDP_SEGMENT (Linux 4.18+).
func probeGSO(rc syscall.RawConn) bool {
	ok := false
	rc.Control(func(fd uintptr) {
		_, err := unix.GetsockoptInt(int(fd), unix.SOL_UDP, unix.UDP_SEGMENT)
		ok = err == nil
	})
	return ok
}

// socketIsV6 reports whether the socket's family is AF_INET6.
func socketIsV6(rc syscall.RawConn) (bool, error) {
	var dom int
	var serr error
	err := rc.Control(func(fd uintptr) {
		dom, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
	})
	if err == nil {
		err = serr
	}
	return dom == unix.AF_INET6, err
}

// forceBuffers sets SO_RCVBUFFORCE and SO_SNDBUFFORCE, which exceed
// net.core.rmem_max/wmem_max when the process has CAP_NET_ADMIN, and
// reports whether both worked.
func forceBuffers(rc syscall.RawConn, size int) bool {
	ok := false
	rc.Control(func(fd uintptr) {
		ok = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, size) == nil &&
			unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, size) == nil
	})
	return ok
}

// ignoreRouteMTU makes a socket that sends without path MTU discovery
// (DontFragment off) ignore the route's cached path MTU for IPv4
// (IP_PMTUDISC_OMIT): its packets go without DF, are fragmented by the
// host only over the interface MTU (by routers beyond), and an ICMP
// "fragmentation needed" quoting it changes nothing. Otherwise a forged
// one (no tag needed) would have the host fragment every packet down to
// 552 bytes. IPv6 keeps the kernel's default, which never takes a path
// MTU under 1280 bytes and needs the Packet Too Big reports: IPv6 routers
// do not fragment. Best effort: a kernel without the option keeps its
// default.
func ignoreRouteMTU(rc syscall.RawConn) {
	rc.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_OMIT)
	})
}

// setDontFragment makes the socket send with DF set and never fragment
// locally (IP_PMTUDISC_PROBE): datagrams over the interface MTU fail
// with EMSGSIZE, and the route's cached path MTU is ignored, as
// packetization-layer PMTU discovery (RFC 8899) wants. A dual-stack
// socket gets both the IPv4 and the IPv6 option.
func setDontFragment(rc syscall.RawConn, v6 bool) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		if v6 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_PROBE)
			// IPv4-mapped traffic on a dual-stack socket; an IPv6-only
			// socket may refuse it, which is harmless.
			_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_PROBE)
		} else {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_PROBE)
		}
	})
	if err == nil {
		err = serr
	}
	return err
}
