package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
)

// inPacket is a received SCTP packet after the common header was checked
// and its chunks delimited. The chunk views alias the packet buffer.
type inPacket struct {
	from             netip.AddrPort
	srcPort, dstPort uint16
	vtag             uint32
	chunks           []rxChunk // reused across packets
	body             []byte    // the chunks, padding included (AUTH's HMAC covers them)
	// types holds the types of chunks, so that the rules that look for
	// a type (ABORT, SHUTDOWN COMPLETE ...) skip the walk when it is
	// absent.
	types typeHint
	// unknownSrc: from an address that is none of the peer's, accepted by
	// its Verification Tag (lookup.go); its source gets no reply.
	unknownSrc bool
	// buf is the receive buffer the packet lies in, which its DATA
	// fragments may reference (ReceiveBuf), or nil.
	buf *interleave.RecvBuf
}

// forget drops the packet's views of its buffer and the buffer.
func (p *inPacket) forget() {
	clear(p.chunks)
	p.chunks, p.types, p.body, p.buf = p.chunks[:0], 0, nil, nil
}

// rxChunk is one chunk of a received packet: its header fields and the
// whole chunk (header included, padding excluded), aliasing the packet.
type rxChunk struct {
	typ   chunk.Type
	flags uint8
	off   int32 // offset of the chunk in inPacket.body
	raw   []byte
}

// value returns the chunk value (after the 4-byte chunk header).
func (c *rxChunk) value() []byte { return c.raw[4:] }

// tBit reports the T bit of ABORT and SHUTDOWN COMPLETE (section 3.3.7).
func (c *rxChunk) tBit() bool { return c.flags&0x01 != 0 }

// typeHint is a set of chunk types that may hold more than were added
// (type t counts as t%64): a type it reports absent is absent.
type typeHint uint64

// with returns s with type t added.
func (s typeHint) with(t chunk.Type) typeHint { return s | 1<<(t&63) }

// mayHave reports whether t may be in s: false means it is not.
func (s typeHint) mayHave(t chunk.Type) bool { return s&(1<<(t&63)) != 0 }

// find returns the first chunk of type t, or nil.
func (p *inPacket) find(t chunk.Type) *rxChunk {
	if !p.types.mayHave(t) {
		return nil
	}
	for i := range p.chunks {
		if p.chunks[i].typ == t {
			return &p.chunks[i]
		}
	}
	return nil
}

// handlePacket processes one packet of the association: the verification tag
// rules of section 8.5 and 8.5.1, then each chunk through the state table.
func (a *Assoc) handlePacket(now time.Time, p *inPacket) {
	if !a.checkVTag(now, p) {
		return
	}
	a.creditPeer(now, commonHeaderLen+len(p.body))
	a.dispatch(now, p, 0)
}

// dispatch runs the chunks of p from index i on through the state table.
func (a *Assoc) dispatch(now time.Time, p *inPacket, i int) {
	dataSeen := false
	authed := false // a valid AUTH came before the current chunk
	for ; i < len(p.chunks); i++ {
		c := &p.chunks[i]
		if s := a.auth; s != nil && s.negotiated {
			if c.typ == chunk.TypeAuth {
				if authed {
					// One AUTH per packet; a second one is covered by
					// the first and means nothing.
					a.stats.Ignored++
					continue
				}
				if authed = a.authChunk(p, c); !authed {
					break // the AUTH and everything after it are dropped
				}
				continue
			}
			if !authed && s.weNeed.has(c.typ) {
				// RFC 4895 section 6.3 (paraphrase): a chunk of a type
				// this end listed in its CHUNKS parameter that does not
				// come after a valid AUTH in the same packet is
				// silently discarded.
				a.stats.Auth.Missing++
				continue
			}
		}
		if c.typ == chunk.TypeData || c.typ == chunk.TypeIData {
			dataSeen = true
		}
		switch fsm[c.typ][a.state](a, now, p, c) {
		case dispStop:
			i = len(p.chunks)
		case dispDeleted:
			return
		}
	}
	a.endPacket(now, dataSeen)
	if a.paths != nil && !a.closed {
		// After endPacket: it queues the SHUTDOWN ACK a SHUTDOWN leads to.
		a.noteReplySource(p, dataSeen)
	}
}

// checkVTag applies RFC 9260 sections 8.5 and 8.5.1 to a packet for an
// existing association. It reports whether the packet may be processed.
func (a *Assoc) checkVTag(now time.Time, p *inPacket) bool {
	first := p.chunks[0].typ
	switch {
	case first == chunk.TypeInit:
		// Rule A was checked by the endpoint: vtag 0, INIT alone.
		return true
	case first == chunk.TypeCookieEcho:
		// Rule D: the tag is checked against the State Cookie
		// (section 5.1.5 step 3) by the COOKIE ECHO handler.
		return true
	}
	if c := p.find(chunk.TypeAbort); c != nil {
		// Rule B: "The receiver of an ABORT chunk MUST accept the packet
		// if the Verification Tag field of the packet matches its own tag
		// and the T bit is not set OR if it is set to its Peer's Tag and
		// the T bit is set in the Chunk Flags. Otherwise, the receiver
		// MUST silently discard the packet and take no further action."
		if a.reflectedTagOK(p.vtag, c.tBit()) {
			return true
		}
		a.stats.BadVTag++
		return false
	}
	if c := p.find(chunk.TypeShutdownComplete); c != nil {
		// Rule C, same test as for ABORT.
		if a.reflectedTagOK(p.vtag, c.tBit()) {
			return true
		}
		a.stats.BadVTag++
		return false
	}
	if (a.state == stateCookieWait || a.state == stateCookieEchoed) && p.find(chunk.TypeShutdownAck) != nil {
		// Rule E: "If the receiver is in COOKIE-ECHOED or COOKIE-WAIT
		// state, the procedures in Section 8.4 SHOULD be followed; in
		// other words, it is treated as an OOTB packet."
		a.stats.OOTB++
		a.ep.replyShutdownComplete(p)
		return false
	}
	// Section 8.5: "If the received Verification Tag value does not match
	// the receiver's own tag value, the receiver MUST silently discard
	// the packet and MUST NOT process it any further".
	if p.vtag != a.localTag {
		a.stats.BadVTag++
		return false
	}
	return true
}

func (a *Assoc) reflectedTagOK(vtag uint32, t bool) bool {
	if !t {
		return vtag == a.localTag
	}
	return a.peerTag != 0 && vtag == a.peerTag
}

// endPacket runs what follows the processing of a whole packet.
func (a *Assoc) endPacket(now time.Time, dataSeen bool) {
	if a.closed {
		return
	}
	a.ep.joinBatch(a)
	a.data.endPacket(now)
	a.reconfProgress()
	if a.state == stateShutdownSent {
		// Section 9.2: "The reception of any packet from its peer ...
		// SHOULD clear the endpoint's retransmission count and restart
		// the T2-shutdown timer".
		a.t2Retx = 0
		a.timers.start(timerT2Shutdown, now, a.currentRTO())
		if dataSeen {
			// "the SHUTDOWN chunk sender MUST immediately respond to each
			// received packet containing one or more DATA chunks with a
			// SHUTDOWN chunk and restart the T2-shutdown timer."
			a.pend.set(ctlShutdown)
			a.pend.sackNow = true
		}
	}
	a.checkShutdownProgress(now)
	if !a.nothingToSend(now) {
		a.ep.markReady(a)
	}
}
