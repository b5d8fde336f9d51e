package transfer

// RTT timing (RFC 9260 section 6.3.1): the sender times one DATA chunk at a
// time and feeds the round trip to its path. RACK's per-SACK samples
// (loss_rack.go) do not feed the RTO.

// rttTimer is the chunk being timed for an RTT measurement, if any.
type rttTimer struct {
	running bool
	tsn     TSN
}

// start times tsn, just sent for the first time, unless one is timed (C4:
// one measurement per round trip).
func (rt *rttTimer) start(tsn TSN) {
	if !rt.running {
		rt.running, rt.tsn = true, tsn
	}
}

// retransmitted stops the measurement when tsn, at or below the timed
// chunk, is retransmitted (C5, Karn's rule).
func (rt *rttTimer) retransmitted(tsn TSN) {
	if rt.running && rt.tsn.GEQ(tsn) {
		rt.running = false
	}
}

// acked reports whether tsn is the timed chunk, ending the measurement.
func (rt *rttTimer) acked(tsn TSN) bool {
	if rt.running && rt.tsn == tsn {
		rt.running = false
		return true
	}
	return false
}

// stop abandons the measurement.
func (rt *rttTimer) stop() { rt.running = false }
