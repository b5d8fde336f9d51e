package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/plpmtud"
)

// Path is the state of the association's destination transport address:
// the retransmission timeout estimator of RFC 9260 section 6.3.1 and the
// congestion control variables of section 7.2. The association reads it for
// its own timers and feeds it heartbeat round-trip measurements.
type Path struct {
	cfg *Config

	srtt, rttvar, rto time.Duration
	measured          bool // a first RTT measurement was made (C2 done)

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

	// Multi-homing (paths.go): the path's T3-rtx deadline while it is not
	// the primary (the primary's runs in sender.t3), bytes a SACK newly
	// acknowledged on it while it is not the primary, whether the
	// association lets retransmissions use it, and its index.
	t3       time.Time
	ackedNow int
	down     bool
	index    uint8
}

func (p *Path) init(cfg *Config) { p.initFor(cfg, cfg.IPv6) }

// initFor initializes the path for a peer address of the family given by
// ipv6 (the initial cwnd differs).
func (p *Path) initFor(cfg *Config, ipv6 bool) {
	p.cfg = cfg
	p.rto = cfg.RTOInitial
	p.mtu = cfg.MTU
	// RFC 9260 section 7.2.1: "The initial cwnd before data transmission
	// MUST be set to min(4 * PMDCS, max(2 * PMDCS, 4404)) bytes if the peer
	// address is an IPv4 address and to min(4 * PMDCS, max(2 * PMDCS,
	// 4344)) bytes if the peer address is an IPv6 address."
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

// pmdcs returns the Path Maximum DATA Chunk Size: "The maximum size
// (including the DATA chunk header) of a DATA chunk that fits into an SCTP
// packet not exceeding the PMTU" (RFC 9260 section 2.3). cwnd, ssthresh and
// flight size count DATA chunks with their headers and padding.
func (p *Path) pmdcs() int { return (p.mtu - 12) &^ 3 }

// ErrorCount returns the path's error counter (RFC 9260 section 8.2).
func (p *Path) ErrorCount() int { return p.errors }

// Fault counts one error on the path: an expired T3-rtx (counted by the
// engine itself) or an unanswered heartbeat (counted by the association).
// It returns the new count, which the association compares with
// Path.Max.Retrans.
func (p *Path) Fault() int { p.errors++; return p.errors }

// ClearErrors resets the path's error counter: section 8.2, "When an
// outstanding TSN is acknowledged or a HEARTBEAT chunk sent to that address
// is acknowledged with a HEARTBEAT ACK chunk, the endpoint SHOULD clear the
// error counter of the destination transport address".
func (p *Path) ClearErrors() { p.errors = 0 }

// RTTSample feeds one round-trip time measurement R into the estimator
// (RFC 9260 section 6.3.1 rules C2 to C7). The engine calls it for DATA
// acknowledged without retransmission (Karn's rule); the association calls
// it for HEARTBEAT ACKs. Non-positive samples are ignored.
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

// undoBackoff ends an RTO back-off when new data (chunks sent once, so
// Karn's rule holds) was acknowledged: the path works again, and its RTO
// is the estimator's, SRTT + 4 * RTTVAR, without waiting for the next RTT
// measurement (usrsctp does the same). It reports whether the RTO changed.
func (p *Path) undoBackoff() bool {
	if !p.measured {
		return false
	}
	rto := p.rto
	p.rto = p.srtt + 4*p.rttvar
	p.clampRTO()
	return p.rto != rto
}

// baseRTO returns the RTO without back-off: the estimator's value, or
// RTO.Initial before the first measurement.
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

// backoff doubles the RTO up to RTO.Max (section 6.3.3 rule E2: "back off
// the timer") on a T3-rtx expiry.
func (p *Path) backoff() {
	p.rto *= 2
	p.clampRTO()
}

// onT3Expiry reacts to a retransmission timeout through the path's
// congestion controller and leaves fast recovery.
func (p *Path) onT3Expiry(now time.Time) {
	p.cc.onTimeout(p, now)
	p.pba = 0
	p.inFastRecovery = false
}

// enterFastRecovery reduces the window through the congestion controller
// (section 7.2.4 step 2 with 7.2.3 for RFC 9260's) and marks the exit
// point.
func (p *Path) enterFastRecovery(now time.Time, highest TSN) {
	p.inFastRecovery = true
	p.fastRecoverTSN = highest
	p.cc.onCongestion(p, now)
	p.pba = 0
}

// onAck adjusts cwnd for a SACK that newly acknowledged acked bytes of
// DATA chunks; flightBefore is the flight size before the SACK. Nothing
// grows in fast recovery.
func (p *Path) onAck(now time.Time, acked, flightBefore int) {
	if acked <= 0 || p.inFastRecovery {
		return
	}
	p.cc.onAck(p, now, acked, flightBefore)
}

// idle applies the rule of 7.2.1 and 7.2.2 for a path without
// transmissions: "the cwnd of the transport address SHOULD be adjusted to
// max(cwnd / 2, 4 * PMDCS) once per RTO. Before the first cwnd adjustment,
// the ssthresh of the transport address SHOULD be set to the cwnd." periods
// is the number of whole RTOs the path was idle.
func (p *Path) idle(periods int) {
	floor := 4 * p.pmdcs()
	for i := 0; i < periods && p.cwnd > floor; i++ {
		if i == 0 {
			p.ssthresh = p.cwnd
		}
		p.cwnd = max(p.cwnd/2, floor)
	}
}

// ProbeTimeout returns how long a probe on path p waits for its
// acknowledgement: RFC 8899's PROBE_TIMER must exceed the round trip; a
// HEARTBEAT ACK is never delayed by the peer, so twice the smoothed RTT
// (at least SRTT + 4 RTTVAR) suffices; RTO.Initial before the first
// measurement; the prober keeps it at 1 s at least. A probe acknowledged
// after it still counts while its size is retried (the retries keep the
// nonce).
func (p *Path) ProbeTimeout() time.Duration {
	if !p.measured {
		return p.rto
	}
	return max(2*p.srtt, p.srtt+4*p.rttvar)
}

// Prober returns the path's DPLPMTUD state machine (disabled until the
// association starts it).
func (p *Path) Prober() *plpmtud.Prober { return &p.pmtu }
