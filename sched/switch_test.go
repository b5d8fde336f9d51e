package sched

import (
	"testing"
)

// TestSwitchRoundTrip is the test of "sctp: delete free member from struct
// sctp_sched_ops": switch FCFS → PRIO → RR → FC → WFQ → RRP → FCFS with data
// queued and a message half sent; nothing is lost or duplicated (the harness
// checks every chunk against its model), per-stream values go back to their
// defaults, and every stream drains completely.
func TestSwitchRoundTrip(t *testing.T) {
	for _, il := range []bool{false, true} {
		h := newHarness(t, FCFS, Options{Interleaved: il, Streams: 50}, 500)
		var total int64
		for i := range 200 {
			size := 1 + (i*7919)%3000
			h.enqueue(uint16(i%50), size)
			total += int64(size)
		}
		h.block(7)
		for _, k := range []Kind{Priority, RoundRobin, FairCapacity, WFQ, RoundRobinPacket, FCFS} {
			for range 37 {
				h.step()
			}
			h.setValue(3, 9)
			h.verify()
			h.switchTo(k) // the pin (a half-sent message) survives the switch
			h.verify()
			if v, _ := h.s.Value(3); v != h.defaultValue() {
				t.Errorf("%v: value %d after switch, want default %d", k, v, h.defaultValue())
			}
		}
		h.unblock(7)
		for h.step() {
			h.verify()
		}
		var served int64
		for sid := range h.q {
			served += h.served[sid]
			if len(h.q[sid]) != 0 {
				t.Errorf("stream %d not drained", sid)
			}
		}
		if served != total {
			t.Errorf("interleaved=%v: served %d bytes of %d", il, served, total)
		}
	}
}

// TestAllStreamsLinear is the test of "sctp: add a refcnt in
// sctp_stream_priorities to avoid a nested loop": 65535 streams all with
// data and custom values, then resized to 0 and freed, for every scheduler.
// Everything here is linear; a quadratic step would take minutes.
func TestAllStreamsLinear(t *testing.T) {
	for _, k := range allKinds {
		s, _ := New(k, Options{Interleaved: true, Streams: MaxStreams})
		for sid := range uint16(MaxStreams) {
			s.SetValue(sid, 1+sid%100)
			s.Enqueue(sid, 1000)
		}
		for range 1000 {
			sid, _ := s.Next()
			s.Sent(sid, 1000, true, true)
		}
		s.Resize(0)
		if _, ok := s.Next(); ok {
			t.Errorf("%v: active stream after Resize(0)", k)
		}
		if err := s.(checker).check(); err != nil {
			t.Errorf("%v: %v", k, err)
		}
	}
}
