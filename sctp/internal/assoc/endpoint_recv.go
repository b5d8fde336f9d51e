package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// receive is Receive without the ECN field.
func (ep *Endpoint) receive(now time.Time, from netip.AddrPort, pkt []byte) *Assoc {
	if ep.filter && ep.refused(from, pkt) {
		return nil
	}
	ep.jar.rotate(now)
	p := &ep.in
	switch parsePacket(pkt, p, ep.cfg.ZeroChecksumDTLS) {
	case parseBadChecksum:
		ep.stats.BadChecksum++
		return nil
	case parseMalformed:
		ep.stats.Malformed++
		return nil
	}
	p.from = from
	p.unknownSrc = false
	key := assocKey{peer: from, localPort: p.dstPort, peerPort: p.srcPort}
	a := ep.lookup(key)
	if a == nil && from.Port() != 0 {
		a = ep.encapsPortMoved(p) // a known peer address on another UDP port (encapsport.go)
	}
	if a == nil && ep.cfg.Multihoming {
		a = ep.lookupOther(p)
	}
	s := &ep.stats.Counters
	if a != nil {
		s = &a.stats
		for i := range p.chunks {
			if k := chunkKindOf[p.chunks[i].typ]; k > 0 {
				a.chunks.countIn(int(k - 1))
			} else {
				ep.stats.ChunksIn[p.chunks[i].typ]++
			}
		}
	} else {
		for i := range p.chunks {
			ep.stats.ChunksIn[p.chunks[i].typ]++
		}
	}
	s.PacketsIn++
	s.BytesIn += uint64(len(pkt))
	if p.chunks[0].typ == chunk.TypeInit || p.vtag == 0 {
		// Section 8.5.1 A: a packet with tag 0 must hold only an INIT,
		// "Otherwise, the receiver MUST silently discard the packet."
		if p.vtag != 0 || len(p.chunks) != 1 || p.chunks[0].typ != chunk.TypeInit {
			s.BadVTag++
			return nil
		}
	}
	if a != nil {
		if p.unknownSrc {
			a.stats.UnknownSource++
		}
		a.handlePacket(now, p)
		ep.reachedByPacket(a)
		if a.closed {
			return nil
		}
		return a
	}
	ep.outOfTheBlue(now, p)
	return nil
}

// outOfTheBlue handles a packet for which no association exists (RFC 9260
// section 8.4), including the INIT and COOKIE ECHO that start one.
func (ep *Endpoint) outOfTheBlue(now time.Time, p *inPacket) {
	s := &ep.stats
	// 8.4 (1): "If the OOTB packet is to or from a non-unicast address, a
	// receiver SHOULD silently discard the packet."
	if ip := p.from.Addr(); ip.IsMulticast() || ip == netip.IPv4Unspecified() ||
		ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) || p.dstPort == 0 || p.srcPort == 0 {
		s.OOTB++
		return
	}
	// 8.4 (2): "If the OOTB packet contains an ABORT chunk, the receiver
	// MUST silently discard the OOTB packet and take no further action."
	if p.find(chunk.TypeAbort) != nil {
		s.OOTB++
		return
	}
	switch p.chunks[0].typ {
	case chunk.TypeInit:
		// 8.4 (3): an INIT with tag 0 is processed per section 5.1; an
		// ABORT in answer carries its Initiate Tag, T bit 0.
		if !ep.mayAnswer(now, p) {
			return
		}
		if ep.filter && p.dstPort != ep.listenPort {
			ep.initNoListener(p)
			return
		}
		ep.initStateless(now, p)
		return
	case chunk.TypeCookieEcho:
		// 8.4 (4): a COOKIE ECHO first is processed per section 5.1.
		ep.cookieEchoNoTCB(now, p)
		return
	}
	s.OOTB++
	if p.find(chunk.TypeShutdownAck) != nil {
		// 8.4 (5): answer SHUTDOWN ACK with SHUTDOWN COMPLETE, tag
		// reflected, T bit set.
		if ep.mayAnswer(now, p) {
			ep.replyShutdownComplete(p)
		}
		return
	}
	// 8.4 (6): SHUTDOWN COMPLETE: silently discard.
	if p.find(chunk.TypeShutdownComplete) != nil {
		return
	}
	// 8.4 (7): ERROR "Stale Cookie" or COOKIE ACK: silently discard.
	if p.find(chunk.TypeCookieAck) != nil {
		return
	}
	if c := p.find(chunk.TypeError); c != nil && hasCause(c.value(), chunk.CauseStaleCookie) {
		return
	}
	// 8.4 (8): answer with an ABORT, tag reflected, T bit set.
	if ep.mayAnswer(now, p) {
		ep.replyAbort(p.from, p.dstPort, p.srcPort, p.vtag, true, nil)
	}
}

// initNoListener answers an INIT to a port nobody listens on with an ABORT
// tagged with its Initiate Tag, T bit clear (section 8.4 (3)), so the
// initiator fails at once as with ECONNREFUSED. An INIT without a nonzero
// Initiate Tag is dropped.
func (ep *Endpoint) initNoListener(p *inPacket) {
	ep.stats.OOTB++
	v := p.chunks[0].value()
	if len(v) < 4 {
		ep.stats.Malformed++
		return
	}
	tag := binary.BigEndian.Uint32(v)
	if tag == 0 {
		return
	}
	ep.replyAbort(p.from, p.dstPort, p.srcPort, tag, false, nil)
}

// replyShutdownComplete answers a SHUTDOWN ACK for which there is no TCB:
// tag reflected, T bit set (sections 8.4 (5) and 8.5.1 C).
func (ep *Endpoint) replyShutdownComplete(p *inPacket) {
	if b := ep.replyBuf(p.from); b != nil {
		b = appendHeader(b, p.dstPort, p.srcPort, p.vtag)
		b = appendShutdownComplete(b, true)
		ep.commitReply(finishPacket(b, 0))
	}
}

// replyAbort queues a stateless ABORT. cause, if not nil, is one encoded
// error cause.
func (ep *Endpoint) replyAbort(to netip.AddrPort, srcPort, dstPort uint16, vtag uint32, t bool, cause []byte) {
	ep.stats.AbortsOut++
	if b := ep.replyBuf(to); b != nil {
		b = appendHeader(b, srcPort, dstPort, vtag)
		b = appendAbort(b, t, cause)
		ep.commitReply(finishPacket(b, 0))
	}
}

// initInfo is what an INIT or INIT ACK chunk says, after its parameters
// were walked with the action bits of section 3.2.1.
type initInfo struct {
	tag      uint32
	rwnd     uint32
	os, mis  uint16
	tsn      chunk.TSN
	addrs    [maxPeerAddrs]netip.Addr
	naddrs   int
	ignored  int // addresses beyond maxPeerAddrs
	hostName bool
	preserve time.Duration // Cookie Preservative (section 5.2.6)
	cookie   []byte        // State Cookie of an INIT ACK, aliasing the packet
	ext      extFlags
	auth     authParams // RFC 4895 parameters
	// unrecognized holds the parameters to report (action bits x1), as
	// Unrecognized Parameter parameters or error cause bodies.
	unrecognized []byte

	// types are the families of a Supported Address Types parameter,
	// when typesSeen (hostaddrs.go).
	types     AddrFamilies
	typesSeen bool
}

// initProblem is what is wrong with an INIT or INIT ACK.
type initProblem uint8

const (
	initOK           initProblem = iota
	initMalformed                // cannot be parsed: discard
	initZeroTag                  // Initiate Tag 0
	initBadMandatory             // a_rwnd < 1500, OS 0 or MIS 0: ABORT, Invalid Mandatory Parameter
	initHostName                 // Host Name Address: ABORT, Unresolvable Address
	initNoCookie                 // INIT ACK without State Cookie: ABORT, Missing Mandatory Parameter
	initAuthBad                  // RANDOM, CHUNKS or HMAC-ALGO against RFC 4895 section 6.1: ABORT, Protocol Violation
)

// check validates the fixed fields (sections 3.3.2 and 3.3.3).
func (in *initInfo) check(isAck bool) initProblem {
	switch {
	case in.tag == 0:
		return initZeroTag
	case in.rwnd < 1500 || in.os == 0 || in.mis == 0:
		return initBadMandatory
	case in.hostName:
		return initHostName
	case isAck && in.cookie == nil:
		return initNoCookie
	case in.auth.bad():
		// RFC 4895 section 6.1: a RANDOM not 32 bytes long, or a HMAC-ALGO
		// without SHA-1, aborts with "Protocol Violation".
		return initAuthBad
	}
	return initOK
}

// rejectInit answers an INIT (or INIT ACK) that cannot be processed with
// an ABORT carrying cause, tagged with its Initiate Tag, T bit clear
// (section 5.1).
func (ep *Endpoint) rejectInit(p *inPacket, in *initInfo, prob initProblem) {
	var cause []byte
	switch prob {
	case initBadMandatory:
		cause = appendCause(ep.scratch[:0], chunk.CauseInvalidParam, nil)
	case initHostName:
		cause = appendCause(ep.scratch[:0], chunk.CauseUnresolvableAddress, nil)
	case initNoCookie:
		cause = appendMissingParamCause(ep.scratch[:0], chunk.ParamStateCookie)
	case initAuthBad:
		cause = appendCause(ep.scratch[:0], chunk.CauseProtocolViolation, []byte("AUTH parameters"))
	}
	ep.scratch = cause[:0]
	ep.replyAbort(p.from, p.dstPort, p.srcPort, in.tag, false, cause)
}

// initStateless answers an INIT for which no association exists with an
// INIT ACK carrying a State Cookie and keeps no state (section 5.1).
func (ep *Endpoint) initStateless(now time.Time, p *inPacket) {
	var in initInfo
	if !parseInit(&p.chunks[0], &in) {
		ep.stats.Malformed++
		return
	}
	switch prob := in.check(false); prob {
	case initOK:
	case initZeroTag:
		// Section 3.3.2: Initiate Tag 0 is silently discarded.
		ep.stats.Malformed++
		return
	default:
		ep.stats.Violations++
		ep.rejectInit(p, &in, prob)
		return
	}
	ep.stats.InitsIn++
	outs := ep.cfg.OutStreams
	if ep.cfg.FollowPeerOS {
		outs = max(outs, in.os)
	}
	c := cookie{
		localTag:  ep.newTag(),
		localTSN:  chunk.TSN(ep.random32()),
		localOS:   outs,
		localMIS:  ep.cfg.InStreams,
		localPort: p.dstPort,
	}
	ep.sendInitAck(now, p, &in, &c)
}

// sendInitAck completes c (our fields already set) from the INIT in and
// queues the INIT ACK, tagged with the INIT's Initiate Tag.
func (ep *Endpoint) sendInitAck(now time.Time, p *inPacket, in *initInfo, c *cookie) {
	c.created = now
	c.life = ep.cfg.CookieLife
	if in.preserve > 0 {
		// Section 5.2.6: honour the Cookie Preservative, capped.
		c.life += min(in.preserve, ep.cfg.CookiePreserveMax)
	}
	c.peer = p.from
	c.peerPort = p.srcPort
	c.localPort = p.dstPort
	c.peerTag = in.tag
	c.peerTSN = in.tsn
	c.peerRwnd = in.rwnd
	c.peerOS, c.peerMIS = in.os, in.mis
	c.peerExt = in.ext
	c.addrs = c.addrs[:0]
	if ep.cfg.Multihoming {
		// Addresses beyond the bound or not ownable are ignored and counted.
		ep.stats.PeerAddrsIgnored += uint64(in.ignored)
		for _, ip := range in.addrs[:in.naddrs] {
			switch {
			case ip == p.from.Addr().Unmap():
			case !ownableAddr(ip, p.from.Addr()):
				ep.stats.PeerAddrsIgnored++
			default:
				a16 := ip.As16()
				c.addrs = append(c.addrs, a16[:]...)
			}
		}
	}
	var random []byte
	c.authVec = nil
	if ep.cfg.authOffered() && in.auth.present() {
		// Our AUTH parameters answer only an INIT offering AUTH (52 bytes
		// otherwise wasted). The peer's key vector goes in the cookie (RFC
		// 4895 section 6.3).
		var vec [maxAuthVector]byte
		c.authVec = in.auth.appendVector(vec[:0])
		if !c.randomIn {
			ep.jar.authRandom(&ep.jar.cur, c)
		}
		random = c.random[:]
	}
	if b := ep.replyBuf(p.from); b != nil {
		b = appendHeader(b, p.dstPort, p.srcPort, in.tag)
		at := len(b)
		b = appendInitAck(b, c, ep.initAckRwnd(), ep.jar, in.unrecognized, ep.cfg.offered(), ep.cfg.LocalAddrs, random, &ep.cfg)
		if ep.cfg.HostAddrs != nil {
			b = ep.insertHostAddrs(b, at, p, in, commonHeaderLen+len(p.body))
		}
		ep.commitReply(finishPacket(b, 0))
	}
}

// openCookieEcho authenticates a COOKIE ECHO's State Cookie (section 5.1.5
// steps 1 to 3); the staleness is left to the caller. Failures are counted
// in s.
func (ep *Endpoint) openCookieEcho(p *inPacket, c *cookie, s *api.Counters) bool {
	switch ep.jar.openCookie(p.chunks[0].value(), p.from, c) {
	case cookieOK:
	case cookieMalformed:
		s.Malformed++
		return false
	default:
		// Steps 1 and 2: unknown key or MAC mismatch: silently discard.
		s.CookieBadMAC++
		return false
	}
	// Step 3: ports and tag must match the packet's, else silently
	// discard.
	if c.peerPort != p.srcPort || c.localPort != p.dstPort || c.localTag != p.vtag {
		s.CookieMismatch++
		return false
	}
	return true
}

// replyStaleCookie sends the ERROR "Stale Cookie" of section 5.1.5 step 4
// (staleness in microseconds).
func (ep *Endpoint) replyStaleCookie(now time.Time, p *inPacket, c *cookie, s *api.Counters) {
	s.CookieStale++
	s.ErrorsOut++
	stale := c.staleness(now) / time.Microsecond
	if b := ep.replyBuf(p.from); b != nil {
		b = appendHeader(b, p.dstPort, p.srcPort, c.peerTag)
		b = appendStaleCookieError(b, uint32(min(stale, 1<<32-1)))
		ep.commitReply(finishPacket(b, 0))
	}
}

// cookieEchoNoTCB creates an association from a valid COOKIE ECHO (section
// 5.1.5) and processes the rest of the packet in it.
func (ep *Endpoint) cookieEchoNoTCB(now time.Time, p *inPacket) {
	var c cookie
	if !ep.openCookieEcho(p, &c, &ep.stats.Counters) {
		return
	}
	if c.staleness(now) > 0 {
		// Step 4: an expired cookie is discarded with an ERROR "Stale
		// Cookie".
		ep.replyStaleCookie(now, p, &c, &ep.stats.Counters)
		return
	}
	if ep.tags[c.localTag] != nil {
		// Our tag is used by another association: discard.
		ep.stats.CookieMismatch++
		return
	}
	if !ep.admit(p, &c) {
		return
	}
	ep.answerConfirmed(now, p)
	key := assocKey{peer: p.from, localPort: p.dstPort, peerPort: p.srcPort}
	a := ep.newAssoc(key)
	a.localTag = c.localTag
	ep.insert(a)
	ep.startPending(a)
	a.fromCookie(now, &c)
	a.setState(stateEstablished)
	a.pend.set(ctlCookieAck)
	a.stats.AssocsUp++
	a.emit(api.Event{Kind: api.EventUp})
	a.startHeartbeat(now)
	a.creditPeer(now, commonHeaderLen+len(p.body))
	a.setupPaths(now)
	a.dispatch(now, p, 1)
	ep.reached(a)
}
