package sctp

import (
	"testing"
)

// TestUDPAllocs checks that sending and receiving a message costs no
// allocation in steady state, in the whole process: the user calls, the
// endpoint goroutines, the core and the transport.
func TestUDPAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	l, dc := listenLoop(t, nil)
	c := dialLoop(t, dc)
	defer c.Close()
	s := accept(t, l)
	msg := make([]byte, 1000)
	buf := make([]byte, 2000)
	f := func() {
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ReadMsg(buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 2000 {
		f()
	}
	if n := testing.AllocsPerRun(2000, f); n > 0.05 {
		t.Fatalf("%.3f allocations per message", n)
	}
	cs, ss := c.Stream(2), s.Stream(2)
	g := func() {
		if _, err := cs.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(2000, g); n > 0.05 {
		t.Fatalf("%.3f allocations per stream message", n)
	}
}
