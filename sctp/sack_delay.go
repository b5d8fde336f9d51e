package sctp

import "time"

// SetDelayedSACK sets how the association delays its SACKs (RFC 9260
// section 6.2; Linux's SCTP_DELAYED_SACK): at most delay after the first
// DATA chunk not yet acknowledged (default 200 ms, at most 500 ms), and at
// once on every freq-th packet (default 2; 0 keeps the current one). A
// delay of 0 or a freq of 1 acknowledges every packet at once, which
// shortens a request/response exchange's wait when the peer has nothing
// to bundle the SACK with.
func (as *Association) SetDelayedSACK(delay time.Duration, freq int) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return as.closedErr()
	}
	return publicErr(as.core.SetDelayedSACK(delay, freq))
}

// DelayedSACK returns the association's SACK delay and frequency (see
// SetDelayedSACK).
func (as *Association) DelayedSACK() (delay time.Duration, freq int, err error) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return 0, 0, as.closedErr()
	}
	d, f, err := as.core.DelayedSACK()
	return d, f, publicErr(err)
}
