package assoc

import "time"

// SetDelayedSACK sets the association's delayed SACK (Engine.SetDelayedSACK).
func (a *Assoc) SetDelayedSACK(delay time.Duration, freq int) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.data.eng.SetDelayedSACK(delay, freq)
}

// DelayedSACK returns the association's SACK delay and frequency.
func (a *Assoc) DelayedSACK() (time.Duration, int, error) {
	if err := a.usable(); err != nil {
		return 0, 0, err
	}
	d, f := a.data.eng.DelayedSACK()
	return d, f, nil
}
