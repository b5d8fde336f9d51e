package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// windowKept checks the window rules after a send opportunity: the flight
// stays within cwnd plus one packet (RFC 9260 section 6.1 rule B lets the
// last chunk cross cwnd; a fast retransmission may add one packet).
func windowKept(t *testing.T, x *tx, what string) {
	t.Helper()
	p := &x.e.path
	if p.flight > p.cwnd+2*p.MTU() {
		t.Fatalf("%s: flight %d over cwnd %d", what, p.flight, p.cwnd)
	}
	checkInvariants(t, &x.e.send)
}

// Hostile acknowledgements with RACK-style detection: a peer that reneges
// on everything it gap-acked, over and over, gets the data again but never
// more than the window allows per SACK, and the window does not grow; a
// peer whose SACKs never move, with floods of duplicate reports, gets one
// fast retransmission, a bounded number of probes, then T3-rtx with its
// back-off (which the association counts against Association.Max.Retrans).
func TestHostileAcksRACK(t *testing.T) {
	t.Run("reneging", func(t *testing.T) {
		x := newTx(t, Config{Paths: api.Paths{MaxBurst: 4}})
		measured(t, x, 10*time.Millisecond)
		x.e.path.cwnd = 20 * testPMDCS
		x.e.path.ssthresh = 20 * testPMDCS
		x.queue(200, 1000)
		x.flush()
		cwnd0 := x.e.path.cwnd
		sacks := 0
		for i := range 1000 {
			x.advance(time.Millisecond)
			top := uint16(x.e.NextTSN() - 1001)
			if i%2 == 0 {
				x.mustSACK(1000, api.DefaultBuffer, 2, top) // all but 1001
			} else {
				x.mustSACK(1000, api.DefaultBuffer) // reneged
			}
			sacks++
			before := x.e.stats.Retransmits + x.e.stats.DataChunksSent
			x.flush()
			if n := x.e.stats.Retransmits + x.e.stats.DataChunksSent - before; n > uint64(x.e.path.cwnd/chunk1000+2) {
				t.Fatalf("SACK %d: %d chunks sent at one opportunity, cwnd %d", i, n, x.e.path.cwnd)
			}
			windowKept(t, x, "reneging")
		}
		if x.e.path.cwnd > cwnd0 {
			t.Fatalf("cwnd grew from %d to %d on reneged acknowledgements", cwnd0, x.e.path.cwnd)
		}
		t.Logf("%d SACKs, %d retransmissions, %d reneged", sacks, x.e.stats.Retransmits, x.e.stats.Reneged)
	})
	t.Run("stuck", func(t *testing.T) {
		x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
		measured(t, x, 10*time.Millisecond)
		x.e.path.cwnd = 20 * testPMDCS
		x.queue(20, 1000)
		if got := x.flush(); len(got) != 20 {
			t.Fatalf("sent %d chunks", len(got))
		} // 1001..1020
		dups := make([]TSN, 4000)
		for i := range dups {
			dups[i] = 1001
		}
		end := x.now.Add(10 * time.Second)
		for x.now.Before(end) {
			x.advance(time.Millisecond)
			x.e.OnTimeout(x.now)
			// The same SACK every millisecond: 1001 missing, the rest
			// arrived, and every chunk reported again and again.
			if _, err := x.e.HandleSACK(x.now, &SACK{CumTSNAck: 1000, ARwnd: api.DefaultBuffer,
				Gaps: []GapBlock{{Start: 2, End: 20}}, Dups: dups}); err != nil {
				t.Fatal(err)
			}
			x.flush()
			windowKept(t, x, "stuck")
		}
		st := x.e.stats
		// One fast retransmission, then T3-rtx at 1 s (RTO.Min), 2 s,
		// 4 s after it: 4 retransmissions in 10 s.
		if st.Retransmits > 5 || st.T3Expiries != 3 || st.Probes > maxProbes {
			t.Fatalf("retransmits %d, T3 expiries %d, probes %d", st.Retransmits, st.T3Expiries, st.Probes)
		}
		if st.SpuriousRetransmits > st.Retransmits {
			t.Fatalf("%d spurious retransmissions of %d", st.SpuriousRetransmits, st.Retransmits)
		}
		if k := x.e.path.rack; k.reoMult > 1 {
			t.Fatalf("reordering window multiplier %d from duplicates of a SACK that never moves", k.reoMult)
		}
		t.Logf("10 s of stuck SACKs: %+v", st)
	})
}
