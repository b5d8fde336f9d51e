package transfer

import (
	"fmt"
	"time"
)

// SetDelayedSACK sets how the engine delays its SACKs (RFC 9260 section
// 6.2): at most delay after the first DATA not yet acknowledged, and at
// once on every freq-th packet. A delay of 0 or a freq of 1 acknowledges
// every packet at once. The delay is at most 500 ms; freq 0 keeps the
// current one.
func (e *Engine) SetDelayedSACK(delay time.Duration, freq int) error {
	switch {
	case delay < 0 || delay > 500*time.Millisecond:
		return fmt.Errorf("%w: SACK delay %v outside 0..500 ms (RFC 9260 section 6.2)", ErrConfig, delay)
	case freq < 0:
		return fmt.Errorf("%w: SACK frequency %d negative", ErrConfig, freq)
	}
	if freq > 0 {
		e.cfg.SACKFreq = freq
	}
	if delay == 0 {
		e.cfg.SACKFreq = 1
	} else {
		e.cfg.SACKDelay = delay
	}
	return nil
}

// DelayedSACK returns the SACK delay and frequency SetDelayedSACK sets.
func (e *Engine) DelayedSACK() (time.Duration, int) { return e.cfg.SACKDelay, e.cfg.SACKFreq }
