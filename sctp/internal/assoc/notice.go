package assoc

import (
	"encoding/binary"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// NoticeKind is what the network said about a packet this end sent (an
// ICMP or ICMPv6 error the shell's socket reported), or what this host's
// own stack did with it.
type NoticeKind uint8

const (
	// NoticeRefused: nothing listens at the destination (protocol
	// unreachable, or port unreachable with UDP encapsulation, RFC 6951
	// section 5.5).
	NoticeRefused NoticeKind = iota + 1
	// NoticeUnreachable: the destination cannot be reached (ICMP
	// destination unreachable for a host or network).
	NoticeUnreachable
	// NoticeTooBig: the packet was larger than a link's MTU.
	NoticeTooBig
	// NoticeNoRoute: this host refused to send the packet, having no
	// route to the destination (a send that failed with ENETUNREACH,
	// EHOSTUNREACH or EACCES). Only an INIT's counts (initUnreachable);
	// other packets are lost as any, and the timers count them.
	NoticeNoRoute
)

// Notice is what the network, or this host's stack, said about a packet
// this end sent.
type Notice struct {
	To   netip.AddrPort // the packet's destination
	Kind NoticeKind
	// Quote is the packet sent from its SCTP common header on, possibly
	// truncated.
	Quote []byte
	// MTU is the MTU a NoticeTooBig reported, 0 if none.
	MTU int
	// Err is the error the network or the host reported (an errno): the
	// cause of the end of a handshake the notice ends, End.Err.
	Err error
}

// Notice processes a notice about a packet this end sent to n.To. It
// follows RFC 9260 appendix C.
//
// The quote must name one of our associations and carry its peer's
// Verification Tag, or for an INIT (tag 0) our Initiate Tag (ICMP5,
// ICMP6); anything else is dropped and counted, so a forged ICMP error
// cannot end an association.
//
// A valid NoticeRefused ends the association as an ABORT (ICMP8), unless
// another path is reachable (noticePath). NoticeUnreachable counts against
// the handshake while the INIT it quotes waits for an answer
// (initUnreachable); later it is only counted (ICMP9 allows it): the
// retransmission timer already counts the loss, and counting both would
// halve Association.Max.Retrans. NoticeTooBig is counted; with
// Config.PMTUDiscovery it is a hint to the path's PLPMTU search (pmtu.go).
// NoticeNoRoute acts on an INIT only (initUnreachable), and is not counted
// as an ICMP error.
func (ep *Endpoint) Notice(now time.Time, n Notice) {
	a, init := ep.noticeAssoc(n.To, n.Quote)
	if n.Kind == NoticeNoRoute {
		if a != nil && init && a.state == stateCookieWait {
			a.initUnreachable(n)
			ep.reached(a)
		}
		return
	}
	if a == nil {
		ep.stats.NoticesDropped++
		return
	}
	a.stats.NoticesIn++
	if n.Kind == NoticeTooBig {
		a.pmtuTooBig(now, n.To, n.Quote, n.MTU)
		ep.reached(a)
		return
	}
	if !init && a.paths != nil && a.noticePath(now, n.To, n.Kind, n.Quote) {
		ep.reached(a)
		return
	}
	if init && a.state != stateCookieWait {
		return // an old INIT's answer: the handshake went on
	}
	if n.Kind == NoticeUnreachable && init {
		a.initUnreachable(n)
		ep.reached(a)
		return
	}
	if n.Kind != NoticeRefused {
		return
	}
	if init && a.initAddrs != nil {
		return // one of the peer's addresses refused: T1-init tries the next (connectx.go)
	}
	a.fail(reasonPortUnreachable, 0)
	ep.reached(a)
}

// noticeAssoc returns the association a notice's quote names (ICMP5,
// ICMP6), and whether the quote is its INIT; nil when the quote is too
// short, names none, or carries the wrong tag.
func (ep *Endpoint) noticeAssoc(to netip.AddrPort, quote []byte) (*Assoc, bool) {
	if len(quote) < 12 {
		return nil, false
	}
	src, dst := binary.BigEndian.Uint16(quote), binary.BigEndian.Uint16(quote[2:])
	a := ep.assocs[assocKey{peer: to, localPort: src, peerPort: dst}]
	if a == nil || a.closed {
		return nil, false
	}
	switch vtag := binary.BigEndian.Uint32(quote[4:]); {
	case vtag != 0:
		if vtag != a.peerTag {
			return nil, false
		}
		return a, false
	case len(quote) >= 20 && quote[12] == byte(chunk.TypeInit) &&
		binary.BigEndian.Uint32(quote[16:]) == a.localTag:
		return a, true
	}
	return nil, false
}

// initUnreachableLimit is the weight of the "no"s that ends a handshake
// whose every address said no (initUnreachable): one ICMP destination
// unreachable weighs 1, a send this host refused weighs the limit.
const initUnreachableLimit = 3

// initRefusals records, in COOKIE-WAIT, the peer addresses whose INIT
// could not reach them (initUnreachable).
type initRefusals struct {
	said   uint32 // bit i: initAddrs[i] (bit 0: the only address) said no
	weight uint8  // the "no"s so far, a NoticeNoRoute weighing initUnreachableLimit
}

// initUnreachable counts notice n, a NoticeUnreachable or NoticeNoRoute
// quoting our INIT in COOKIE-WAIT, against the handshake, and ends it with
// reasonUnreachable (End.Err is n.Err) once every address of the peer said
// no and the "no"s weigh initUnreachableLimit.
//
// Section 5.1 gives the INIT Max.Init.Retransmits tries before the user is
// told; ICMP9 lets an ICMP destination unreachable count as an error of
// its destination. A destination that this host has no route to is
// certain at once, as a kernel's connect reports ENETUNREACH at once: so
// a single-homed peer's handshake ends at the first INIT this host could
// not send. ICMP from the network may come from a route that is still
// converging: each counts once, so three INITs answered so end it (about
// RTO.Initial x 3 with the default back-off). Either way the dial fails in
// seconds, not after Max.Init.Retransmits' 4 minutes, with an error that
// says why.
func (a *Assoc) initUnreachable(n Notice) {
	i := 0
	if a.initAddrs != nil {
		if i = slices.Index(a.initAddrs, n.To); i < 0 {
			return
		}
	}
	r := &a.initNo
	r.said |= 1 << i
	if n.Kind == NoticeNoRoute {
		r.weight = initUnreachableLimit
	} else if r.weight < initUnreachableLimit {
		r.weight++
	}
	a.ep.trace(a, "INIT to %v unreachable (%v): %v", n.To, n.Kind, n.Err)
	all := uint32(1)
	if k := len(a.initAddrs); k > 0 {
		all = uint32(1)<<k - 1 // k <= maxPeerAddrs = 32
	}
	if r.said&all == all && r.weight >= initUnreachableLimit {
		a.destroy(&End{Reason: reasonUnreachable, Err: n.Err}, 0)
	}
}

// noticePath handles a notice about a packet sent to to, one address of a
// multi-homed peer, and reports whether it did.
//
// ICMP8 assumes a single-homed peer. A refusal at one address of a
// multi-homed peer (mostly an unconfirmed address's HEARTBEAT) counts
// against that path instead, as ICMP9 allows: a confirmed path becomes
// inactive at once (section 8.2), and an unconfirmed one stops being
// probed. Only a refusal for the last reachable path ends the
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
		// An unconfirmed address's next HEARTBEAT waits twice as long
		// (pathprobe.go's back-off counts this error).
		a.pathError(now, i)
		return true
	}
	if p.state != api.PathUnconfirmed && !a.otherReachable(i) {
		return false // the last path the peer answers on: ICMP8
	}
	a.ep.trace(a, "path %v refused (%v)", p.addr, p.state)
	if p.state == api.PathUnconfirmed {
		// Never to be probed again (pathprobe.go).
		p.errors = max(p.errors, p.pp.PathMaxRetransmits+1)
		p.out, p.next = false, time.Time{}
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
