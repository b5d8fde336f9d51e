package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// TestSimHighBDPAutotune: over the public API with the default
// configuration (1 MiB buffers, autotuning up to 16 MiB), one association
// on a 100 Mbit/s path with a 100 ms round trip and no random loss
// carries at least 90% of the link in user data over the second half of
// a 48 MiB transfer: the buffers grow to the bandwidth-delay product by
// themselves. With autotuning off the 1 MiB window caps it below that.
func TestSimHighBDPAutotune(t *testing.T) {
	if testing.Short() || testsupport.RaceEnabled {
		t.Skip("long")
	}
	const rate = 100e6 / 8
	link := simnet.LinkConfig{Delay: 50 * time.Millisecond, Rate: rate, QueueBytes: rate / 10}
	const volume = 48 << 20
	run := func(adj func(*Config)) (bps float64, cs Stats) {
		simPairAdj(t, link, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
			var half time.Time
			simBulk(t, c, s, volume, func(got int) {
				if half.IsZero() && got >= volume/2 {
					half = time.Now()
				}
			})
			bps = float64(volume/2) * 8 / time.Since(half).Seconds()
			cs = c.Stats()
		})
		return bps, cs
	}
	fixed, _ := run(func(c *Config) { c.Buffers.RecvBufferMax, c.Buffers.SendBufferMax = -1, -1 })
	bps, cs := run(nil)
	t.Logf("fixed 1 MiB buffers: %.1f Mbit/s; autotuned: %.1f Mbit/s (cwnd %d, %s)", fixed/1e6, bps/1e6, cs.Cwnd, lossCounters(cs))
	if bps < 90e6 {
		t.Errorf("autotuned: %.1f Mbit/s, want at least 90", bps/1e6)
	}
	if fixed >= 90e6 {
		t.Errorf("fixed 1 MiB buffers: %.1f Mbit/s; the test does not need autotuning", fixed/1e6)
	}
}
