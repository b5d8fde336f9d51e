package sctp

import (
	"bytes"
	"testing"
	"time"

	"github.com/usctp/usctp/interleave"
)

// Over UDP with GRO the received fragments reference the socket reader's
// buffers (interleave.Pool.Lend) while the reader reads on into fresh
// ones: messages of many sizes, read in parts, read back as sent,
// and once everything is read no buffer is held beyond the readers' own.
func TestUDPLentBuffers(t *testing.T) {
	l, dc := listenLoop(t, nil)
	c := dialLoop(t, dc)
	defer c.Close()
	s := accept(t, l)
	msg := func(i int) []byte {
		p := make([]byte, 300+(i*7919)%70000)
		for k := range p {
			p[k] = byte(i + k*13 + k>>9)
		}
		return p
	}
	const n = 300
	out := interleave.RecvBufsOut()
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := c.WriteMsg(msg(i), SendInfo{Stream: uint16(i % 3)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	s.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 5000) // messages read in parts
	var got []byte
	peak := out // the most buffers out: more when fragments kept some
	for i := 0; i < n; {
		k, info, err := s.ReadMsg(buf)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		got = append(got, buf[:k]...)
		if !info.EOR {
			continue
		}
		if want := msg(i); !bytes.Equal(got, want) {
			t.Fatalf("message %d: read %d bytes differing from the %d sent", i, len(got), len(want))
		}
		got, i = got[:0], i+1
		peak = max(peak, interleave.RecvBufsOut())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if peak == out {
		t.Fatal("no fragment referenced a receive buffer")
	}
	if st := s.Stats(); st.RecvMemory != 0 {
		t.Fatalf("%d bytes still charged with everything read", st.RecvMemory)
	}
	if now := interleave.RecvBufsOut(); now != out {
		t.Fatalf("%d receive buffers out after everything was read, %d before", now, out)
	}
}
