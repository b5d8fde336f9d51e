package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Loss detection by time after RACK-TLP (RFC 8985), adapted to SCTP's
// SACKs (RecoveryRACK, the default).
//
// RACK: a chunk still in flight that was sent before the newest chunk
// acknowledged, longer ago than that chunk's round trip plus a reordering
// window, is lost. Retransmissions are treated alike, so a lost
// retransmission is found without waiting for T3-rtx. The reordering
// window starts at a quarter of the minimum RTT (zero in recovery until
// reordering is seen) and grows by that much, up to SRTT, per round trip
// in which the peer reports a duplicate of a retransmitted chunk (SCTP's
// DSACK, RFC 8985 section 6.2).
//
// TLP: when no acknowledgement came for two SRTTs, a probe goes out with
// the I bit (RFC 7053) so RACK can find tail losses in about two round
// trips instead of an RTO.
//
// Transmissions are ordered by record.seq, not by TSN and time: a
// retransmission carries an old TSN, and a burst shares one send time.

// rack is the loss-detection state of one path.
type rack struct {
	xmit   time.Time     // send time of the newest chunk acknowledged
	seq    uint32        // its transmission number (sender.nextSeq)
	rtt    time.Duration // its round-trip time
	valid  bool          // xmit, seq and rtt are set
	minRTT time.Duration // smallest RTT of an acknowledged chunk sent once
	fack   TSN           // highest TSN acknowledged by the peer so far
	fackOK bool

	reordering bool // a chunk sent once arrived after a later one
	reoMult    int  // reordering window in quarters of minRTT
	dsackRound TSN  // a window increase waits until this TSN is acknowledged
	dsackOn    bool
	recoveries int // loss recoveries since reoMult was last reset

	timer  time.Time // reordering timeout: a suspect becomes lost then
	pto    time.Time // tail loss probe deadline
	probes int       // probes sent since the last new acknowledgement
	lone   bool      // pto was armed for a lone chunk in flight
}

// PTO bounds: a probe waits at least tlpFloor, and a lone packet also for
// the peer's delayed SACK. A lost probe is followed by another after twice
// the wait, up to maxProbes before T3-rtx (RFC 8985 sends one; more spare
// an RTO when a probe is lost).
const (
	tlpFloor      = 10 * time.Millisecond
	maxProbes     = 3
	reoRecoveries = 16 // window multiplier reset, as RFC 8985 section 6.2 step 4
)

// sentAfter is RFC 8985's RACK_sent_after, by transmission number.
func sentAfter(s1, s2 uint32) bool { return int32(s1-s2) > 0 }

// rackAcked notes the acknowledgement of chunk r (TSN t) for RACK (RFC
// 8985 section 6.2 steps 1 to 3), before r's state changes. Only the
// newest transmissions acknowledged matter, so it keeps the newest sent
// once and the newest retransmitted; rackUpdate reads the clock once per
// SACK.
func (s *sender) rackAcked(t TSN, r *record) {
	k := &s.paths.primary.rack
	if r.xmits == 1 {
		s.loss.ackedSentOnce = true
		// Step 3: reordering is a chunk sent once arriving after a higher TSN.
		if k.fackOK && t.LT(k.fack) {
			k.reordering = true
		}
		if s.loss.newestOnce == nil || sentAfter(r.seq, s.loss.newestOnce.seq) {
			s.loss.newestOnce = r
		}
	} else if s.loss.newestRtx == nil || sentAfter(r.seq, s.loss.newestRtx.seq) {
		s.loss.newestRtx = r
	}
	if !k.fackOK || t.GT(k.fack) {
		k.fack, k.fackOK = t, true
	}
}

// rackUpdate moves RACK's reference to the newest transmission this SACK
// acknowledged (steps 1 and 2) and updates the minimum RTT.
func (s *sender) rackUpdate(now time.Time) {
	k := &s.paths.primary.rack
	if r := s.loss.newestOnce; r != nil {
		rtt := now.Sub(r.sent)
		if k.minRTT == 0 || rtt < k.minRTT {
			k.minRTT = rtt
		}
		s.paths.primary.hsSample(rtt)
		s.rackMove(r, rtt)
	}
	if r := s.loss.newestRtx; r != nil {
		// Step 2: a retransmission acked within min_RTT was acked for an
		// earlier transmission; its time says nothing.
		if rtt := now.Sub(r.sent); rtt >= k.minRTT {
			s.rackMove(r, rtt)
		}
	}
	s.loss.newestOnce, s.loss.newestRtx = nil, nil
}

// rackMove makes transmission r, acknowledged after rtt, the reference
// when it is newer than the current one.
func (s *sender) rackMove(r *record, rtt time.Duration) {
	k := &s.paths.primary.rack
	if !k.valid || sentAfter(r.seq, k.seq) {
		k.xmit, k.seq, k.rtt, k.valid = r.sent, r.seq, rtt, true
	}
}

// rackDuplicates adapts the reordering window to duplicate reports of
// retransmitted chunks (RFC 8985 section 6.2 step 4) and counts spurious
// retransmissions once per transmission. Duplicates of chunks sent once
// are the network's and change nothing.
func (s *sender) rackDuplicates(dups []TSN) {
	k := &s.paths.primary.rack
	for _, d := range dups {
		// The ring still holds d's record while fewer than len(recs) TSNs were
		// used since.
		if !d.LT(s.ledger.nextTSN) || s.ledger.nextTSN-d > TSN(len(s.ledger.recs)) {
			continue
		}
		r := s.ledger.rec(d)
		if r.xmits < 2 || r.marks&markDupSeen != 0 {
			continue
		}
		r.marks |= markDupSeen
		s.stats.SpuriousRetransmits++
		if s.cfg.Recovery != api.RecoveryRACK {
			continue
		}
		if k.dsackOn && s.ledger.cumAck.LT(k.dsackRound) {
			continue // once per round trip
		}
		k.reoMult++
		k.dsackRound, k.dsackOn = s.ledger.nextTSN, true
		k.recoveries = 0
	}
}

// reoWnd returns the reordering window (RFC 8985 section 6.2 step 4).
func (s *sender) reoWnd() time.Duration {
	k := &s.paths.primary.rack
	if !k.reordering && (s.paths.primary.inFastRecovery || s.loss.t3Recovery || s.ledger.gapAcked >= 3) {
		return 0
	}
	w := time.Duration(max(k.reoMult, 1)) * k.minRTT / 4
	if s.paths.primary.measured && w > s.paths.primary.srtt {
		w = s.paths.primary.srtt
	}
	return w
}

// rackDetect marks the chunks RACK finds lost (RFC 8985 section 6.2 step
// 5), arms the reordering timer for the suspects, and reports whether it
// marked any.
func (s *sender) rackDetect(now time.Time) bool {
	k := &s.paths.primary.rack
	k.timer = time.Time{}
	if !k.valid || s.ledger.inFlight == 0 {
		return false
	}
	wnd := s.reoWnd()
	marked := false
	var wait time.Duration
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		r := s.ledger.rec(t)
		if r.state != recInFlight || r.marks>>pathShift != s.paths.primaryIdx {
			// Other paths' chunks are left to their T3-rtx.
			continue
		}
		if !sentAfter(k.seq, r.seq) {
			if r.xmits == 1 {
				// Chunks sent once go out in TSN order.
				break
			}
			continue
		}
		left := r.sent.Add(k.rtt + wnd).Sub(now)
		if left > 0 {
			if wait == 0 || left < wait {
				wait = left
			}
			continue
		}
		if r.xmits > 1 {
			s.stats.RepeatFastRetransmits++
		}
		r.misses = 0
		r.fastRtx = true
		s.markRtx(r)
		marked = true
	}
	if wait > 0 {
		k.timer = now.Add(wait)
	}
	return marked
}

// rackLost starts fast recovery for chunks rackDetect marked, reducing
// cwnd once per window (7.2.4 step 2).
func (s *sender) rackLost(now time.Time) {
	s.loss.fastRtxDue = true
	if !s.paths.primary.inFastRecovery {
		s.paths.primary.enterFastRecovery(now, s.ledger.nextTSN-1)
		s.stats.FastRecoveries++
		k := &s.paths.primary.rack
		if k.recoveries++; k.recoveries >= reoRecoveries {
			k.reoMult, k.recoveries = 1, 0
		}
	}
}

// armPTO schedules the tail loss probe (RFC 8985 section 7.2), never past
// T3-rtx, which then covers the tail.
func (s *sender) armPTO(now time.Time) {
	k := &s.paths.primary.rack
	k.pto = time.Time{}
	if s.cfg.Recovery != api.RecoveryRACK || k.probes >= maxProbes || s.ledger.inFlight == 0 || !s.paths.primary.measured || s.loss.t3Recovery {
		// After a T3-rtx expiry T3-rtx covers the one packet in flight (7.2.3).
		return
	}
	pto := max(2*s.paths.primary.srtt, tlpFloor)
	k.lone = s.ledger.inFlight == 1
	if k.lone && k.probes == 0 {
		pto += s.cfg.SACKDelay // the peer may delay the SACK of a lone chunk
	}
	pto <<= k.probes
	at := now.Add(pto)
	if !s.loss.t3.IsZero() && !at.Before(s.loss.t3) {
		return
	}
	k.pto = at
}

// probe sends the tail loss probe (RFC 8985 section 7.3): new data if the
// peer's window takes it, else the highest chunk in flight again.
func (s *sender) probe(now time.Time) {
	k := &s.paths.primary.rack
	k.pto = time.Time{}
	k.probes++
	s.stats.Probes++
	s.loss.tailProbe = true
	if size := s.nextChunkSize(); size > 0 && size <= s.peerRwnd {
		return
	}
	for t := s.ledger.nextTSN - 1; t != s.ledger.cumAck; t-- {
		if r := s.ledger.rec(t); r.state == recInFlight {
			s.markRtx(r)
			s.loss.fastRtxDue = true
			return
		}
	}
	s.loss.tailProbe = false
}

// rackTimers runs the reordering timer and the probe timer when due.
func (s *sender) rackTimers(now time.Time) {
	k := &s.paths.primary.rack
	if !k.timer.IsZero() && !now.Before(k.timer) {
		if s.rackDetect(now) {
			s.rackLost(now)
		}
	}
	if !k.pto.IsZero() && !now.Before(k.pto) {
		s.probe(now)
	}
}

// rackDeadline returns the earlier of the reordering and probe timers.
func (s *sender) rackDeadline() time.Time {
	k := &s.paths.primary.rack
	switch {
	case k.timer.IsZero():
		return k.pto
	case k.pto.IsZero() || k.timer.Before(k.pto):
		return k.timer
	}
	return k.pto
}
