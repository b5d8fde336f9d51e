package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimDelayedSACK: SetDelayedSACK changes a running association's
// delayed SACK and DelayedSACK reads it back (the engine's tests check
// what the setting does); a delay over 500 ms is refused, and a closed
// association says so.
func TestSimDelayedSACK(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if d, f, err := s.DelayedSACK(); err != nil || d != 200*time.Millisecond || f != 2 {
			t.Fatalf("default DelayedSACK: %v, %d, %v; want 200ms, 2", d, f, err)
		}
		if err := s.SetDelayedSACK(0, 0); err != nil {
			t.Fatal(err)
		}
		if _, f, _ := s.DelayedSACK(); f != 1 {
			t.Fatalf("SetDelayedSACK(0, 0): frequency %d, want 1 (every packet)", f)
		}
		checkErrText(t, "SetDelayedSACK(501ms)", s.SetDelayedSACK(501*time.Millisecond, 0))
		s.Abort("done")
		if err := s.SetDelayedSACK(time.Millisecond, 0); err == nil {
			t.Fatal("SetDelayedSACK on an aborted association succeeded")
		}
	})
}
