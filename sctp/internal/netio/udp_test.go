package netio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"
)

// newPackets returns n packets with buffers of size bytes each.
func newPackets(n, size int) []Packet {
	pkts := make([]Packet, n)
	for i := range pkts {
		pkts[i].Buf = make([]byte, size)
	}
	return pkts
}

// fill makes pkts[i] a distinct payload of size bytes to dst.
func fill(pkts []Packet, seq, size int, dst netip.AddrPort) {
	for i := range pkts {
		p := &pkts[i]
		for j := range size {
			p.Buf[j] = byte(seq + i + j)
		}
		// One association's SCTP ports, then the sequence number: packets
		// of one association may share a GSO send.
		binary.BigEndian.PutUint32(p.Buf, 8000<<16|8001)
		binary.BigEndian.PutUint32(p.Buf[4:], uint32(seq+i))
		p.N = size
		p.Addr = dst
	}
}

// seqOf returns the sequence number fill wrote into a packet.
func seqOf(buf []byte) uint32 { return binary.BigEndian.Uint32(buf[4:]) }

// recvAll reads until want packets arrived and checks their contents.
func recvAll(t testing.TB, c Conn, want, size int, from netip.AddrPort) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	pkts := newPackets(64, 2048)
	seen := make(map[uint32]bool)
	for len(seen) < want {
		n, err := c.ReadBatch(pkts)
		if err != nil {
			t.Fatalf("ReadBatch after %d of %d: %v", len(seen), want, err)
		}
		for _, p := range pkts[:n] {
			if p.Addr != from {
				t.Fatalf("packet from %v, want %v", p.Addr, from)
			}
			if p.N != size {
				t.Fatalf("packet of %d bytes, want %d", p.N, size)
			}
			seq := seqOf(p.Buf)
			exp := make([]byte, size)
			fill([]Packet{{Buf: exp}}, int(seq), size, from)
			if !bytes.Equal(p.Data(), exp) {
				t.Fatalf("packet %d corrupted", seq)
			}
			seen[seq] = true
		}
	}
}

func loopback(v6 bool) netip.Addr {
	if v6 {
		return netip.IPv6Loopback()
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// udpPair opens two UDP conns on loopback with ephemeral ports.
func udpPair(t testing.TB, v6 bool, cfg UDPConfig) (a, b *UDPConn) {
	t.Helper()
	cfg.Addr = netip.AddrPortFrom(loopback(v6), 0)
	a, err := ListenUDP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err = ListenUDP(cfg)
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func TestUDPBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		v6   bool
		cfg  UDPConfig
	}{
		{"v4", false, UDPConfig{}},
		{"v6", true, UDPConfig{}},
		{"v4-nogso", false, UDPConfig{NoGSO: true}},
		{"v6-nogso", true, UDPConfig{NoGSO: true}},
		{"v4-single", false, UDPConfig{NoBatch: true}},
		{"v6-single", true, UDPConfig{NoBatch: true}},
		{"v4-gro", false, UDPConfig{GRO: true}},
		{"v6-gro", true, UDPConfig{GRO: true}},
		{"v4-gro-nogso", false, UDPConfig{GRO: true, NoGSO: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := udpPair(t, tc.v6, tc.cfg)
			t.Logf("GSO %v", a.GSO())
			const total, size = 1000, 1200
			pkts := newPackets(100, 2048)
			for seq := 0; seq < total; seq += len(pkts) {
				fill(pkts, seq, size, b.LocalAddr())
				n, err := a.WriteBatch(pkts)
				if err != nil || n != len(pkts) {
					t.Fatalf("WriteBatch = %d, %v", n, err)
				}
				recvAll(t, b, len(pkts), size, a.LocalAddr())
			}
			if !tc.cfg.NoGSO && !tc.cfg.NoBatch && a.GSO() && a.Stats().GSOSends == 0 {
				t.Errorf("GSO available but never used: %+v", a.Stats())
			}
			if tc.cfg.GRO && a.GSO() && b.GRO() && b.Stats().GROCoalesced == 0 {
				t.Errorf("GSO sends reached a GRO socket split: %+v", b.Stats())
			}
			t.Logf("tx %+v rx %+v", a.Stats(), b.Stats())
		})
	}
}

// TestUDPGSOMixedSizes sends runs that GSO must split correctly: equal
// sizes, a shorter last packet, a size change, and alternating peers.
func TestUDPGSOMixedSizes(t *testing.T) {
	for _, gro := range []bool{false, true} {
		t.Run(fmt.Sprintf("gro=%v", gro), func(t *testing.T) { testGSOMixedSizes(t, gro) })
	}
}

func testGSOMixedSizes(t testing.TB, gro bool) {
	a, b := udpPair(t, false, UDPConfig{GRO: gro})
	c, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), GRO: gro})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sizes := []int{1000, 1000, 1000, 400, 1000, 1000, 1200, 1200, 1, 1, 1, 64, 1000}
	pkts := newPackets(len(sizes), 2048)
	for i, s := range sizes {
		fill(pkts[i:i+1], i, s, b.LocalAddr())
		if i >= 9 {
			pkts[i].Addr = c.LocalAddr()
		}
	}
	if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	got := map[int]int{}
	for _, r := range []*UDPConn{b, c} {
		want := 9
		if r == c {
			want = len(sizes) - 9
		}
		r.SetReadDeadline(time.Now().Add(5 * time.Second))
		in := newPackets(32, 2048)
		for cnt := 0; cnt < want; {
			n, err := r.ReadBatch(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range in[:n] {
				cnt++
				if p.N < 8 {
					continue
				}
				got[int(seqOf(p.Buf))] = p.N
			}
		}
	}
	for i, s := range sizes {
		if s < 8 {
			continue // too short to carry a sequence number
		}
		if got[i] != s {
			t.Errorf("packet %d: got %d bytes, want %d", i, got[i], s)
		}
	}
}

func TestUDPDualStack(t *testing.T) {
	d, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(netip.IPv6Unspecified(), 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, v6 := range []bool{false, true} {
		s, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(v6), 0)})
		if err != nil {
			t.Fatal(err)
		}
		dst := netip.AddrPortFrom(loopback(v6), d.LocalAddr().Port())
		pkts := newPackets(3, 2048)
		fill(pkts, 0, 100, dst)
		if _, err := s.WriteBatch(pkts); err != nil {
			t.Fatal(err)
		}
		recvAll(t, d, 3, 100, s.LocalAddr())
		// And back: the dual-stack socket answers IPv4 peers too.
		fill(pkts, 0, 100, s.LocalAddr())
		if _, err := d.WriteBatch(pkts); err != nil {
			t.Fatal(err)
		}
		recvAll(t, s, 3, 100, dst)
		s.Close()
	}
}

func TestUDPDefaultRemotePort(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{RemotePort: 0})
	a.Close()
	a, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0), RemotePort: b.LocalAddr().Port()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	pkts := newPackets(1, 100)
	fill(pkts, 7, 50, netip.AddrPortFrom(loopback(false), 0))
	if _, err := a.WriteBatch(pkts); err != nil {
		t.Fatal(err)
	}
	recvAll(t, b, 1, 50, a.LocalAddr())
}

// TestUDPTruncatedDropped: a datagram larger than the buffer is dropped,
// the next one is delivered.
func TestUDPTruncatedDropped(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {NoBatch: true}, {GRO: true}} {
		nb := cfg.NoBatch
		a, b := udpPair(t, false, cfg)
		out := newPackets(2, 2048)
		fill(out, 0, 1500, b.LocalAddr())
		fill(out[1:], 1, 100, b.LocalAddr())
		if _, err := a.WriteBatch(out); err != nil {
			t.Fatal(err)
		}
		in := newPackets(4, 1000)
		b.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := b.ReadBatch(in)
		if err != nil || n != 1 || in[0].N != 100 {
			t.Fatalf("NoBatch=%v: ReadBatch = %d, %v (N=%d), want the 100-byte packet", nb, n, err, in[0].N)
		}
		if !nb && b.Stats().Dropped != 1 {
			t.Errorf("Dropped = %d, want 1", b.Stats().Dropped)
		}
	}
}

func TestUDPWrongFamily(t *testing.T) {
	a, _ := udpPair(t, false, UDPConfig{})
	pkts := newPackets(1, 10)
	pkts[0].N = 10
	pkts[0].Addr = netip.AddrPortFrom(netip.IPv6Loopback(), 1)
	if n, err := a.WriteBatch(pkts); err == nil || n != 0 {
		t.Fatalf("WriteBatch to IPv6 on an IPv4 socket = %d, %v", n, err)
	}
}

// TestUDPSourcePortZeroDropped forges a datagram from UDP port 0 with a
// raw socket (we run as root) and checks that it is never delivered.
func TestUDPSourcePortZeroDropped(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {NoBatch: true}, {GRO: true}} {
		nb := cfg.NoBatch
		_, b := udpPair(t, false, cfg)
		raw, err := net.ListenIP("ip4:udp", &net.IPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Skipf("no raw UDP socket: %v", err)
		}
		defer raw.Close()
		dg := make([]byte, 8+20)
		binary.BigEndian.PutUint16(dg[0:], 0) // source port 0
		binary.BigEndian.PutUint16(dg[2:], b.LocalAddr().Port())
		binary.BigEndian.PutUint16(dg[4:], uint16(len(dg)))
		// checksum 0: none (IPv4)
		if _, err := raw.WriteTo(dg, &net.IPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
			t.Fatal(err)
		}
		// Then a good one, which must be the first thing ReadBatch returns.
		s, err := ListenUDP(UDPConfig{Addr: netip.AddrPortFrom(loopback(false), 0)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pkts := newPackets(1, 100)
		fill(pkts, 5, 30, b.LocalAddr())
		if _, err := s.WriteBatch(pkts); err != nil {
			t.Fatal(err)
		}
		recvAll(t, b, 1, 30, s.LocalAddr())
		if !nb && b.Stats().Dropped != 1 {
			t.Errorf("Dropped = %d, want 1", b.Stats().Dropped)
		}
	}
}

func TestReadDeadlineAndClose(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {NoBatch: true}, {GRO: true}} {
		a, _ := udpPair(t, false, cfg)
		pkts := newPackets(4, 100)
		a.SetReadDeadline(time.Now().Add(-time.Second))
		if _, err := a.ReadBatch(pkts); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ReadBatch past deadline: %v", err)
		}
		a.SetReadDeadline(time.Time{})
		errc := make(chan error)
		go func() {
			_, err := a.ReadBatch(pkts)
			errc <- err
		}()
		// Close must unblock the reader whether or not it is parked yet.
		a.Close()
		if err := <-errc; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadBatch after Close: %v", err)
		}
	}
}

func TestOverhead(t *testing.T) {
	a, _ := udpPair(t, false, UDPConfig{})
	if got := a.Overhead(loopback(false)); got != 28 {
		t.Errorf("UDP over IPv4 overhead = %d, want 28", got)
	}
	if got := a.Overhead(loopback(true)); got != 48 {
		t.Errorf("UDP over IPv6 overhead = %d, want 48", got)
	}
}

// TestWriteBadLength: N outside Buf is refused before any system call,
// never read past the buffer.
func TestWriteBadLength(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {NoGSO: true}, {NoBatch: true}} {
		a, b := udpPair(t, false, cfg)
		pkts := newPackets(3, 100)
		fill(pkts, 0, 100, b.LocalAddr())
		pkts[1].N = 101
		if n, err := a.WriteBatch(pkts); n != 1 || !errors.Is(err, errBadLength) {
			t.Errorf("%+v: WriteBatch = %d, %v", cfg, n, err)
		}
		pkts[1].N = -1
		if n, err := a.WriteBatch(pkts[1:]); n != 0 || !errors.Is(err, errBadLength) {
			t.Errorf("%+v: WriteBatch = %d, %v", cfg, n, err)
		}
	}
}

// TestConcurrentUse: several goroutines write and read one pair of
// sockets at once (run with -race); every packet arrives intact.
func TestConcurrentUse(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {GRO: true}, {NoBatch: true}} {
		a, b := udpPair(t, false, cfg)
		const writers, perWriter, size = 4, 200, 600
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pkts := newPackets(10, 1024)
				for seq := w * perWriter; seq < (w+1)*perWriter; seq += len(pkts) {
					fill(pkts, seq, size, b.LocalAddr())
					if _, err := a.WriteBatch(pkts); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		var mu sync.Mutex
		seen := map[uint32]bool{}
		var rg sync.WaitGroup
		b.SetReadDeadline(time.Now().Add(5 * time.Second))
		for range 2 {
			rg.Add(1)
			go func() {
				defer rg.Done()
				in := newPackets(16, 2048)
				for {
					n, err := b.ReadBatch(in)
					if err != nil {
						return // deadline: the other side is done
					}
					mu.Lock()
					for _, p := range in[:n] {
						exp := make([]byte, size)
						seq := seqOf(p.Buf)
						fill([]Packet{{Buf: exp}}, int(seq), size, b.LocalAddr())
						if p.N != size || !bytes.Equal(p.Data(), exp) {
							t.Errorf("packet %d corrupted", seq)
						}
						seen[seq] = true
					}
					done := len(seen) == writers*perWriter
					mu.Unlock()
					if done {
						b.SetReadDeadline(time.Now()) // wake the other reader
						return
					}
				}
			}()
		}
		wg.Wait()
		rg.Wait()
		if len(seen) != writers*perWriter {
			t.Errorf("%+v: %d of %d packets arrived", cfg, len(seen), writers*perWriter)
		}
	}
}

// TestUDPGSOOneAssociation: a GSO send holds the packets of one
// association (SCTP port pair) only, as a host group may steer two
// associations to one address and port to different processes.
func TestUDPGSOOneAssociation(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{})
	if !a.GSO() {
		t.Skip("no UDP GSO on this kernel")
	}
	pkts := newPackets(6, 2048)
	fill(pkts, 0, 1000, b.LocalAddr())
	for i := 3; i < 6; i++ {
		binary.BigEndian.PutUint16(pkts[i].Buf[2:], 8002) // another destination port
	}
	before := a.Stats().GSOSends
	if n, err := a.WriteBatch(pkts); err != nil || n != len(pkts) {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	if sends := a.Stats().GSOSends - before; sends != 2 {
		t.Fatalf("%d GSO sends for two associations' runs of three, want 2", sends)
	}
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	in := newPackets(8, 2048)
	for got := 0; got < len(pkts); {
		n, err := b.ReadBatch(in)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
}
