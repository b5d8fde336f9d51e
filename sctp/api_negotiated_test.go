package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestInterleavedAndPeerRwnd: Association.Interleaved reports I-DATA when
// both ends offered it, and Stats.PeerRwnd is the window the peer last
// advertised less the data sent since (the INIT's a_rwnd before any SACK).
func TestInterleavedAndPeerRwnd(t *testing.T) {
	for _, on := range []bool{false, true} {
		adj := func(c *Config) {
			c.Extensions.Interleaving = on
			c.Buffers.RecvBufferMax = -1
		}
		simPairCfg(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, adj, func(t *testing.T, c, s *Association) {
			if c.Interleaved() != on || s.Interleaved() != on {
				t.Errorf("Interleaving %v: Interleaved() = %v, %v", on, c.Interleaved(), s.Interleaved())
			}
			before := c.Stats().PeerRwnd
			if before <= 0 {
				t.Fatalf("PeerRwnd %d before any data", before)
			}
			// Nothing reads: the peer's window fills.
			for range 5 {
				if _, err := c.WriteMsg(make([]byte, 10_000), SendInfo{}); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(time.Second) // virtual
			// The peer's SACKs advertise its 1 MiB receive buffer less what it holds.
			if got := c.Stats().PeerRwnd; got != 1<<20-50_000 {
				t.Errorf("PeerRwnd %d with 50000 bytes held by the peer, want %d", got, 1<<20-50_000)
			}
		})
	}
}
