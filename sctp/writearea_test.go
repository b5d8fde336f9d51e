package sctp

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// fillOut builds packets of the given sizes in the write area as collect
// does (each filled with its index) until the area says it is full, and
// returns how many it took.
func fillOut(e *Endpoint, sizes func(i int) int) int {
	for {
		buf := e.nextPacketBuf()
		if buf == nil {
			return e.batchLen
		}
		b := append(buf, bytes.Repeat([]byte{byte(e.batchLen)}, sizes(e.batchLen))...)
		e.commitPacketBuf(b)
		e.batch[e.batchLen].Buf, e.batch[e.batchLen].N = b, len(b)
		e.batchLen++
	}
}

func newWriteArea(maxOut int) *Endpoint {
	e := &Endpoint{}
	e.largestPacket = maxOut
	e.slab = make([]byte, max(writeAreaSize, 2*cacheLineUp(e.largestPacket)))
	e.batch = make([]netio.Packet, writeBatch)
	return e
}

// TestWriteAreaPacking: the write area packs the packets of one batch back
// to back at cache-line boundaries, without overlap: 132 packets of 1472
// bytes at MTU 1500, 132 small ones at MTU
// 65535, and three of 64 KiB at 65535, all in the same 198 KiB. A packet
// that outgrows the room it was given gets a buffer of its own and takes
// none of the area; writeCollected's reset (batchLen, slabUsed) makes it
// whole again.
func TestWriteAreaPacking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxOut int
		size   int
		want   int
	}{
		{"mtu1500-full", 1472, 1472, writeBatch},
		{"mtu65535-small", 65507, 200, writeBatch},
		{"mtu65535-full", 65507, 65507, 3},
		{"mtu65535-mixed", 65507, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newWriteArea(tc.maxOut)
			if len(e.slab) != writeAreaSize {
				t.Fatalf("write area %d bytes, want %d whatever the MTU", len(e.slab), writeAreaSize)
			}
			sizes := func(int) int { return tc.size }
			if tc.size == 0 {
				sizes = func(i int) int { return []int{100, 65507, 1472, 9000}[i%4] }
			}
			n := fillOut(e, sizes)
			if tc.want != 0 && n != tc.want {
				t.Errorf("%d packets in the area, want %d", n, tc.want)
			}
			end := 0
			for i := range n {
				p := e.batch[i].Buf[:e.batch[i].N]
				if len(p) != sizes(i) || !bytes.Equal(p, bytes.Repeat([]byte{byte(i)}, len(p))) {
					t.Fatalf("packet %d altered (%d bytes)", i, len(p))
				}
				off := cap(e.slab) - cap(p)
				if off != end {
					t.Fatalf("packet %d at %d, want %d (back to back, by cache lines)", i, off, end)
				}
				end += cacheLineUp(len(p))
			}
			if end != e.slabUsed {
				t.Errorf("area used to %d, slabUsed %d", end, e.slabUsed)
			}
			if room := len(e.slab) - e.slabUsed; n < writeBatch && room >= tc.maxOut {
				t.Errorf("full with %d bytes of room, the largest packet is %d", room, tc.maxOut)
			}
		})
	}
	// Outgrowing the room: its own buffer, the area untouched.
	e := newWriteArea(1472)
	buf := e.nextPacketBuf()
	b := append(buf, make([]byte, cap(buf)+1)...)
	e.commitPacketBuf(b)
	if e.slabUsed != 0 {
		t.Errorf("a packet built outside the area took %d bytes of it", e.slabUsed)
	}
}

// TestEndpointBuffersIndependentOfMTU: an endpoint's write area, and the
// read buffers of a socket without GRO (raw IP), stay the same size at
// MTU 65535 as at 1500 (not 128 and 32 packets of the MTU: 8 and 2 MiB
// at 65535).
func TestEndpointBuffersIndependentOfMTU(t *testing.T) {
	for _, tr := range []Transport{UDP, IP} {
		var areas, reads []int
		for _, mtu := range []int{1500, 65535} {
			e, err := NewEndpoint(netip.MustParseAddr("127.0.0.1"), &Config{Transport: tr, MTU: mtu})
			if err != nil {
				if tr == IP {
					t.Skipf("raw IP: %v", err)
				}
				t.Fatal(err)
			}
			read := 0
			for _, b := range e.reader.bufs {
				read += cap(b)
			}
			areas, reads = append(areas, len(e.slab)), append(reads, read)
			e.Close()
		}
		t.Logf("%v: write area %v, read buffers %v bytes (MTU 1500, 65535)", tr, areas, reads)
		if areas[1] != areas[0] || areas[0] != writeAreaSize {
			t.Errorf("%v: write area %v bytes at MTU 1500 and 65535, want %d both", tr, areas, writeAreaSize)
		}
		if limit := readBatch * maxPacket; reads[1] > limit || reads[0] > limit {
			t.Errorf("%v: read buffers %v bytes at MTU 1500 and 65535, want at most %d", tr, reads, limit)
		}
	}
}

// TestWriteAreaSendsRaw: a full write area, at any MTU, is within what
// netio sends as a raw system call (netio.RawSendBytes), so a bulk send
// keeps its P.
func TestWriteAreaSendsRaw(t *testing.T) {
	for _, mtu := range []int{1500, 9000, 65535} {
		if n := len(newWriteArea(mtu).slab); n > netio.RawSendBytes {
			t.Errorf("MTU %d: write area of %d bytes, over netio.RawSendBytes (%d)", mtu, n, netio.RawSendBytes)
		}
	}
}
