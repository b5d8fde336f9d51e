package transfer

// RTT timing (RFC 9260 section 6.3.1): the sender times one DATA chunk at
// a time, from its first transmission to its acknowledgement, and feeds
// the round trip to the chunk's path (Path.RTTSample). The estimator
// itself is the path's. With RecoveryRACK the sender also samples every
// SACK's newest chunk sent once (loss_rack.go) for RACK and HyStart++;
// those samples do not feed the RTO.

// rttTimer is the chunk being timed for an RTT measurement, if any.
type rttTimer struct {
	running bool
	tsn     TSN
}

// start times the chunk of TSN tsn, just sent for the first time, unless
// one is timed already (C4: "a new RTT measurement MUST be made each round
// trip"; one chunk at a time does that).
func (rt *rttTimer) start(tsn TSN) {
	if !rt.running {
		rt.running, rt.tsn = true, tsn
	}
}

// retransmitted stops the measurement when tsn, at or below the timed
// chunk, is retransmitted. C5: "RTT measurements SHOULD only be made
// using a DATA chunk with TSN r if no DATA chunk with TSN less than or
// equal to r was retransmitted since the DATA chunk with TSN r was sent
// first."
func (rt *rttTimer) retransmitted(tsn TSN) {
	if rt.running && rt.tsn.GEQ(tsn) {
		rt.running = false
	}
}

// acked reports whether tsn, newly acknowledged, is the timed chunk, and
// ends the measurement when it is.
func (rt *rttTimer) acked(tsn TSN) bool {
	if rt.running && rt.tsn == tsn {
		rt.running = false
		return true
	}
	return false
}

// stop abandons the measurement (a timeout, a TSN reset, the end of the
// send buffer).
func (rt *rttTimer) stop() { rt.running = false }
