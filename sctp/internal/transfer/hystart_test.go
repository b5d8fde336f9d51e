package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// hsPath returns a path in slow start with RecoveryRACK.
func hsPath(t *testing.T) *Path {
	t.Helper()
	cfg, err := Config{OutStreams: 1, InStreams: 1}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	p := &Path{}
	p.init(&cfg)
	p.cwnd = 20 * p.pmdcs()
	return p
}

// hsRoundOf runs one round on p: n RTT samples of rtt, each SACK
// acknowledging a full chunk in a fully used window, then the round's end.
func hsRoundOf(p *Path, round int, n int, rtt time.Duration) {
	for range n {
		p.hsSample(rtt)
		p.onAck(time.Time{}, p.pmdcs(), p.cwnd)
	}
	end := TSN(1000 + 100*round)
	p.hsRound(end, end+100+1)
}

// RFC 9406 section 4.2: "if (currentRoundMinRTT >= (lastRoundMinRTT +
// RttThresh)) cssBaselineMinRtt = currentRoundMinRTT; exit slow start and
// enter CSS", with "RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
// MIN_RTT_DIVISOR, MAX_RTT_THRESH))"; in CSS "cwnd = cwnd + (min(N, L*SMSS) /
// CSS_GROWTH_DIVISOR)", and "If CSS_ROUNDS rounds are complete, enter
// congestion avoidance by setting the ssthresh to the current cwnd." A
// round whose minimum RTT rose by less than the threshold stays in slow
// start.
func TestHyStartExitsSlowStartOnDelayIncrease(t *testing.T) {
	p := hsPath(t)
	p.hsRound(999, 1000) // the first round starts
	hsRoundOf(p, 1, 8, 100*time.Millisecond)
	// +10 ms is below the threshold: min(100/8, 16) = 12.5 ms.
	hsRoundOf(p, 2, 8, 110*time.Millisecond)
	if p.hs.css {
		t.Fatal("CSS after a rise of 10 ms, below the 12.5 ms threshold")
	}
	// +13 ms over the last round's 110 (threshold 13.75 ms): still slow start.
	hsRoundOf(p, 3, 8, 123*time.Millisecond)
	if p.hs.css {
		t.Fatal("CSS after a rise of 13 ms, below the 13.75 ms threshold")
	}
	// +16 ms over 123 (threshold 15.4 ms): CSS from the eighth sample.
	for i := range 8 {
		p.hsSample(139 * time.Millisecond)
		if got := p.hs.css; got != (i == 7) {
			t.Fatalf("sample %d: CSS %v", i+1, got)
		}
	}
	before := p.cwnd
	p.onAck(time.Time{}, p.pmdcs(), p.cwnd)
	if got, want := p.cwnd-before, p.pmdcs()/hsCSSGrowthDiv; got != want {
		t.Fatalf("CSS growth %d for a chunk acknowledged, want %d", got, want)
	}
	// This round (4) is CSS's first; CSS_ROUNDS of them end it.
	for r := 4; r < 4+hsCSSRounds; r++ {
		if p.ssthresh <= p.cwnd {
			t.Fatalf("round %d: congestion avoidance before CSS_ROUNDS", r)
		}
		hsRoundOf(p, r, 8, 139*time.Millisecond)
	}
	if p.ssthresh != p.cwnd || p.hs.css {
		t.Fatalf("after CSS_ROUNDS: ssthresh %d, cwnd %d, CSS %v; want ssthresh = cwnd", p.ssthresh, p.cwnd, p.hs.css)
	}
}

// RFC 9406 section 4.2: in CSS, "if (currentRoundMinRTT <
// cssBaselineMinRtt) cssBaselineMinRtt = infinity; resume slow start" (the
// exit was spurious); and HyStart++ needs RecoveryRACK's per-SACK samples:
// with RecoveryRFC9260 slow start is RFC 9260's alone.
func TestHyStartSpuriousExitAndRFC9260(t *testing.T) {
	p := hsPath(t)
	p.hsRound(999, 1000)
	hsRoundOf(p, 1, 8, 50*time.Millisecond)
	hsRoundOf(p, 2, 8, 60*time.Millisecond) // +10 ms over the 6.25 ms threshold: CSS
	if !p.hs.css {
		t.Fatal("no CSS after a rise of 10 ms")
	}
	hsRoundOf(p, 3, 8, 55*time.Millisecond) // below the 60 ms baseline
	if p.hs.css || p.ssthresh <= p.cwnd {
		t.Fatalf("CSS %v, ssthresh %d, cwnd %d after the RTT fell back: want slow start", p.hs.css, p.ssthresh, p.cwnd)
	}

	q := hsPath(t)
	q.cfg.Recovery = api.RecoveryRFC9260
	q.hsRound(999, 1000)
	hsRoundOf(q, 1, 8, 50*time.Millisecond)
	hsRoundOf(q, 2, 8, 90*time.Millisecond)
	if q.hs.css {
		t.Fatal("HyStart++ with RecoveryRFC9260")
	}
}
