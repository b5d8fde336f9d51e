package transfer

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestBulkTransfer moves volume in both directions over many streams on a
// lossy, duplicating, reordering simulated network and checks that every
// message arrives exactly once, intact, and in order per stream for
// ordered messages. Under -short (and -race) the volume is smaller.
func TestBulkTransfer(t *testing.T) {
	volume := int64(100 << 20)
	if testing.Short() || raceEnabled {
		volume = 8 << 20
	}
	for _, tc := range []struct {
		name string
		link simnet.LinkConfig
	}{
		{"loss0", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: time.Millisecond}},
		{"loss1", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.01}},
		{"loss10", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10, Dup: 0.02, Reorder: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vol := volume
			start := time.Now()
			cfgA := Config{LocalTSN: 0xffff0000, OutStreams: 64, InStreams: 64, RTOMin: 200 * time.Millisecond}
			cfgB := Config{LocalTSN: 7, OutStreams: 64, InStreams: 64, RTOMin: 200 * time.Millisecond}
			p := newPair(t, 42, tc.link, cfgA, cfgB)
			p.a.unordPct, p.b.unordPct = 10, 10
			p.a.toSend, p.b.toSend = vol, vol
			p.run(t, time.Hour)
			real := time.Since(start)
			t.Logf("%d MiB each way in %v virtual, %v real; A→B link %+v", vol>>20, p.now.Sub(epoch).Round(time.Millisecond), real.Round(time.Millisecond), p.n.Link(0).Stats)
			t.Logf("A: %s", statsLine(&p.a.e.Stats, &p.a.e.Path))
			t.Logf("B: %s", statsLine(&p.b.e.Stats, &p.b.e.Path))
		})
	}
}

func statsLine(s *Stats, p *Path) string {
	return fmt.Sprintf("msgs=%d chunks=%d rtx=%d fastrtx=%d t3=%d dups=%d sacks=%d/%d srtt=%v rto=%v cwnd=%d",
		s.MessagesQueued, s.DataChunksSent, s.Retransmits, s.FastRetransmits, s.T3Expiries, s.DupTSNs, s.SACKsSent, s.SACKsReceived,
		p.SRTT(), p.RTO(), p.Cwnd())
}
