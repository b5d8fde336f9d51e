package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/plpmtud"
)

// Path is the state of one destination transport address: the RTO
// estimator of RFC 9260 section 6.3.1 and the congestion control variables
// of section 7.2.
type Path struct {
	cfg *Config

	srtt, rttvar, rto time.Duration

	mtu      int
	cwnd     int
	ssthresh int
	pba      int // partial_bytes_acked
	flight   int // bytes of DATA in flight to this path

	inFastRecovery bool
	fastRecoverTSN TSN // exit point of fast recovery

	errors int // error count (section 8.2)

	pmtu plpmtud.Prober // DPLPMTUD, driven by the association
	rack rack           // loss detection by time (RecoveryRACK)
	cc   controller     // congestion control (Config.Paths.CongestionControl)
	ecn  ecnState       // last reduction for an ECN-Echo (ecn.go)
	hs   hystart        // slow start exit (hystart.go)

	// Multi-homing (paths.go): T3-rtx while not the primary (the primary's
	// runs in lossDetector.t3), bytes newly acked while not the primary,
	// whether retransmissions may use it, and its index.
	t3       time.Time
	ackedNow int
	down     bool
	index    uint8

	// measured: a first RTT measurement was made (C2 done). Among the
	// other small fields, so that the Engine holding path 0 fits the
	// 2,688-byte size class with its allocation header.
	measured bool
}

func (p *Path) init(cfg *Config) { p.initFor(cfg, cfg.IPv6) }

// initFor initializes the path for a peer address family (the initial
// cwnd differs).
func (p *Path) initFor(cfg *Config, ipv6 bool) {
	p.cfg = cfg
	p.rto = cfg.RTOInitial
	p.mtu = cfg.MTU
	// RFC 9260 section 7.2.1: "The initial cwnd before data transmission
	// MUST be set to min(4 * PMDCS, max(2 * PMDCS, 4404)) bytes" for IPv4,
	// 4344 for IPv6.
	initial := 4404
	if ipv6 {
		initial = 4344
	}
	p.cwnd = min(4*p.pmdcs(), max(2*p.pmdcs(), initial))
	if cfg.InitialWindow > 0 {
		// RFC 6928 style: a number of full-sized packets.
		p.cwnd = cfg.InitialWindow * p.pmdcs()
	}
	p.cc = newController(cfg.CongestionControl)
	// "The initial value of ssthresh SHOULD be arbitrarily high (e.g.,
	// the size of the largest-possible advertised window)."
	p.ssthresh = int(max(cfg.PeerRwnd, 1<<30))
}

// RTO returns the current retransmission timeout of the path.
func (p *Path) RTO() time.Duration { return p.rto }

// SRTT returns the smoothed round-trip time, or zero before the first
// measurement.
func (p *Path) SRTT() time.Duration { return p.srtt }

// Cwnd returns the congestion window in bytes.
func (p *Path) Cwnd() int { return p.cwnd }

// Ssthresh returns the slow-start threshold in bytes.
func (p *Path) Ssthresh() int { return p.ssthresh }

// MTU returns the path's largest SCTP packet in bytes.
func (p *Path) MTU() int { return p.mtu }

// pmdcs returns the Path Maximum DATA Chunk Size (RFC 9260 section 2.3):
// cwnd, ssthresh and flight size count DATA chunks with header and padding.
func (p *Path) pmdcs() int { return (p.mtu - 12) &^ 3 }

// ErrorCount returns the path's error counter (RFC 9260 section 8.2).
func (p *Path) ErrorCount() int { return p.errors }

// Fault counts one error on the path (an expired T3-rtx or an unanswered
// heartbeat) and returns the new count, for Path.Max.Retrans.
func (p *Path) Fault() int { p.errors++; return p.errors }

// ClearErrors resets the path's error counter (RFC 9260 section 8.2).
func (p *Path) ClearErrors() { p.errors = 0 }

// RTTSample feeds one RTT measurement into the estimator (RFC 9260 section
// 6.3.1 C2 to C7); the association calls it for HEARTBEAT ACKs.
// Non-positive samples are ignored.
func (p *Path) RTTSample(now time.Time, rtt time.Duration) {
	if rtt <= 0 {
		return
	}
	g := p.cfg.Granularity
	if !p.measured {
		// C2: "SRTT = R RTTVAR = R/2 RTO = SRTT + 4 * RTTVAR"
		p.srtt = rtt
		p.rttvar = rtt / 2
		p.measured = true
	} else {
		// C3: "RTTVAR = (1 - RTO.Beta) * RTTVAR + RTO.Beta * |SRTT - R'|
		//      SRTT = (1 - RTO.Alpha) * SRTT + RTO.Alpha * R'"
		d := p.srtt - rtt
		if d < 0 {
			d = -d
		}
		a, b := p.cfg.RTOAlpha, p.cfg.RTOBeta
		p.rttvar = time.Duration((1-b)*float64(p.rttvar) + b*float64(d))
		p.srtt = time.Duration((1-a)*float64(p.srtt) + a*float64(rtt))
	}
	// G1: "Whenever RTTVAR is computed, if RTTVAR == 0, then adjust
	// RTTVAR = G."
	if p.rttvar == 0 {
		p.rttvar = g
	}
	// "After the computation, update: RTO = SRTT + 4 * RTTVAR"
	p.rto = p.srtt + 4*p.rttvar
	p.clampRTO()
}

// undoBackoff restores the estimator's RTO when data sent once was
// acknowledged, without waiting for the next RTT measurement (as usrsctp
// does). It reports whether the RTO changed.
func (p *Path) undoBackoff() bool {
	if !p.measured {
		return false
	}
	rto := p.rto
	p.rto = p.srtt + 4*p.rttvar
	p.clampRTO()
	return p.rto != rto
}

// baseRTO returns the RTO without back-off.
func (p *Path) baseRTO() time.Duration {
	if !p.measured {
		return p.cfg.RTOInitial
	}
	return min(max(p.srtt+4*p.rttvar, p.cfg.RTOMin), p.cfg.RTOMax)
}

// clampRTO applies C6 and C7: RTO.Min and RTO.Max.
func (p *Path) clampRTO() {
	if p.rto < p.cfg.RTOMin {
		p.rto = p.cfg.RTOMin
	}
	if p.rto > p.cfg.RTOMax {
		p.rto = p.cfg.RTOMax
	}
}

// backoff doubles the RTO up to RTO.Max (section 6.3.3 E2).
func (p *Path) backoff() {
	p.rto *= 2
	p.clampRTO()
}

// onT3Expiry reduces the window for a T3-rtx expiry and leaves fast
// recovery.
func (p *Path) onT3Expiry(now time.Time) {
	p.cc.onTimeout(p, now)
	p.pba = 0
	p.inFastRecovery = false
}

// enterFastRecovery reduces the window (section 7.2.4 step 2) and marks
// the exit point.
func (p *Path) enterFastRecovery(now time.Time, highest TSN) {
	p.inFastRecovery = true
	p.fastRecoverTSN = highest
	p.cc.onCongestion(p, now)
	p.pba = 0
}

// onAck adjusts cwnd for acked bytes newly acknowledged; nothing grows in
// fast recovery.
func (p *Path) onAck(now time.Time, acked, flightBefore int) {
	if acked <= 0 || p.inFastRecovery {
		return
	}
	p.cc.onAck(p, now, acked, flightBefore)
}

// idle applies 7.2.1/7.2.2 to a path idle for periods RTOs: "the cwnd of
// the transport address SHOULD be adjusted to max(cwnd / 2, 4 * PMDCS)
// once per RTO", ssthresh set to cwnd before the first adjustment.
func (p *Path) idle(periods int) {
	floor := 4 * p.pmdcs()
	for i := 0; i < periods && p.cwnd > floor; i++ {
		if i == 0 {
			p.ssthresh = p.cwnd
		}
		p.cwnd = max(p.cwnd/2, floor)
	}
}

// ProbeTimeout returns how long a DPLPMTUD probe waits for its
// acknowledgement: twice SRTT (at least SRTT + 4 RTTVAR), since HEARTBEAT
// ACKs are not delayed; RTO.Initial before the first measurement.
func (p *Path) ProbeTimeout() time.Duration {
	if !p.measured {
		return p.rto
	}
	return max(2*p.srtt, p.srtt+4*p.rttvar)
}

// Prober returns the path's DPLPMTUD state machine.
func (p *Path) Prober() *plpmtud.Prober { return &p.pmtu }
