package transfer

import (
	"math"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// controller is the congestion controller of one path: it sizes the
// path's cwnd and ssthresh. The sender enforces the window (section 6.1
// rule B), Max.Burst and fast recovery.
type controller interface {
	// onAck grows the window for acked bytes newly acknowledged outside
	// fast recovery; flightBefore is the flight size before the SACK.
	onAck(p *Path, now time.Time, acked, flightBefore int)
	// onCongestion reduces the window for a loss found from SACKs.
	onCongestion(p *Path, now time.Time)
	// onTimeout reduces the window for a T3-rtx expiry.
	onTimeout(p *Path, now time.Time)
}

// newController returns the controller cc names.
func newController(cc api.CongestionControl) controller {
	if cc == api.CongestionCubic {
		return &cubic{}
	}
	return rfc9260CC{}
}

// rfc9260CC is the congestion control of RFC 9260 section 7.2.
type rfc9260CC struct{}

// onAck applies slow start (7.2.1) and congestion avoidance (7.2.2).
func (rfc9260CC) onAck(p *Path, _ time.Time, acked, flightBefore int) {
	if p.cwnd <= p.ssthresh {
		slowStart(p, acked, flightBefore)
		return
	}
	// 7.2.2: "Whenever cwnd is greater than ssthresh, upon each SACK chunk
	// arrival, increase partial_bytes_acked by the total number of bytes
	// ... of all new DATA chunks acknowledged in that SACK chunk".
	p.pba += acked
	switch {
	case p.pba > p.cwnd && flightBefore < p.cwnd:
		// "When (1) partial_bytes_acked is greater than cwnd and (2)
		// before the arrival of the SACK chunk the sender had less than
		// cwnd bytes of data outstanding ..., reset partial_bytes_acked to
		// cwnd."
		p.pba = p.cwnd
	case p.pba >= p.cwnd && flightBefore >= p.cwnd:
		// "... partial_bytes_acked is reset to (partial_bytes_acked -
		// cwnd). Next, cwnd is increased by PMDCS."
		p.pba -= p.cwnd
		p.cwnd += p.pmdcs()
	}
}

// slowStart applies 7.2.1: "When cwnd is less than or equal to ssthresh,
// an SCTP endpoint MUST use the slow-start algorithm to increase cwnd only
// if the current congestion window is being fully utilized and the data
// sender is not in Fast Recovery. ... cwnd MUST be increased by, at most,
// the lesser of 1) the total size of the previously outstanding DATA
// chunk(s) acknowledged and 2) L times the destination's PMDCS." (L = 1.)
// The window counts as fully utilized when no further full-sized chunk
// would have fitted.
func slowStart(p *Path, acked, flightBefore int) {
	if flightBefore+p.pmdcs() > p.cwnd {
		p.cwnd += p.hsGrowth(min(acked, p.pmdcs())) // HyStart++'s CSS grows a quarter as fast
	}
}

// onCongestion applies 7.2.3 for fast retransmit: "ssthresh = max(cwnd /
// 2, 4 * PMDCS) cwnd = ssthresh partial_bytes_acked = 0".
func (rfc9260CC) onCongestion(p *Path, _ time.Time) {
	p.ssthresh = max(p.cwnd/2, 4*p.pmdcs())
	p.cwnd = p.ssthresh
}

// onTimeout applies 7.2.3 for a retransmission timeout: "ssthresh =
// max(cwnd / 2, 4 * PMDCS) cwnd = PMDCS partial_bytes_acked = 0".
func (rfc9260CC) onTimeout(p *Path, _ time.Time) {
	p.ssthresh = max(p.cwnd/2, 4*p.pmdcs())
	p.cwnd = p.pmdcs()
}

// CUBIC constants (RFC 9438 section 4.1 and 4.2).
const (
	cubicC    = 0.4
	cubicBeta = 0.7
)

// cubic is CUBIC (RFC 9438), with windows counted in PMDCS-sized chunks
// and RFC 9260's slow start.
type cubic struct {
	wMax     float64   // window before the last reduction
	wLastMax float64   // the one before, for fast convergence
	k        float64   // seconds until W_cubic reaches wMax again
	epoch    time.Time // start of the current congestion avoidance
	wEst     float64   // Reno-friendly window estimate
	acc      float64   // fractional chunks of growth not yet added
}

// onAck: slow start below ssthresh, then section 4.2's cubic and
// Reno-friendly growth, only when the window is used.
func (c *cubic) onAck(p *Path, now time.Time, acked, flightBefore int) {
	if p.cwnd <= p.ssthresh {
		slowStart(p, acked, flightBefore)
		return
	}
	mss := float64(p.pmdcs())
	if flightBefore+p.pmdcs() <= p.cwnd {
		return // application or receiver limited: no growth (section 5.8)
	}
	cwnd := float64(p.cwnd) / mss
	if c.epoch.IsZero() {
		// Congestion avoidance without a reduction before (slow start
		// ended by ssthresh): start the curve at the current window.
		c.epoch = now
		c.wMax = cwnd
		c.k = 0
		c.wEst = cwnd
	}
	t := now.Sub(c.epoch).Seconds()
	rtt := p.srtt.Seconds()
	if rtt == 0 {
		rtt = p.rto.Seconds()
	}
	target := c.wCubic(t + rtt)
	target = math.Min(math.Max(target, cwnd), 1.5*cwnd)
	// Section 4.3: W_est grows by alpha_cubic segments per window.
	ackedSeg := float64(acked) / mss
	c.wEst += 3 * (1 - cubicBeta) / (1 + cubicBeta) * ackedSeg / cwnd
	var grow float64
	if c.wCubic(t) < c.wEst {
		grow = math.Max(c.wEst-cwnd, 0)
	} else {
		// Section 4.4: cwnd grows by (target - cwnd) / cwnd per chunk acked.
		grow = (target - cwnd) / cwnd * ackedSeg
	}
	c.acc += grow * mss
	if c.acc >= 1 {
		inc := int(c.acc)
		// Never more than one chunk per chunk acknowledged.
		inc = min(inc, acked)
		p.cwnd += inc
		c.acc -= float64(inc)
		if c.acc > mss {
			c.acc = mss
		}
	}
}

// wCubic returns W_cubic(t) (section 4.2, equation 1).
func (c *cubic) wCubic(t float64) float64 {
	d := t - c.k
	return cubicC*d*d*d + c.wMax
}

// onCongestion applies section 4.6 (multiplicative decrease, beta 0.7) and
// 4.7 (fast convergence), with RFC 9260's floor of 4 PMDCS.
func (c *cubic) onCongestion(p *Path, now time.Time) {
	c.reduce(p, now)
	p.cwnd = p.ssthresh
}

// onTimeout applies section 4.8: the reduction of onCongestion for
// ssthresh and a window of one chunk (RFC 9260 section 7.2.3).
func (c *cubic) onTimeout(p *Path, now time.Time) {
	c.reduce(p, now)
	p.cwnd = p.pmdcs()
}

func (c *cubic) reduce(p *Path, now time.Time) {
	mss := float64(p.pmdcs())
	cwnd := float64(p.cwnd) / mss
	if cwnd < c.wLastMax {
		// Fast convergence (section 4.7): W_max = cwnd * (1 + beta) / 2.
		c.wMax = cwnd * (1 + cubicBeta) / 2
	} else {
		c.wMax = cwnd
	}
	c.wLastMax = cwnd
	p.ssthresh = max(int(cwnd*cubicBeta*mss), 4*p.pmdcs())
	c.k = math.Cbrt(c.wMax * (1 - cubicBeta) / cubicC)
	c.epoch = now
	c.wEst = float64(p.ssthresh) / mss
	c.acc = 0
}
