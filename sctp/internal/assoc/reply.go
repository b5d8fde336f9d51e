package assoc

import (
	"net/netip"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Replies to the source of what they answer (multi-homing). RFC 9260
// section 6.4: "An endpoint SHOULD transmit reply chunks (e.g., SACK,
// HEARTBEAT ACK) to the same destination transport address from which it
// received the DATA or control chunk to which it is replying." With
// several paths (a.paths not nil) the association remembers where each
// reply goes:
//
//   - a SACK to the source of the most recent packet that carried DATA
//     (the RFC allows one of the sources when a SACK acknowledges DATA
//     from several);
//   - each HEARTBEAT ACK to the source of its HEARTBEAT;
//   - a COOKIE ACK, a SHUTDOWN ACK or an ERROR to the source of the packet
//     that caused it (a SHUTDOWN ACK that T2-shutdown resends goes where
//     the data goes).
//
// A source that is none of the peer's addresses (a packet taken by its tag
// alone, lookup.go) is never a reply destination: the reply goes where the
// data goes. A packet holds the replies for one destination; DATA joins
// them only when new data goes to that destination too, else it follows in
// the next packet: the transfer engine credits DATA to the path it chose,
// so the DATA must go there (section 6.4 would have DATA bundled with a
// reply follow the reply; keeping them apart costs a packet only while
// the peer's data and ours use different paths). Retransmissions the
// engine sends to an alternate path in a packet that also holds a reply
// take the reply with them.
//
// A reply whose destination is a potentially failed or inactive path goes
// where the data goes instead (replyTo), HEARTBEAT ACKs excepted, as
// Linux's SCTP does: the peer's packets may come from an address ours
// cannot reach (a one-way failure), and replies sent there would be lost
// until the peer gave the association up.

// noteReplySource records the source of packet p for the replies its
// chunks cause; dataSeen: p carried DATA.
func (a *Assoc) noteReplySource(p *inPacket, dataSeen bool) {
	from := netip.AddrPort{}
	if a.knownSource(p) {
		from = p.from
	}
	a.noteReplyFrom(from, dataSeen)
}

// noteReplyFrom is noteReplySource for a packet from from, the zero
// AddrPort when its source is none of the peer's addresses.
func (a *Assoc) noteReplyFrom(from netip.AddrPort, dataSeen bool) {
	if dataSeen && from.IsValid() {
		a.sackTo = from
	}
	if a.pend.has(ctlCookieAck) || a.pend.has(ctlShutdownAck) || len(a.pend.errorCauses) > 0 {
		if !a.ctlTo.IsValid() {
			a.ctlTo = from
		}
	}
}

// replyDest returns the destination of the replies the next packet holds
// (the zero AddrPort: where the data goes). sack says a SACK goes in it.
func (a *Assoc) replyDest(sack bool) netip.AddrPort {
	switch {
	case (a.pend.has(ctlCookieAck) || a.pend.has(ctlShutdownAck) || len(a.pend.errorCauses) > 0) && a.ctlTo.IsValid():
		return a.replyTo(a.ctlTo)
	case len(a.pend.hbAckTo) > 0:
		return a.pend.hbAckTo[0]
	case sack:
		return a.replyTo(a.sackTo)
	}
	return netip.AddrPort{}
}

// replyTo returns to, or the zero AddrPort (where the data goes) when to
// is the address of a path that is potentially failed or inactive.
func (a *Assoc) replyTo(to netip.AddrPort) netip.AddrPort {
	for i := range a.paths {
		if a.paths[i].addr == to {
			if st := a.paths[i].state; st == api.PathPotentiallyFailed || st == api.PathInactive {
				return netip.AddrPort{}
			}
			break
		}
	}
	return to
}

// dataTo returns the address new data goes to.
func (a *Assoc) dataTo() netip.AddrPort { return a.paths[a.enginePrimary()].addr }
