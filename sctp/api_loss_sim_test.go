package sctp

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// simLossTransfer sends volume bytes from c to s over a 20 ms path with
// random loss and returns the virtual time it took and c's counters.
func simLossTransfer(t *testing.T, loss float64, volume int, adj func(*Config)) (d time.Duration, st Stats) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Loss: loss}
	simPairAdj(t, link, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		start := time.Now()
		simBulk(t, c, s, volume, nil)
		d, st = time.Since(start), c.Stats()
	})
	return d, st
}

// TestSimLossRecovery: over the public API, random loss of 1% and 5% on a
// 20 ms path is recovered from acknowledgements (fast retransmissions,
// repeated when a retransmission is lost) without a T3-rtx expiry, while
// RFC 9260's rules need the timer; the counters say so.
func TestSimLossRecovery(t *testing.T) {
	volume := 2 << 20
	if testing.Short() || testsupport.RaceEnabled {
		volume = 512 << 10
	}
	for _, loss := range []float64{0.01, 0.05} {
		d, st := simLossTransfer(t, loss, volume, nil)
		t.Logf("RACK %g%%: %v, %s", loss*100, d.Round(time.Millisecond), lossCounters(st))
		if st.T3Expiries != 0 {
			t.Errorf("%g%% loss: %d T3-rtx expiries with RACK-style recovery", loss*100, st.T3Expiries)
		}
		if st.FastRetransmit == 0 {
			t.Errorf("%g%% loss: no fast retransmission", loss*100)
		}
	}
	d, st := simLossTransfer(t, 0.05, volume, func(c *Config) {
		c.Paths.Recovery, c.Paths.CongestionControl = RecoveryRFC9260, CongestionCubic
	})
	t.Logf("RFC 9260 5%%: %v, %s", d.Round(time.Millisecond), lossCounters(st))
	if st.RepeatFastRetransmits != 0 || st.Probes != 0 {
		t.Errorf("RFC 9260 rules: %d repeat fast retransmissions, %d probes", st.RepeatFastRetransmits, st.Probes)
	}
}

func lossCounters(s Stats) string {
	return fmt.Sprintf("retransmits %d (fast %d, repeat %d, probes %d, T3 %d, spurious %d, recoveries %d, RTO undos %d)",
		s.Retransmits, s.FastRetransmit, s.RepeatFastRetransmits, s.Probes, s.T3Expiries, s.SpuriousRetransmits, s.FastRecoveries, s.RTOUndos)
}
