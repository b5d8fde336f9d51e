package sched

import (
	"math"
	"math/rand/v2"
	"testing"
)

// saturate keeps every stream in sids with at least one queued message of a
// size drawn by size, and sends chunks chunks, calling PacketDone every
// perPacket chunks.
func saturate(h *harness, sids []uint16, chunks, perPacket int, size func(sid uint16) int) {
	h.tb.Helper()
	for i := range chunks {
		for _, sid := range sids {
			if len(h.q[sid]) == 0 {
				h.enqueue(sid, size(sid))
			}
		}
		if !h.step() {
			h.fail("nothing to send with saturated streams")
		}
		if perPacket > 0 && (i+1)%perPacket == 0 {
			h.packetDone()
		}
	}
}

// shares returns each stream's fraction of the bytes served so far.
func shares(h *harness, sids []uint16) []float64 {
	var total int64
	for _, sid := range sids {
		total += h.served[sid]
	}
	out := make([]float64, len(sids))
	for i, sid := range sids {
		out[i] = float64(h.served[sid]) / float64(total)
	}
	return out
}

// TestWFQShares: RFC 8260 section 3.6, "If the weight of stream S1 is n
// times the weight of stream S2, the scheduler should assign to stream S1
// n times the capacity it assigns to stream S2." Four saturated streams with
// weights 1:2:3:4 and messages of random sizes get bytes within 1% of
// 1:2:3:4, with and without I-DATA.
func TestWFQShares(t *testing.T) {
	for _, il := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		h := newHarness(t, WFQ, Options{Interleaved: il, Streams: 8}, 1200)
		sids := []uint16{1, 3, 5, 7}
		for i, sid := range sids {
			h.setValue(sid, uint16(i+1))
		}
		saturate(h, sids, 200000, 0, func(uint16) int { return 100 + r.IntN(4000) })
		for i, got := range shares(h, sids) {
			want := float64(i+1) / 10
			if math.Abs(got-want)/want > 0.01 {
				t.Errorf("interleaved=%v: stream %d weight %d share %.4f, want %.4f ±1%%", il, sids[i], i+1, got, want)
			}
		}
	}
}

// TestFairCapacityShares: RFC 8260 section 3.5, "schedules them in a
// specific way to maintain an equal capacity for all streams". Streams with
// messages of very different sizes get equal bytes, within 1%.
func TestFairCapacityShares(t *testing.T) {
	for _, il := range []bool{false, true} {
		h := newHarness(t, FairCapacity, Options{Interleaved: il, Streams: 4}, 1200)
		sids := []uint16{0, 1, 2, 3}
		sizes := []int{100, 700, 1200, 5000}
		saturate(h, sids, 200000, 0, func(sid uint16) int { return sizes[sid] })
		for i, got := range shares(h, sids) {
			if math.Abs(got-0.25)/0.25 > 0.01 {
				t.Errorf("interleaved=%v: stream %d (messages of %d bytes) share %.4f, want 0.25 ±1%%", il, sids[i], sizes[i], got)
			}
		}
	}
}

// TestPriorityStarvesLower: RFC 8260 section 3.4, "Streams having a higher
// priority will be scheduled first". While the higher priority has data the
// lower gets nothing; then it gets everything.
func TestPriorityStarvesLower(t *testing.T) {
	for _, il := range []bool{false, true} {
		h := newHarness(t, Priority, Options{Interleaved: il, Streams: 4}, 1200)
		h.setValue(0, 1)
		h.setValue(1, 1)
		h.setValue(2, 2)
		h.enqueue(2, 5000)
		saturate(h, []uint16{0, 1}, 20000, 0, func(uint16) int { return 3000 })
		if h.served[2] != 0 {
			t.Errorf("interleaved=%v: low priority served %d bytes while higher had data", il, h.served[2])
		}
		if d := h.served[0] - h.served[1]; d < -3000 || d > 3000 {
			t.Errorf("interleaved=%v: equal priorities served %d and %d", il, h.served[0], h.served[1])
		}
		for h.step() {
		}
		if h.served[2] != 5000 {
			t.Errorf("interleaved=%v: low priority served %d bytes after higher drained", il, h.served[2])
		}
	}
}

// TestRoundRobinShares: RFC 8260 section 3.2, streams are served in turn:
// without I-DATA one message each, with I-DATA one chunk each, whatever the
// message sizes.
func TestRoundRobinShares(t *testing.T) {
	for _, il := range []bool{false, true} {
		h := newHarness(t, RoundRobin, Options{Interleaved: il, Streams: 3}, 1000)
		h.logging = true
		sids := []uint16{0, 1, 2}
		sizes := []int{500, 1000, 2500}
		saturate(h, sids, 30000, 0, func(sid uint16) int { return sizes[sid] })
		chunks := make([]int, 3)
		for _, sid := range h.order {
			chunks[sid]++
		}
		for i, sid := range sids {
			var got int
			if il {
				got = chunks[sid]
			} else {
				got = int(h.served[sid]) / sizes[i] // whole messages
			}
			if ref := chunks[0]; got < ref-2 || got > ref+2 {
				t.Errorf("interleaved=%v: stream %d served %d turns, stream 0 %d", il, sid, got, ref)
			}
		}
	}
}

// TestRoundRobinPacketShares: RFC 8260 section 3.3, one stream per packet,
// in turn.
func TestRoundRobinPacketShares(t *testing.T) {
	h := newHarness(t, RoundRobinPacket, Options{Interleaved: true, Streams: 3}, 1000)
	h.logging = true
	saturate(h, []uint16{0, 1, 2}, 30000, 3, func(uint16) int { return 1 << 30 })
	for p := 0; p+3 <= len(h.order); p += 3 {
		if h.order[p] != h.order[p+1] || h.order[p] != h.order[p+2] {
			t.Fatalf("packet %d mixes streams: %v", p/3, h.order[p:p+3])
		}
		if p >= 3 && h.order[p] == h.order[p-3] {
			t.Fatalf("packet %d: stream %d twice in a row", p/3, h.order[p])
		}
	}
}

// TestFairQueueingIdleStreamNoCredit is the kernel's idle-stream problem
// (research notes section 3.3): Linux's FC and WFQ order streams by bytes
// sent over all time, so a stream that was idle comes back with a credit and
// monopolises the link until its count catches up, and a stream that sent
// much earlier is starved when others (re)join. Here a stream becoming
// active starts at max(its last finish, virtual time): from the first
// chunk after (re)activation, every active stream gets its share.
func TestFairQueueingIdleStreamNoCredit(t *testing.T) {
	for _, k := range []Kind{FairCapacity, WFQ} {
		for _, il := range []bool{false, true} {
			h := newHarness(t, k, Options{Interleaved: il, Streams: 3}, 1000)
			size := func(uint16) int { return 1000 }
			window := func(sids []uint16, chunks int) []int64 {
				before := append([]int64(nil), h.served...)
				saturate(h, sids, chunks, 0, size)
				got := make([]int64, len(h.served))
				for i := range got {
					got[i] = (h.served[i] - before[i]) / 1000
				}
				return got
			}
			// A and B run for long; C is new.
			window([]uint16{0, 1}, 20000)
			if got := window([]uint16{0, 1, 2}, 30); got[2] > 11 || got[0] < 9 || got[1] < 9 {
				t.Errorf("%v interleaved=%v: new stream took %v of 30 chunks (want about 10 each)", k, il, got)
			}
			// C runs alone for long; A and B come back after being idle.
			for _, sid := range []uint16{0, 1} {
				for len(h.q[sid]) > 0 {
					h.abandon(sid)
				}
				h.forget(sid) // drop a partly sent message, if any
			}
			window([]uint16{2}, 20000)
			if got := window([]uint16{0, 1, 2}, 30); got[2] < 9 || got[0] > 11 || got[1] > 11 {
				t.Errorf("%v interleaved=%v: stream that sent alone got %v of 30 chunks after others returned (want about 10 each)", k, il, got)
			}
			// B goes idle (without Forget) while A and C run, then comes
			// back: no credit for the time it was away.
			for len(h.q[1]) > 0 {
				h.abandon(1)
			}
			window([]uint16{0, 2}, 20000)
			if got := window([]uint16{0, 1, 2}, 30); got[1] > 11 || got[0] < 9 || got[2] < 9 {
				t.Errorf("%v interleaved=%v: stream back from idle took %v of 30 chunks (want about 10 each)", k, il, got)
			}
		}
	}
}

// TestFairQueueingTagWrap runs WFQ across the wrap of the 64-bit virtual
// time: shares stay right and no stream is stranded by serial comparison.
func TestFairQueueingTagWrap(t *testing.T) {
	h := newHarness(t, WFQ, Options{Interleaved: true, Streams: 3}, 1000)
	s := h.s.(*fq)
	s.v = math.MaxUint64 - 1000<<tagShift*50
	h.setValue(0, 1)
	h.setValue(1, 3)
	saturate(h, []uint16{0, 1}, 400, 0, func(uint16) int { return 1000 })
	if !before(math.MaxUint64-1000<<tagShift*50, s.v) || s.v > 1<<40 {
		t.Fatalf("virtual time %d did not wrap", s.v)
	}
	if got := shares(h, []uint16{0, 1}); math.Abs(got[0]-0.25) > 0.01 {
		t.Errorf("shares across the wrap %v, want 0.25/0.75", got)
	}
}
