package assoc

import (
	"net/netip"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// TestStatsSnapshot checks that the counters an operator reads follow what
// happened: packets and chunks by type each way, drops by reason, and the
// primary path's RTT, RTO and cwnd.
func TestStatsSnapshot(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.now = tc.now.Add(30 * time.Millisecond)
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("hello")))
	tc.wantChunk(chunk.TypeSack)
	tc.writePacket(tc.a.localTag+1, dataChunk(3, tc.peerTSN+1, 0, 1, 0, []byte("forged")))
	tc.writePacket(tc.a.localTag, chunkOf(0x3f, 0, nil))
	s := tc.ep.Stats()
	checks := []struct {
		name      string
		got, want uint64
	}{
		{"PacketsIn", s.PacketsIn, 5}, // INIT, COOKIE ECHO, DATA, forged DATA, unknown
		{"PacketsOut", s.PacketsOut, 3},
		{"ChunksIn[INIT]", s.ChunksIn[chunk.TypeInit], 1},
		{"ChunksIn[DATA]", s.ChunksIn[chunk.TypeData], 2},
		{"ChunksOut[INIT ACK]", s.ChunksOut[chunk.TypeInitAck], 1},
		{"ChunksOut[COOKIE ACK]", s.ChunksOut[chunk.TypeCookieAck], 1},
		{"ChunksOut[SACK]", s.ChunksOut[chunk.TypeSack], 1},
		{"BadVTag", s.BadVTag, 1},
		{"UnknownChunks", s.UnknownChunks, 1},
		{"InitsIn", s.InitsIn, 1},
		{"AssocsUp", s.AssocsUp, 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if as := tc.a.Stats(); as.RTO != time.Second || as.Cwnd == 0 {
		t.Errorf("association RTO %v cwnd %d", as.RTO, as.Cwnd)
	}
}

// TestAssocFootprint measures the memory of an idle established
// association (TCB, counters, transfer engine) on the server side.
func TestAssocFootprint(t *testing.T) {
	if len(kindType) != numChunkKinds {
		t.Fatalf("numChunkKinds %d, %d kinds listed", numChunkKinds, len(kindType))
	}
	tc := newTestEndpoint(t, testConfig())
	const n = 1000
	buf := make([]byte, 0, 2048)
	open := func(i int) {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 2, byte(i >> 8), byte(i)}), 9899)
		b := appendHeader(nil, 7000, tc.lport, 0)
		b = append(b, initChunk(chunk.TypeInit, uint32(i)+1, 65536, 10, 10, 1)...)
		tc.ep.receive(tc.now, from, finishPacket(b, 0))
		po, _ := tc.ep.Poll(tc.now, buf[:0])
		pkt := po.Data
		var sp inPacket
		parsePacket(pkt, &sp, false)
		var in initInfo
		parseInit(&sp.chunks[0], &in)
		e := appendHeader(nil, 7000, tc.lport, in.tag)
		e = append(e, chunkOf(chunk.TypeCookieEcho, 0, in.cookie)...)
		tc.ep.receive(tc.now, from, finishPacket(e, 0))
		for {
			if _, ok := tc.ep.Poll(tc.now, buf[:0]); !ok {
				break
			}
		}
	}
	open(0)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := 1; i <= n; i++ {
		open(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	for {
		if tc.ep.NextEvent() == nil {
			break
		}
	}
	if len(tc.ep.assocs) != n+1 {
		t.Fatalf("%d associations", len(tc.ep.assocs))
	}
	per := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / n
	t.Logf("idle established association: %d bytes of heap each (assoc struct %d bytes)", per, unsafe.Sizeof(Assoc{}))
}

// A chunk count that outgrows 32 bits moves into the spill and keeps
// counting: Stats reports the sum, in both directions.
func TestChunkCountsSpill(t *testing.T) {
	var c chunkCounts
	k := int(chunkKindOf[chunk.TypeData] - 1)
	c.in[k], c.out[k] = spillAt-1, spillAt-2
	for range 3 {
		c.countIn(k)
		c.countOut(k)
	}
	if c.big == nil || c.in[k] != 2 || c.out[k] != 1 {
		t.Fatalf("in %d out %d big %v", c.in[k], c.out[k], c.big != nil)
	}
	var s api.Stats
	c.expand(&s)
	if s.ChunksIn[chunk.TypeData] != spillAt+2 || s.ChunksOut[chunk.TypeData] != spillAt+1 {
		t.Fatalf("expanded in %d out %d, want %d and %d", s.ChunksIn[chunk.TypeData], s.ChunksOut[chunk.TypeData], uint64(spillAt+2), uint64(spillAt+1))
	}
}

// TestDataPacketCounts: packets of DATA or I-DATA chunks alone, which the
// builder counts from what the engine reports, count as a walk of the
// packets the sender produced does: packets, bytes and chunks by type.
func TestDataPacketCounts(t *testing.T) {
	for _, il := range []bool{false, true} {
		p := newCorePairWith(t, func(c *Config) { c.Interleaving = il })
		if p.as[0].Interleaved() != il {
			t.Fatalf("interleaved %v, want %v", p.as[0].Interleaved(), il)
		}
		before := p.eps[0].Stats()
		var packets, bytes uint64
		var chunks api.ChunkCounts
		msg := make([]byte, 10000)
		for range 20 {
			if err := p.as[0].send(p.now, 0, 0, false, msg); err != nil {
				t.Fatal(err)
			}
			for {
				po, ok := p.eps[0].Poll(p.now, p.buf[:0])
				if !ok {
					break
				}
				packets++
				bytes += uint64(len(po.Data))
				it := chunk.Chunks(po.Data[commonHeaderLen:])
				for c, ok := it.Next(); ok; c, ok = it.Next() {
					chunks[c.Type]++
				}
				p.eps[1].receive(p.now, p.addrs[0], po.Data)
			}
			p.pump()
		}
		after := p.eps[0].Stats()
		if got := after.PacketsOut - before.PacketsOut; got != packets || packets == 0 {
			t.Errorf("interleaved %v: PacketsOut grew by %d, %d packets sent", il, got, packets)
		}
		if got := after.BytesOut - before.BytesOut; got != bytes {
			t.Errorf("interleaved %v: BytesOut grew by %d, %d bytes sent", il, got, bytes)
		}
		for ty, n := range chunks {
			if got := after.ChunksOut[ty] - before.ChunksOut[ty]; got != n {
				t.Errorf("interleaved %v: ChunksOut[%v] grew by %d, %d sent", il, chunk.Type(ty), got, n)
			}
		}
	}
}
