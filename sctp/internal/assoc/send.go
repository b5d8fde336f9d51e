package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// owesOnlyData reports, from a few fields, that an established
// association of one path owes its peer nothing but SACK and DATA: no
// INIT, no immediate SACK, no control chunk, no PMTU probe, no ECN chunk,
// no reconfiguration and no FORWARD TSN. eng is a.data.eng, not nil.
func (a *Assoc) owesOnlyData(eng *transfer.Engine) bool {
	return a.state == stateEstablished && a.paths == nil && a.rc == nil &&
		!a.pend.init && !a.pend.sackNow && a.pend.ctl == 0 && a.pend.pmtuProbe == 0 &&
		len(a.pend.heartbeatAcks) == 0 && len(a.pend.errorCauses) == 0 &&
		!a.ecn.echo && !a.ecn.cwr && !eng.ForwardDue()
}

// nothingToSend reports that appendPacket would build nothing now: an
// association that owes only data (owesOnlyData) with nothing queued or in
// flight and no SACK due (one held for the receive batch is not owed yet:
// EndBatch lists the association). The receiving end of a bulk transfer is
// so after most packets; it then stays off the ready list, and Poll does
// not build it an empty packet after each of them. False says only that
// there may be something.
func (a *Assoc) nothingToSend(now time.Time) bool {
	eng := a.data.eng
	return eng != nil && a.owesOnlyData(eng) && eng.SendIdle() && !eng.SACKDue(now)
}

// appendPacket builds the next packet the association owes its peer into
// buf, counts it, and returns buf extended by it, or buf unchanged when
// there is nothing to send. Control chunks are built lazily from the TCB,
// in the order the RFC requires (COOKIE ECHO and COOKIE ACK first, INIT
// alone), then SACK, then DATA up to the MTU.
func (a *Assoc) appendPacket(now time.Time, buf []byte) []byte {
	if a.dataOnly() {
		return a.appendDataPacket(now, buf, a.sendLimit())
	}
	return a.appendMixedPacket(now, buf)
}

// appendMixedPacket is appendPacket when not dataOnly.
func (a *Assoc) appendMixedPacket(now time.Time, buf []byte) []byte {
	b := a.buildPacket(now, buf)
	if len(b) > len(buf) {
		a.ep.countOut(a, b[len(buf):])
	}
	return b
}

// dataOnly reports whether the association's next packet holds DATA (or
// I-DATA) chunks alone: it owes only data (owesOnlyData), no SACK (not even
// one to bundle) and has no AUTH. The sending end of a bulk transfer is so
// for nearly every packet; appendDataPacket then skips the steps that
// would add nothing. False says only that the packet may hold more.
func (a *Assoc) dataOnly() bool {
	eng := a.data.eng
	// SACKPending, which covers SACKDue (a SACK is due only once
	// pending), first: it fails for the packets of a receiver or of a
	// request/response exchange.
	return eng != nil && !eng.SACKPending() && a.owesOnlyData(eng) && a.authOverhead() == 0
}

// appendDataPacket is appendPacket when dataOnly: the same packet, the
// common header and the DATA chunks the engine appends, counted from what
// the engine reports rather than by a walk of its chunks. mtu is
// a.sendLimit().
func (a *Assoc) appendDataPacket(now time.Time, buf []byte, mtu int) []byte {
	start := len(buf)
	limit := start + mtu
	b := a.appendOwnHeader(buf)
	if limit-len(b) <= 16 {
		return buf
	}
	hdrEnd := len(b)
	b, n := a.appendData(now, b, limit-len(b), start)
	if n == 0 {
		return buf
	}
	// A chunk cut before the PLPMTU shrank goes over it (pmtu.go).
	a.ep.fragmentable = len(b)-start > limit-start
	a.stats.PacketsOut++
	a.stats.BytesOut += uint64(len(b) - start)
	// Every chunk is of the engine's variant, DATA or I-DATA.
	if t := chunk.Type(b[hdrEnd]); chunkKindOf[t] > 0 {
		for range n {
			a.chunks.countOut(int(chunkKindOf[t] - 1))
		}
	} else {
		a.ep.stats.ChunksOut[t] += uint64(n)
	}
	return a.finishOwn(b, start)
}

// appendOwnHeader appends the common header of the association's packets
// (appendHeader with its ports and the peer's tag, checksum zero) by two
// stores when buf has room for it.
func (a *Assoc) appendOwnHeader(buf []byte) []byte {
	n := len(buf)
	if cap(buf)-n < commonHeaderLen {
		return appendHeader(buf, a.key.localPort, a.key.peerPort, a.peerTag)
	}
	b := buf[:n+commonHeaderLen]
	h := (*[commonHeaderLen]byte)(b[n:])
	binary.BigEndian.PutUint64(h[:], uint64(a.key.localPort)<<48|uint64(a.key.peerPort)<<32|uint64(a.peerTag))
	binary.BigEndian.PutUint32(h[8:], 0)
	return b
}

// buildPacket is appendPacket without the count.
func (a *Assoc) buildPacket(now time.Time, buf []byte) []byte {
	start := len(buf)
	// Room for the AUTH chunk the packet may need (auth.go).
	limit := start + a.sendLimit() - a.authOverhead()
	lp, pp := a.key.localPort, a.key.peerPort
	if a.pend.init {
		// Section 5.1: "An INIT or INIT ACK chunk MUST NOT be bundled with
		// any other chunk." Section 8.5.1 A: "The sender MUST set the
		// Verification Tag of the packet to 0."
		a.pend.init = false
		b := appendHeader(buf, lp, pp, 0)
		b = a.appendInit(b)
		return finishPacket(b, start)
	}
	switch a.state {
	case stateClosed, stateCookieWait:
		return buf
	case stateCookieEchoed:
		// Section 5.1: "until the COOKIE ACK chunk is returned, the sender
		// MUST NOT send any other packets to the peer."
		if !a.pend.has(ctlCookieEcho) {
			return buf
		}
	}
	if a.heartbeatsStopped() {
		// Owed before the SHUTDOWN or SHUTDOWN ACK: not sent now.
		a.pend.pmtuProbe, a.pend.pathHB = 0, 0
		a.pend.clear(ctlHeartbeat)
	}
	if a.pend.pmtuProbe != 0 {
		if b, ok := a.appendPMTUProbe(buf); ok {
			return b
		}
	}
	if a.paths != nil {
		if b, ok := a.appendPathHeartbeat(buf); ok {
			return b
		}
	}
	eng := a.data.eng
	b := appendHeader(buf, lp, pp, a.peerTag)
	hdrEnd := len(b)
	// With several paths the replies in this packet go to one destination
	// (reply.go); the others wait for the next packet.
	multi := a.paths != nil
	var rd netip.AddrPort
	sack := false
	if eng != nil {
		sack = a.pend.sackNow || eng.SACKDue(now)
		if sack && a.state == stateShutdownAckSent && !a.pend.has(ctlShutdownAck) {
			// RFC 9260 section 9.2: the peer sent its SHUTDOWN once all
			// its DATA was acknowledged and sends no more, so a SACK after
			// our SHUTDOWN ACK is only a window update (as reading frees
			// the receive buffer), and it may reach a peer that has
			// already ended the association on the SHUTDOWN ACK: Linux
			// answers it as out of the blue with an ABORT, which ended
			// the association here before the SHUTDOWN COMPLETE arrived.
			// The SHUTDOWN ACK (sent again by T2-shutdown) carries what
			// the peer needs.
			sack = false
			a.pend.sackNow = false
			eng.SkipSACK()
		}
		if !sack && eng.SACKPending() {
			switch a.state {
			case stateEstablished, stateShutdownPending, stateShutdownReceived:
				sack = eng.Pending(now)
			}
		}
	}
	if multi {
		rd = a.replyDest(sack)
	}
	if a.pend.ctl != 0 || len(a.pend.heartbeatAcks) > 0 || len(a.pend.errorCauses) > 0 {
		// Control chunks are rare on the data path: one test for all.
		b = a.appendControl(now, b, limit, eng, multi, rd)
	}
	b, ecneAt := a.appendECN(b, limit)
	dataLen := 0
	if eng != nil {
		// A peer's large State Cookie can fill the packet on its own: the
		// SACK and DATA then wait for the next one.
		// A SACK goes when due, and also whenever DATA leaves while
		// received DATA waits for its delayed SACK. RFC 9260 section 6.1:
		// "Before an endpoint transmits a DATA chunk, if any received
		// DATA chunks have not been acknowledged (e.g., due to delayed
		// ack), the sender SHOULD create a SACK chunk and bundle it with
		// the outbound DATA chunk, as long as the size of the final SCTP
		// packet does not exceed the current MTU." For
		// request/response this makes the response carry the request's
		// acknowledgement: one packet each way per transaction instead
		// of a SACK-only packet for every second request (6.2's "at
		// least every second packet" counts from the last SACK sent,
		// bundled or not).
		if to := a.replyTo(a.sackTo); multi && sack && to.IsValid() && to != rd {
			sack = false // it goes to its own destination next
		}
		if sack && limit-len(b) >= 16 {
			a.pend.sackNow = false
			b = eng.AppendSACK(now, b, limit-len(b))
		}
		if a.state != stateCookieEchoed {
			b = a.appendReconf(now, b, limit)
		}
		switch a.state {
		case stateCookieEchoed, stateEstablished, stateShutdownPending, stateShutdownReceived:
			if multi && rd.IsValid() && rd != a.dataTo() {
				break // replies to another path than the data's
			}
			dataLen = len(b)
			if eng.ForwardDue() {
				// RFC 3758 section 3.5 F2: "The data sender SHOULD always
				// attempt to bundle an outgoing FORWARD TSN with outbound
				// DATA chunks for efficiency": it goes now, with whatever
				// DATA follows in this packet.
				b = eng.AppendForward(now, b, limit-len(b))
			}
			if limit-len(b) > 16 {
				b, _ = a.appendData(now, b, limit-len(b), start)
			}
			dataLen = len(b) - dataLen
		}
	}
	if len(b) == hdrEnd || ecneAt == hdrEnd && len(b) == hdrEnd+8 {
		return buf // nothing, or an ECNE alone
	}
	if ecneAt >= 0 {
		a.stats.ECNEchoesOut++
	}
	if multi {
		switch {
		case dataLen > 0:
			a.dataDest()
		case rd.IsValid():
			a.dest = rd
		default:
			// Control chunks alone: where new data goes (the engine's
			// last destination is stale when it built nothing).
			a.dest = a.dataTo()
		}
		if !a.pend.has(ctlCookieAck) && !a.pend.has(ctlShutdownAck) && len(a.pend.errorCauses) == 0 {
			a.ctlTo = netip.AddrPort{}
		}
	}
	// A chunk cut before the PLPMTU shrank goes over it (pmtu.go).
	a.ep.fragmentable = len(b)-start > limit-start
	return a.finishOwn(a.sealAuth(b, start), start)
}

// appendControl appends the control chunks owed besides SACK and DATA
// (appendPacket), COOKIE ECHO and COOKIE ACK first as the RFC requires;
// with several paths, the replies for destination rd only.
func (a *Assoc) appendControl(now time.Time, b []byte, limit int, eng *transfer.Engine, multi bool, rd netip.AddrPort) []byte {
	if a.pend.has(ctlCookieEcho) {
		// "The COOKIE ECHO chunk MAY be bundled with any pending outbound
		// DATA chunks, but it MUST be the first chunk in the packet".
		a.pend.clear(ctlCookieEcho)
		b = appendCookieEcho(b, a.cookie)
		if len(a.pend.unrecognized) > 0 && len(b)+4+len(a.pend.unrecognized) <= limit {
			b = appendErrorChunk(b, a.pend.unrecognized)
			a.stats.ErrorsOut++
		}
		a.pend.unrecognized = a.pend.unrecognized[:0]
	}
	if a.pend.has(ctlCookieAck) {
		// "A COOKIE ACK chunk MAY be bundled with any pending DATA chunks
		// (and/or SACK chunks), but the COOKIE ACK chunk MUST be the first
		// chunk in the packet."
		a.pend.clear(ctlCookieAck)
		b = appendCookieAck(b)
	}
	if a.pend.has(ctlShutdownAck) {
		a.pend.clear(ctlShutdownAck)
		b = appendShutdownAck(b)
	}
	if a.pend.has(ctlShutdown) && eng != nil {
		a.pend.clear(ctlShutdown)
		b = appendShutdown(b, uint32(eng.CumulativeTSN()))
	}
	for i := 0; i < len(a.pend.heartbeatAcks); {
		v := a.pend.heartbeatAcks[i]
		if multi && i < len(a.pend.hbAckTo) && a.pend.hbAckTo[i] != rd {
			i++
			continue
		}
		if len(b)+4+len(v)+3 > limit {
			break
		}
		b = appendHeartbeatAck(b, v)
		n := len(a.pend.heartbeatAcks) - 1
		copy(a.pend.heartbeatAcks[i:], a.pend.heartbeatAcks[i+1:])
		a.pend.heartbeatAcks[n] = v[:0]
		a.pend.heartbeatAcks = a.pend.heartbeatAcks[:n]
		if i < len(a.pend.hbAckTo) {
			a.pend.hbAckTo = append(a.pend.hbAckTo[:i], a.pend.hbAckTo[i+1:]...)
		}
	}
	if a.pend.has(ctlHeartbeat) && len(b)+8+heartbeatInfoLen <= limit {
		a.pend.clear(ctlHeartbeat)
		b = appendHeartbeat(b, a.appendHeartbeatInfo(a.ep.scratch[:0]))
	}
	if a.pend.has(ctlASCONFAck) {
		b = a.appendASCONFAck(b, limit)
	}
	if a.pend.has(ctlASCONF) {
		b = a.appendASCONF(now, b, limit)
	}
	if len(a.pend.errorCauses) > 0 && len(b)+4+len(a.pend.errorCauses) <= limit && (!multi || a.replyTo(a.ctlTo) == rd) {
		b = appendErrorChunk(b, a.pend.errorCauses)
		a.pend.errorCauses = a.pend.errorCauses[:0]
		a.stats.ErrorsOut++
	}
	return b
}
