package assoc

import (
	"net/netip"

	"github.com/usctp/usctp/sctp/chunk"
)

// The UDP encapsulation port of each peer address (RFC 6951 section 5.4).
// A peer address is indexed with the UDP source port its packets came
// from (the handshake's, or for another address of a multi-homed peer the
// handshake's port until that address is heard from). A packet from a
// known peer address with another UDP port (a NAT that rebound, or a peer
// that encapsulates each address on a port of its own) finds no entry:
// it is looked up by its Verification Tag, and when the tag and ports are
// an association's and the IP address is one of its peer's, the port the
// packet came from becomes that address's encapsulation port, for the
// packets sent there from now on. A raw IP packet has no port (0) and is
// never looked up here.

// encapsPortMoved returns the association of packet p, from a peer address
// the association knows under another UDP port, after storing the new
// port; else nil.
func (ep *Endpoint) encapsPortMoved(p *inPacket) *Assoc {
	if p.vtag == 0 || p.from.Port() == 0 {
		return nil // an INIT has no tag to check; raw IP has no port
	}
	// ABORT and SHUTDOWN COMPLETE with the T bit carry the peer's tag,
	// which proves nothing about the packet's source.
	if c := p.find(chunk.TypeAbort); c != nil && c.tBit() {
		return nil
	}
	if c := p.find(chunk.TypeShutdownComplete); c != nil && c.tBit() {
		return nil
	}
	a := ep.tags[p.vtag]
	if a == nil || a.closed || a.localTag != p.vtag || a.key.localPort != p.dstPort || a.key.peerPort != p.srcPort {
		return nil
	}
	ip := p.from.Addr()
	switch {
	case a.key.peer.Addr() == ip:
		old := a.key.peer
		if a.ep.assocs[a.key] == a {
			delete(a.ep.assocs, a.key)
		}
		a.rekeyPeer(p.from)
		a.movedPort(old, p.from)
		return a
	}
	for i := range a.paths {
		if old := a.paths[i].addr; old.Addr() == ip {
			key := assocKey{peer: old, localPort: a.key.localPort, peerPort: a.key.peerPort}
			if a.ep.assocs[key] == a {
				delete(a.ep.assocs, key)
			}
			key.peer = p.from
			a.ep.assocs[key] = a
			a.movedPort(old, p.from)
			return a
		}
	}
	return nil
}

// movedPort replaces the transport address old of a peer address by now,
// wherever the association keeps it.
func (a *Assoc) movedPort(old, now netip.AddrPort) {
	a.stats.EncapsPortMoves++
	for i := range a.paths {
		if a.paths[i].addr == old {
			a.paths[i].addr = now
		}
	}
	if a.dest == old {
		a.dest = now
	}
}
