package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestStreamReadable: Readable says whether a read of the stream returns
// at once: false before anything arrived and after the stream's messages
// were read, true while one waits, per stream; a read with a passed
// deadline still fails, so a drain that must not wait asks Readable.
func TestStreamReadable(t *testing.T) {
	simPairCfg(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, nil, func(t *testing.T, c, s *Association) {
		in := s.Stream(5)
		if in.Readable() {
			t.Fatal("Readable before anything was sent")
		}
		for _, msg := range []string{"one", "two"} {
			if _, err := c.Stream(5).Write([]byte(msg)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second) // virtual: both messages are in
		if !in.Readable() {
			t.Fatal("not Readable with two messages queued")
		}
		if s.Stream(6).Readable() {
			t.Fatal("another stream Readable")
		}
		in.SetReadDeadline(time.Now().Add(-time.Second))
		if _, _, err := in.ReadMsg(make([]byte, 10)); err == nil {
			t.Fatal("a read with a passed deadline succeeded")
		}
		in.SetReadDeadline(time.Time{})
		buf := make([]byte, 10)
		var got []string
		for in.Readable() {
			n, _, err := in.ReadMsg(buf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(buf[:n]))
		}
		if len(got) != 2 || got[0] != "one" || got[1] != "two" {
			t.Fatalf("drained %q, want [one two]", got)
		}
	})
}
