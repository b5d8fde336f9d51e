package assoc

// The buffered bytes of each outbound stream and their low-water marks
// (transfer's buffered.go), for WebRTC's bufferedAmount.

// StreamBuffered returns the bytes written on outbound stream sid and not
// yet acknowledged nor given up (0 without an engine).
func (a *Assoc) StreamBuffered(sid uint16) int {
	if e := a.data.eng; e != nil {
		return e.StreamBuffered(sid)
	}
	return 0
}

// SetBufferedLow sets the low-water mark of outbound stream sid (negative:
// none): each time its buffered bytes fall from above it to it or below,
// an EventBufferedLow names the stream.
func (a *Assoc) SetBufferedLow(sid uint16, low int) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.data.eng.SetBufferedLow(sid, low)
}
