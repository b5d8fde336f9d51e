package netio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// pcapSnapLen is the largest packet a capture records whole; longer
// ones are recorded cut to it.
const pcapSnapLen = 65535

// PcapOptions configures a PcapWriter.
type PcapOptions struct {
	// PlainSCTP records UDP-encapsulated packets as plain SCTP over IP,
	// for tools that do not decode SCTP inside UDP port 9899.
	PlainSCTP bool
	// Now returns packet timestamps; nil means time.Now.
	Now func() time.Time
}

// PcapWriter records SCTP packets to a pcap file (link type RAW: each
// record starts with an IPv4 or IPv6 header). The SCTP packet is
// recorded byte for byte; the IP header, and the UDP header for
// encapsulated packets, are synthesized from the addresses with valid
// checksums. Wireshark decodes SCTP inside UDP port 9899 by default.
//
// A PcapWriter is safe for concurrent use and allocates nothing per
// packet.
type PcapWriter struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	closer io.Closer
	opt    PcapOptions
	buf    []byte   // IP + UDP headers + packet
	rec    [16]byte // record header
	ipID   uint16
	err    error // first write error; later writes are skipped
}

// NewPcapWriter writes a pcap file header to w and returns a writer for
// the packets. Close flushes it (and closes w if it is an io.Closer).
func NewPcapWriter(w io.Writer, opt PcapOptions) (*PcapWriter, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(pcapFileHeader(pcapSnapLen)); err != nil {
		return nil, err
	}
	p := &PcapWriter{bw: bw, opt: opt, buf: make([]byte, IPv6HeaderLen+UDPHeaderLen+pcapSnapLen)}
	p.closer, _ = w.(io.Closer)
	return p, nil
}

// CreatePcap creates (or truncates) the file at path and returns a
// PcapWriter for it.
func CreatePcap(path string, opt PcapOptions) (*PcapWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewPcapWriter(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// WritePacket records one SCTP packet from src to dst. With both ports
// nonzero it is recorded inside UDP (RFC 6951 encapsulation) unless
// PlainSCTP is set; otherwise directly over IP with protocol 132. The
// family follows dst; an unspecified or invalid src address is recorded
// as the unspecified address of that family.
func (w *PcapWriter) WritePacket(src, dst netip.AddrPort, sctp []byte) error {
	return w.WritePacketECN(src, dst, sctp, NotECT)
}

// WritePacketECN is WritePacket for a packet whose IP header carried ecn
// in its ECN field (the low two bits of the IPv4 TOS or IPv6 Traffic
// Class).
func (w *PcapWriter) WritePacketECN(src, dst netip.AddrPort, sctp []byte, ecn uint8) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if len(sctp) > pcapSnapLen {
		return errors.New("sctp: pcap: packet too large to capture")
	}
	udp := !w.opt.PlainSCTP && src.Port() != 0 && dst.Port() != 0
	da := dst.Addr().Unmap()
	sa := src.Addr().Unmap()
	v6 := da.Is6()
	if !da.IsValid() {
		v6 = sa.Is6()
	}
	if v6 {
		if !sa.Is6() {
			sa = netip.IPv6Unspecified()
		}
		if !da.Is6() {
			da = netip.IPv6Unspecified()
		}
	} else {
		if !sa.Is4() {
			sa = netip.IPv4Unspecified()
		}
		if !da.Is4() {
			da = netip.IPv4Unspecified()
		}
	}
	hl := IPv4HeaderLen
	if v6 {
		hl = IPv6HeaderLen
	}
	proto := byte(ProtocolSCTP)
	l4 := len(sctp)
	if udp {
		proto = 17
		l4 += UDPHeaderLen
	}
	if !v6 && hl+l4 > 0xffff {
		return errors.New("sctp: pcap: packet too large for IPv4 to capture")
	}
	b := w.buf[:hl+l4]
	copy(b[hl+l4-len(sctp):], sctp)
	if v6 {
		binary.BigEndian.PutUint32(b[0:], 6<<28|uint32(ecn&3)<<20)
		binary.BigEndian.PutUint16(b[4:], uint16(l4))
		b[6] = proto
		b[7] = 64 // hop limit
		s16, d16 := sa.As16(), da.As16()
		copy(b[8:24], s16[:])
		copy(b[24:40], d16[:])
	} else {
		w.ipID++
		b[0] = 0x45
		b[1] = ecn & 3
		binary.BigEndian.PutUint16(b[2:], uint16(hl+l4))
		binary.BigEndian.PutUint16(b[4:], w.ipID)
		binary.BigEndian.PutUint16(b[6:], 0x4000) // DF
		b[8] = 64                                 // TTL
		b[9] = proto
		b[10], b[11] = 0, 0
		s4, d4 := sa.As4(), da.As4()
		copy(b[12:16], s4[:])
		copy(b[16:20], d4[:])
		binary.BigEndian.PutUint16(b[10:], ^fold(sum16(b[:IPv4HeaderLen], 0)))
	}
	if udp {
		u := b[hl:]
		binary.BigEndian.PutUint16(u[0:], src.Port())
		binary.BigEndian.PutUint16(u[2:], dst.Port())
		binary.BigEndian.PutUint16(u[4:], uint16(l4))
		u[6], u[7] = 0, 0
		// Pseudo-header: addresses, protocol, UDP length.
		var acc uint32
		if v6 {
			acc = sum16(b[8:40], 0)
		} else {
			acc = sum16(b[12:20], 0)
		}
		acc += 17 + uint32(l4)
		c := ^fold(sum16(u, acc))
		if c == 0 {
			c = 0xffff // zero means "no checksum"
		}
		binary.BigEndian.PutUint16(u[6:], c)
	}
	// A packet longer than the snap length (an IPv6 one near 64 KiB) is
	// recorded cut, with its real length, as tcpdump records it.
	c := b[:min(len(b), pcapSnapLen)]
	w.err = writePcapRecord(w.bw, w.rec[:], w.opt.Now(), c, len(b))
	return w.err
}

// The pcap file format with nanosecond timestamps (the "pcap" format of
// draft-ietf-opsawg-pcap): a 24-byte file header, then a 16-byte record
// header before each packet, all in the writer's byte order, which the
// magic number tells readers.
const (
	pcapMagicNanos = 0xa1b23c4d
	pcapLinkRaw    = 101 // LINKTYPE_RAW: the record starts with an IPv4 or IPv6 header
)

// pcapFileHeader returns the file header for packets cut at snapLen.
func pcapFileHeader(snapLen int) []byte {
	h := make([]byte, 24)
	binary.LittleEndian.PutUint32(h[0:], pcapMagicNanos)
	binary.LittleEndian.PutUint16(h[4:], 2) // version 2.4
	binary.LittleEndian.PutUint16(h[6:], 4)
	// h[8:16]: time zone offset and timestamp accuracy, both 0.
	binary.LittleEndian.PutUint32(h[16:], uint32(snapLen))
	binary.LittleEndian.PutUint32(h[20:], pcapLinkRaw)
	return h
}

// writePcapRecord writes one record: its header (built in h, 16 bytes),
// stamped at, then data, the first bytes of a packet of length size.
func writePcapRecord(w *bufio.Writer, h []byte, at time.Time, data []byte, size int) error {
	ns := at.UnixNano()
	binary.LittleEndian.PutUint32(h[0:], uint32(ns/1e9))
	binary.LittleEndian.PutUint32(h[4:], uint32(ns%1e9))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[12:], uint32(size))
	if _, err := w.Write(h); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// sum16 adds b as big-endian 16-bit words to acc (RFC 1071), eight
// bytes at a time: a one's complement sum of 32-bit words folds to the
// same 16-bit sum.
func sum16(b []byte, acc uint32) uint32 {
	s := uint64(acc)
	for len(b) >= 8 {
		v := binary.BigEndian.Uint64(b)
		s += v>>32 + v&0xffffffff
		b = b[8:]
	}
	for len(b) >= 2 {
		s += uint64(b[0])<<8 | uint64(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	for s > 0xffffffff {
		s = s&0xffffffff + s>>32
	}
	return uint32(s)
}

// fold folds the carries of a one's complement sum into 16 bits.
func fold(acc uint32) uint16 {
	s := uint64(acc)
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// Flush writes buffered records to the underlying writer.
func (w *PcapWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// Close flushes the records and closes the underlying writer if it is an
// io.Closer. Later WritePacket calls fail.
func (w *PcapWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	if err == nil {
		err = w.bw.Flush()
	}
	w.err = errors.New("sctp: pcap: writer closed")
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Capture returns a Conn that records every packet c reads and writes to
// w; with a nil w it returns c itself, so a disabled capture costs
// nothing. Capture errors do not fail the I/O: the first one is kept and
// returned by w's Flush and Close.
func Capture(c Conn, w *PcapWriter) Conn {
	if w == nil {
		return c
	}
	return &captureConn{Conn: c, w: w, order: make(chan struct{}, 1)}
}

// captureConn records the packets of the Conn it wraps.
type captureConn struct {
	Conn
	w *PcapWriter

	// order is held (a one-slot semaphore) from a write until its packets
	// are recorded, and by a read while it records: a packet read is
	// recorded after the packets that were written before it arrived, so
	// that an answer never precedes its question in the capture.
	order chan struct{}

	// On a conn bound to the wildcard address, the local address each
	// peer's packets arrived on (Packet.Local), so that the packets sent
	// to it are recorded from that address, not 0.0.0.0 or ::.
	mu     sync.Mutex
	locals map[netip.Addr]netip.Addr // peer IP -> local IP, at most maxCaptureLocals
}

// maxCaptureLocals bounds captureConn.locals; peers beyond it are recorded
// with the conn's own address.
const maxCaptureLocals = 4096

func (c *captureConn) ReadBatch(pkts []Packet) (int, error) {
	n, err := c.Conn.ReadBatch(pkts)
	c.order <- struct{}{}
	defer func() { <-c.order }()
	local := c.Conn.LocalAddr()
	for i := range pkts[:n] {
		p := &pkts[i]
		if p.Notice != NoticeNone {
			continue // what the network said about a packet we sent
		}
		to := local
		if p.Local.IsValid() {
			to = netip.AddrPortFrom(p.Local, local.Port())
			c.learn(p.Addr.Addr(), p.Local)
		}
		c.w.WritePacketECN(p.Addr, to, p.Data(), p.ECN)
	}
	return n, err
}

// learn records that peer's packets arrive on local.
func (c *captureConn) learn(peer, local netip.Addr) {
	c.mu.Lock()
	if c.locals == nil {
		c.locals = make(map[netip.Addr]netip.Addr)
	}
	if old, ok := c.locals[peer]; ok && old != local || !ok && len(c.locals) < maxCaptureLocals {
		c.locals[peer] = local
	}
	c.mu.Unlock()
}

// source returns the address a packet to dst is recorded from when the
// packet names no source (Packet.Local, which record takes when set: a
// multi-homed endpoint sends every packet from one of its addresses):
// local, or on a wildcard-bound conn the address dst's packets arrived
// on, else the source the routes of the calling goroutine's network
// namespace choose (which may not be the conn's).
func (c *captureConn) source(local netip.AddrPort, dst netip.Addr) netip.AddrPort {
	if !local.Addr().IsUnspecified() {
		return local
	}
	c.mu.Lock()
	l, ok := c.locals[dst]
	c.mu.Unlock()
	if !ok {
		// Nothing came from dst yet (our INIT): the address the
		// kernel's route to dst picks, once per peer.
		if l = routeSource(dst); !l.IsValid() {
			return local
		}
		c.mu.Lock()
		if _, ok := c.locals[dst]; !ok && len(c.locals) < maxCaptureLocals {
			if c.locals == nil {
				c.locals = make(map[netip.Addr]netip.Addr)
			}
			c.locals[dst] = l
		}
		c.mu.Unlock()
	}
	return netip.AddrPortFrom(l, local.Port())
}

// routeSource returns the source address the kernel picks for packets to
// dst (a connected UDP socket's local address: no packet is sent), or the
// zero Addr.
func routeSource(dst netip.Addr) netip.Addr {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(dst, 9)))
	if err != nil {
		return netip.Addr{}
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
}

func (c *captureConn) WriteBatch(pkts []Packet) (int, error) {
	c.order <- struct{}{}
	defer func() { <-c.order }()
	n, err := c.Conn.WriteBatch(pkts)
	c.record(pkts[:n])
	return n, err
}

// WriteFragmentable is the wrapped conn's WriteFragmentable (WriteBatch
// when it has none), recorded as WriteBatch is.
func (c *captureConn) WriteFragmentable(pkts []Packet) (int, error) {
	c.order <- struct{}{}
	defer func() { <-c.order }()
	var n int
	var err error
	if f, ok := c.Conn.(FragmentWriter); ok {
		n, err = f.WriteFragmentable(pkts)
	} else {
		n, err = c.Conn.WriteBatch(pkts)
	}
	c.record(pkts[:n])
	return n, err
}

// record writes the sent packets to the capture.
func (c *captureConn) record(pkts []Packet) {
	local := c.Conn.LocalAddr()
	var port uint16
	if u, ok := c.Conn.(*UDPConn); ok {
		port = u.remotePort
	}
	for i := range pkts {
		p := &pkts[i]
		dst := p.Addr
		if dst.Port() == 0 && port != 0 {
			dst = netip.AddrPortFrom(dst.Addr(), port) // where UDPConn sent it
		}
		ecn := p.ECN
		if ectAll(c.Conn) {
			ecn = ECT0 // the socket's field (EnableECN)
		}
		src := netip.AddrPortFrom(p.Local, local.Port())
		if !p.Local.IsValid() {
			src = c.source(local, dst.Addr())
		}
		c.w.WritePacketECN(src, dst, p.Data(), ecn)
	}
}
