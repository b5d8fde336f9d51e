package assoc

import (
	"net/netip"

	"github.com/usctp/usctp/sctp/chunk"
)

// Finding the association of a packet that did not come from an address
// the endpoint indexes it under (Config.Paths.Multihoming). The endpoint's index
// holds every peer address of an established multi-homed association
// (setupPaths); a packet from any other source is looked up here before it
// is treated as out of the blue:
//
//   - an INIT is the peer's when it lists one of the association's peer
//     addresses: a multi-homed peer that restarts, or whose INIT collides
//     with ours, may send it from any of its addresses, and section 5.2's
//     rules (restart, collision, new addresses) apply to it only if it is
//     found (RFC 4460 section 2.18, paraphrased: the receiver of an INIT or
//     INIT ACK looks the association up by the addresses the chunk lists
//     too, as Linux and usrsctp do);
//   - an INIT ACK is the answer to our INIT when it carries our tag and
//     lists the address we sent the INIT to;
//   - any other packet whose Verification Tag is an association's own tag
//     (ports matching) belongs to it (section 8.5: the tag, not the
//     source, tells the association). It is processed as the
//     association's and counted (UnknownSource), but its source is never
//     made a path nor sent a reply: a forged source gets nothing.
//
// ABORT and SHUTDOWN COMPLETE with the T bit carry the peer's tag, not
// ours, and stay out of the blue.

// lookupOther finds the association of packet p from a source it is not
// indexed under, or returns nil. It sets p.unknownSrc for a packet
// accepted by its tag alone.
func (ep *Endpoint) lookupOther(p *inPacket) *Assoc {
	switch p.chunks[0].typ {
	case chunk.TypeInit:
		if p.vtag != 0 || len(p.chunks) != 1 {
			return nil
		}
		var in initInfo
		if !parseInit(&p.chunks[0], &in) {
			return nil
		}
		for _, ip := range in.addrs[:in.naddrs] {
			if !ownableAddr(ip, p.from.Addr()) {
				continue
			}
			k := assocKey{peer: netip.AddrPortFrom(ip, p.from.Port()), localPort: p.dstPort, peerPort: p.srcPort}
			if a := ep.assocs[k]; a != nil {
				return a
			}
		}
		return nil
	case chunk.TypeInitAck:
		a := ep.byTag(p)
		if a == nil || a.state != stateCookieWait || len(p.chunks) != 1 {
			return nil
		}
		var in initInfo
		if !parseInit(&p.chunks[0], &in) {
			return nil
		}
		want := a.key.peer.Addr().Unmap()
		for _, ip := range in.addrs[:in.naddrs] {
			if ip == want {
				return a
			}
		}
		return nil
	}
	if p.vtag == 0 {
		return nil
	}
	if c := p.find(chunk.TypeAbort); c != nil && c.tBit() {
		return nil
	}
	if c := p.find(chunk.TypeShutdownComplete); c != nil && c.tBit() {
		return nil
	}
	a := ep.byTag(p)
	if a == nil {
		return nil
	}
	p.unknownSrc = !a.knowsPeerAddr(p.from.Addr())
	return a
}

// byTag returns the association whose own tag is p's Verification Tag and
// whose ports are p's, or nil.
func (ep *Endpoint) byTag(p *inPacket) *Assoc {
	a := ep.tags[p.vtag]
	if a == nil || a.closed || a.key.localPort != p.dstPort || a.key.peerPort != p.srcPort {
		return nil
	}
	return a
}

// knownSource reports whether replies may go to the source of p: it is
// one of the peer's addresses (section 6.4 replies go "to the same
// destination transport address from which it received the DATA or
// control chunk to which it is replying").
func (a *Assoc) knownSource(p *inPacket) bool {
	if p.unknownSrc {
		return false
	}
	if p.from == a.key.peer {
		return true
	}
	return a.pathAt(p.from) >= 0
}

// pathAt returns the index in a.paths of the peer transport address
// addr, or -1 (pathIndex looks for an IP address).
func (a *Assoc) pathAt(addr netip.AddrPort) int {
	for i := range a.paths {
		if a.paths[i].addr == addr {
			return i
		}
	}
	return -1
}

// rekeyPeer makes peer the peer address of a's key and indexes a under
// the new key; the lookup hit, which may name a under its old key, is
// forgotten. The caller removes the old key from the index if it must go.
func (a *Assoc) rekeyPeer(peer netip.AddrPort) {
	a.key.peer = peer
	a.ep.assocs[a.key] = a
	a.ep.hit = lookupHit{}
}

// lookupHit is the association Receive found last, by the key it was
// found under: a stream of packets from one peer costs one key comparison
// per packet instead of hashing the key into assocs.
type lookupHit struct {
	key assocKey
	a   *Assoc
	n   int // len(assocs) when a was found
}

// lookup returns the association indexed under key, or nil. The hit is
// trusted only while it cannot be stale: insert, remove and rekeyPeer
// forget it; the other writers of assocs (a path indexed, a path removed)
// change its length, and a closed association is never trusted.
func (ep *Endpoint) lookup(key assocKey) *Assoc {
	if h := &ep.hit; h.a != nil && h.key == key && !h.a.closed && h.n == len(ep.assocs) {
		return h.a
	}
	a := ep.assocs[key]
	if a != nil && a.key == key {
		ep.hit = lookupHit{key: key, a: a, n: len(ep.assocs)}
	}
	return a
}
