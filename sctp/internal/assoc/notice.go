package assoc

import (
	"encoding/binary"
	"math"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// NoticeKind is what the network said about a packet this end sent (an
// ICMP or ICMPv6 error the shell's socket reported).
type NoticeKind uint8

const (
	// NoticeRefused: nothing listens at the destination (protocol
	// unreachable, or port unreachable with UDP encapsulation, RFC 6951
	// section 5.5).
	NoticeRefused NoticeKind = iota + 1
	// NoticeUnreachable: the destination cannot be reached.
	NoticeUnreachable
	// NoticeTooBig: the packet was larger than a link's MTU.
	NoticeTooBig
)

// NoticeMTU processes an ICMP error about a packet this end sent to to:
// quote is the sent packet from its SCTP common header on (possibly
// truncated), mtu the MTU a NoticeTooBig reported. It follows RFC 9260
// appendix C.
//
// The quote must name one of our associations and carry its peer's
// Verification Tag, or for an INIT (tag 0) our Initiate Tag (ICMP5,
// ICMP6); anything else is dropped and counted, so a forged ICMP error
// cannot end an association.
//
// A valid NoticeRefused ends the association as an ABORT (ICMP8), unless
// another path is reachable (noticePath). NoticeUnreachable is only
// counted (ICMP9 allows it): the retransmission timer already counts the
// loss, and counting both would halve Association.Max.Retrans.
// NoticeTooBig is counted; with Config.PMTUDiscovery it is a hint to the
// path's PLPMTU search (pmtu.go).
func (ep *Endpoint) NoticeMTU(now time.Time, to netip.AddrPort, kind NoticeKind, quote []byte, mtu int) {
	if len(quote) < 12 {
		ep.stats.NoticesDropped++
		return
	}
	src, dst := binary.BigEndian.Uint16(quote), binary.BigEndian.Uint16(quote[2:])
	a := ep.assocs[assocKey{peer: to, localPort: src, peerPort: dst}]
	if a == nil || a.closed {
		ep.stats.NoticesDropped++
		return
	}
	init := false
	switch vtag := binary.BigEndian.Uint32(quote[4:]); {
	case vtag != 0:
		if vtag != a.peerTag {
			ep.stats.NoticesDropped++
			return
		}
	case len(quote) >= 20 && quote[12] == byte(chunk.TypeInit) &&
		binary.BigEndian.Uint32(quote[16:]) == a.localTag:
		init = true
	default:
		ep.stats.NoticesDropped++
		return
	}
	a.stats.NoticesIn++
	if kind == NoticeTooBig {
		a.pmtuTooBig(now, to, quote, mtu)
		ep.reached(a)
		return
	}
	if !init && a.paths != nil && a.noticePath(now, to, kind, quote) {
		ep.reached(a)
		return
	}
	if kind != NoticeRefused {
		return
	}
	if init && a.state != stateCookieWait {
		return // an old INIT's answer: the handshake went on
	}
	if init && a.initAddrs != nil {
		return // one of the peer's addresses refused: T1-init tries the next (connectx.go)
	}
	a.fail(reasonPortUnreachable, 0)
	ep.reached(a)
}

// noticePath handles a notice about a packet sent to to, one address of a
// multi-homed peer, and reports whether it did.
//
// ICMP8 assumes a single-homed peer. A refusal at one address of a
// multi-homed peer (mostly an unconfirmed address's HEARTBEAT) counts
// against that path instead, as ICMP9 allows: a confirmed path becomes
// inactive at once (section 8.2), an unconfirmed one is marked as never
// answering. Only a refusal for the last reachable path ends the
// association. An unreachable notice quoting a path's outstanding
// HEARTBEAT counts that HEARTBEAT's error at once rather than an RTO
// later.
func (a *Assoc) noticePath(now time.Time, to netip.AddrPort, kind NoticeKind, quote []byte) bool {
	if kind != NoticeRefused && kind != NoticeUnreachable {
		return false
	}
	i := a.pathOf(to)
	if i < 0 {
		return false
	}
	p := &a.paths[i]
	if kind == NoticeUnreachable {
		// appendPathHeartbeat's layout: the nonce at offset 20.
		if !p.out || len(quote) < 28 || quote[12] != byte(chunk.TypeHeartbeat) ||
			binary.BigEndian.Uint64(quote[20:]) != p.nonce {
			return false
		}
		p.out = false
		a.ep.trace(a, "path %v unreachable (%v)", p.addr, p.state)
		a.pathError(now, i)
		return true
	}
	if p.state != api.PathUnconfirmed && !a.otherReachable(i) {
		return false // the last path the peer answers on: ICMP8
	}
	a.ep.trace(a, "path %v refused (%v)", p.addr, p.state)
	if p.state == api.PathUnconfirmed {
		p.errors = max(p.errors, p.pp.PathMaxRetransmits+1)
		p.next = now.Add(p.pp.HeartbeatInterval + a.pathRTO(i))
		a.schedulePaths()
		return true
	}
	a.pathThresholds(now, i, math.MaxInt) // beyond any Path.Max.Retrans
	return true
}

// pathOf returns the index in a.paths of the peer transport address to,
// or of its IP address when no path has that port, or -1.
func (a *Assoc) pathOf(to netip.AddrPort) int {
	ip, j := to.Addr().Unmap(), -1
	for i := range a.paths {
		switch {
		case a.paths[i].addr == to:
			return i
		case j < 0 && a.paths[i].addr.Addr().Unmap() == ip:
			j = i
		}
	}
	return j
}

// otherReachable reports whether a path other than i is active or
// potentially failed.
func (a *Assoc) otherReachable(i int) bool {
	for j := range a.paths {
		if st := a.paths[j].state; j != i && (st == api.PathActive || st == api.PathPotentiallyFailed) {
			return true
		}
	}
	return false
}
