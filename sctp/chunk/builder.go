package chunk

// Builder fills one packet up to a size limit, in a buffer the caller owns
// and reuses. Every Add method checks the space first: a chunk that does
// not fit is not written and the method returns false, so a sender can
// close the packet and start the next one. A Builder does not allocate as
// long as the buffer's capacity covers the limit.
//
//	var pb chunk.Builder
//	pb.Reset(buf, pmtu-ipAndUDPOverhead, chunk.Header{SrcPort: sp, DstPort: dp, Tag: peerTag})
//	for pb.AddData(&next) { ... }
//	pkt := pb.Finish(false)
type Builder struct {
	b   []byte
	max int
}

// Reset starts a packet with header h in buf's storage (buf's contents are
// overwritten), limited to max bytes including the common header.
func (p *Builder) Reset(buf []byte, max int, h Header) {
	p.b = h.Append(buf[:0])
	p.max = max
}

// Len returns the packet's length so far.
func (p *Builder) Len() int { return len(p.b) }

// Empty reports whether no chunk was added yet.
func (p *Builder) Empty() bool { return len(p.b) <= HeaderLen }

// Room returns how many more bytes (chunk headers and padding included) fit.
func (p *Builder) Room() int { return max(p.max-len(p.b), 0) }

// Fits reports whether a chunk whose length field is n fits, with padding.
func (p *Builder) Fits(n int) bool { return pad4(n) <= p.Room() }

// AddData appends a DATA chunk if it fits.
func (p *Builder) AddData(d *Data) bool {
	if !p.Fits(d.Len()) {
		return false
	}
	b, err := d.Append(p.b)
	if err != nil {
		return false
	}
	p.b = b
	return true
}

// AddIData appends an I-DATA chunk if it fits.
func (p *Builder) AddIData(d *IData) bool {
	if !p.Fits(d.Len()) {
		return false
	}
	b, err := d.Append(p.b)
	if err != nil {
		return false
	}
	p.b = b
	return true
}

// AddSack appends a SACK chunk if it fits. A sender that must trim its
// lists to fit checks Fits(SackLen(ngaps, ndups)) first.
func (p *Builder) AddSack(cum TSN, arwnd uint32, gaps []GapBlock, dups []TSN) bool {
	if !p.Fits(SackLen(len(gaps), len(dups))) {
		return false
	}
	b, err := AppendSack(p.b, cum, arwnd, gaps, dups)
	if err != nil {
		return false
	}
	p.b = b
	return true
}

// AddChunk appends c if it fits.
func (p *Builder) AddChunk(c Chunk) bool {
	if !p.Fits(c.Len()) {
		return false
	}
	b, err := c.Append(p.b)
	if err != nil {
		return false
	}
	p.b = b
	return true
}

// AddEncoded appends chunks already encoded and padded (built with the
// AppendXxx functions into a scratch buffer) if they fit.
func (p *Builder) AddEncoded(chunks []byte) bool {
	if len(chunks) > p.Room() {
		return false
	}
	p.b = append(p.b, chunks...)
	return true
}

// Finish sets the checksum (or, with zeroChecksum, the zero checksum of
// RFC 9653) and returns the packet, which aliases the buffer given to
// Reset when it had the capacity.
func (p *Builder) Finish(zeroChecksum bool) []byte {
	if zeroChecksum {
		SetZeroChecksum(p.b)
	} else {
		SetChecksum(p.b)
	}
	return p.b
}
