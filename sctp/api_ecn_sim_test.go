package sctp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"

	"github.com/usctp/usctp/internal/testsupport"
)

// simECNTransfer sends volume bytes from c to s through a 10 Mbit/s
// bottleneck with a 20 ms round trip whose queue drops beyond 64 KB and
// marks ECN-capable packets CE beyond 16 KB, and returns both ends'
// counters and the forward link's.
func simECNTransfer(t *testing.T, volume int, adj func(*Config)) (cs, ss Stats, ls simnet.LinkStats, on bool) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Rate: 10e6 / 8, QueueBytes: 64 << 10, MarkQueueBytes: 16 << 10}
	simPairAdj(t, link, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		simBulk(t, c, s, volume, nil)
		cs, ss, on = c.Stats(), s.Stats(), c.ECN() && s.ECN()
		ls = n.LinkStats(netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899"))
	})
	return cs, ss, ls, on
}

// TestSimECN: over the public API through a bottleneck that marks CE
// before its queue overflows (RFC 3168 section 5: a router "sets the CE
// codepoint ... instead of dropping the packet", paraphrase), ECN is
// negotiated by default, the receiver echoes the marks, and the sender
// halves its window for them without losing packets, where without ECN
// the same queue drops and the sender recovers from losses.
func TestSimECN(t *testing.T) {
	volume := 4 << 20
	if testing.Short() || testsupport.RaceEnabled {
		volume = 1 << 20
	}
	cs, ss, ls, on := simECNTransfer(t, volume, nil)
	if !on {
		t.Error("ECN not negotiated by default")
	}
	t.Logf("ECN: marked %d, queue drops %d; receiver marks %d, ECNEs out %d, CWRs in %d; sender ECNEs in %d, reductions %d, CWRs out %d, %s",
		ls.Marked, ls.QueueDrops, ss.ECNMarks, ss.ECNEchoesOut, ss.CWRsIn, cs.ECNEchoesIn, cs.ECNReductions, cs.CWRsOut, lossCounters(cs))
	if ls.Marked == 0 || ss.ECNMarks == 0 || ss.ECNEchoesOut == 0 || cs.ECNEchoesIn == 0 || cs.ECNReductions == 0 || cs.CWRsOut == 0 || ss.CWRsIn == 0 {
		t.Errorf("ECN exchange incomplete")
	}
	if ls.QueueDrops != 0 || cs.Retransmits != 0 {
		t.Errorf("with ECN: %d queue drops, %d retransmissions; want none", ls.QueueDrops, cs.Retransmits)
	}
	if cs.ECNReductions >= cs.ECNEchoesIn && cs.ECNEchoesIn > 1 {
		t.Errorf("%d reductions for %d ECNEs: not once per window", cs.ECNReductions, cs.ECNEchoesIn)
	}
	cs, ss, ls, on = simECNTransfer(t, volume, func(c *Config) { c.Extensions.DisableECN = true })
	if on {
		t.Error("ECN negotiated with DisableECN")
	}
	t.Logf("no ECN: marked %d, queue drops %d; %s", ls.Marked, ls.QueueDrops, lossCounters(cs))
	if ls.Marked != 0 || ss.ECNEchoesOut != 0 || cs.ECNReductions != 0 {
		t.Errorf("DisableECN: %d marked, %d ECNEs, %d reductions", ls.Marked, ss.ECNEchoesOut, cs.ECNReductions)
	}
	if ls.QueueDrops == 0 {
		t.Errorf("DisableECN: no queue drop; the test's queue does not overflow")
	}
}
