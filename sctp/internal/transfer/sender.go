package transfer

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// maxOutstanding bounds the DATA chunks above the cumulative ack point.
const maxOutstanding = 1 << 15

// sender is the sending half of the engine (RFC 9260 sections 6.1, 6.2.1,
// 6.3, 7). Its parts: queue (send_queue.go), ledger (ledger.go), loss
// (loss.go, loss_rack.go), pr (prsctp.go, lifetime.go), resets
// (reconf_tracker.go), rtt (rtt_timing.go) and paths (paths.go, path.go).
// What spans them stays here: building packets within cwnd, the peer's
// window and Max.Burst, and the fragment point; SACK handling is in
// sender_sack.go.
type sender struct {
	cfg     *Config
	stats   *Stats
	streams *streamTable
	frame   interleave.Framer // writes DATA or I-DATA chunks
	// dataFrame is frame when it is the DATA variant's, called without
	// the interface (appendChunk); else nil.
	dataFrame *interleave.DataFramer
	hdr       int // chunk header length of the variant

	queue  sendQueue
	ledger ledger
	loss   lossDetector
	pr     abandoner
	resets reconfTracker
	rtt    rttTimer
	paths  pathSet

	fragPoint  int       // largest DATA payload per chunk
	dataRoom   int       // bytes of DATA chunks per packet when the window bounds fragPoint (0: no bound)
	burstCap   int       // flight size this send opportunity may reach (Max.Burst, 6.1 rule D)
	peerRwnd   int       // our view of the peer's receive window
	peerWinMax int       // largest a_rwnd the peer advertised (INIT, SACKs): bounds fragPoint
	lastSend   time.Time // last DATA transmission, for the idle cwnd rule
	// holes, while AppendDataHoles builds a packet: the holes left so far
	// (up to its capacity), for payloads of holeMin bytes or more; nil
	// otherwise, and every payload is copied.
	// Holes of holeKeep bytes or more hold their messages (queue.holding),
	// none when it is 0; the caller fills the shorter ones in at once.
	holes    []chunk.Hole
	holeMin  int32  // 32 bits and
	holeKeep uint16 // 16 beside immediate: the Engine fits the 2,688-byte size class
	// immediate sets the I bit on DATA chunks (RFC 7053).
	immediate bool
}

func (s *sender) init(cfg *Config, path *Path, st *Stats, streams *streamTable) {
	s.cfg, s.stats, s.streams = cfg, st, streams
	s.paths.init(path)
	s.queue.init(cfg, streams, &s.paths)
	if cfg.Interleaved {
		s.frame = interleave.NewIDataFramer(streams)
	} else {
		s.dataFrame = interleave.NewDataFramer(streams)
		s.frame = s.dataFrame
	}
	s.hdr = s.frame.HeaderLen()
	s.ledger.init(cfg.LocalTSN, s.hdr)
	s.pr.init(cfg, st, s.ledger.cumAck)
	s.peerRwnd = int(cfg.PeerRwnd)
	s.peerWinMax = s.peerRwnd
	s.setFragPoint()
	s.sendOpportunity(0)
}

// holeFramer is a Framer that writes a chunk with its user data as a
// hole (interleave.DataFramer.AppendHole).
type holeFramer interface {
	AppendHole(b []byte, f interleave.OutFrag) ([]byte, chunk.Hole)
}

// Fragment point bounds by the peer's window (setFragPoint).
const (
	winFragShare    = 4
	minWinFragPoint = 1024
)

// setFragPoint derives the fragment point, the largest user payload of a
// new chunk: what fits a packet of the path MTU, a multiple of 4, and at
// most a quarter of the largest window the peer advertised, never below 1
// KiB.
//
// RFC 9260 section 6.9 requires fragmenting for the MTU and leaves a
// smaller fragment point to the sender. The window bound is for a peer
// whose buffer is small next to the MTU (64 KB loopback packets): a chunk
// as large as its window is accepted only into an empty buffer, and Linux
// drops one longer than its rwnd plus its own fragment point, stalling the
// stream. Four chunks per window let the peer take one while reading the
// others and leave room for fast retransmit's miss indications. The
// largest window, not the current one, bounds it, or the flight would be
// cut into slivers. The floor stays within the smallest initial a_rwnd
// allowed (1500 bytes, section 6).
//
// So bounded, a packet carries at most two chunks (dataRoom), half the
// window: a packet holding the whole window would wait for the peer's
// delayed SACK on every round trip.
func (s *sender) setFragPoint() {
	fp := (s.paths.primary.mtu - 12 - s.hdr) &^ 3
	s.dataRoom = 0
	if w := (s.peerWinMax / winFragShare) &^ 3; w < fp {
		fp = min(fp, max(w, minWinFragPoint))
		s.dataRoom = 2 * (s.hdr + fp)
	}
	s.fragPoint = fp
}

// learnWindow raises the fragment point bound when a SACK advertises a
// larger window than any before.
func (s *sender) learnWindow(arwnd uint32) {
	if int(arwnd) > s.peerWinMax {
		s.peerWinMax = int(arwnd)
		s.setFragPoint()
	}
}

// queueMessage copies a user message of stream sid into the send buffer,
// returning Queue's errors. perStream applies the stream's own limit,
// which PRPrio messages skip: they compete for the buffer by priority (RFC
// 7496 section 3.2), not by stream.
func (s *sender) queueMessage(sid uint16, ppid uint32, unordered bool, payload []byte, perStream bool) error {
	if int(sid) >= s.cfg.OutStreams {
		return fmt.Errorf("%w: %d, %d outbound streams", ErrStreamID, sid, s.cfg.OutStreams)
	}
	if len(payload) == 0 {
		return ErrEmptyMessage
	}
	if len(payload) > maxMessage {
		return fmt.Errorf("%w: %d bytes", ErrMessageTooLarge, len(payload))
	}
	st := s.streams.OutSide(sid)
	wasIdle := s.queue.unsent == 0
	if err := s.queue.add(st, sid, ppid, unordered, payload, perStream); err != nil {
		return err
	}
	if wasIdle {
		// New data after an idle period is a send opportunity; one still
		// open stays open.
		s.burstCap = max(s.burstCap, s.paths.primary.flight+s.cfg.MaxBurst*s.paths.primary.pmdcs())
	}
	if o := s.streams.Out(sid); o.State != stream.Open {
		// A stream that cannot send keeps its data, out of the scheduler's way.
		s.queue.sched.Block(sid)
	} else if s.resets.holds(st) {
		// A stream being reset with nothing old left to cut waits for the new
		// numbering.
		s.blockForReset(sid)
	}
	s.queue.sched.Enqueue(sid, len(payload))
	s.stats.MessagesQueued++
	return nil
}

// idle reports whether nothing is queued or unacknowledged (RFC 9260
// section 9.2).
func (s *sender) idle() bool { return s.queue.buffered == 0 && s.ledger.outstanding() == 0 }

// appendChunk writes the chunk of record r (TSN t).
func (s *sender) appendChunk(pkt []byte, t TSN, r *record) []byte {
	flags := r.flags
	if s.immediate || s.loss.tailProbe {
		flags |= chunk.FlagImmediate
	}
	payload := r.msg.buf[r.off : int(r.off)+int(r.n)]
	hole := len(s.holes) < cap(s.holes) && len(payload) >= int(s.holeMin)
	if !hole && s.dataFrame != nil {
		return s.dataFrame.AppendFields(pkt, flags, uint32(t), r.sid, r.mid, r.ppid, payload)
	}
	f := interleave.OutFrag{
		TSN: uint32(t), PPID: r.ppid, MID: r.mid, FSN: r.fsn, SID: r.sid, Flags: flags,
		Payload: payload,
	}
	if hole {
		// Both of package interleave's framers write holes; another
		// framer gets every payload copied.
		if hf, ok := s.frame.(holeFramer); ok {
			pkt, h := hf.AppendHole(pkt, f)
			s.holes = append(s.holes, h)
			if k := s.holeKeep; k != 0 && len(payload) >= int(k) {
				s.queue.holding = true
			}
			return pkt
		}
	}
	return s.frame.Append(pkt, f)
}

// nextChunkSize returns the user data size of the next new chunk, or 0.
func (s *sender) nextChunkSize() int {
	m := s.queue.pinned
	if m == nil {
		if s.queue.unsent == 0 {
			return 0
		}
		if m = s.peekNext(); m == nil {
			return 0 // every stream with data is blocked
		}
	}
	return min(len(m.buf)-int(m.off), s.fragPoint)
}

// peekNext returns the message the scheduler would start next (Next has
// no effect until Sent), or nil.
func (s *sender) peekNext() *message {
	for {
		sid, ok := s.queue.sched.Next()
		if !ok {
			return nil
		}
		st := s.streams.PeekOutSide(sid)
		if st == nil {
			return nil
		}
		if st.head != nil && s.resets.holds(st) && s.streams.Out(sid).State == stream.Open {
			s.blockForReset(sid) // as AppendData would
			continue
		}
		return st.head
	}
}

// canSendNew applies rules A and B of section 6.1 to a new chunk.
func (s *sender) canSendNew(now time.Time, size int) bool {
	// 6.1 forbids TSNs over 2^31 - 1 and more than 2^16 - 1 ordered
	// messages per stream in the send window; bounding the outstanding
	// chunks keeps both (and spares receivers with small TSN maps).
	if s.ledger.outstanding() >= maxOutstanding {
		s.stats.CwndLimited++
		return false
	}
	// Rule B: "the sender MUST NOT transmit new data to a given transport
	// address if it has cwnd + (PMDCS - 1) or more bytes of data
	// outstanding"; Max.Burst lowers cwnd here (rule D).
	if s.paths.primary.flight >= s.window() && !s.loss.tailProbe {
		s.stats.CwndLimited++
		return false
	}
	// Rule A: no new data beyond the peer's rwnd "except for zero window
	// probes", sent only with nothing outstanding, the first "after 1 RTO
	// when it detects that the receiver has closed its window"; T3-rtx
	// backs off the following ones.
	if size > s.peerRwnd {
		if s.ledger.outstanding() > 0 {
			s.stats.RwndLimited++
			return false
		}
		if s.loss.zeroWindowProbeAt.IsZero() {
			s.loss.zeroWindowProbeAt = now.Add(s.paths.primary.rto)
		}
		if now.Before(s.loss.zeroWindowProbeAt) {
			s.stats.RwndLimited++
			return false
		}
		s.loss.zeroWindowProbeAt = time.Time{}
		s.stats.ZeroWindowProbes++
	}
	return true
}

// sendOpportunity opens a send opportunity (an acknowledgement of refill
// bytes, a timeout, new data after an idle period). RFC 9260 section 6.1
// rule D: "if ((flightsize + Max.Burst * PMDCS) < cwnd) cwnd = flightsize
// + Max.Burst * PMDCS", applied without touching cwnd: burstCap is the
// flight size the opportunity may reach. A SACK counts the bytes it newly
// acknowledged (refill), so a SACK covering a whole receive batch does not
// shrink the flight; bytes gap-acked earlier do not count again, so the
// cumulative ack jump after a loss recovery opens no large burst.
//
// The rule is written for a receiver that acknowledges every second
// packet (section 6.2), each SACK then opening Max.Burst packets. A
// receiver that answers a whole batch of packets with one SACK (usctp's,
// Linux's with GRO) would otherwise let a flight that shrank once regrow
// by Max.Burst packets a round trip, far below cwnd: a SACK newly
// acknowledging 2n packets counts as the n SACKs it stands for. cwnd still
// bounds the flight.
func (s *sender) sendOpportunity(refill int) {
	mtu := s.paths.primary.pmdcs()
	sacks := max(1, refill/(2*mtu))
	s.burstCap = s.paths.primary.flight + refill + sacks*s.cfg.MaxBurst*mtu
}

// window returns the flight size new data may not reach: cwnd or the
// Max.Burst cap.
func (s *sender) window() int { return min(s.paths.primary.cwnd, s.burstCap) }

// pending is Engine.Pending.
func (s *sender) pending(now time.Time) bool {
	if s.loss.t3Recovery && s.loss.t3Sent {
		return false
	}
	if s.ledger.rtxPending > 0 && (s.loss.fastRtxDue || s.loss.t3Recovery || s.rtxRoom()) {
		return true
	}
	if s.queue.unsent == 0 || s.paths.primary.flight >= s.window() && !s.loss.tailProbe {
		return false
	}
	size := s.nextChunkSize()
	if size == 0 {
		return false
	}
	return size <= s.peerRwnd || (s.ledger.outstanding() == 0 && !s.loss.zeroWindowProbeAt.IsZero() && !now.Before(s.loss.zeroWindowProbeAt))
}

// appendData is Engine.AppendData: retransmissions first (section 6.1 rule
// C), then new data, within cwnd (rule B), the peer's window with zero
// window probes (rule A) and Max.Burst (rule D). One call is one packet.
func (s *sender) appendData(now time.Time, pkt []byte, room int) ([]byte, int) {
	if s.loss.t3Recovery && s.loss.t3Sent {
		return pkt, 0
	}
	if s.ledger.outstanding() == 0 && !s.lastSend.IsZero() && now.Sub(s.lastSend) >= s.paths.primary.rto {
		s.restartAfterIdle(now)
	}
	if s.dataRoom > 0 && room > s.dataRoom {
		room = s.dataRoom // the window bounds the packet too (setFragPoint)
	}
	n := 0
	// After a T3-rtx expiry new data only when nothing is left to
	// retransmit, still one packet until an acknowledgement.
	newData := !s.loss.t3Recovery || s.ledger.rtxPending == 0
	dest := s.paths.primaryIdx
	if s.ledger.rtxPending > 0 {
		if len(s.paths.list) > 1 {
			dest = s.rtxDest()
		}
		pkt, room, n = s.appendRtx(now, pkt, room, dest)
		if n == 0 {
			dest = s.paths.primaryIdx
		}
	}
	s.paths.dest = dest
	// Retransmissions to another path carry no new data.
	if s.queue.unsent > 0 && newData && dest == s.paths.primaryIdx {
		var k int
		pkt, k = s.appendNew(now, pkt, room)
		n += k
	}
	if n == 0 {
		return pkt, 0
	}
	s.queue.sched.PacketDone()
	s.stats.DataPackets++
	s.lastSend = now
	if s.loss.t3Recovery {
		s.loss.t3Sent = true
	}
	if dest != s.paths.primaryIdx {
		// R1 for the other path; the probe state is the primary's.
		if p := s.paths.list[dest]; p.t3.IsZero() {
			p.t3 = now.Add(p.rto)
		}
		return pkt, n
	}
	s.startT3(now)
	if s.loss.tailProbe {
		s.loss.tailProbe = false
		s.paths.primary.rack.pto = time.Time{}
	}
	if k := &s.paths.primary.rack; k.pto.IsZero() || k.lone {
		// Armed after an acknowledgement, and again once more than a lone
		// chunk is in flight.
		s.armPTO(now)
	}
	return pkt, n
}

// restartAfterIdle applies the idle rule of 7.2.1 and 7.2.2 (Path.idle).
func (s *sender) restartAfterIdle(now time.Time) {
	s.paths.primary.idle(int(now.Sub(s.lastSend) / s.paths.primary.rto))
	s.lastSend = now
}

// appendNew appends new chunks as the scheduler picks streams, while room
// and the windows allow.
func (s *sender) appendNew(now time.Time, pkt []byte, room int) ([]byte, int) {
	n := 0
	for s.queue.unsent > 0 {
		m, st := s.queue.pinned, s.queue.pinnedSide
		if m == nil {
			sid, ok := s.queue.sched.Next()
			if !ok {
				break
			}
			st = s.streams.PeekOutSide(sid)
			if st == nil || st.head == nil {
				s.queue.sched.Forget(sid) // scheduler out of step: drop its state
				continue
			}
			if s.streams.Out(sid).State != stream.Open {
				// The state changed without SetStreamState.
				s.queue.sched.Block(sid)
				continue
			}
			if s.resets.holds(st) {
				// Written after an outgoing reset of its stream began.
				s.blockForReset(sid)
				continue
			}
			// Pinned by cut once its first chunk is out.
			m = st.head
		}
		if m.bits != 0 && m.expired(&s.pr, now, 0) {
			// TR3: no TSN for an expired message; TR4 for a partly sent one
			// (only with PR-SCTP).
			if m.off == 0 {
				s.dropQueued(m)
				continue
			}
			if s.cfg.PartialReliability {
				s.abandon(now, m)
				continue
			}
		}
		left := len(m.buf) - int(m.off)
		max := (room - s.hdr) &^ 3
		size := min(left, s.fragPoint)
		if size > max {
			// Cut smaller to fill the packet, but not into slivers: a
			// message that fits a packet of its own waits for the next,
			// and so does the rest of one partly sent. A message longer
			// than the fragment point not yet begun is cut anyway, and
			// its first chunk fills what the packet has left, however
			// little: a bulk sender's packets are then all of one size
			// (the tail of a 64 KiB message left one short otherwise,
			// every other message on a 1500-byte path), and UDP GSO
			// sends a run of them in one datagram, where a short one
			// ends it.
			if max <= 0 || max < 512 && (left <= s.fragPoint || m.off > 0) {
				break
			}
			size = max
		}
		// canSendNew, whose checks pass without a side effect in the
		// common case tested first.
		if (s.ledger.outstanding() >= maxOutstanding || s.paths.primary.flight >= s.window() || size > s.peerRwnd) && !s.canSendNew(now, size) {
			break
		}
		pkt = s.cut(now, m, st, size, pkt)
		room -= s.hdr + pad4(size)
		n++
		if m := s.queue.pinned; m != nil && m.bits == 0 {
			// The rest of the message pinned now goes on: when its next
			// chunk cannot fit, the next pass would stop at the size
			// check above, with nothing else done; stop here.
			if max := (room - s.hdr) &^ 3; max < 512 && min(len(m.buf)-int(m.off), s.fragPoint) > max {
				break
			}
		}
	}
	return pkt, n
}

// cut makes the next chunk of size bytes from m, whose stream's side
// object is st, records it and appends it.
func (s *sender) cut(now time.Time, m *message, st *outSide, size int, pkt []byte) []byte {
	var flags uint8
	end := int(m.off)+size == len(m.buf)
	if m.off == 0 {
		flags |= chunk.FlagBeginning
		// The only place an Out record's numbering moves.
		m.mid = s.frame.NewMessage(m.sid, m.unordered)
		m.nextFSN = 0
		if !st.numbered {
			s.resets.noteNumbered(st, m.sid)
		}
	}
	if m.unordered {
		flags |= chunk.FlagUnordered
	}
	if end {
		flags |= chunk.FlagEnd
	}
	if s.ledger.full() {
		s.ledger.grow()
	}
	tsn, r := s.ledger.assign()
	*r = record{
		msg: m, sent: now, seq: s.ledger.nextSeq(), off: m.off, n: int32(size),
		ppid: m.ppid, sid: m.sid, mid: m.mid, fsn: m.nextFSN, flags: flags,
		state: recInFlight, xmits: 1, marks: s.paths.primaryIdx << pathShift,
	}
	m.nextFSN++
	m.refs++
	if m.timed() {
		s.pr.timedChunks++ // a chunk of a message the sweeps watch
	}
	end = s.queue.took(st, m, size)
	s.queue.takeUnsent(st, m.sid, size)
	if end {
		s.resets.headGone(st, m)
	}
	s.queue.sched.Sent(m.sid, size, end, st.head == nil)
	s.paths.primary.flight += s.ledger.size(r)
	s.ledger.sent(r)
	// 6.2.1 B: subtract the chunk's data size from the peer's rwnd.
	s.peerRwnd = max(s.peerRwnd-size, 0)
	s.rtt.start(tsn)
	s.stats.DataChunksSent++
	s.stats.BytesSent += uint64(size)
	return s.appendChunk(pkt, tsn, r)
}

// appendRtx appends chunks marked for retransmission that go to path
// dest, lowest TSN first, within cwnd except for a fast retransmit (7.2.4:
// "the sender SHOULD ignore the value of cwnd") or after a T3-rtx expiry
// (6.3.3 E3).
func (s *sender) appendRtx(now time.Time, pkt []byte, room int, dest uint8) ([]byte, int, int) {
	n := 0
	bypass := s.loss.fastRtxDue || s.loss.t3Recovery
	multi := len(s.paths.list) > 1
	dp := s.paths.list[dest]
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN && s.ledger.rtxPending > 0; t++ {
		r := s.ledger.rec(t)
		if r.state != recRtx || multi && s.paths.destFor(r) != dest {
			continue
		}
		if m := r.msg; m.bits != 0 && s.cfg.PartialReliability && m.expired(&s.pr, now, r.xmits) {
			s.abandon(now, m) // TR4, or RFC 7496's retransmission limit
			continue
		}
		if need := s.hdr + pad4(int(r.n)); need > room {
			// A chunk cut before the MTU shrank goes alone, over room, and IP
			// fragments it (RFC 9260 section 7.3).
			if n > 0 || need <= dp.pmdcs() {
				break
			}
		}
		if !bypass && (dp == s.paths.primary && dp.flight >= s.window() || dp != s.paths.primary && dp.flight >= dp.cwnd) {
			s.stats.CwndLimited++
			break
		}
		if r.fastRtx {
			r.fastRtx = false
			s.stats.FastRetransmit++
		}
		s.ledger.resent(r)
		r.sent = now
		r.seq = s.ledger.nextSeq()
		r.marks &^= markDupSeen | markT3
		if multi {
			if r.marks>>pathShift != dest {
				s.stats.RetransmitsMoved++
			}
			r.setPath(dest)
		}
		if r.xmits < 255 {
			r.xmits++
		}
		s.rtt.retransmitted(t) // C5
		if t == s.ledger.cumAck+1 && dp == s.paths.primary && !s.loss.t3.IsZero() {
			// 6.1: restart the timer when the earliest outstanding chunk is
			// retransmitted.
			s.loss.t3 = now.Add(s.paths.primary.rto)
		}
		dp.flight += s.ledger.size(r)
		s.peerRwnd = max(s.peerRwnd-int(r.n), 0)
		s.stats.Retransmits++
		pkt = s.appendChunk(pkt, t, r)
		room -= s.hdr + pad4(int(r.n))
		n++
	}
	s.loss.fastRtxDue = false
	return pkt, room, n
}

// deadline returns the earliest of T3-rtx, zero window probe, RACK and
// other paths' timers, or the zero time.
func (s *sender) deadline() time.Time {
	d := s.loss.t3
	if !s.loss.zeroWindowProbeAt.IsZero() && s.queue.unsent > 0 && (d.IsZero() || s.loss.zeroWindowProbeAt.Before(d)) {
		d = s.loss.zeroWindowProbeAt
	}
	if k := &s.paths.primary.rack; !k.timer.IsZero() || !k.pto.IsZero() {
		if r := s.rackDeadline(); d.IsZero() || r.Before(d) {
			d = r
		}
	}
	if len(s.paths.list) > 1 {
		if p := s.paths.deadline(); !p.IsZero() && (d.IsZero() || p.Before(d)) {
			d = p
		}
	}
	return d
}

// Unsent is a message Drain took out of the send buffer.
type Unsent struct {
	SID       uint16
	PPID      uint32
	Unordered bool
	Sent      bool   // some part of it went out
	Payload   []byte // valid only during the Drain callback
	// PR is the message's partial reliability; for PRTTL Value is 0 and
	// Expiry is when the lifetime ends.
	PR     PR
	Expiry time.Time
}

// describe describes m for Drain.
func (s *sender) describe(m *message, sent bool) Unsent {
	u := Unsent{SID: m.sid, PPID: m.ppid, Unordered: m.unordered, Sent: sent, Payload: m.buf,
		PR: PR{Policy: m.policy(), Value: m.prValue}}
	if u.PR.Policy == PRTTL {
		u.PR.Value = 0
		u.Expiry = s.pr.clockBase.Add(time.Duration(m.prValue) * time.Millisecond)
	}
	return u
}

// drain is Engine.Drain.
func (s *sender) drain(fn func(Unsent)) {
	// Messages with chunks outstanding, each reported once.
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		r := s.ledger.rec(t)
		m := r.msg
		if m == nil {
			continue
		}
		if !m.drained() && fn != nil {
			m.bits |= msgDrained
			fn(s.describe(m, true))
		}
		r.msg = nil
		r.state = recAcked
		s.queue.release(m)
	}
	if fn != nil {
		for _, st := range s.streams.OutSides() {
			for m := st.head; m != nil; m = m.next {
				if !m.drained() {
					fn(s.describe(m, m.off > 0))
				}
			}
		}
	}
	s.queue.drain()
	s.ledger.forget()
	s.pr.advPeerAck, s.pr.forwardDue, s.pr.timedChunks = s.ledger.cumAck, false, 0
	s.resets.streamsLeft = 0
	for _, p := range s.paths.list {
		p.flight, p.t3, p.ackedNow = 0, time.Time{}, 0
	}
	s.paths.ackedElsewhere = 0
	s.loss.t3 = time.Time{}
	s.paths.primary.rack.timer, s.paths.primary.rack.pto, s.loss.tailProbe = time.Time{}, time.Time{}, false
	s.rtt.stop()
	s.releaseCaches()
}
