package netio

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// checksumOK verifies an Internet checksum over the concatenation of
// parts, summing words directly (independent of the writer's code).
func checksumOK(parts ...[]byte) bool {
	var all []byte
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(all)%2 == 1 {
		all = append(all, 0)
	}
	var s uint64
	for i := 0; i < len(all); i += 2 {
		s += uint64(binary.BigEndian.Uint16(all[i:]))
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return s == 0xffff
}

type record struct {
	src, dst netip.AddrPort
	payload  []byte
}

// readPcap decodes every record of a capture with gopacket and checks
// headers and checksums.
func readPcap(t testing.TB, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeRaw {
		t.Fatalf("link type %v", r.LinkType())
	}
	var out []record
	for {
		data, _, err := r.ReadPacketData()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		pkt := gopacket.NewPacket(data, layers.LinkTypeRaw, gopacket.Default)
		if el := pkt.ErrorLayer(); el != nil {
			t.Fatalf("decode error: %v", el.Error())
		}
		var rec record
		var pseudo []byte
		var ipPayload []byte
		switch ip := pkt.NetworkLayer().(type) {
		case *layers.IPv4:
			if !checksumOK(ip.Contents) {
				t.Fatalf("bad IPv4 header checksum")
			}
			a, _ := netip.AddrFromSlice(ip.SrcIP)
			b, _ := netip.AddrFromSlice(ip.DstIP)
			rec.src, rec.dst = netip.AddrPortFrom(a.Unmap(), 0), netip.AddrPortFrom(b.Unmap(), 0)
			pseudo = append(append([]byte{}, ip.Contents[12:20]...), 0, byte(ip.Protocol), byte(len(ip.Payload)>>8), byte(len(ip.Payload)))
			ipPayload = ip.Payload
		case *layers.IPv6:
			a, _ := netip.AddrFromSlice(ip.SrcIP)
			b, _ := netip.AddrFromSlice(ip.DstIP)
			rec.src, rec.dst = netip.AddrPortFrom(a, 0), netip.AddrPortFrom(b, 0)
			pseudo = append(append([]byte{}, ip.Contents[8:40]...), 0, 0, byte(len(ip.Payload)>>8), byte(len(ip.Payload)), 0, 0, 0, byte(ip.NextHeader))
			ipPayload = ip.Payload
		default:
			t.Fatalf("no IP layer in %v", pkt)
		}
		if udp, ok := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
			if !checksumOK(pseudo, ipPayload) {
				t.Fatalf("bad UDP checksum")
			}
			rec.src = netip.AddrPortFrom(rec.src.Addr(), uint16(udp.SrcPort))
			rec.dst = netip.AddrPortFrom(rec.dst.Addr(), uint16(udp.DstPort))
			rec.payload = udp.Payload
		} else {
			rec.payload = ipPayload
		}
		out = append(out, rec)
	}
}

func TestCaptureUDP(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "udp.pcap")
		w, err := CreatePcap(path, PcapOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a0, b0 := udpPair(t, v6, UDPConfig{})
		a, b := Capture(a0, w), Capture(b0, w)
		const total, size = 200, 1000
		pkts := newPackets(50, 2048)
		for seq := 0; seq < total; seq += len(pkts) {
			fill(pkts, seq, size, b.LocalAddr())
			if _, err := a.WriteBatch(pkts); err != nil {
				t.Fatal(err)
			}
			recvAll(t, b, len(pkts), size, a.LocalAddr())
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		recs := readPcap(t, path)
		if len(recs) != 2*total {
			t.Fatalf("%d records, want %d", len(recs), 2*total)
		}
		for _, r := range recs {
			if r.src != a.LocalAddr() || r.dst != b.LocalAddr() {
				t.Fatalf("record %v -> %v, want %v -> %v", r.src, r.dst, a.LocalAddr(), b.LocalAddr())
			}
			seq := seqOf(r.payload)
			exp := make([]byte, size)
			fill([]Packet{{Buf: exp}}, int(seq), size, r.dst)
			if !bytes.Equal(r.payload, exp) {
				t.Fatalf("record %d: payload differs", seq)
			}
		}
	}
}

// sctpPacket builds a valid SCTP packet with one DATA chunk of TSN 1.
func sctpPacket(payload []byte) []byte { return sctpPacketTSN(payload, 1) }

// sctpPacketTSN builds a valid SCTP packet with one DATA chunk.
func sctpPacketTSN(payload []byte, tsn uint32) []byte {
	b := make([]byte, 12+16+len(payload))
	binary.BigEndian.PutUint16(b[0:], 5000)
	binary.BigEndian.PutUint16(b[2:], 5001)
	binary.BigEndian.PutUint32(b[4:], 0xdeadbeef)
	c := b[12:]
	c[0], c[1] = 0, 3 // DATA, B|E
	binary.BigEndian.PutUint16(c[2:], uint16(16+len(payload)))
	binary.BigEndian.PutUint32(c[4:], tsn)
	binary.BigEndian.PutUint32(c[12:], 0) // PPID
	copy(c[16:], payload)
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestCapturePlainSCTP: raw-IP addresses (port 0) and PlainSCTP record
// SCTP directly over IP, which gopacket decodes as SCTP.
func TestCapturePlainSCTP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ip.pcap")
	w, err := CreatePcap(path, PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pkt := sctpPacket([]byte("hello, world"))
	v4a, v4b := netip.MustParseAddrPort("10.0.0.1:0"), netip.MustParseAddrPort("10.0.0.2:0")
	v6a, v6b := netip.MustParseAddrPort("[fd00::1]:0"), netip.MustParseAddrPort("[fd00::2]:0")
	w.WritePacket(v4a, v4b, pkt)
	w.WritePacket(v6a, v6b, pkt)
	w.opt.PlainSCTP = true
	w.WritePacket(netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899"), pkt)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	r, _ := pcapgo.NewReader(f)
	for i := 0; ; i++ {
		data, _, err := r.ReadPacketData()
		if err == io.EOF {
			if i != 3 {
				t.Fatalf("%d records", i)
			}
			break
		}
		p := gopacket.NewPacket(data, layers.LinkTypeRaw, gopacket.Default)
		s, ok := p.Layer(layers.LayerTypeSCTP).(*layers.SCTP)
		if !ok || p.ErrorLayer() != nil {
			t.Fatalf("record %d: no SCTP layer: %v", i, p)
		}
		if s.SrcPort != 5000 || s.DstPort != 5001 || s.VerificationTag != 0xdeadbeef {
			t.Errorf("record %d: SCTP header %+v", i, s)
		}
		d, ok := p.Layer(layers.LayerTypeSCTPData).(*layers.SCTPData)
		if !ok || string(d.Payload) != "hello, world" {
			t.Errorf("record %d: DATA chunk %v", i, d)
		}
	}
	recs := readPcap(t, path)
	for _, r := range recs {
		if !bytes.Equal(r.payload, pkt) {
			t.Fatalf("SCTP packet differs")
		}
	}
}

func TestPcapWriterNoAllocs(t *testing.T) {
	w, err := NewPcapWriter(io.Discard, PcapOptions{Now: func() time.Time { return time.Unix(1, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	pkt := sctpPacket(make([]byte, 1200))
	src, dst := netip.MustParseAddrPort("[fd00::1]:9899"), netip.MustParseAddrPort("[fd00::2]:9899")
	if n := testing.AllocsPerRun(1000, func() { w.WritePacket(src, dst, pkt) }); n != 0 {
		t.Errorf("WritePacket allocates %v per packet", n)
	}
}

func TestCaptureNilIsIdentity(t *testing.T) {
	a, _ := udpPair(t, false, UDPConfig{})
	if Capture(a, nil) != Conn(a) {
		t.Error("Capture(c, nil) != c")
	}
}

func TestSum16MatchesWordSum(t *testing.T) {
	buf := make([]byte, 301)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	for n := 0; n <= len(buf); n++ {
		b := buf[:n]
		var want uint64
		for i := 0; i+1 < n; i += 2 {
			want += uint64(b[i])<<8 | uint64(b[i+1])
		}
		if n%2 == 1 {
			want += uint64(b[n-1]) << 8
		}
		for want > 0xffff {
			want = want&0xffff + want>>16
		}
		if got := fold(sum16(b, 0xfffe)); uint64(got) != uint64(fold(uint32(want)+0xfffe)) {
			t.Fatalf("n=%d: %#x, want %#x", n, got, fold(uint32(want)+0xfffe))
		}
	}
}

// sinkConn is a wildcard-bound Conn that accepts every write and sends
// nothing.
type sinkConn struct {
	Conn
	local netip.AddrPort
}

func (c sinkConn) WriteBatch(pkts []Packet) (int, error) { return len(pkts), nil }
func (c sinkConn) LocalAddr() netip.AddrPort             { return c.local }

// A packet written with a source address (Packet.Local, as a multi-homed
// endpoint sends each path's packets from that path's address) is recorded
// from that address, before any packet came from its destination: not
// from whatever address the routes of the writing goroutine's namespace
// would choose (TestKernelMultihom's capture showed its INIT and first
// HEARTBEATs from the host's 192.0.2.2). Without Local, the address the
// destination's packets arrived on.
func TestCaptureRecordsPacketSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "src.pcap")
	w, err := CreatePcap(path, PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := Capture(sinkConn{local: netip.MustParseAddrPort("0.0.0.0:0")}, w).(*captureConn)
	pkt := sctpPacket([]byte("hello, world"))
	srcs := []netip.Addr{netip.MustParseAddr("198.18.0.1"), netip.MustParseAddr("198.19.0.1")}
	dsts := []netip.AddrPort{netip.MustParseAddrPort("198.18.0.2:0"), netip.MustParseAddrPort("198.19.0.2:0")}
	for i := range dsts {
		if _, err := c.WriteBatch([]Packet{{Buf: pkt, N: len(pkt), Addr: dsts[i], Local: srcs[i]}}); err != nil {
			t.Fatal(err)
		}
	}
	// Learned from a packet that arrived: used when Local is not set.
	c.learn(netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("198.51.100.1"))
	if _, err := c.WriteBatch([]Packet{{Buf: pkt, N: len(pkt), Addr: netip.MustParseAddrPort("203.0.113.9:0")}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readPcap(t, path)
	want := []netip.Addr{srcs[0], srcs[1], netip.MustParseAddr("198.51.100.1")}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if r.src.Addr() != want[i] {
			t.Errorf("record %d: %v -> %v, want from %v", i, r.src, r.dst, want[i])
		}
	}
}

// TestCaptureLargePackets: the largest packets an MTU of 65535 makes are
// recorded, IPv4 ones whole (65,504 bytes of SCTP in UDP fill IPv4's
// 65,535) and an IPv6 one longer than the snap length cut to it with its
// real length. They were dropped before ("packet too large to capture"),
// so a 64 KB transfer's capture had no DATA.
func TestCaptureLargePackets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.pcap")
	w, err := CreatePcap(path, PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v4a, v4b := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")
	v6a, v6b := netip.MustParseAddrPort("[fd00::1]:9899"), netip.MustParseAddrPort("[fd00::2]:9899")
	big4 := sctpPacket(make([]byte, 65535-IPv4HeaderLen-UDPHeaderLen-28))
	big6 := sctpPacket(make([]byte, 65535-UDPHeaderLen-28))
	if err := w.WritePacket(v4a, v4b, big4); err != nil {
		t.Fatalf("IPv4 packet of %d bytes: %v", len(big4), err)
	}
	if err := w.WritePacket(v6a, v6b, big6); err != nil {
		t.Fatalf("IPv6 packet of %d bytes: %v", len(big6), err)
	}
	if err := w.WritePacket(v4a, v4b, big6); err == nil {
		t.Errorf("an IPv4 packet longer than IPv4 allows was captured")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ caplen, length int }{
		{65535, 65535},
		{pcapSnapLen, IPv6HeaderLen + UDPHeaderLen + len(big6)},
	}
	for i, wnt := range want {
		_, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if ci.CaptureLength != wnt.caplen || ci.Length != wnt.length {
			t.Errorf("record %d: captured %d of %d bytes, want %d of %d", i, ci.CaptureLength, ci.Length, wnt.caplen, wnt.length)
		}
	}
	if _, _, err := r.ReadPacketData(); err != io.EOF {
		t.Errorf("a third record: %v", err)
	}
}
