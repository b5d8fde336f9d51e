package sctp

import (
	"context"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// Heap per association end: the targets (an idle association with the
// default streams under 8 KiB; with 65535 streams negotiated each way and
// 10 of them used, under 24 KiB), and the bound on an association with
// the default streams idle again after traffic, which gives back what
// the burst needed (free messages and fragments, a grown retransmission
// ring) and keeps its used streams' records.
const (
	idleHeapTarget = 8 << 10
	usedHeapTarget = 24 << 10
	restHeapBound  = 12 << 10
)

// heapPerAssoc opens n associations between two endpoints on the loopback
// (one listening, one dialing, so the endpoints' own sockets and buffers
// are not counted) and returns the heap each association end holds when
// idle, and when idle again after each carried msgs messages over the
// first used streams.
func heapPerAssoc(t *testing.T, n int, streams uint16, used, msgs int) (idle, after float64) {
	cfg := loopCfg()
	cfg.OutStreams, cfg.InStreams = streams, streams // 0: the defaults
	l, dc := listenLoop(t, cfg)
	// Both endpoints close before the next measurement starts: an
	// association the listener still held would be freed during it (when
	// the dialer's ABORT arrives) and make the next heap look smaller.
	defer l.Close()
	d, err := NewEndpoint(netip.MustParseAddr("127.0.0.1"), dc)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A first association warms up what the endpoints keep for any
	// number of associations (waiter channels, batch buffers).
	w, err := d.Dial(ctx, "127.0.0.1:5000")
	if err != nil {
		t.Fatal(err)
	}
	accept(t, l)
	base := quietHeap()
	cs, ss := make([]*Association, n), make([]*Association, n)
	for i := range n {
		if cs[i], err = d.Dial(ctx, "127.0.0.1:5000"); err != nil {
			t.Fatal(err)
		}
		ss[i] = accept(t, l)
	}
	settle(t, append(cs, ss...))
	idle = float64(int64(quietHeap())-int64(base)) / float64(2*n)

	msg := make([]byte, 1200)
	buf := make([]byte, 2000)
	for i := range n {
		for j := range msgs {
			if _, err := cs[i].WriteMsg(msg, SendInfo{Stream: uint16(j % used)}); err != nil {
				t.Fatal(err)
			}
		}
		for range msgs {
			if _, _, err := ss[i].ReadMsg(buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	settle(t, append(cs, ss...))
	after = float64(int64(quietHeap())-int64(base)) / float64(2*n)
	runtime.KeepAlive(w)
	return idle, after
}

// quietHeap returns the least of five heapNow samples: what another
// goroutine of the process holds for a moment (a lingering event pump, a
// test still ending beside this one under -race) only adds to a sample,
// so the least is the closest to what stays.
func quietHeap() uint64 {
	least := heapNow()
	for range 4 {
		runtime.Gosched()
		least = min(least, heapNow())
	}
	return least
}

// heapNow returns the live heap after two collections (the second frees
// what the first found unreachable, sync.Pool victims included).
func heapNow() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// settle waits until every association has nothing in flight and no SACK
// pending, so what is measured is the idle state.
func settle(t *testing.T, as []*Association) {
	deadline := time.Now().Add(10 * time.Second)
	for _, a := range as {
		for {
			// Nothing unacknowledged on any side also means no SACK is
			// owed (a delayed SACK leaves the peer's data unacknowledged).
			s := a.Stats()
			quiet := s.Unacked == 0 && s.SendBuffered == 0 && peerQuiet(as)
			if quiet {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("associations did not settle")
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestHeapPerAssociation enforces the heap targets per association end.
// It runs under -race too (the suite's mode in CI): the race detector's
// shadow memory is not Go heap, and the sizes measured are the same.
func TestHeapPerAssociation(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 160 associations")
	}
	idle, after := heapPerAssoc(t, 40, 0, 1, 20)
	t.Logf("default streams: %.0f bytes idle, %.0f after traffic", idle, after)
	if idle > idleHeapTarget {
		t.Errorf("idle association with default streams holds %.0f bytes of heap, want under %d", idle, idleHeapTarget)
	}
	if after > restHeapBound {
		t.Errorf("association with default streams holds %.0f bytes of heap when idle after traffic, want under %d", after, restHeapBound)
	}
	idle, after = heapPerAssoc(t, 40, 65535, 10, 100)
	t.Logf("65535 streams each way: %.0f bytes idle, %.0f after traffic on 10", idle, after)
	if after > usedHeapTarget {
		t.Errorf("association with 65535 streams each way, 10 used, holds %.0f bytes of heap, want under %d", after, usedHeapTarget)
	}
	if idle > idleHeapTarget {
		t.Errorf("idle association with 65535 streams each way holds %.0f bytes of heap, want under %d", idle, idleHeapTarget)
	}
}

// TestEventsMadeOnDemand checks the events of a user who has not asked
// for them yet: they wait (at most DefaultEventQueue, the rest dropped and
// counted, except the terminal event; sender-dry events in a row as one)
// without a channel, and the first Events call hands them over in order;
// after the association ended, that channel is closed behind them.
func TestEventsMadeOnDemand(t *testing.T) {
	as := newAssociation(&Endpoint{}, nil)
	for range 3 {
		as.emit(Event{Kind: EventSenderDry})
	}
	if len(as.earlyEvents) != 1 {
		t.Fatalf("%d sender-dry events in a row wait, want 1", len(as.earlyEvents))
	}
	as.earlyEvents = as.earlyEvents[:0]
	for i := range DefaultEventQueue + 6 {
		as.emit(Event{Kind: EventPeerError, Cause: uint16(i)})
	}
	if as.events != nil {
		t.Fatal("events channel made before Events was called")
	}
	if as.eventsDropped != 6 || len(as.earlyEvents) != DefaultEventQueue {
		t.Fatalf("dropped %d, %d waiting; want 6 and %d", as.eventsDropped, len(as.earlyEvents), DefaultEventQueue)
	}
	as.closed = true
	as.emit(Event{Kind: EventDown}) // never dropped
	ch := as.Events()
	n := 0
	for ev := range ch {
		if n == DefaultEventQueue {
			if ev.Kind != EventDown {
				t.Fatalf("last event %v, want down", ev.Kind)
			}
		} else if ev.Cause != uint16(n) {
			t.Fatalf("event %d has cause %d", n, ev.Cause)
		}
		n++
	}
	if n != DefaultEventQueue+1 || as.Events() != ch {
		t.Fatalf("%d events, want %d, on one channel", n, DefaultEventQueue+1)
	}
}

// peerQuiet reports whether no association of as has data unacknowledged.
func peerQuiet(as []*Association) bool {
	for _, a := range as {
		if s := a.Stats(); s.Unacked != 0 || s.SendBuffered != 0 {
			return false
		}
	}
	return true
}
