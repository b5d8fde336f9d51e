package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/stream"
)

// PRPolicy is a message's partial reliability policy (RFC 3758 section
// 4.1, RFC 7496 section 3), numbered as Linux's SCTP_PR_SCTP_*.
type PRPolicy = api.PRPolicy

// The partial reliability policies.
const (
	PRNone      = api.PRNone // fully reliable
	PRTTL       = api.PRTTL  // timed reliability: Value is the lifetime in milliseconds
	PRRtx       = api.PRRtx  // limited retransmissions: Value is the most retransmissions per chunk
	PRPrio      = api.PRPrio // priority: Value is the priority, lower is more important
	numPolicies = PRPrio + 1
)

// PR is the partial reliability of one message: a policy and its value.
// The zero PR is fully reliable.
type PR = api.PR

// Failed is a message abandoned under its PR policy, as TakeFailed
// reports it.
type Failed struct {
	SID       uint16
	PPID      uint32
	Unordered bool
	Policy    PRPolicy
	Sent      bool   // some of it had been transmitted
	Payload   []byte // a copy, owned by the receiver of the report
}

// abandoner is the sender's PR-SCTP state (RFC 3758 section 3.5): the
// Advanced.Peer.Ack.Point and its FORWARD-TSN, the messages abandoned and
// not yet reported, and the PRTTL lifetimes. The sender decides what to
// abandon; the abandoner keeps what follows.
type abandoner struct {
	cfg   *Config
	stats *Stats

	advPeerAck    TSN       // the Advanced.Peer.Ack.Point (A1)
	forwardDue    bool      // a FORWARD-TSN was called for (C3, A5)
	forwardSent   TSN       // new cumulative TSN of the last FORWARD-TSN sent
	forwardSentAt time.Time // and when
	ssnEntries    []chunk.StreamSSN
	midEntries    []chunk.StreamMID
	failed        []Failed // abandoned and not yet reported (takeFailed)
	// timedChunks counts outstanding chunks of PRTTL and PRRtx messages:
	// the sweeps run only while there are some.
	timedChunks int
	clockBase   time.Time // time base of the PRTTL lifetimes (clock)
	ttl         ttlHeap   // lifetimes of the PRTTL messages (lifetime.go)
}

// init starts the abandoner with the cumulative ack point cum.
func (a *abandoner) init(cfg *Config, st *Stats, cum TSN) {
	a.cfg, a.stats = cfg, st
	a.advPeerAck, a.forwardSent = cum, cum
}

// maxLifetime is the longest PRTTL lifetime, in milliseconds (24 days):
// lifetimes are compared as serial numbers.
const maxLifetime = 1<<31 - 1

// clock returns now in milliseconds since the first lifetime, wrapping.
func (a *abandoner) clock(now time.Time) uint32 {
	if a.clockBase.IsZero() {
		a.clockBase = now
	}
	return uint32(now.Sub(a.clockBase) / time.Millisecond)
}

// queuePR is queueMessage with partial reliability pr. A PRPrio message
// that finds the send buffer full first abandons queued messages of less
// important priority (RFC 7496 section 3.2); reliable ones never.
func (s *sender) queuePR(now time.Time, sid uint16, ppid uint32, unordered bool, payload []byte, pr PR) error {
	if pr.Policy >= numPolicies {
		return ErrConfig
	}
	if pr.Policy == PRPrio && s.queue.buffered > 0 && s.queue.buffered+len(payload) > s.queue.bufLimit() {
		s.makeRoom(now, len(payload), pr.Value)
	}
	if err := s.queueMessage(sid, ppid, unordered, payload, pr.Policy != PRPrio); err != nil {
		return err
	}
	if pr.Policy != PRNone {
		m := s.streams.OutSide(sid).tail
		m.bits |= uint8(pr.Policy) << policyShift
		m.prValue = pr.Value
		if pr.Policy == PRTTL {
			m.prValue = s.pr.clock(now) + min(pr.Value, maxLifetime)
			s.watchLifetime(m)
		}
	}
	return nil
}

// makeRoom abandons unsent PRPrio messages less important than prio,
// least important first, until n more bytes fit; if abandoning all would
// not make room, it abandons none. Partly sent messages are left alone:
// their buffer returns only once the peer acknowledged past them.
func (s *sender) makeRoom(now time.Time, n int, prio uint32) {
	freeable := 0
	for _, st := range s.streams.OutSides() {
		for m := st.head; m != nil; m = m.next {
			if m.policy() == PRPrio && m.prValue > prio && m.off == 0 {
				freeable += len(m.buf)
			}
		}
	}
	// bufLimit counts what the other associations hold, so it stays.
	limit := s.queue.bufLimit()
	if s.queue.buffered-freeable+n > limit && s.queue.buffered > freeable {
		return
	}
	for s.queue.buffered > 0 && s.queue.buffered+n > limit {
		var victim *message
		for _, st := range s.streams.OutSides() {
			for m := st.head; m != nil; m = m.next {
				if m.policy() == PRPrio && m.prValue > prio && m.off == 0 &&
					(victim == nil || m.prValue > victim.prValue) {
					victim = m
				}
			}
		}
		if victim == nil {
			return
		}
		s.dropQueued(victim)
	}
}

// expired reports whether m's policy gives it up before a transmission of
// a chunk sent xmits times (0 for a new chunk).
func (m *message) expired(a *abandoner, now time.Time, xmits uint8) bool {
	switch m.policy() {
	case PRTTL:
		// RFC 3758 section 4.1 TR3/TR4: the lifetime is evaluated before a
		// TSN is assigned and before each (re)transmission.
		return int32(a.clock(now)-m.prValue) >= 0
	case PRRtx:
		// RFC 7496 section 3.1: fast and timer retransmissions both count.
		return xmits > 0 && uint32(xmits-1) >= m.prValue
	}
	return false
}

// unqueue unlinks m, given up, from its stream's send queue and the
// scheduler, and takes its part not yet cut out of the stream's buffered
// bytes.
func (s *sender) unqueue(m *message) {
	st := s.streams.PeekOutSide(m.sid)
	if st == nil {
		return
	}
	s.queue.unbuffer(st, m.sid, len(m.buf)-int(m.off))
	if _, head := s.queue.remove(st, m); head {
		s.resets.headGone(st, m)
	}
}

// dropQueued abandons m, which has no TSN yet (RFC 3758 section 4.1 TR3);
// no FORWARD-TSN is needed.
func (s *sender) dropQueued(m *message) {
	s.unqueue(m)
	m.bits |= msgAbandoned
	s.pr.report(m, false)
	s.stats.PRAbandonedUnsent++
	m.refs = 1
	s.queue.release(m)
}

// abandon gives up message m, some of which has TSNs (RFC 3758 section
// 3.5 A2, A3: every chunk of the message is abandoned and treated as
// acked). The part not yet cut leaves the queue; the
// Advanced.Peer.Ack.Point moves (C2).
func (s *sender) abandon(now time.Time, m *message) {
	if m.abandoned() {
		return
	}
	m.bits |= msgAbandoned
	s.pr.report(m, true)
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.msg == m {
			s.abandonRec(r)
		}
	}
	if int(m.off) < len(m.buf) {
		s.unqueue(m)
		s.placeholder(m)
		m.refs-- // no longer being cut: only its records hold it
	}
	s.pr.advance(&s.ledger)
}

// placeholder gives the part of m never cut one TSN, abandoned at once and
// never sent. Without it, had the peer acknowledged every fragment sent,
// the Advanced.Peer.Ack.Point would never pass the cumulative ack, no
// FORWARD-TSN would go, and the receiver would hold the first fragments
// (and an ordered message's stream) for good. It carries the stream,
// SSN/MID and U flag for the FORWARD-TSN entries.
func (s *sender) placeholder(m *message) {
	if s.ledger.full() {
		s.ledger.grow()
	}
	_, r := s.ledger.assign()
	flags := uint8(0)
	if m.unordered {
		flags = chunk.FlagUnordered
	}
	*r = record{msg: m, off: m.off, sid: m.sid, mid: m.mid, flags: flags | chunk.FlagEnd, state: recAbandoned}
	m.refs++
	s.stats.AbandonedChunks++
}

// abandonRec takes one chunk out of flight without crediting cwnd (A2).
func (s *sender) abandonRec(r *record) {
	was, ok := s.ledger.abandoned(r)
	if !ok {
		return
	}
	if was != recGapAcked {
		s.settle(r)
	}
	if was == recInFlight {
		s.paths.of(r).flight -= s.ledger.size(r)
	}
	s.pr.timedChunks--
	s.stats.AbandonedChunks++
}

// report records m as failed for takeFailed. Every one is kept: the
// association takes them after each step, so they are bounded by the send
// buffer.
func (a *abandoner) report(m *message, sent bool) {
	m.bits |= msgDrained // Drain must not report it again
	p := m.policy()
	a.stats.PRAbandoned[p]++
	a.stats.PRAbandonedBytes[p] += uint64(len(m.buf))
	a.failed = append(a.failed, Failed{SID: m.sid, PPID: m.ppid, Unordered: m.unordered, Policy: p, Sent: sent,
		Payload: append([]byte(nil), m.buf...)})
}

// takeFailed calls fn for each message abandoned since the last call.
func (a *abandoner) takeFailed(fn func(Failed)) {
	for i := range a.failed {
		fn(a.failed[i])
		a.failed[i] = Failed{}
	}
	a.failed = a.failed[:0]
}

// sweep abandons outstanding messages whose lifetime expired or whose
// chunks reached their retransmission limit (RFC 3758 section 4.1 TR5),
// only with PR-SCTP and while PRTTL or PRRtx chunks are outstanding.
func (s *sender) sweep(now time.Time) {
	if s.pr.timedChunks == 0 || !s.cfg.PartialReliability {
		return
	}
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		r := s.ledger.rec(t)
		m := r.msg
		if m == nil || m.bits == 0 || m.abandoned() {
			continue
		}
		xmits := uint8(0)
		if r.state == recRtx {
			xmits = r.xmits
		} else if r.state != recInFlight {
			continue
		}
		if m.expired(&s.pr, now, xmits) {
			s.abandon(now, m)
		}
	}
}

// advance applies RFC 3758 section 3.5 C2: "move
// "Advanced.Peer.Ack.Point" up as long as the chunk next in the out-queue
// space is marked as "abandoned"".
func (a *abandoner) advance(l *ledger) {
	if a.advPeerAck.LT(l.cumAck) {
		a.advPeerAck = l.cumAck // C1
	}
	for t := a.advPeerAck + 1; t != l.nextTSN && l.rec(t).state == recAbandoned; t++ {
		a.advPeerAck = t
	}
	if a.advPeerAck.GT(l.cumAck) && a.advPeerAck != a.forwardSent {
		a.forwardDue = true
	}
}

// due reports whether a (I-)FORWARD-TSN should go out (C3, A5).
func (a *abandoner) due(cum TSN) bool {
	return a.forwardDue && a.cfg.PartialReliability && a.advPeerAck.GT(cum)
}

// appendForward appends the (I-)FORWARD-TSN that moves the peer to the
// Advanced.Peer.Ack.Point within room bytes. C4: ordered abandoned chunks
// report their stream's highest SSN, once per stream, and the point is
// lowered to what fits; with I-DATA every abandoned message is listed by
// stream, U flag and MID (RFC 8260 section 2.3.1). C5: "If a FORWARD TSN
// is sent, the sender MUST assure that at least one T3-rtx timer is
// running."
func (s *sender) appendForward(now time.Time, pkt []byte, room int) []byte {
	pkt, sent := s.pr.appendForward(now, pkt, room, &s.ledger)
	if sent && s.loss.t3.IsZero() {
		s.loss.t3 = now.Add(s.paths.primary.rto)
		s.loss.sackSinceT3 = false
	}
	return pkt
}

// appendForward reports whether it appended a chunk.
func (a *abandoner) appendForward(now time.Time, pkt []byte, room int, l *ledger) ([]byte, bool) {
	if !a.due(l.cumAck) || room < 8 {
		return pkt, false
	}
	entry := 4
	if a.cfg.Interleaved {
		entry = 8
	}
	maxEntries := min((room-8)/entry, (chunk.MaxLen-8)/entry)
	a.ssnEntries, a.midEntries = a.ssnEntries[:0], a.midEntries[:0]
	cum := l.cumAck
	for t := l.cumAck + 1; t.LEQ(a.advPeerAck); t++ {
		r := l.rec(t)
		uo := r.flags&chunk.FlagUnordered != 0
		if a.cfg.Interleaved {
			i := 0
			for i < len(a.midEntries) && (a.midEntries[i].SID != r.sid || a.midEntries[i].Unordered != uo) {
				i++
			}
			if i == len(a.midEntries) {
				if i == maxEntries {
					break // C4: lower the point to what fits
				}
				a.midEntries = append(a.midEntries, chunk.StreamMID{SID: r.sid, Unordered: uo, MID: r.mid})
			} else if stream.MID(a.midEntries[i].MID).LT(stream.MID(r.mid)) {
				a.midEntries[i].MID = r.mid
			}
		} else if !uo {
			i := 0
			for i < len(a.ssnEntries) && a.ssnEntries[i].SID != r.sid {
				i++
			}
			if i == len(a.ssnEntries) {
				if i == maxEntries {
					break
				}
				a.ssnEntries = append(a.ssnEntries, chunk.StreamSSN{SID: r.sid, SSN: uint16(r.mid)})
			} else if stream.SSN(a.ssnEntries[i].SSN).LT(stream.SSN(r.mid)) {
				a.ssnEntries[i].SSN = uint16(r.mid)
			}
		}
		cum = t
	}
	if cum == l.cumAck {
		return pkt, false
	}
	if a.cfg.Interleaved {
		pkt, _ = chunk.AppendIForwardTSN(pkt, cum, a.midEntries)
	} else {
		pkt, _ = chunk.AppendForwardTSN(pkt, cum, a.ssnEntries)
	}
	a.forwardDue = false
	a.forwardSent, a.forwardSentAt = cum, now
	a.stats.ForwardTSNsOut++
	return pkt, true
}

// afterSACK runs RFC 3758 section 3.5 A4 after SACK processing: the
// policies, then C1 to C3 (a FORWARD-TSN is due when the point is beyond
// the SACK's cumulative TSN).
func (s *sender) afterSACK(now time.Time, sackCum TSN) {
	if !s.cfg.PartialReliability {
		s.pr.advPeerAck = s.ledger.cumAck
		return
	}
	s.sweep(now)
	s.pr.advance(&s.ledger)
	if s.pr.advPeerAck.GT(sackCum) {
		s.pr.forwardDue = true
		// F2 allows limiting duplicate FORWARD TSNs to one per RTT: a SACK
		// within an RTT of the same FORWARD-TSN was sent before it arrived
		// (T3-rtx resends it in any case).
		if s.pr.advPeerAck == s.pr.forwardSent && now.Sub(s.pr.forwardSentAt) < max(s.paths.primary.srtt, s.cfg.Granularity) {
			s.pr.forwardDue = false
		}
	}
}
