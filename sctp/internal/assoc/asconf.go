package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Dynamic address reconfiguration (RFC 5061), the receiving side. ASCONF
// must be authenticated (section 4.1.1), so one without a valid AUTH never
// reaches asconf5061. Added addresses start unconfirmed and carry data
// only after a HEARTBEAT ACK confirms them (RFC 9260 section 5.4), which
// keeps an ASCONF from redirecting the association to an address the peer
// does not own.

// maxASCONFParams bounds the requests of one ASCONF that are performed;
// the rest are refused with "Operation Refused Due to Resource Shortage".
const maxASCONFParams = 16

// asconfAddBurst and asconfAddEvery bound the peer's Add IP Address
// requests that are performed: a bucket of asconfAddBurst, refilled by one
// every asconfAddEvery; a request the bucket cannot pay for is refused
// with "Operation Refused Due to Resource Shortage". A peer moving between
// addresses needs one per move; a peer adding addresses to reflect
// HEARTBEATs at them gets one a second (and pathprobe.go's bounds).
const (
	asconfAddBurst = maxPeerAddrs
	asconfAddEvery = time.Second
)

// asconfState is the receiver's side of the ASCONF exchange.
type asconfState struct {
	peerSerial uint32    // serial number of the last ASCONF processed
	ack        []byte    // the ASCONF-ACK answering it, resent for a retransmission
	adds       int       // Add IP Address requests the bucket holds
	addsAt     time.Time // when the bucket was last refilled
}

// takeAdd refills the bucket of additions and reports whether it paid for
// one.
func (s *asconfState) takeAdd(now time.Time) bool {
	if n := int(now.Sub(s.addsAt) / asconfAddEvery); n > 0 {
		s.adds = min(s.adds+n, asconfAddBurst)
		s.addsAt = s.addsAt.Add(time.Duration(n) * asconfAddEvery)
	}
	if s.adds == 0 {
		return false
	}
	if s.adds == asconfAddBurst {
		s.addsAt = now // a full bucket starts refilling from its first use
	}
	s.adds--
	return true
}

// asconfOK reports whether the association accepts ASCONF: configured,
// announced by the peer, and AUTH in use with ASCONF in our CHUNKS.
func (a *Assoc) asconfOK() bool {
	return a.ep.cfg.DynamicAddrs && a.peerExt&extASCONF != 0 && a.auth != nil && a.auth.negotiated &&
		a.auth.weNeed.has(chunk.TypeASCONF)
}

// asconfUnauthenticated handles an ASCONF or ASCONF-ACK the association
// does not take: with Config.DynamicAddrs off it is an unknown chunk (RFC
// 9260 section 3.2 action bits); with it on, the peer did not negotiate
// ASCONF with AUTH, and RFC 5061 section 4.1.1 says of ASCONF: "This
// chunk MUST be sent in an authenticated way by using the mechanism
// defined in [RFC4895]. If this chunk is received unauthenticated it
// MUST be silently discarded as described in [RFC4895]." (section 4.1.2
// says the same of ASCONF-ACK).
func (a *Assoc) asconfUnauthenticated(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.ep.cfg.DynamicAddrs {
		return a.unknownChunk3_2(now, p, c)
	}
	a.stats.Auth.Missing++
	return dispNext
}

// asconf5061 handles an ASCONF (RFC 5061 section 5.2); one the
// association does not take is asconfUnauthenticated's.
func (a *Assoc) asconf5061(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.asconfOK() {
		return a.asconfUnauthenticated(now, p, c)
	}
	if a.state != stateEstablished && a.state != stateShutdownPending && a.state != stateShutdownReceived {
		a.stats.Ignored++
		return dispNext
	}
	m, err := chunk.ParseASCONF(chunkOfRx(c))
	if err != nil {
		a.stats.Malformed++
		a.stats.ASCONF.Malformed++
		return dispNext
	}
	if a.asc == nil {
		// Section 5.2: the Peer-Serial-Number starts at the peer's Initial
		// TSN minus one.
		a.asc = &asconfState{peerSerial: uint32(a.peerTSN) - 1, adds: asconfAddBurst, addsAt: now}
	}
	s := a.asc
	switch {
	case m.Serial == s.peerSerial+1:
		a.stats.ASCONF.In++
		s.peerSerial = m.Serial
		s.ack = a.performASCONF(now, p, &m, s.ack[:0])
		a.pend.set(ctlASCONFAck)
	case m.Serial == s.peerSerial && s.ack != nil:
		// Section 5.2: an old Sequence Number gets the cached ASCONF-ACK
		// again.
		a.stats.ASCONF.Retransmitted++
		a.pend.set(ctlASCONFAck)
	default:
		// Otherwise: silently discarded.
		a.stats.ASCONF.BadSerial++
	}
	a.ep.markReady(a)
	return dispNext
}

// asconfAckRoom is the largest ASCONF-ACK chunk this end sends: one that
// fits, with the common header and an AUTH chunk, in a packet of
// BASE_PLPMTU, which every path carries.
func (a *Assoc) asconfAckRoom() int {
	return a.ep.cfg.PMTUBase - commonHeaderLen - a.authOverhead()
}

// performASCONF performs the requests of m and appends the ASCONF-ACK to
// b. RFC 5061 section 5.2 (paraphrase): the ASCONF-ACK is limited by the
// path MTU; a receiver whose response would not fit stops processing
// there, and the parameters after the last one answered are neither
// performed nor answered (the sender takes them as failed). So a request
// is performed only when the longest answer it could get (an error
// indication quoting it) still fits in asconfAckRoom.
func (a *Assoc) performASCONF(now time.Time, p *inPacket, m *chunk.ASCONF, b []byte) []byte {
	var resp []byte
	it := m.Walk()
	n := 0
	room := a.asconfAckRoom() - 8 // the ASCONF-ACK's chunk header and serial
	for {
		off := it.Offset()
		pr, ok := it.Next()
		if !ok {
			break
		}
		raw := m.Params[off : off+pr.Len()]
		if len(resp)+8+4+(len(raw)+3)&^3 > room {
			// Not performed, not answered: this one and the rest.
			a.stats.ASCONF.Refused++
			for _, ok := it.Next(); ok; _, ok = it.Next() {
				a.stats.ASCONF.Refused++
			}
			break
		}
		q, err := chunk.ParseASCONFParam(pr)
		if err != nil || q.Type == chunk.ParamSuccessIndication || q.Type == chunk.ParamErrorCauseIndication {
			a.stats.ASCONF.Malformed++
			continue
		}
		ip, _ := q.Address.Addr()
		ip = ip.Unmap()
		src := p.from.Addr().Unmap()
		wildcard := ip.IsUnspecified()
		if wildcard && q.Type != chunk.ParamDeleteIPAddress {
			// Sections 4.2.1, 4.2.4: the wildcard address means the source.
			ip = src
		}
		var cause chunk.CauseCode
		n++
		switch {
		case n > maxASCONFParams:
			cause = chunk.CauseResourceShortage
		case q.Type == chunk.ParamAddIPAddress:
			cause = a.peerAddAddr(now, ip)
		case q.Type == chunk.ParamDeleteIPAddress && wildcard:
			// Section 4.2.2: deleting the wildcard deletes all but the source.
			cause = a.peerDeleteAll(src)
		case q.Type == chunk.ParamDeleteIPAddress:
			cause = a.peerDeleteAddr(ip, src)
		case q.Type == chunk.ParamSetPrimaryAddress:
			cause = a.peerSetPrimary(now, ip)
		}
		r := chunk.ASCONFParam{Type: chunk.ParamSuccessIndication, CorrelationID: q.CorrelationID}
		if cause != 0 {
			a.stats.ASCONF.Refused++
			r.Type = chunk.ParamErrorCauseIndication
			r.Causes = appendCause(nil, cause, raw)
		}
		resp, _ = r.Append(resp)
	}
	ack := chunk.ASCONF{Ack: true, Serial: m.Serial, Params: resp}
	b, _ = ack.Append(b)
	return b
}

// ensurePaths starts the path set with the handshake's address when the
// association had one path.
func (a *Assoc) ensurePaths() {
	if a.paths == nil {
		a.paths = append(a.paths, peerPath{addr: a.key.peer, state: api.PathActive, eng: 0, pp: a.pp})
		a.dest = a.key.peer
	}
}

// pathIndex returns the index in a.paths of the peer address ip, or -1.
func (a *Assoc) pathIndex(ip netip.Addr) int {
	for i := range a.paths {
		if a.paths[i].addr.Addr().Unmap() == ip {
			return i
		}
	}
	return -1
}

// peerAddAddr performs an Add IP Address (RFC 5061 section 5.2): the new
// address gets an unconfirmed path, heartbeated at once.
func (a *Assoc) peerAddAddr(now time.Time, ip netip.Addr) chunk.CauseCode {
	if !ownableAddr(ip, a.key.peer.Addr()) {
		return chunk.CauseNoAuthorization
	}
	if ip == a.key.peer.Addr().Unmap() || a.pathIndex(ip) >= 0 {
		return 0 // already an address of the association
	}
	if len(a.paths) >= maxPeerAddrs || a.data.eng == nil || !a.asc.takeAdd(now) {
		return chunk.CauseResourceShortage
	}
	addr := netip.AddrPortFrom(ip, a.key.peer.Port())
	key := assocKey{peer: addr, localPort: a.key.localPort, peerPort: a.key.peerPort}
	if b := a.ep.assocs[key]; b != nil && b != a {
		// Another association's peer address: refuse, or this peer could
		// take its packets.
		return chunk.CauseNoAuthorization
	}
	a.ensurePaths()
	a.ep.assocs[key] = a
	a.addPeerAddr(ip)
	a.paths = append(a.paths, peerPath{addr: addr, eng: -1, next: now, pp: a.pp})
	a.schedulePaths()
	a.stats.ASCONF.AddrsAdded++
	a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(addr), Change: api.AddrAdded, PathState: api.PathUnconfirmed})
	return 0
}

// peerDeleteAddr performs a Delete IP Address; in-flight data is
// retransmitted on another path.
func (a *Assoc) peerDeleteAddr(ip, src netip.Addr) chunk.CauseCode {
	i := a.pathIndex(ip)
	known := i >= 0 || ip == a.key.peer.Addr().Unmap()
	if known && len(a.paths) <= 1 {
		// Section 5.2: deleting the last address is refused (checked first,
		// as Linux does).
		return chunk.CauseDeleteLastAddress
	}
	if ip == src {
		// Section 5.2: deleting the ASCONF's source is refused.
		return chunk.CauseDeleteSourceAddress
	}
	if !known {
		return 0 // not an address of the association
	}
	if i == 0 {
		// The handshake's address keys the association: another confirmed
		// address takes its role first; with none it stays.
		j := a.rekeyPath(src)
		if j < 0 {
			return chunk.CauseResourceShortage
		}
		a.swapPaths(0, j)
		a.rekeyPeer(a.paths[0].addr)
		a.hb.outstanding = false // the HEARTBEAT in flight went to the old address
		i = j
	}
	pp := a.paths[i]
	if e := pp.eng; e >= 0 {
		eng := a.data.eng
		if eng.Primary() == e {
			j := a.alternatePath(i)
			if j < 0 {
				j = 0
			}
			eng.SetPrimary(a.paths[j].eng)
		}
		// The engine slot is freed for the next address (slot 0 and a
		// primary left without an alternative are only taken down).
		if !eng.RemovePath(e) {
			eng.SetPathDown(e, true)
		}
	}
	key := assocKey{peer: pp.addr, localPort: a.key.localPort, peerPort: a.key.peerPort}
	if a.ep.assocs[key] == a {
		delete(a.ep.assocs, key)
	}
	for k, x := range a.peerAddrs {
		if x == ip {
			a.peerAddrs = append(a.peerAddrs[:k], a.peerAddrs[k+1:]...)
			break
		}
	}
	// Take the path out, keeping the indexes of the others consistent.
	a.paths = append(a.paths[:i], a.paths[i+1:]...)
	low := a.pend.pathHB & (1<<i - 1)
	a.pend.pathHB = low | a.pend.pathHB>>(i+1)<<i
	switch {
	case a.primary == i:
		a.primary = 0
	case a.primary > i:
		a.primary--
	}
	if a.dest == pp.addr {
		a.dataDest()
	}
	a.schedulePaths()
	a.stats.ASCONF.AddrsDeleted++
	a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(pp.addr), Change: api.AddrRemoved, PathState: api.PathInactive})
	return 0
}

// peerDeleteAll deletes every address but src; the first refusal is the
// answer, earlier deletions stay.
func (a *Assoc) peerDeleteAll(src netip.Addr) chunk.CauseCode {
	if a.paths == nil {
		if src == a.key.peer.Addr().Unmap() {
			return 0 // src is the only address: nothing else to delete
		}
		return chunk.CauseDeleteLastAddress
	}
	var del []netip.Addr
	for i := range a.paths {
		if ip := a.paths[i].addr.Addr().Unmap(); ip != src {
			del = append(del, ip)
		}
	}
	if len(del) == len(a.paths) {
		// src is not an address of the association: deleting them all
		// would leave none.
		return chunk.CauseDeleteLastAddress
	}
	for _, ip := range del {
		if cause := a.peerDeleteAddr(ip, src); cause != 0 {
			return cause
		}
	}
	return 0
}

// rekeyPath returns the path that takes the handshake address's role: src's
// when confirmed and active, else the first confirmed active, else the
// first confirmed; -1 when none.
func (a *Assoc) rekeyPath(src netip.Addr) int {
	best, any := -1, -1
	for j := 1; j < len(a.paths); j++ {
		p := &a.paths[j]
		if p.eng < 0 {
			continue
		}
		if p.state == api.PathActive {
			if p.addr.Addr().Unmap() == src {
				return j
			}
			if best < 0 {
				best = j
			}
		}
		if any < 0 {
			any = j
		}
	}
	if best >= 0 {
		return best
	}
	return any
}

// swapPaths exchanges paths i and j, with their pending HEARTBEAT bits and
// the primary index.
func (a *Assoc) swapPaths(i, j int) {
	a.paths[i], a.paths[j] = a.paths[j], a.paths[i]
	bi, bj := a.pend.pathHB>>i&1, a.pend.pathHB>>j&1
	a.pend.pathHB = a.pend.pathHB&^(1<<i|1<<j) | bj<<i | bi<<j
	switch a.primary {
	case i:
		a.primary = j
	case j:
		a.primary = i
	}
}

// peerSetPrimary performs a Set Primary Address; an unconfirmed address
// becomes primary once confirmed.
func (a *Assoc) peerSetPrimary(now time.Time, ip netip.Addr) chunk.CauseCode {
	i := a.pathIndex(ip)
	if i < 0 {
		if ip == a.key.peer.Addr().Unmap() {
			return 0
		}
		return chunk.CauseUnresolvableAddress
	}
	a.primary = i
	if p := &a.paths[i]; p.state == api.PathActive {
		a.data.eng.SetPrimary(p.eng)
	}
	// Reachable as the path is: an unconfirmed address is not (it becomes
	// the primary once confirmed).
	p := &a.paths[i]
	a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(p.addr), Change: api.AddrMadePrimary,
		Reachable: p.state == api.PathActive, PathState: p.state})
	return 0
}

// appendASCONFAck appends the cached ASCONF-ACK when one is owed.
func (a *Assoc) appendASCONFAck(b []byte, limit int) []byte {
	if !a.pend.has(ctlASCONFAck) || a.asc == nil || len(b)+len(a.asc.ack) > limit {
		return b
	}
	a.pend.clear(ctlASCONFAck)
	a.stats.ASCONF.AcksOut++
	return append(b, a.asc.ack...)
}
