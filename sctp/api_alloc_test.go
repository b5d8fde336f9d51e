package sctp

import (
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
)

// TestUDPAllocs checks that sending and receiving a message costs no
// allocation in steady state, in the whole process: the user calls, the
// endpoint goroutines, the core and the transport.
func TestUDPAllocs(t *testing.T) {
	if testsupport.RaceEnabled {
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
	// Several streams read through their own handles against arrival
	// order, one message through ReadMsg: each stream has its own queue.
	var cst, sst [4]*Stream
	for i := range cst {
		cst[i], sst[i] = c.Stream(uint16(4+i)), s.Stream(uint16(4+i))
	}
	h := func() {
		for _, st := range cst {
			if _, err := st.Write(msg); err != nil {
				t.Fatal(err)
			}
		}
		for i := len(sst) - 1; i > 0; i-- {
			if _, err := sst[i].Read(buf); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.ReadMsg(buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 500 {
		h()
	}
	if n := testing.AllocsPerRun(500, h); n > 0.2 {
		t.Fatalf("%.3f allocations per 4 messages on 4 streams", n)
	}
}
