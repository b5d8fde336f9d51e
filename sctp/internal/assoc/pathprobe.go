package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Probing the peer's unconfirmed addresses (RFC 9260 section 5.4) is
// bounded per association, so that a peer cannot turn the association
// into a reflector: the addresses an INIT, an INIT ACK or an ASCONF lists
// need not be the peer's, and every HEARTBEAT to one that never answers
// lands on a third party.
//
//   - HB.Max.Burst (section 5.4, paraphrase: the HEARTBEATs sent at the
//     same time to UNCONFIRMED addresses are limited by HB.Max.Burst) is
//     applied to the association, not to each address: at most
//     hbMaxBurst such HEARTBEATs per RTO of the association.
//   - An address that does not answer is probed with an exponential
//     back-off (RTO.Initial doubled per unanswered HEARTBEAT or ICMP
//     unreachable, capped at RTO.Max), and no more after
//     Path.Max.Retrans unanswered ones (section 8.2's threshold): it
//     stays unconfirmed. A refusal (ICMP port or protocol unreachable)
//     stops it at once.
//   - The bytes sent to addresses the peer has never answered from are
//     charged probeCost per HEARTBEAT, and stay within
//     unconfirmedCredit times the bytes of the packets the peer sent
//     that the association accepted (the COOKIE ECHO included on the
//     listening side, the INIT ACK on the dialing side). A HEARTBEAT the
//     credit does not cover waits for more of the peer's packets.

// hbMaxBurst is HB.Max.Burst (RFC 9260 section 16: 1).
const hbMaxBurst = 1

// unconfirmedCredit is how many bytes the association may send to
// addresses the peer has never answered from per byte the peer sent.
const unconfirmedCredit = 3

// probeCost is what one HEARTBEAT to an unconfirmed address is charged:
// more than its packet (common header, HEARTBEAT with 16 bytes of
// information, an AUTH chunk with an HMAC-SHA-256) with an IPv6 and a UDP
// header.
const probeCost = 12 + 4 + 4 + 16 + 8 + 32 + 48

// probeBudget is the association's allowance for HEARTBEATs to
// unconfirmed addresses.
type probeBudget struct {
	in     uint64    // bytes of the peer's packets the association accepted
	spent  uint64    // probeCost per HEARTBEAT to an unconfirmed address
	next   time.Time // when the next burst to unconfirmed addresses may go
	burst  int       // HEARTBEATs of the current burst
	parked bool      // a due HEARTBEAT waits for the peer to send more
}

// creditPeer counts n bytes of a packet from the peer the association
// accepted, and wakes the probes that waited for credit.
func (a *Assoc) creditPeer(now time.Time, n int) {
	b := &a.probe
	b.in += uint64(n)
	if !b.parked || b.spent+probeCost > unconfirmedCredit*b.in {
		return
	}
	b.parked = false
	for i := range a.paths {
		p := &a.paths[i]
		if p.state == api.PathUnconfirmed && p.next.IsZero() && p.errors <= p.pp.PathMaxRetransmits {
			p.next = now
		}
	}
	a.schedulePaths()
}

// unconfirmedProbe decides the HEARTBEAT of unconfirmed path i, due now:
// it counts the unanswered one before, and reports whether a HEARTBEAT
// goes now. Otherwise p.next is when to ask again (zero: never, or when
// the peer sends more).
func (a *Assoc) unconfirmedProbe(now time.Time, i int) bool {
	p := &a.paths[i]
	if p.out {
		p.out = false
		p.errors++
	}
	if p.errors > p.pp.PathMaxRetransmits {
		// Never answered: the address stays unconfirmed, unprobed.
		a.ep.trace(a, "path %v unconfirmed after %d HEARTBEATs", p.addr, p.errors)
		p.next = time.Time{}
		return false
	}
	b := &a.probe
	if now.Before(b.next) && b.burst >= hbMaxBurst {
		p.next = b.next
		return false
	}
	if b.spent+probeCost > unconfirmedCredit*b.in {
		b.parked = true
		p.next = time.Time{}
		return false
	}
	if !now.Before(b.next) {
		b.next, b.burst = now.Add(a.currentRTO()), 0
	}
	b.burst++
	b.spent += probeCost
	backoff := a.ep.cfg.RTOInitial << min(p.errors, 16)
	p.next = now.Add(min(backoff, a.ep.cfg.RTOMax))
	return true
}
