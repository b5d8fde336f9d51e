package assoc

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/transfer"
)

// TestReadyQueueOrderAndCompaction checks the endpoint's ready list: Poll
// takes associations in the order they became ready, each once, and the
// list keeps a bounded size when associations keep becoming ready while
// it is drained (it is taken from its head, without shifting the rest).
func TestReadyQueueOrderAndCompaction(t *testing.T) {
	ep := NewEndpoint(Config{}, time.Unix(0, 0))
	// Closed associations have nothing to send: Poll passes over them
	// exactly as over one whose packets are all out.
	as := make([]*Assoc, 10000)
	for i := range as {
		as[i] = &Assoc{closed: true, heapIdx: -1}
		ep.markReady(as[i])
		ep.markReady(as[i]) // listed once
	}
	if len(ep.ready) != len(as) {
		t.Fatalf("ready list holds %d, want %d", len(ep.ready), len(as))
	}
	if _, ok := ep.Poll(time.Unix(0, 0), nil); ok {
		t.Fatal("Poll returned a packet from closed associations")
	}
	if len(ep.ready) != 0 || ep.readyHead != 0 {
		t.Fatalf("after draining: len %d head %d", len(ep.ready), ep.readyHead)
	}
	for i, a := range as {
		if a.ready {
			t.Fatalf("association %d still marked ready", i)
		}
	}

	// Half-drained lists that refill: the array stays within a small
	// multiple of the associations actually waiting.
	for round := range 1000 {
		for _, a := range as[:100] {
			ep.markReady(a)
		}
		// Take the first 90 as Poll does, leaving 10 waiting.
		for range 90 {
			a := ep.ready[ep.readyHead]
			a.ready = false
			ep.ready[ep.readyHead] = nil
			ep.readyHead++
		}
		if n := len(ep.ready); n > 4*100+64 {
			t.Fatalf("round %d: ready array grew to %d for %d waiting", round, n, n-ep.readyHead)
		}
	}
	// The waiting ones come out in the order they were listed.
	seen := map[*Assoc]bool{}
	for i := ep.readyHead; i < len(ep.ready); i++ {
		a := ep.ready[i]
		if a == nil || seen[a] || !a.ready {
			t.Fatalf("entry %d: %p (seen %v)", i, a, seen[a])
		}
		seen[a] = true
	}
}

// BenchmarkPollManyReady is the cost per association of draining a ready
// list of 10,000 associations with nothing to send (it was O(n) each
// before the list was taken from its head).
func BenchmarkPollManyReady(b *testing.B) {
	ep := NewEndpoint(Config{}, time.Unix(0, 0))
	as := make([]*Assoc, 10000)
	for i := range as {
		as[i] = &Assoc{closed: true, heapIdx: -1}
	}
	b.ResetTimer()
	for range b.N {
		for _, a := range as {
			ep.markReady(a)
		}
		ep.Poll(time.Unix(0, 0), nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/assoc")
}

// TestRoomReportedOnlyWhenGiven: the endpoint reports room on a stream
// (an Event with Room) when the packets Poll built gave room to a stream
// whose writer its limit refused, once, and nothing for an association
// that only sent (the shell wakes the writers of the streams reported
// instead of visiting every association after each flush).
func TestRoomReportedOnlyWhenGiven(t *testing.T) {
	cfg := testConfig()
	cfg.StreamUnsentLimit = 2000
	tc := newTestEndpoint(t, cfg)
	tc.connectClient()
	msg := make([]byte, 1500)
	if err := tc.a.send(tc.now, 1, 0, false, msg); err != nil {
		t.Fatal(err)
	}
	tc.readPackets() // sent at once: nobody was refused
	if len(tc.room) != 0 {
		t.Fatalf("%d room reports after a send nobody waited for", len(tc.room))
	}
	// Stream 0 gets a message queued behind a closed window, and the
	// next is refused by the stream's limit; building the packet of the
	// first, once the window opens, gives it room.
	tc.writeChunks(sackChunk(uint32(tc.a.data.eng.NextTSN()-1), 0))
	tc.readPackets()
	if err := tc.a.send(tc.now, 0, 0, false, msg); err != nil {
		t.Fatal(err)
	}
	if err := tc.a.send(tc.now, 0, 0, false, msg); !errors.Is(err, transfer.ErrStreamFull) {
		t.Fatalf("second message on the stream: %v, want ErrStreamFull", err)
	}
	tc.writeChunks(sackChunk(uint32(tc.a.data.eng.NextTSN()-1), 65536))
	tc.readPackets()
	if r := tc.room; len(r) != 1 || r[0].Assoc != tc.a || r[0].Stream != 0 || !r[0].Quiet {
		t.Fatalf("room reports %+v, want stream 0 of the association", r)
	}
	tc.room = nil
	tc.readPackets()
	if len(tc.room) != 0 {
		t.Fatalf("reported again: %+v", tc.room)
	}
}
