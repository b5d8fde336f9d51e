package netio

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// TestUDPHoles writes packets with holes, in GSO runs and alone, with
// holes at every place (after the header, back to back, at the end), and
// checks that the datagrams received are the packets with their holes
// filled.
func TestUDPHoles(t *testing.T) {
	for _, cfg := range []UDPConfig{{}, {NoGSO: true}, {GRO: true}} {
		a, b := udpPair(t, false, cfg)
		if !a.Gathers() {
			t.Fatal("a batched UDP conn does not gather")
		}
		r := rand.New(rand.NewPCG(35, 3))
		rd := newPackets(64, 1<<16)
		for round := range 50 {
			n := 1 + r.IntN(40)
			size := 64 + r.IntN(1400)
			pkts := newPackets(n, size)
			want := make([][]byte, n)
			for i := range pkts {
				p := &pkts[i]
				sz := size
				if i == n-1 {
					sz = 13 + r.IntN(size-12) // the last of a run may be shorter
				}
				flat := make([]byte, sz)
				for j := range flat {
					flat[j] = byte(r.Uint32())
				}
				flat[0], flat[1], flat[2], flat[3] = 0x1f, 0x40, 0x1f, 0x41 // one association
				flat[4], flat[5] = byte(round), byte(i)
				want[i] = flat
				copy(p.Buf, flat)
				p.N, p.Addr = sz, b.LocalAddr()
				for at := 8; at < sz; {
					l := r.IntN(sz - at + 1)
					if r.IntN(3) == 0 {
						at += l
						continue
					}
					h := Hole{At: at, Data: bytes.Clone(flat[at : at+l])}
					for j := at; j < at+l; j++ {
						p.Buf[j] = 0xee // stale
					}
					p.Holes = append(p.Holes, h)
					at += l
				}
			}
			if k, err := a.WriteBatch(pkts); err != nil || k != n {
				t.Fatalf("WriteBatch = %d, %v", k, err)
			}
			b.SetReadDeadline(time.Now().Add(5 * time.Second))
			for got := 0; got < n; {
				k, err := b.ReadBatch(rd)
				if err != nil {
					t.Fatalf("round %d: ReadBatch after %d of %d: %v", round, got, n, err)
				}
				for _, p := range rd[:k] {
					i := int(p.Buf[5])
					if p.Buf[4] != byte(round) || i >= n || !bytes.Equal(p.Data(), want[i]) {
						t.Fatalf("round %d: packet %d differs from the packet with its holes filled", round, i)
					}
					got++
				}
			}
		}
		t.Logf("%+v: tx %+v", cfg, a.Stats())
	}
}

// TestWriteBadHoles: a packet whose holes lie outside its length, or
// overlap, is refused as one of a bad length.
func TestWriteBadHoles(t *testing.T) {
	a, b := udpPair(t, false, UDPConfig{})
	pkts := newPackets(1, 100)
	fill(pkts, 0, 100, b.LocalAddr())
	for _, hs := range [][]Hole{
		{{At: 90, Data: make([]byte, 11)}},
		{{At: 20, Data: make([]byte, 10)}, {At: 25, Data: make([]byte, 10)}},
	} {
		pkts[0].Holes = hs
		if n, err := a.WriteBatch(pkts); n != 0 || err == nil {
			t.Errorf("holes %v: WriteBatch = %d, %v", hs, n, err)
		}
	}
}

// TestCopyData: a packet's first bytes with its holes filled.
func TestCopyData(t *testing.T) {
	p := Packet{Buf: []byte("abc....hi..l"), N: 12, Holes: []Hole{{At: 3, Data: []byte("defg")}, {At: 9, Data: []byte("jk")}}}
	for n := range 14 {
		dst := make([]byte, n)
		k := p.CopyData(dst)
		if want := "abcdefghijkl"[:min(n, 12)]; string(dst[:k]) != want {
			t.Errorf("CopyData(%d bytes) = %q, want %q", n, dst[:k], want)
		}
	}
}
