package transfer

// NextStream returns the stream of the data the next Read returns; ok is
// false when nothing is ready. A shell uses it to hand each stream's
// messages to that stream's reader.
func (r *Receiver) NextStream() (sid uint16, ok bool) {
	f := r.reasm.Peek()
	if f == nil {
		return 0, false
	}
	return f.SID, true
}
