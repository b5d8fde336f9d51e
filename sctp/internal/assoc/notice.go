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
	// NoticeRefused: nothing listens at the destination: ICMP protocol
	// unreachable for plain SCTP, or port unreachable for UDP
	// encapsulation, which RFC 6951 section 5.5 maps to protocol
	// unreachable.
	NoticeRefused NoticeKind = iota + 1
	// NoticeUnreachable: the destination host or network cannot be
	// reached.
	NoticeUnreachable
	// NoticeTooBig: the packet was larger than a link's MTU.
	NoticeTooBig
)

// NoticeMTU processes what the network said about a packet this end sent
// to the transport address to: quote is the sent packet as the ICMP error
// quoted it, from its SCTP common header on (possibly truncated), and mtu
// the IP MTU a NoticeTooBig reported (0 when none). It follows RFC 9260
// appendix C.
//
// The quote must name one of our associations (ICMP5, paraphrased: the
// ICMP payload locates the association, else the message is ignored) and
// carry its peer's Verification Tag, or, for an INIT (tag 0), our
// Initiate Tag (ICMP6, paraphrased: a non-zero tag that does not match
// the peer's is discarded; with tag 0 the quote must show an INIT chunk
// whose Initiate Tag matches); anything else is dropped and counted in
// NoticesDropped, so that a forged ICMP error cannot end an association.
//
// A valid NoticeRefused is handled as ICMP8 asks of a "Protocol
// Unreachable" (paraphrased: treated as an ABORT with the T bit set if
// it does not quote an INIT; if it quotes an INIT and the association is
// in COOKIE-WAIT, handled like an ABORT): the association ends with
// reasonPortUnreachable, unless the association has several paths and
// another of them is reachable: then the refusal only counts against the
// path of to (noticePath). NoticeUnreachable is only counted: ICMP9 lets an
// implementation "MAY move the destination to the unreachable state or,
// alternatively, increment the path error counter", and each packet that
// draws one also expires a retransmission timer, which already counts
// against the association (counting both would halve
// Association.Max.Retrans); a transient routing error thus never ends an
// association by itself (with several paths, one that quotes a path's
// outstanding HEARTBEAT counts that HEARTBEAT against the path at once,
// noticePath). NoticeTooBig is counted; with Config.PMTUDiscovery a valid
// one is a hint to the path's PLPMTU search (pmtu.go).
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

// noticePath handles a notice about a packet sent to to, one of the
// addresses of a multi-homed peer, and reports whether it did; if not,
// Notice goes on as for a single path.
//
// ICMP8 was written for a peer with one address: a refusal there means
// the peer has no SCTP. A multi-homed peer that refuses at one of its
// addresses (no SCTP or no UDP encapsulation listening on that address,
// a firewall rejecting it) may still be reachable at the others, and
// ending the association for it would throw away a working association
// for an address that never carried data (an unconfirmed address's
// HEARTBEAT draws most such refusals). So a refusal counts against the
// path, as ICMP9 allows for an unreachable destination ("MAY move the
// destination to the unreachable state"): a confirmed path becomes
// inactive at once (section 8.2, as if its error count had passed
// Path.Max.Retrans: data moves to another active path, and the path is
// probed every RTO until a HEARTBEAT ACK makes it active again), and an
// unconfirmed address is marked as one that never answered (probed at
// the pace of an idle path). Only a refusal for the association's last
// reachable path (active or potentially failed, with no other path so)
// ends the association as ICMP8 says.
//
// An unreachable notice that quotes the outstanding HEARTBEAT of a path
// (its nonce) counts that HEARTBEAT's error at once, ICMP9's "increment
// the path error counter", instead of one RTO later when it would have
// gone unanswered: the HEARTBEAT is no longer outstanding, so it is
// counted once. Other unreachable notices (a DATA packet's, whose loss its
// T3-rtx expiry counts) and too big notices are left to Notice (counted
// only).
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
		// The HEARTBEAT of appendPathHeartbeat, alone in its packet:
		// chunk header at 12, Heartbeat Info parameter header at 16,
		// the nonce at 20.
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
// potentially failed (confirmed, and not given up by section 8.2).
func (a *Assoc) otherReachable(i int) bool {
	for j := range a.paths {
		if st := a.paths[j].state; j != i && (st == api.PathActive || st == api.PathPotentiallyFailed) {
			return true
		}
	}
	return false
}
