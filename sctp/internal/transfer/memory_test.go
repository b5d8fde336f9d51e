package transfer

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/usctp/usctp/internal/testsupport"
)

// TestEngineFootprint measures an idle engine with 65535 streams each
// way: stream state is created on first use, so it stays small.
func TestEngineFootprint(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation sizes differ under -race")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, err := New(Config{OutStreams: 65535, InStreams: 65535})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	idle := after.TotalAlloc - before.TotalAlloc
	for sid := range uint16(10) {
		e.send.enqueue(sid, 0, false, []byte{1})
	}
	runtime.ReadMemStats(&before)
	used := before.TotalAlloc - after.TotalAlloc
	for sid := range uint16(10) {
		e.send.enqueue(10+sid*6000, 0, false, []byte{1})
	}
	runtime.ReadMemStats(&after)
	spread := after.TotalAlloc - before.TotalAlloc
	t.Logf("idle engine, 65535 streams each way: %d bytes; streams 0-9 used: +%d bytes; 10 more spread over the id space: +%d bytes; retransmission record %d bytes",
		idle, used, spread, unsafe.Sizeof(record{}))
	if idle > 32<<10 {
		t.Errorf("idle engine takes %d bytes, want under 32 KiB", idle)
	}
	runtime.KeepAlive(e)
}

// TestEngineSizeClass: the Engine with its allocation header (8 bytes for
// an object of more than 512 bytes with pointers) fits the 2,688-byte size
// class. Eight bytes more and it is allocated from the 3,072-byte class:
// 384 bytes more for every association end, 5% of an idle one
// (sctp's TestHeapPerAssociation). A field that must grow the Engine past
// it is a decision for docs/PERFORMANCE.md's memory table, not an
// accident of field order.
func TestEngineSizeClass(t *testing.T) {
	const header, class = 8, 2688
	if n := unsafe.Sizeof(Engine{}); n+header > class {
		t.Errorf("Engine is %d bytes: with its %d-byte header it is past the %d-byte size class", n, header, class)
	}
}

// TestRestingGivesBack checks that a burst's free messages, fragments and
// grown retransmission ring are given back once everything was
// acknowledged and read, and that bursts after the first allocate nothing
// per message: the next burst takes them back from the shared pools.
func TestRestingGivesBack(t *testing.T) {
	m := newMemPair(t)
	msg := make([]byte, 1452)
	burst := func() {
		for i := range 200 {
			if err := m.a.send.enqueue(uint16(i%10), 0, false, msg); err != nil {
				t.Fatal(err)
			}
		}
		for m.a.send.queue.buffered > 0 {
			m.now = m.now.Add(time.Millisecond)
			m.step(t)
		}
	}
	burst()
	s, r := &m.a.send, &m.b.recv
	if s.queue.nfree > keepFreeMessages || len(s.ledger.recs) != initialRecords {
		t.Errorf("resting sender keeps %d free messages and a ring of %d, want at most %d and %d",
			s.queue.nfree, len(s.ledger.recs), keepFreeMessages, initialRecords)
	}
	if n := r.pool.FreeCost(); n > keepFreeFragBytes {
		t.Errorf("resting receiver keeps free fragments costing %d bytes, want at most %d", n, keepFreeFragBytes)
	}
	// A ring grown for a large flight goes back to the first size.
	s.ledger.grow()
	s.ledger.grow()
	s.releaseCaches()
	if len(s.ledger.recs) != initialRecords || s.ledger.mask != initialRecords-1 {
		t.Errorf("rested ring has %d records (mask %d), want %d", len(s.ledger.recs), s.ledger.mask, initialRecords)
	}
	if testsupport.RaceEnabled {
		return // sync.Pool drops items at random under -race
	}
	if allocs := testing.AllocsPerRun(20, burst); allocs > 1 {
		t.Errorf("%v allocations per burst of 200 messages after the first, want none", allocs)
	}
}
