package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Association setup to a peer known by several addresses, as
// sctp_connectx does (RFC 6458 section 9.9): the INIT goes to the first
// address, and each retransmission of it to the next one in turn, so that
// a peer whose first address does not answer is still reached. Every
// address is indexed for the association while it waits in COOKIE-WAIT;
// the one the INIT ACK comes from becomes the association's address (the
// primary path), and the others are dropped from the index: from then on
// the peer's own list in the INIT ACK says which addresses it has
// (section 5.1.2), and Config.Paths.Multihoming makes paths of them.

// ConnectAddrs is Connect to the peer addresses peers (the first is tried
// first), all with the SCTP port peerPort. Addresses another association
// of the endpoint already has are left out; the first must be free.
func (ep *Endpoint) ConnectAddrs(now time.Time, peers []netip.AddrPort, localPort, peerPort uint16) (*Assoc, error) {
	if len(peers) == 0 {
		return nil, api.ErrUnknownAddress
	}
	a, err := ep.connect(now, peers[0], localPort, peerPort)
	if err != nil || len(peers) == 1 {
		return a, err
	}
	a.initAddrs = append(a.initAddrs, peers[0])
	for _, p := range peers[1:] {
		key := assocKey{peer: p, localPort: localPort, peerPort: peerPort}
		if len(a.initAddrs) == maxPeerAddrs || ep.assocs[key] != nil {
			continue // a duplicate, or another association's address
		}
		ep.assocs[key] = a
		a.initAddrs = append(a.initAddrs, p)
	}
	if len(a.initAddrs) == 1 {
		a.initAddrs = nil
	}
	return a, nil
}

// initDest returns the destination of the INIT: the address of this
// attempt in turn (section 5.1 leaves the choice among a peer's addresses
// to the sender; a retransmission to another address is how a dialer
// finds one that answers).
func (a *Assoc) initDest() netip.AddrPort {
	return a.initAddrs[a.initRetx%len(a.initAddrs)]
}

// initAnswered ends the rotation when the INIT ACK arrived from from: the
// association takes that address as its own (the packets that follow go
// there), and the other addresses leave the endpoint's index.
func (a *Assoc) initAnswered(from netip.AddrPort) {
	if a.initAddrs == nil {
		return
	}
	a.removeInitAddrs(from)
	if from != a.key.peer {
		if a.ep.assocs[a.key] == a {
			delete(a.ep.assocs, a.key)
		}
		a.rekeyPeer(from)
	}
}

// removeInitAddrs takes the addresses of the INIT rotation but keep out of
// the endpoint's index, and ends the rotation.
func (a *Assoc) removeInitAddrs(keep netip.AddrPort) {
	for _, p := range a.initAddrs {
		key := assocKey{peer: p, localPort: a.key.localPort, peerPort: a.key.peerPort}
		if p != keep && key != a.key && a.ep.assocs[key] == a {
			delete(a.ep.assocs, key)
		}
	}
	a.initAddrs = nil
}
