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
// 6.3, 7). It cuts queued messages into DATA chunks as packets are built
// and orchestrates its parts, each in a file of its own:
//
//   - queue (send_queue.go): the messages not yet cut, the per-stream
//     queues and their scheduler, the limits of the send buffer and of
//     each stream;
//   - ledger (ledger.go): the record of every chunk above the cumulative
//     TSN ack point;
//   - loss (loss.go, loss_rack.go): fast retransmit, RACK-TLP, T3-rtx and
//     zero window probes;
//   - pr (prsctp.go, lifetime.go): PR-SCTP, the messages given up and the
//     FORWARD-TSN;
//   - resets (reconf_tracker.go): RFC 6525 stream and TSN resets;
//   - rtt (rtt_timing.go): the chunk timed for an RTT measurement;
//   - paths (paths.go): the paths and the primary, each with its RTO
//     estimator and congestion control (path.go).
//
// What spans them stays here: building packets (appendData, cut,
// appendRtx) within the windows that bound them (cwnd, the peer's window,
// Max.Burst) and the fragment point; SACK handling is in sender_sack.go.
type sender struct {
	cfg     *Config
	stats   *Stats
	streams *streamTable
	frame   interleave.Framer // writes DATA or I-DATA chunks
	hdr     int               // chunk header length of the variant

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
	immediate  bool      // set the I bit on DATA chunks (RFC 7053)
	lastSend   time.Time // last DATA transmission, for the idle cwnd rule
}

func (s *sender) init(cfg *Config, path *Path, st *Stats, streams *streamTable) {
	s.cfg, s.stats, s.streams = cfg, st, streams
	s.paths.init(path)
	s.queue.init(cfg, streams, &s.paths)
	if cfg.Interleaved {
		s.frame = interleave.NewIDataFramer(streams)
	} else {
		s.frame = interleave.NewDataFramer(streams)
	}
	s.hdr = s.frame.HeaderLen()
	s.ledger.init(cfg.LocalTSN, s.hdr)
	s.pr.init(cfg, st, s.ledger.cumAck)
	s.peerRwnd = int(cfg.PeerRwnd)
	s.peerWinMax = s.peerRwnd
	s.setFragPoint()
	s.sendOpportunity(0)
}

// Bounds of the fragment point by the peer's receive window
// (setFragPoint): a new chunk carries at most winFragShare of the largest
// window the peer advertised, and the bound never goes below
// minWinFragPoint.
const (
	winFragShare    = 4
	minWinFragPoint = 1024
)

// setFragPoint derives the fragment point, the largest user payload of a
// new chunk: what fits a packet of the path MTU (the MTU less the common
// header and a DATA chunk header), a multiple of 4, and at most a quarter
// of the largest window the peer advertised, though never below 1 KiB.
//
// RFC 9260 section 6.9 makes fragmenting for the MTU a MUST (paraphrase:
// an endpoint that fragments must fragment a message whose packet would
// exceed the current MTU) and leaves a smaller fragment point to the
// sender, while a chunk, once sent, keeps its size for good. The window
// bound is for a peer whose buffer is small next to the MTU (64 KB packets
// on loopback or through a forward that fragments): a chunk as large as
// the peer's whole window is only accepted when the peer's buffer is
// empty, and a receiver may drop it even then (Linux's sctp_eat_data
// discards a chunk longer than its rwnd plus its own fragment point, which
// its 1500-byte link makes about 1.4 KB), so a stream of such chunks
// stalls on the first one dropped. A quarter of the window keeps four
// chunks in it: the peer takes the next one while it reads the previous
// ones (no stop-and-wait), and a loss can still draw the miss indications
// of a fast retransmit. The peer's largest window, not its current one,
// bounds it: the current one shrinks with every chunk in flight and would
// cut the flight into slivers. The floor keeps chunks the size of a
// BASE_PLPMTU packet's for a peer that advertises a tiny window, and still
// fits the smallest initial window a peer may announce (section 6: "an
// SCTP endpoint MUST NOT indicate less than 1500 bytes in its initial
// a_rwnd sent in the INIT or INIT ACK").
//
// Bounded so, a packet carries at most two chunks (dataRoom): half the
// window. A receiver acknowledges every second packet at once and a lone
// one only when its delayed SACK timer fires (RFC 9260 section 6.2, 200 ms
// at most; Linux acknowledges so too), so a packet holding the whole window
// would wait that timer out on every round trip.
func (s *sender) setFragPoint() {
	fp := (s.paths.primary.mtu - 12 - s.hdr) &^ 3
	s.dataRoom = 0
	if w := (s.peerWinMax / winFragShare) &^ 3; w < fp {
		fp = min(fp, max(w, minWinFragPoint))
		s.dataRoom = 2 * (s.hdr + fp)
	}
	s.fragPoint = fp
}

// learnWindow takes the a_rwnd of a SACK: a window larger than any the
// peer advertised before raises the bound it sets on the fragment point.
func (s *sender) learnWindow(arwnd uint32) {
	if int(arwnd) > s.peerWinMax {
		s.peerWinMax = int(arwnd)
		s.setFragPoint()
	}
}

// queueMessage copies a user message of stream sid into the send buffer.
// It returns ErrStreamID for a stream outside the negotiated range,
// ErrEmptyMessage for an empty payload and ErrWouldBlock when the send
// buffer has no room (a message larger than the whole buffer is accepted
// when the buffer is empty) or Config.Buffers.UnsentLimit bytes would wait to be
// sent (one message is accepted when none waits), and ErrStreamFull (which
// matches ErrWouldBlock) when the stream's own unsent bytes would pass its
// share (see sendQueue.streamLimit; one message is accepted on a stream
// with none waiting). perStream applies the stream's own limit, which
// messages of the priority policy skip: they compete for the send buffer
// by their priority (RFC 7496 section 3.2), not by stream. Fragmentation
// and TSN/SSN assignment happen later, in appendData.
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
		// New data after an idle period is a send opportunity; one that
		// an acknowledgement opened and nothing used stays open.
		s.burstCap = max(s.burstCap, s.paths.primary.flight+s.cfg.MaxBurst*s.paths.primary.pmdcs())
	}
	if o := s.streams.Out(sid); o.State != stream.Open {
		// A stream that cannot send keeps its data, out of the
		// scheduler's way (see SetStreamState).
		s.queue.sched.Block(sid)
	} else if s.resets.holds(st) {
		// A stream being reset with nothing from before the reset left
		// to cut (a stream first used while every stream is being reset
		// among them): it waits for the new numbering (beginOutgoingReset).
		s.blockForReset(sid)
	}
	s.queue.sched.Enqueue(sid, len(payload))
	s.stats.MessagesQueued++
	return nil
}

// idle reports whether nothing is queued or unacknowledged: the condition
// for sending SHUTDOWN (RFC 9260 section 9.2).
func (s *sender) idle() bool { return s.queue.buffered == 0 && s.ledger.outstanding() == 0 }

// appendChunk writes the chunk of record r (TSN t) through the variant's
// framer.
func (s *sender) appendChunk(pkt []byte, t TSN, r *record) []byte {
	flags := r.flags
	if s.immediate || s.loss.tailProbe {
		flags |= chunk.FlagImmediate
	}
	f := interleave.OutFrag{
		TSN: uint32(t), PPID: r.ppid, MID: r.mid, FSN: r.fsn, SID: r.sid, Flags: flags,
		Payload: r.msg.buf[r.off : int(r.off)+int(r.n)],
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

// peekNext returns the message the scheduler would start next, without
// starting it (Next has no effect until Sent), or nil when no stream is
// active.
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

// canSendNew applies rules A and B of section 6.1 to a new chunk of size
// user bytes.
func (s *sender) canSendNew(now time.Time, size int) bool {
	// 6.1: "The data sender MUST NOT use a TSN that is more than 2^31 - 1
	// above the beginning TSN of the current send window. For each stream,
	// the data sender MUST NOT have more than 2^16 - 1 ordered user
	// messages in the current send window." Bounding the chunks outstanding
	// keeps both (and spares receivers with small TSN maps).
	if s.ledger.outstanding() >= maxOutstanding {
		s.stats.CwndLimited++
		return false
	}
	// Rule B: "the sender MUST NOT transmit new data to a given transport
	// address if it has cwnd + (PMDCS - 1) or more bytes of data
	// outstanding"; we exceed cwnd by at most one chunk. Max.Burst
	// lowers cwnd for the current send opportunity (rule D).
	if s.paths.primary.flight >= s.window() && !s.loss.tailProbe {
		s.stats.CwndLimited++
		return false
	}
	// Rule A: "the data sender MUST NOT transmit new data ... if its
	// peer's rwnd indicates that the peer has no buffer space (i.e., rwnd
	// is smaller than the size of the next DATA chunk ...), except for zero
	// window probes." "A zero window probe SHOULD only be sent when all
	// outstanding DATA chunks have been cumulatively acknowledged and no
	// DATA chunks are in flight." "The sender SHOULD send the first zero
	// window probe after 1 RTO when it detects that the receiver has
	// closed its window"; T3-rtx then backs off the following ones.
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
// bytes, a timeout, new data after an idle period), which Max.Burst
// limits. RFC 9260 section 6.1 rule D: "When the time comes for the sender
// to transmit new DATA chunks, the protocol parameter Max.Burst SHOULD be
// used to limit the number of packets sent. The limit MAY be applied by
// adjusting cwnd temporarily, as follows: if ((flightsize + Max.Burst *
// PMDCS) < cwnd) cwnd = flightsize + Max.Burst * PMDCS". We apply that
// form without touching cwnd ("cwnd SHOULD NOT be changed permanently"):
// burstCap is the flight size the opportunity may reach, and window is
// the smaller of the two. A SACK counts the bytes it newly acknowledged
// into flightsize (refill), so that each SACK lets the sender replace what
// it acknowledged and add at most Max.Burst packets: with a SACK per
// packet pair that is what the formula gives, and a SACK covering a whole
// receive batch (dozens of packets) does not shrink the flight by the
// batch each time. Bytes acknowledged earlier by Gap Ack Blocks do not
// count again when a retransmission fills the hole below them, so the
// cumulative ack jump at the end of a loss recovery opens no large burst,
// the case rule D is for.
func (s *sender) sendOpportunity(refill int) {
	s.burstCap = s.paths.primary.flight + refill + s.cfg.MaxBurst*s.paths.primary.pmdcs()
}

// window returns the flight size new data may not reach: cwnd, lowered
// to the Max.Burst limit of the current send opportunity.
func (s *sender) window() int { return min(s.paths.primary.cwnd, s.burstCap) }

// pending reports whether AppendData would append something now: chunks
// marked for retransmission or new data the windows allow.
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

// appendData appends DATA chunks to pkt, using at most room bytes, and
// returns the extended packet and the number of chunks appended. Chunks
// marked for retransmission go first (RFC 9260 section 6.1 rule C), then
// new data cut from the queued messages as the scheduler picks streams.
// It obeys the congestion window (rule B), the peer's receive window with
// zero-window probing (rule A) and Max.Burst (rule D, see sendOpportunity):
// one call is one packet, and a send opportunity (a SACK, a timeout, or new
// data after an idle period) may raise the flight size by at most Max.Burst
// full packets over what it was at that moment.
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
	// After a T3-rtx expiry the packet goes to retransmissions; new data
	// only when none was left to retransmit (PR-SCTP may have abandoned
	// them all), still one packet until an acknowledgement.
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
	// New data goes to the primary only: a packet of retransmissions to
	// another path carries none.
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
		// Armed from the first transmission after an acknowledgement
		// (handleSACK rearms it on each), and again once more than a
		// lone chunk is in flight.
		s.armPTO(now)
	}
	return pkt, n
}

// restartAfterIdle applies the rule of 7.2.1 and 7.2.2 (Path.idle): the
// sender, with nothing outstanding, sent nothing for an RTO or more.
func (s *sender) restartAfterIdle(now time.Time) {
	s.paths.primary.idle(int(now.Sub(s.lastSend) / s.paths.primary.rto))
	s.lastSend = now
}

// appendNew appends new chunks to pkt, cut from the queued messages as
// the scheduler picks streams, while room and the windows allow (see
// canSendNew), and returns the packet and the number of chunks appended.
func (s *sender) appendNew(now time.Time, pkt []byte, room int) ([]byte, int) {
	n := 0
	for s.queue.unsent > 0 {
		m := s.queue.pinned
		if m == nil {
			sid, ok := s.queue.sched.Next()
			if !ok {
				break
			}
			st := s.streams.PeekOutSide(sid)
			if st == nil || st.head == nil {
				s.queue.sched.Forget(sid) // scheduler out of step: drop its state
				continue
			}
			if s.streams.Out(sid).State != stream.Open {
				// The stream's state changed without SetStreamState:
				// it may not start a message; the others go on.
				s.queue.sched.Block(sid)
				continue
			}
			if s.resets.holds(st) {
				// Written after an outgoing reset of its stream began:
				// it waits for the new numbering (beginOutgoingReset).
				s.blockForReset(sid)
				continue
			}
			// Pinned by cut once its first chunk is out: a stream
			// blocked before then does not start it.
			m = st.head
		}
		if m.bits != 0 && m.expired(&s.pr, now, 0) {
			// TR3: no TSN for an expired message; TR4 for the rest of
			// one partly sent (needs PR-SCTP: else it goes on).
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
			// Cut smaller to fill the packet, but not into slivers.
			if max < 512 {
				break
			}
			size = max
		}
		if !s.canSendNew(now, size) {
			break
		}
		pkt = s.cut(now, m, size, pkt)
		room -= s.hdr + pad4(size)
		n++
	}
	return pkt, n
}

// cut makes the next chunk of size bytes from m, records it and appends it.
func (s *sender) cut(now time.Time, m *message, size int, pkt []byte) []byte {
	st := s.streams.PeekOutSide(m.sid)
	var flags uint8
	end := int(m.off)+size == len(m.buf)
	if m.off == 0 {
		flags |= chunk.FlagBeginning
		// The only place an Out record's numbering moves (see
		// reconfTracker.numbered).
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
	// 6.2.1 B: "Any time a DATA chunk is transmitted (or retransmitted) to
	// a peer, the endpoint subtracts the data size of the chunk from the
	// rwnd of that peer."
	s.peerRwnd = max(s.peerRwnd-size, 0)
	s.rtt.start(tsn)
	s.stats.DataChunksSent++
	s.stats.BytesSent += uint64(size)
	return s.appendChunk(pkt, tsn, r)
}

// appendRtx appends chunks marked for retransmission, lowest TSN first,
// limited by cwnd, except for the one packet of a fast retransmit (7.2.4:
// "the sender SHOULD ignore the value of cwnd") or after a T3-rtx expiry
// (6.3.3 E3: the earliest chunks that fit in one packet).
//
// The packet goes to path dest and takes the chunks whose retransmission
// goes there (destFor); with one path, all of them.
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
			// A chunk cut before the path MTU shrank fits no packet now:
			// it goes alone, over room; the association lets IP fragment
			// it (RFC 9260 section 7.3 allows that for such chunks).
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
			// 6.1: "the sender MUST restart the timer if the earliest
			// (i.e., lowest TSN) outstanding DATA chunk sent to that
			// address is being retransmitted."
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

// deadline returns when the T3-rtx timer expires or a zero window probe
// is due, or the zero time when neither is pending.
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
	// PR is the message's partial reliability; for PRTTL, Value is 0 and
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

// drain removes every queued and unacknowledged message from the send
// buffer, calling fn (when not nil) for each. The association calls it
// when the association ends, to raise send-failed events, and after a
// peer restart, to queue the messages again on the new association.
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
