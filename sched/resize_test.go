package sched

import "testing"

// Resize to a larger count runs after every Add Outgoing Streams Request
// the peer performs, and a peer can ask for one with each Add Incoming
// Streams Request (RFC 6525 section 5.2.6), so growing must not cost a
// pass over what is queued: with dead runs in FCFS's ring (messages of a
// stream whose queue went), growing by one stream must not rewrite it.
func TestResizeGrowLeavesQueue(t *testing.T) {
	s := newFCFS(Options{Streams: 2})
	const n = 10000
	for range n {
		s.Enqueue(0, 100)
		s.Enqueue(1, 100)
	}
	s.Sent(1, 100, true, true) // stream 1 empties: its runs are dead, still in the ring
	count, head := s.count, s.head
	if count != 2*n {
		t.Fatalf("ring holds %d runs, want %d", count, 2*n)
	}
	for k := 3; k < 1000; k++ {
		s.Resize(k)
		if s.count != count || s.head != head {
			t.Fatalf("Resize(%d) rewrote the ring: %d runs at %d, was %d at %d", k, s.count, s.head, count, head)
		}
	}
	// The queue is still right: stream 0's messages, then the new stream's.
	s.Enqueue(500, 100)
	for i := range n + 1 {
		sid, ok := s.Next()
		want := uint16(0)
		if i == n {
			want = 500
		}
		if !ok || sid != want {
			t.Fatalf("pick %d: stream %d, %v; want %d", i, sid, ok, want)
		}
		s.Sent(sid, 100, true, sid == 500 || i == n-1)
	}
	if sid, ok := s.Next(); ok {
		t.Fatalf("stream %d still active", sid)
	}
}

// Growing does not give back the fair-queueing heap's pages, so a heap that
// had shrunk does not pay a page allocation on every added stream's next
// link.
func TestResizeGrowKeepsHeapPages(t *testing.T) {
	for _, w := range []bool{false, true} {
		s := newFQ(Options{Streams: 600}, w)
		for sid := range uint16(600) {
			s.Enqueue(sid, 100)
		}
		for sid := range uint16(400) {
			s.Forget(sid)
		}
		pages := s.heap.Bytes()
		s.Resize(601)
		if s.heap.Bytes() != pages {
			t.Fatalf("weighted %v: growing released heap pages: %d bytes, was %d", w, s.heap.Bytes(), pages)
		}
	}
}

// Every scheduler: streams added by Resize start empty and can be used at
// once; a stream removed by shrinking and added again is empty, whatever
// it had queued.
func TestResizeGrowAndShrink(t *testing.T) {
	for _, k := range allKinds {
		s, _ := New(k, Options{Streams: 8})
		s.Enqueue(2, 100)
		s.Enqueue(6, 100)
		s.Enqueue(7, 100)
		s.Sent(7, 0, true, true)
		s.Resize(5) // streams 5-7 go
		s.Resize(9)
		s.Enqueue(8, 100)
		got := map[uint16]bool{}
		for range 4 {
			sid, ok := s.Next()
			if !ok {
				break
			}
			got[sid] = true
			s.Sent(sid, 100, true, true)
			s.PacketDone()
		}
		if len(got) != 2 || !got[2] || !got[8] {
			t.Errorf("%v: served %v, want streams 2 and 8", k, got)
		}
	}
}
