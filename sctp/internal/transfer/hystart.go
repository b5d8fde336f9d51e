package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// HyStart++ (RFC 9406) ends slow start when the RTT starts to rise: after
// a rise of max(4 ms, min(lastRTT / 8, 16 ms)) between rounds' minimum
// RTTs, the window grows a quarter as fast (CSS) for up to CSS_ROUNDS
// rounds, then ssthresh is set; a round whose minimum falls back below the
// CSS baseline resumes slow start. It runs only with RecoveryRACK, whose
// per-SACK RTT samples give the samples per round it needs.

// RFC 9406 section 4.3 constants.
const (
	hsMinRTTThresh  = 4 * time.Millisecond
	hsMaxRTTThresh  = 16 * time.Millisecond
	hsMinRTTDivisor = 8
	hsNRTTSample    = 8
	hsCSSGrowthDiv  = 4
	hsCSSRounds     = 5
)

// hystart is a path's HyStart++ state.
type hystart struct {
	started   bool
	windowEnd TSN           // the round ends when this TSN is acknowledged
	lastMin   time.Duration // lastRoundMinRTT (0: infinity)
	curMin    time.Duration // currentRoundMinRTT (0: infinity)
	samples   int           // rttSampleCount
	css       bool          // in Conservative Slow Start
	cssBase   time.Duration // cssBaselineMinRtt
	cssRounds int
}

// hsActive reports whether HyStart++ applies to p now.
func (p *Path) hsActive() bool {
	return p.cfg.Recovery == api.RecoveryRACK && p.cwnd <= p.ssthresh && !p.inFastRecovery
}

// hsRound runs after a SACK moved the cumulative ack to cum: it starts the
// next round when one ended (section 4.2), and ends CSS after CSS_ROUNDS.
func (p *Path) hsRound(cum, next TSN) {
	h := &p.hs
	if !p.hsActive() {
		*h = hystart{}
		return
	}
	if h.started && cum.LT(h.windowEnd) {
		return
	}
	if h.started && h.css {
		if h.cssRounds++; h.cssRounds >= hsCSSRounds {
			// "If CSS_ROUNDS rounds are complete, enter congestion
			// avoidance by setting the ssthresh to the current cwnd."
			p.ssthresh = p.cwnd
			*h = hystart{}
			return
		}
	}
	h.started, h.windowEnd = true, next-1
	h.lastMin, h.curMin, h.samples = h.curMin, 0, 0
}

// hsSample takes one RTT sample in slow start or CSS and applies the
// delay-increase check of section 4.2.
func (p *Path) hsSample(rtt time.Duration) {
	h := &p.hs
	if !h.started || !p.hsActive() || rtt <= 0 {
		return
	}
	if h.curMin == 0 || rtt < h.curMin {
		h.curMin = rtt
	}
	h.samples++
	if h.samples < hsNRTTSample || h.lastMin == 0 {
		return
	}
	if !h.css {
		thresh := max(hsMinRTTThresh, min(h.lastMin/hsMinRTTDivisor, hsMaxRTTThresh))
		if h.curMin >= h.lastMin+thresh {
			h.css, h.cssBase, h.cssRounds = true, h.curMin, 0
		}
	} else if h.curMin < h.cssBase {
		// "the previous exit from slow start was spurious": resume.
		h.css, h.cssBase = false, 0
	}
}

// hsGrowth returns what slow start adds for n bytes acknowledged.
func (p *Path) hsGrowth(n int) int {
	if p.hs.css {
		return n / hsCSSGrowthDiv
	}
	return n
}
