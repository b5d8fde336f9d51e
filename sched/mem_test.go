package sched

import (
	"testing"
	"unsafe"
)

// memBytes returns the bytes a scheduler holds in its tables.
func memBytes(s Scheduler) int {
	switch s := s.(type) {
	case *rr:
		return s.t.Bytes()
	case *prio:
		return s.t.Bytes() + s.heads.Bytes() + s.levels.leaf.Bytes()
	case *fq:
		return s.t.Bytes() + s.heap.Bytes()
	case *fcfs:
		return s.t.Bytes() + s.q.Bytes()
	}
	panic("unknown scheduler")
}

// TestRecordSizes pins the per-stream record sizes the memory figures rely
// on.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"linkEnt", unsafe.Sizeof(linkEnt{}), 8},
		{"fcfsEnt", unsafe.Sizeof(fcfsEnt{}), 16},
		{"fcfsRun", unsafe.Sizeof(fcfsRun{}), 8},
		{"fqEnt", unsafe.Sizeof(fqEnt{}), 16},
		{"heapEnt", unsafe.Sizeof(heapEnt{}), 16},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}

// TestMemory: with 65535 streams negotiated, a scheduler costs nothing until
// streams are used, and a few pages for a few streams.
func TestMemory(t *testing.T) {
	for _, k := range allKinds {
		s, _ := New(k, Options{Interleaved: true, Streams: MaxStreams})
		idle := memBytes(s)
		for sid := range uint16(10) {
			s.Enqueue(sid*1000, 100)
		}
		ten := memBytes(s)
		for sid := range uint16(MaxStreams) {
			s.Enqueue(sid, 100)
		}
		all := memBytes(s)
		t.Logf("%-4v 65535 streams: idle %6d B, 10 active %6d B, all active %8d B", k, idle, ten, all)
		if idle > 0 {
			t.Errorf("%v: %d bytes with no stream used", k, idle)
		}
		if ten > 13*4096 { // one record page per stream here, plus the heap, ring or level pages
			t.Errorf("%v: %d bytes for 10 active streams", k, ten)
		}
	}
}

// TestFCFSRingShrinks: a burst of queued messages grows the FCFS ring; once
// it has drained, the ring goes back to one page.
func TestFCFSRingShrinks(t *testing.T) {
	h := newHarness(t, FCFS, Options{Streams: 2}, 1000)
	for i := range 100000 {
		h.enqueue(uint16(i%2), 10) // alternating streams: one run per message
	}
	s := h.s.(*fcfs)
	if s.q.Len() < 100000 {
		t.Fatalf("ring capacity %d for 100000 runs", s.q.Len())
	}
	for h.step() {
	}
	h.verify()
	if s.q.Len() != fcfsFirstRing {
		t.Errorf("ring capacity %d after draining, want %d", s.q.Len(), fcfsFirstRing)
	}
	h.enqueue(1, 10)
	h.enqueue(0, 10)
	h.logging = true
	for h.step() {
	}
	if got := orderString(h); got != "ba" {
		t.Errorf("order after shrink %q, want \"ba\"", got)
	}
}
