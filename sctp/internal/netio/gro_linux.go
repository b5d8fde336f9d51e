//go:build linux

package netio

import (
	"encoding/binary"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/interleave"
)

// GRO receive: with UDP_GRO set, the kernel hands the socket runs of
// datagrams from one sender as one buffer plus a control message with
// the segment size (the datagrams of a GSO send on loopback are never
// split at all). Those buffers can be 64 KiB, larger than the caller's
// packet buffers, so a GRO socket reads into its own buffers and copies
// each segment into the caller's Packets, keeping what does not fit for
// the next ReadBatch.
//
// Read as views (ReadBatchView), the packets name the buffer they lie in
// (Packet.Lend), a reference-counted interleave.RecvBuf: the core's
// fragments may keep referencing it after the batch, and a buffer they
// still hold is replaced by a fresh one for the next read.
//
// A buffer is named only when the datagram read into it fills at least
// lendMinRead bytes of it. A fragment pins its whole buffer, and the
// receiver charges it so (interleave.RecvBufCost): lent from a buffer
// holding one 1,200-byte datagram, as a peer that sends without GSO (pion,
// a browser) fills each, a fragment would cost sixty times its bytes, and
// fragments held for a hole would close the receive window by memory with
// a few dozen kilobytes held. The hole's retransmission then gets in only
// by dropping gap-acknowledged fragments (RFC 9260 section 6.2), which a
// peer that does not handle reneging never sends again. Those packets are
// copied instead; a lent buffer costs at most 4.5 times the bytes read into
// it.
//
// A read takes up to groBuffers datagrams, and up to groMaxBuffers once a
// read has filled its buffers: the socket then held more than one read
// takes, a reader behind its peer. That is most often a bulk sender's
// socket full of SACKs, read only between its sends. Read in larger
// reads, they reach the sender sooner, so less data counts in flight and
// its window does not grow past what the path needs, and both ends touch
// the data in flight while it is still in the CPU caches
// (docs/PERFORMANCE.md, "SACK reads that catch up"). A read that finds
// the socket empty lets the buffers past groBuffers go back to the pool
// before it waits and takes them again when it wakes, so an idle socket
// holds groBuffers.
const (
	groBuffers    = 8
	groMaxBuffers = 16
	groBufSize    = interleave.RecvBufSize
	lendMinRead   = groBufSize / 4
	groCmsgSpace  = unix.SizeofCmsghdr + 8 // CmsgSpace(4) on 64-bit, more than enough on 32
)

// groState is the GRO side of batchIO, guarded by batchIO.r.
type groState struct {
	bufs   []*interleave.RecvBuf // one per datagram a read takes, each holding the socket's reference
	behind bool                  // a read filled its buffers: reads take groMaxBuffers
	oob    []byte                // len(bufs) * space
	space  int                   // control buffer per message: groCmsgSpace, and pktinfoSpace with pktinfo
	count  int                   // messages in the current batch
	next   int                   // message being split
	off    int                   // offset of its next segment
}

// enableGRO sets UDP_GRO on the socket and reports whether it worked
// (Linux 5.0+).
func enableGRO(rc syscall.RawConn) bool {
	ok := false
	rc.Control(func(fd uintptr) {
		ok = unix.SetsockoptInt(int(fd), unix.SOL_UDP, unix.UDP_GRO, 1) == nil
	})
	return ok
}

func (b *batchIO) initGRO() {
	space := groCmsgSpace
	if b.pi {
		space += pktinfoSpace
	}
	if b.ecn {
		space += ecnSpace
	}
	b.g = &groState{
		bufs:  make([]*interleave.RecvBuf, groBuffers),
		oob:   make([]byte, groBuffers*space),
		space: space,
	}
	for i := range b.g.bufs {
		b.g.bufs[i] = interleave.NewRecvBuf()
	}
}

// readGRO is readBatch for a socket with UDP_GRO set; with view, the
// packets it returns are views of its buffers (readBatchView).
func (b *batchIO) readGRO(pkts []Packet, view bool) (int, error) {
	g := b.g
	if g.next >= g.count {
		if k := b.takeNotices(pkts, view); k > 0 {
			return k, nil
		}
	}
	for {
		if g.next < g.count {
			if k := b.splitGRO(pkts, view); k > 0 {
				return k, nil
			}
			continue
		}
		if g.behind {
			g.grow() // the buffers past groBuffers, new or given back while the read waited
		}
		for i := range g.bufs {
			h := &b.r.hs[i]
			h.n = 0
			h.hdr = unix.Msghdr{}
			h.hdr.Name = (*byte)(unsafe.Pointer(&b.r.sa[i]))
			h.hdr.Namelen = unix.SizeofSockaddrInet6
			if g.bufs[i].Lent() {
				// Fragments still reference it: they recycle it.
				g.bufs[i].Release()
				g.bufs[i] = interleave.NewRecvBuf()
			}
			iov := &b.r.iov[i]
			iov.Base = &g.bufs[i].Bytes()[0]
			iov.SetLen(groBufSize)
			h.hdr.Iov = iov
			h.hdr.SetIovlen(1)
			h.hdr.Control = &g.oob[i*g.space]
			h.hdr.SetControllen(g.space)
		}
		b.r.count, b.r.n, b.r.err = len(g.bufs), 0, nil
		b.r.poll.reset()
		if err := b.rc.Read(b.r.fn); err != nil {
			return 0, err
		}
		if b.r.err != nil {
			if k, again := b.noticeErr(pkts, view); k > 0 {
				return k, nil
			} else if again {
				continue
			}
			return 0, os.NewSyscallError("recvmmsg", b.r.err)
		}
		g.count, g.next, g.off = b.r.n, 0, 0
		if g.count == len(g.bufs) {
			g.behind = true // the socket held more: the next reads take more
		}
	}
}

// grow gives a read about to be set up groMaxBuffers buffers, and their
// control buffers; the last batch is consumed.
func (g *groState) grow() {
	for len(g.bufs) < groMaxBuffers {
		g.bufs = append(g.bufs, interleave.NewRecvBuf())
	}
	if len(g.oob) < groMaxBuffers*g.space {
		g.oob = make([]byte, groMaxBuffers*g.space)
	}
}

// shrinkGRO makes the read about to wait take groBuffers datagrams and
// lets the other buffers go (to the pool, once no fragment references
// them), the read's I/O vectors included: the read found the socket empty
// (recvF), so they hold nothing. The next read takes them again.
func (b *batchIO) shrinkGRO() {
	g := b.g
	for i := groBuffers; i < len(g.bufs); i++ {
		g.bufs[i].Release()
		g.bufs[i] = nil
		b.r.iov[i] = unix.Iovec{}
	}
	g.bufs = g.bufs[:groBuffers]
	b.r.count = groBuffers
}

// splitGRO copies segments of the current batch into pkts, or with view
// points their Buf at them, and returns how many it filled.
func (b *batchIO) splitGRO(pkts []Packet, view bool) int {
	g := b.g
	k := 0
	for k < len(pkts) && g.next < g.count {
		i := g.next
		h := &b.r.hs[i]
		data := g.bufs[i].Bytes()[:h.n]
		addr := sockaddrToAddrPort(&b.r.sa[i])
		if h.hdr.Flags&unix.MSG_TRUNC != 0 || !addr.IsValid() || addr.Port() == 0 {
			b.dropped.Add(1) // port 0: see unpack
			g.next, g.off = g.next+1, 0
			continue
		}
		oob := g.oob[i*g.space : i*g.space+int(h.hdr.Controllen)]
		seg := groSegment(oob, len(data))
		var local netip.Addr
		if b.pi {
			local = pktinfoAddr(oob)
		}
		var ecn uint8
		if b.ecn {
			ecn = cmsgECN(oob) // GRO merges only datagrams of one TOS
		}
		if g.off == 0 && seg < len(data) {
			b.groCoalesced.Add(1)
		}
		var lend *interleave.RecvBuf
		if len(data) >= lendMinRead {
			lend = g.bufs[i]
		}
		for g.off < len(data) && k < len(pkts) {
			end := min(g.off+seg, len(data))
			p := &pkts[k]
			if view {
				p.Buf, p.N, p.Addr, p.Notice, p.MTU, p.Local, p.ECN = data[g.off:end:end], end-g.off, addr, NoticeNone, 0, local, ecn
				p.Lend = lend
				k++
			} else if n := copy(p.Buf, data[g.off:end]); n == end-g.off {
				p.N, p.Addr, p.Notice, p.MTU, p.Local, p.ECN, p.Lend = n, addr, NoticeNone, 0, local, ecn, nil
				k++
			} else {
				b.dropped.Add(1)
			}
			g.off = end
		}
		if g.off >= len(data) {
			g.next, g.off = g.next+1, 0
		}
	}
	return k
}

// groSegment returns the segment size from a UDP_GRO control message, or
// n (one datagram) without one.
func groSegment(oob []byte, n int) int {
	for len(oob) >= unix.SizeofCmsghdr {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(c.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			break
		}
		if c.Level == unix.SOL_UDP && c.Type == unix.UDP_GRO && l >= unix.CmsgLen(4) {
			if s := int(binary.NativeEndian.Uint32(oob[unix.CmsgLen(0):])); s > 0 {
				return s
			}
		}
		sp := unix.CmsgSpace(l - unix.CmsgLen(0))
		if sp > len(oob) {
			break
		}
		oob = oob[sp:]
	}
	return max(n, 1)
}

// readBatchView is readBatch, except that on a GRO socket the packets
// point into the socket's receive buffers instead of being copied into
// the caller's (UDPConn.ReadBatchView).
func (b *batchIO) readBatchView(pkts []Packet) (int, error) {
	if b.g == nil {
		return b.readBatch(pkts)
	}
	if len(pkts) == 0 {
		return 0, errEmptyBatch
	}
	b.r.Lock()
	defer b.r.Unlock()
	return b.readGRO(pkts, true)
}
