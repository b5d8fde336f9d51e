package sched

import "testing"

// TestNoAllocs: once warm, no scheduler allocates on any per-chunk or
// per-message path.
func TestNoAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	for _, k := range allKinds {
		for _, il := range []bool{false, true} {
			const streams = 3000
			s, _ := New(k, Options{Interleaved: il, Streams: streams})
			for sid := range uint16(streams) {
				s.SetValue(sid, 1+sid%7)
				s.Enqueue(sid, 1000)
				s.Enqueue(sid, 1000)
			}
			i := 0
			step := func() {
				sid, ok := s.Next()
				if !ok {
					t.Fatalf("%v: nothing active", k)
				}
				s.Sent(sid, 600, false, false)
				s.Sent(sid, 400, true, false)
				s.Enqueue(sid, 1000) // keep two messages queued
				s.PacketDone()
				i++
				if i%97 == 0 {
					b := uint16(i % streams)
					s.Block(b)
					s.Next()
					s.Unblock(b)
					s.SetValue(b, uint16(1+i%5))
					s.Value(b)
				}
			}
			for range 20000 {
				step() // warm up: ring and heap pages exist
			}
			if n := testing.AllocsPerRun(20000, step); n != 0 {
				t.Errorf("%v interleaved=%v: %v allocations per chunk", k, il, n)
			}
		}
	}
}
