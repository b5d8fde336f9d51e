package transfer

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// message is one user message in the send buffer. Messages come from a free
// list and keep their buffer across reuse.
type message struct {
	buf       []byte // the user data (a copy)
	ppid      uint32
	sid       uint16
	unordered bool
	bits      uint8  // msgDrained, msgAbandoned, and the PRPolicy shifted by policyShift
	mid       uint32 // SSN or MID, assigned when the first fragment is cut
	nextFSN   uint32 // FSN of the next fragment (I-DATA)
	off       int32  // bytes already cut into chunks
	refs      int32  // chunk records pointing here, +1 while not fully cut
	seq       uint32 // arrival number (serial): scheduler switches re-enqueue in this order
	// prValue is the value of the message's PR policy: for PRTTL the end
	// of its lifetime in milliseconds since the sender's prBase (serial),
	// else the policy's value.
	prValue uint32
	next    *message // per-stream queue or free list
}

// Message bits.
const (
	msgDrained   = 1 << 0 // reported by Drain or as abandoned
	msgAbandoned = 1 << 1 // abandoned under its PR policy
	policyShift  = 4
)

func (m *message) drained() bool   { return m.bits&msgDrained != 0 }
func (m *message) abandoned() bool { return m.bits&msgAbandoned != 0 }

// policy returns the message's PR policy.
func (m *message) policy() PRPolicy { return PRPolicy(m.bits >> policyShift) }

// timed reports whether m's policy may give it up once sent (PRTTL or
// PRRtx; PRPrio only drops messages not yet sent).
func (m *message) timed() bool { p := m.policy(); return p == PRTTL || p == PRRtx }

// OutSide is the sending state of one outbound stream: the side object of
// the stream table's outbound records, holding the stream's send queue.
type OutSide struct {
	head, tail *message
	// resetting: the stream is one of those an outgoing reset naming
	// streams (BeginReset) found with messages queued; its messages from
	// sender.resetAt on wait for the reset.
	resetting bool
	// seqd: the stream is listed in sender.seqd (its numbering may have
	// moved since the last reset of every stream).
	seqd bool
	// share is the weight the stream counts with in sender.activeWeight
	// while it is active (unsent or want > 0), 0 while it is not
	// (sender.shareOf).
	share uint16
	// unsent is the stream's bytes queued and not yet cut into chunks;
	// want is the largest message a writer refused by the stream's
	// limit waits to queue (0: none waits). See sender.streamLimit.
	unsent, want int
	listed       bool // in sender.roomy
	newcomer     bool // in sender.newcomers
}

// sender is the sending half of the engine: the send buffer, lazy
// fragmentation, the retransmission records, T3-rtx, fast retransmit and
// congestion control (RFC 9260 sections 6.1, 6.2.1, 6.3, 7).
type sender struct {
	cfg   *Config
	paths pathSet // the paths, the primary among them (paths.go)
	stats *Stats
	sched sched.Scheduler
	frame interleave.Framer
	hdr   int // chunk header length of the variant

	ledger ledger // the records of the chunks sent (ledger.go)

	streams *Streams
	free    *message // free list of messages
	nfree   int
	cur     *message // message being cut into chunks (pinned stream)
	arrived uint32   // arrival number of the next queued message

	buffered int // bytes queued and not yet acknowledged (changed by charge)
	unsent   int // bytes queued and not yet cut into chunks
	active   int // streams with unsent bytes (OutSide.unsent > 0)
	// activeWeight is the sum of the active streams' OutSide.share.
	activeWeight int
	// roomy lists the streams whose writers, refused by the stream's
	// limit, may queue again (TakeStreamRoom).
	roomy []uint16
	// newcomers lists the streams whose writers the send buffer refused
	// (with ErrStreamFull); newMin is the smallest message they wait to
	// queue (0: none waits). release lists them in roomy once it fits.
	newcomers  []uint16
	newMin     int
	fragPoint  int // largest DATA payload per chunk
	burstCap   int // flight size this send opportunity may reach (Max.Burst, 6.1 rule D)
	peerRwnd   int
	peerWinMax int  // largest a_rwnd the peer advertised (INIT, SACKs): bounds fragPoint
	dataRoom   int  // bytes of DATA chunks per packet when the window bounds fragPoint (0: no bound)
	fastRtx    bool // a fast-retransmit packet is due (ignores cwnd)

	// After a T3-rtx expiry only one packet may be in flight until an
	// acknowledgement arrives (7.2.3).
	t3Recovery, t3Sent bool

	// Zero window probing: the first probe waits one RTO after the peer
	// closed its window (6.1 rule A).
	probeAt   time.Time
	sackSince bool // a SACK arrived since T3 was last started

	immediate bool // set the I bit on DATA chunks (RFC 7053)
	probing   bool // the next packet is a tail loss probe (sender_rack.go)
	onceAcked bool // HandleSACK: a chunk sent once was newly acknowledged
	// HandleSACK: the newest transmissions newly acknowledged, sent once
	// and retransmitted (sender_rack.go).
	newestOnce, newestRtx *record

	// Outgoing stream resets (RFC 6525, reconf.go), kept so that no
	// request costs a walk over the streams: resetAll, an outgoing reset
	// of every stream is under way (BeginReset); resetAt, the arrival
	// number of the first message written after the reset under way
	// began (it and later messages of the streams being reset wait);
	// resetLeft, the streams being reset that still have a message from
	// before it not fully cut (ResetReady); resetBlocked, the streams it
	// blocked (FinishReset reopens them); seqd, the streams whose
	// numbering may have moved since the last reset of every stream
	// (ResetOutgoing); queuedStreams, the streams with messages queued;
	// cutting, the streams whose head message is partly cut (Quiet).
	resetAll      bool
	resetAt       uint32
	resetLeft     int
	resetBlocked  []uint16
	seqd          []uint16
	queuedStreams int
	cutting       int

	// PR-SCTP (RFC 3758 section 3.5): the Advanced.Peer.Ack.Point, a
	// FORWARD-TSN due, reused entry buffers, the messages abandoned and
	// not yet reported, and how many messages with a policy are alive.
	advPeerAck TSN
	fwdDue     bool
	fwdSent    TSN       // new cumulative TSN of the last FORWARD-TSN sent
	fwdAt      time.Time // and when
	fwdSSN     []chunk.StreamSSN
	fwdMID     []chunk.StreamMID
	failed     []Failed
	prOut      int       // chunks of PRTTL and PRRtx messages outstanding, not abandoned
	prBase     time.Time // time base of the PRTTL lifetimes
	ttl        ttlHeap   // lifetimes of the PRTTL messages (lifetime.go)

	// An SSN/TSN reset (RFC 6525) that moved nextTSN: the cumulative
	// TSN ack point before it, while SACKs from before it may arrive.
	jumped     bool
	jumpCum    TSN
	expectJump bool // our SSN/TSN Reset Request is out (ExpectJump)

	// budget is the endpoint's send budget this sender shares
	// (Config.SendBudget; nil: none).
	budget *SendBudget

	timing   bool // an RTT measurement is running
	timedTSN TSN
	t3       time.Time // T3-rtx deadline, zero when stopped
	lastSend time.Time // last DATA transmission, for the idle cwnd rule
}

func (s *sender) init(cfg *Config, path *Path, st *Stats, streams *Streams) {
	s.cfg, s.stats, s.streams = cfg, st, streams
	s.budget = cfg.SendBudget
	s.paths.init(path)
	s.sched = cfg.Scheduler
	if cfg.Interleaved {
		s.frame = interleave.NewIDataFramer(streams)
	} else {
		s.frame = interleave.NewDataFramer(streams)
	}
	s.hdr = s.frame.HeaderLen()
	s.ledger.init(cfg.LocalTSN, s.hdr)
	s.advPeerAck, s.fwdSent = s.ledger.cumAck, s.ledger.cumAck
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

// Queue copies a user message of stream sid into the send buffer. It
// returns ErrStreamID for a stream outside the negotiated range,
// ErrEmptyMessage for an empty payload and ErrWouldBlock when the send
// buffer has no room (a message larger than the whole buffer is accepted
// when the buffer is empty) or Config.SendUnsent bytes would wait to be
// sent (one message is accepted when none waits), and ErrStreamFull (which
// matches ErrWouldBlock) when the stream's own unsent bytes would pass its
// share (see streamLimit; one message is accepted on a stream with none
// waiting). Fragmentation and
// TSN/SSN assignment happen later, in AppendData.
func (s *sender) Queue(sid uint16, ppid uint32, unordered bool, payload []byte) error {
	return s.queue(sid, ppid, unordered, payload, true)
}

// queue is Queue; perStream applies the stream's own limit (streamLimit),
// which messages of the priority policy skip: they compete for the send
// buffer by their priority (RFC 7496 section 3.2), not by stream.
func (s *sender) queue(sid uint16, ppid uint32, unordered bool, payload []byte, perStream bool) error {
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
	if perStream && st.unsent > 0 && st.unsent+len(payload) > s.streamLimit(st) {
		s.refuse(st, sid, len(payload))
		return ErrStreamFull
	}
	// With the stream limit, the unsent bound is part of it (streamLimit).
	if !perStream && s.unsent > 0 && s.cfg.SendUnsent > 0 && s.unsent+len(payload) > s.cfg.SendUnsent {
		return ErrWouldBlock
	}
	if s.buffered > 0 && s.buffered+len(payload) > s.bufLimit() || perStream && st.unsent == 0 && s.unsentFull(len(payload)) {
		if !perStream {
			return ErrWouldBlock
		}
		// The writer waits for its stream, not for the association:
		// it counts among the streams sharing the buffer, so the
		// others' shares shrink, and the stream is listed in roomy
		// once its message fits (sharedRoom), not only once half the
		// buffer is free, which writers refilling their streams as
		// they drain may never leave. The same holds for a stream
		// with nothing queued when the streams' unsent bytes together
		// are at their bound (unsentFull): its first message, which
		// the stream's own limit always admits, would take the queue
		// past it.
		s.refuse(st, sid, len(payload))
		if !st.newcomer {
			st.newcomer = true
			s.newcomers = append(s.newcomers, sid)
		}
		if s.newMin == 0 || len(payload) < s.newMin {
			s.newMin = len(payload)
		}
		return ErrStreamFull
	}
	m := s.newMessage()
	m.buf = append(m.buf[:0], payload...)
	m.ppid, m.sid, m.unordered, m.bits = ppid, sid, unordered, 0
	m.off, m.refs, m.next = 0, 1, nil
	m.seq = s.arrived
	s.arrived++
	if st.tail == nil {
		st.head = m
		s.queuedStreams++
	} else {
		st.tail.next = m
	}
	st.tail = m
	if s.unsent == 0 {
		// New data after an idle period is a send opportunity; one that
		// an acknowledgement opened and nothing used stays open.
		s.burstCap = max(s.burstCap, s.paths.primary.flight+s.cfg.MaxBurst*s.paths.primary.pmdcs())
	}
	s.charge(len(payload))
	s.unsent += len(payload)
	if st.unsent == 0 && st.want == 0 {
		s.activate(st, sid)
	}
	st.unsent += len(payload)
	if o := s.streams.Out(sid); o.State != stream.Open {
		// A stream that cannot send keeps its data, out of the
		// scheduler's way (see SetStreamState).
		s.sched.Block(sid)
	} else if s.holdsForReset(st) {
		// A stream being reset with nothing from before the reset left
		// to cut (a stream first used while every stream is being reset
		// among them): it waits for the new numbering (BeginReset).
		s.blockForReset(sid)
	}
	s.sched.Enqueue(sid, len(payload))
	s.stats.MessagesQueued++
	return nil
}

// release drops one reference to m and recycles it when none is left.
func (s *sender) release(m *message) {
	m.refs--
	if m.refs > 0 {
		return
	}
	s.charge(-len(m.buf))
	if s.newMin > 0 {
		s.sharedRoom()
	}
	if s.nfree >= maxFreeMessages {
		return
	}
	if cap(m.buf) > maxKeptBuffer {
		m.buf = nil
	}
	m.next = s.free
	s.free = m
	s.nfree++
}

// Bounds: chunks outstanding; the message free list's length and the
// largest buffer a free message keeps.
const (
	maxOutstanding  = 1 << 15 // DATA chunks above the cumulative ack point
	maxFreeMessages = 4096
	maxKeptBuffer   = 64 << 10
	maxMessage      = 1<<31 - 1 // bytes of one message (offsets are int32)
)

// streamLimit returns the bytes stream st may have queued and not yet cut
// into chunks (OutSide.unsent) before Queue refuses its next message with
// ErrStreamFull (one message is always accepted on a stream with none
// waiting): Config.StreamUnsent when set, else the part of the send
// buffer the flight leaves shared among the streams with unsent data or
// a refused writer in proportion to their shares (OutSide.share, from
// shareOf: evenly but under WFQ and Priority), bounded by Config.SendUnsent while there is
// one such stream. (With several, a share of SendUnsent is too little to
// keep every stream's queue from running dry between a writer's wake-ups,
// measured over loopback: the scheduler then cannot apply its weights.)
// Every stream with data then keeps some queued while its writer is held
// back, so the scheduler, not the order in which writers get room,
// decides each stream's share of the bytes sent; with one stream the rule
// is the send buffer's own. Shares in proportion to the weights give
// every stream the same time to run dry at the rate WFQ drains it: even
// shares left the heaviest streams' queues, drained fastest, empty
// before their writers were back, and the others' data went instead
// (1:2:3:4 delivered 14/23/29/35% over loopback).
func (s *sender) streamLimit(st *OutSide) int {
	if s.cfg.StreamUnsent > 0 {
		return s.cfg.StreamUnsent
	}
	avail := s.bufLimit() - (s.buffered - s.unsent)
	if s.cfg.SendUnsent > 0 && s.active <= 1 {
		avail = min(avail, s.cfg.SendUnsent)
	}
	if s.active > 1 && s.activeWeight > 0 {
		return avail * int(max(st.share, 1)) / s.activeWeight
	}
	return avail // one stream: no division on the bulk path
}

// shareOf returns the weight stream sid's unsent bytes may take of the
// send buffer (OutSide.share): its WFQ weight; under Priority 8 times
// less for each level below the best (0: 32768, 1: 4096, ..., 5 and
// above: 1); else 1.
func (s *sender) shareOf(sid uint16) uint16 {
	switch s.sched.Kind() {
	case sched.WFQ:
		if w, err := s.sched.Value(sid); err == nil && w > 0 {
			return w
		}
	case sched.Priority:
		if p, err := s.sched.Value(sid); err == nil {
			return 1 << (3 * (5 - min(p, 5)))
		}
	}
	return 1
}

// activate counts stream st (sid) among the active streams, with its
// share.
func (s *sender) activate(st *OutSide, sid uint16) {
	s.active++
	st.share = s.shareOf(sid)
	s.activeWeight += int(st.share)
}

// deactivate takes stream st out of the active streams.
func (s *sender) deactivate(st *OutSide) {
	s.active--
	s.activeWeight -= int(st.share)
	st.share = 0
}

// reshare gives active stream sid its current share, after its weight or
// the scheduler changed.
func (s *sender) reshare(sid uint16) {
	st := s.streams.OutSide(sid)
	if st.share == 0 {
		return // not active
	}
	w := s.shareOf(sid)
	s.activeWeight += int(w) - int(st.share)
	st.share = w
}

// With many streams holding data (manyStreams or more) their unsent
// bytes together are bounded by streamsUnsent times Config.SendUnsent: a
// message on a stream with nothing queued, which the stream's own limit
// always admits, then waits while the streams hold that much
// (unsentFull). Without the bound, writers spreading messages over many
// streams (65535 of them, a message each) queued the whole send buffer,
// megabytes that went cold in the CPU caches before they were cut into
// packets: SCTP_STREAM_MANY over 65535 streams moved 0.87 of
// SCTP_STREAM's bytes (README, Scale). Fewer streams keep the even shares
// of the whole buffer streamLimit gives them: a bound on their sum lets
// greedy streams run dry between their writers' wake-ups, and WFQ's
// weights stop showing (measured with 8 streams).
const (
	streamsUnsent = 4
	manyStreams   = 64
)

// unsentFull reports whether a message of n bytes on a stream with nothing
// queued is to wait for the streams' unsent bytes to fall (streamsUnsent).
func (s *sender) unsentFull(n int) bool {
	return s.active >= manyStreams && s.cfg.SendUnsent > 0 && s.unsent+n > s.cfg.SendUnsent*streamsUnsent
}

// takeUnsent accounts size bytes of stream sid's queue (st) cut into
// chunks or given up, and lists the stream in roomy when a writer its
// limit refused may queue now.
func (s *sender) takeUnsent(st *OutSide, sid uint16, size int) {
	st.unsent -= size
	if st.unsent == 0 && st.want == 0 {
		s.deactivate(st)
	}
	if st.want > 0 {
		// Listed once the refused message fits and half the stream's
		// share is free (or none is left): a bulk writer is woken once
		// per half share it can fill, not after every chunk (a
		// goroutine wake-up costs more than copying several messages),
		// as the association's writers are (sctp's writable).
		if lim := s.streamLimit(st); st.unsent == 0 || st.unsent+st.want <= lim && st.unsent <= lim/2 {
			s.listRoom(st, sid)
		}
	}
	if s.newMin > 0 {
		s.sharedRoom()
	}
}

// sharedRoom lists the newcomers in roomy when the send buffer has room
// for the smallest message they wait to queue.
func (s *sender) sharedRoom() {
	if s.buffered > 0 && s.buffered+s.newMin > s.bufLimit() || s.unsentFull(s.newMin) {
		return
	}
	s.roomNewcomers()
}

// refuse records that a writer of stream st was refused a message of n
// bytes: the stream counts among the active ones (streamLimit) until
// listRoom.
func (s *sender) refuse(st *OutSide, sid uint16, n int) {
	if st.unsent == 0 && st.want == 0 {
		s.activate(st, sid)
	}
	st.want = max(st.want, n)
}

// roomNewcomers lists the newcomers in roomy: the send buffer has room for
// the smallest message they wait to queue.
func (s *sender) roomNewcomers() {
	for _, sid := range s.newcomers {
		if st := s.streams.PeekOutSide(sid); st != nil {
			st.newcomer = false
			if st.want > 0 && st.unsent == 0 {
				s.listRoom(st, sid)
			}
		}
	}
	s.newcomers = s.newcomers[:0]
	s.newMin = 0
}

// listRoom lists stream sid in roomy (once until TakeStreamRoom).
func (s *sender) listRoom(st *OutSide, sid uint16) {
	st.want = 0
	if st.unsent == 0 {
		s.deactivate(st)
	}
	if !st.listed {
		st.listed = true
		s.roomy = append(s.roomy, sid)
	}
}

// TakeStreamRoom returns the streams whose writers, refused with
// ErrStreamFull, may queue again since the last call: each such stream is
// listed once after its unsent bytes fell to where the refused message
// fits (or to none). The slice is valid until the next call into the
// sender.
func (s *sender) TakeStreamRoom() []uint16 {
	r := s.roomy
	for _, sid := range r {
		if st := s.streams.PeekOutSide(sid); st != nil {
			st.listed = false
		}
	}
	s.roomy = s.roomy[:0]
	return r
}

// HasStreamRoom reports whether TakeStreamRoom has streams to return.
func (s *sender) HasStreamRoom() bool { return len(s.roomy) > 0 }

// StreamUnsent returns the bytes of stream sid queued and not yet cut
// into chunks.
func (s *sender) StreamUnsent(sid uint16) int {
	if int(sid) >= s.cfg.OutStreams {
		return 0
	}
	if st := s.streams.PeekOutSide(sid); st != nil {
		return st.unsent
	}
	return 0
}

// Buffered returns the bytes in the send buffer: queued or unacknowledged.
func (s *sender) Buffered() int { return s.buffered }

// Room returns the bytes Queue accepts now: what is left below the send
// buffer and the unsent limit (when one is set). An empty buffer takes a
// message of any size, an empty unsent queue one of any size the send
// buffer takes.
func (s *sender) Room() int {
	r := maxMessage
	if s.buffered > 0 {
		r = s.bufLimit() - s.buffered
	}
	if s.unsent > 0 && s.cfg.SendUnsent > 0 {
		r = min(r, s.cfg.SendUnsent-s.unsent)
	}
	return max(r, 0)
}

// Capacity returns the most bytes Queue accepts from an empty sender
// without exceeding either bound: the send buffer (or what the endpoint's
// send budget lets the sender hold now) or the unsent limit.
func (s *sender) Capacity() int {
	if s.cfg.SendUnsent > 0 {
		return min(s.bufLimit(), s.cfg.SendUnsent)
	}
	return s.bufLimit()
}

// Idle reports whether nothing is queued or unacknowledged: the condition
// for sending SHUTDOWN (RFC 9260 section 9.2).
func (s *sender) Idle() bool { return s.buffered == 0 && s.ledger.outstanding() == 0 }

// CumulativeAck returns the cumulative TSN ack point of our outbound data.
func (s *sender) CumulativeAck() TSN { return s.ledger.cumAck }

// NextTSN returns the TSN the next new DATA chunk will carry.
func (s *sender) NextTSN() TSN { return s.ledger.nextTSN }

// PeerRwnd returns our view of the peer's receive window.
func (s *sender) PeerRwnd() int { return s.peerRwnd }

// appendChunk writes the chunk of record r (TSN t) through the variant's
// framer.
func (s *sender) appendChunk(pkt []byte, t TSN, r *record) []byte {
	flags := r.flags
	if s.immediate || s.probing {
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
	m := s.cur
	if m == nil {
		if s.unsent == 0 {
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
		sid, ok := s.sched.Next()
		if !ok {
			return nil
		}
		st := s.streams.PeekOutSide(sid)
		if st == nil {
			return nil
		}
		if st.head != nil && s.holdsForReset(st) && s.streams.Out(sid).State == stream.Open {
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
	if s.paths.primary.flight >= s.window() && !s.probing {
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
		if s.probeAt.IsZero() {
			s.probeAt = now.Add(s.paths.primary.rto)
		}
		if now.Before(s.probeAt) {
			s.stats.RwndLimited++
			return false
		}
		s.probeAt = time.Time{}
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

// Pending reports whether AppendData would append something now: chunks
// marked for retransmission or new data the windows allow.
func (s *sender) Pending(now time.Time) bool {
	if s.t3Recovery && s.t3Sent {
		return false
	}
	if s.ledger.rtxPending > 0 && (s.fastRtx || s.t3Recovery || s.rtxRoom()) {
		return true
	}
	if s.unsent == 0 || s.paths.primary.flight >= s.window() && !s.probing {
		return false
	}
	size := s.nextChunkSize()
	if size == 0 {
		return false
	}
	return size <= s.peerRwnd || (s.ledger.outstanding() == 0 && !s.probeAt.IsZero() && !now.Before(s.probeAt))
}

// AppendData appends DATA chunks to pkt, using at most room bytes, and
// returns the extended packet and the number of chunks appended. Chunks
// marked for retransmission go first (RFC 9260 section 6.1 rule C), then
// new data cut from the queued messages as the scheduler picks streams.
// It obeys the congestion window (rule B), the peer's receive window with
// zero-window probing (rule A) and Max.Burst (rule D, see sendOpportunity):
// one call is one packet, and a send opportunity (a SACK, a timeout, or new
// data after an idle period) may raise the flight size by at most Max.Burst
// full packets over what it was at that moment.
func (s *sender) AppendData(now time.Time, pkt []byte, room int) ([]byte, int) {
	if s.t3Recovery && s.t3Sent {
		return pkt, 0
	}
	if s.ledger.outstanding() == 0 && !s.lastSend.IsZero() {
		if idle := now.Sub(s.lastSend); idle >= s.paths.primary.rto {
			s.paths.primary.idle(int(idle / s.paths.primary.rto))
			s.lastSend = now
		}
	}
	if s.dataRoom > 0 && room > s.dataRoom {
		room = s.dataRoom // the window bounds the packet too (setFragPoint)
	}
	n := 0
	// After a T3-rtx expiry the packet goes to retransmissions; new data
	// only when none was left to retransmit (PR-SCTP may have abandoned
	// them all), still one packet until an acknowledgement.
	newData := !s.t3Recovery || s.ledger.rtxPending == 0
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
	for s.unsent > 0 && newData && dest == s.paths.primaryIdx {
		m := s.cur
		if m == nil {
			sid, ok := s.sched.Next()
			if !ok {
				break
			}
			st := s.streams.PeekOutSide(sid)
			if st == nil || st.head == nil {
				s.sched.Forget(sid) // scheduler out of step: drop its state
				continue
			}
			if s.streams.Out(sid).State != stream.Open {
				// The stream's state changed without SetStreamState:
				// it may not start a message; the others go on.
				s.sched.Block(sid)
				continue
			}
			if s.holdsForReset(st) {
				// Written after an outgoing reset of its stream
				// began: it waits for the new numbering (BeginReset).
				s.blockForReset(sid)
				continue
			}
			// Pinned by cut once its first chunk is out: a stream
			// blocked before then does not start it.
			m = st.head
		}
		if m.bits != 0 && m.expired(s, now, 0) {
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
	if n > 0 {
		s.sched.PacketDone()
		s.stats.DataPackets++
		s.lastSend = now
		if s.t3Recovery {
			s.t3Sent = true
		}
		if dest != s.paths.primaryIdx {
			// R1 for the other path; the probe state is the primary's.
			if p := s.paths.list[dest]; p.t3.IsZero() {
				p.t3 = now.Add(p.rto)
			}
			return pkt, n
		}
		s.startT3(now)
		if s.probing {
			s.probing = false
			s.paths.primary.rack.pto = time.Time{}
		}
		if k := &s.paths.primary.rack; k.pto.IsZero() || k.lone {
			// Armed from the first transmission after an
			// acknowledgement (HandleSACK rearms it on each), and
			// again once more than a lone chunk is in flight.
			s.armPTO(now)
		}
	}
	return pkt, n
}

// cut makes the next chunk of size bytes from m, records it and appends it.
func (s *sender) cut(now time.Time, m *message, size int, pkt []byte) []byte {
	st := s.streams.PeekOutSide(m.sid)
	var flags uint8
	end := int(m.off)+size == len(m.buf)
	if m.off == 0 {
		s.cur = m // pin the stream until the last fragment
		flags |= chunk.FlagBeginning
		// The only place an Out record's numbering moves (see seqd).
		m.mid = s.frame.NewMessage(m.sid, m.unordered)
		m.nextFSN = 0
		if !st.seqd {
			s.noteSeq(st, m.sid)
		}
		if !end {
			s.cutting++
		}
	} else if end {
		s.cutting--
	}
	if m.unordered {
		flags |= chunk.FlagUnordered
	}
	if end {
		flags |= chunk.FlagEnd
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
		s.prOut++ // a chunk of a message the sweeps watch
	}
	m.off += int32(size)
	s.unsent -= size
	s.takeUnsent(st, m.sid, size)
	if end {
		// Unpin: the scheduler may pick another stream now.
		st.head = m.next
		if st.head == nil {
			st.tail = nil
		}
		s.headGone(st, m)
		m.next = nil
		s.cur = nil
		m.refs-- // fully cut: only the chunk records hold it now
	}
	if s.cfg.Interleaved {
		// RFC 8260 section 2.2.2: "The sender MUST NOT process (move user
		// data into I-DATA chunks and assign a TSN to it) more than one
		// user message in any given stream at any time. At any time, a
		// sender MAY process multiple user messages, each of them on
		// different streams." The scheduler picks a stream after every
		// chunk; a stream's partly cut message stays at its head, so
		// picking it again continues that message.
		s.cur = nil
	}
	s.sched.Sent(m.sid, size, end, st.head == nil)
	s.paths.primary.flight += s.ledger.size(r)
	s.ledger.sent(r)
	// 6.2.1 B: "Any time a DATA chunk is transmitted (or retransmitted) to
	// a peer, the endpoint subtracts the data size of the chunk from the
	// rwnd of that peer."
	s.peerRwnd = max(s.peerRwnd-size, 0)
	if !s.timing {
		s.timing, s.timedTSN = true, tsn
	}
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
	bypass := s.fastRtx || s.t3Recovery
	multi := len(s.paths.list) > 1
	dp := s.paths.list[dest]
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN && s.ledger.rtxPending > 0; t++ {
		r := s.ledger.rec(t)
		if r.state != recRtx || multi && s.paths.destFor(r) != dest {
			continue
		}
		if m := r.msg; m.bits != 0 && s.cfg.PartialReliability && m.expired(s, now, r.xmits) {
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
			s.stats.FastRetransmits++
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
		if s.timing && s.timedTSN.GEQ(t) {
			// C5: "RTT measurements SHOULD only be made using a DATA
			// chunk with TSN r if no DATA chunk with TSN less than or
			// equal to r was retransmitted since the DATA chunk with TSN r
			// was sent first."
			s.timing = false
		}
		if t == s.ledger.cumAck+1 && dp == s.paths.primary && !s.t3.IsZero() {
			// 6.1: "the sender MUST restart the timer if the earliest
			// (i.e., lowest TSN) outstanding DATA chunk sent to that
			// address is being retransmitted."
			s.t3 = now.Add(s.paths.primary.rto)
		}
		dp.flight += s.ledger.size(r)
		s.peerRwnd = max(s.peerRwnd-int(r.n), 0)
		s.stats.Retransmits++
		pkt = s.appendChunk(pkt, t, r)
		room -= s.hdr + pad4(int(r.n))
		n++
	}
	s.fastRtx = false
	return pkt, room, n
}

// startT3 applies rule R1 of section 6.3.2: "Every time a DATA chunk is
// sent to any address (including a retransmission), if the T3-rtx timer of
// that address is not running, start it running so that it will expire
// after the RTO of that address."
func (s *sender) startT3(now time.Time) {
	if s.t3.IsZero() {
		s.t3 = now.Add(s.paths.primary.rto)
		s.sackSince = false
	}
}

// SetImmediate makes the sender set the I bit on the DATA chunks it sends
// from now on (or stop doing so): RFC 9260 section 6.1 lists "The sender is
// in the SHUTDOWN-PENDING state" among the reasons to ask the peer to SACK
// without delay.
func (s *sender) SetImmediate(on bool) { s.immediate = on }

// Deadline returns when the T3-rtx timer expires or a zero window probe
// is due, or the zero time when neither is pending.
func (s *sender) Deadline() time.Time {
	d := s.t3
	if !s.probeAt.IsZero() && s.unsent > 0 && (d.IsZero() || s.probeAt.Before(d)) {
		d = s.probeAt
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
		u.Expiry = s.prBase.Add(time.Duration(m.prValue) * time.Millisecond)
	}
	return u
}

// Drain removes every queued and unacknowledged message from the send
// buffer, calling fn (when not nil) for each. The association calls it
// when the association ends, to raise send-failed events, and after a
// peer restart, to queue the messages again on the new association.
func (s *sender) Drain(fn func(Unsent)) {
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
		s.release(m)
	}
	for sid, st := range s.streams.OutSides() {
		for m := st.head; m != nil; {
			next := m.next
			if fn != nil && !m.drained() {
				fn(s.describe(m, m.off > 0))
			}
			m.refs = 1
			s.release(m)
			m = next
		}
		st.head, st.tail = nil, nil
		st.unsent = 0
		if st.want > 0 {
			s.listRoom(st, uint16(sid))
		}
		st.share = 0
		s.sched.Forget(sid)
	}
	s.cur = nil
	s.ledger.forget()
	s.advPeerAck, s.fwdDue, s.prOut = s.ledger.cumAck, false, 0
	if s.buffered != 0 {
		s.charge(-s.buffered) // every message was released above
	}
	s.unsent = 0
	s.active, s.activeWeight = 0, 0
	s.queuedStreams, s.cutting, s.resetLeft = 0, 0, 0
	for _, p := range s.paths.list {
		p.flight, p.t3, p.ackedNow = 0, time.Time{}, 0
	}
	s.paths.ackedElsewhere = 0
	s.t3 = time.Time{}
	s.paths.primary.rack.timer, s.paths.primary.rack.pto, s.probing = time.Time{}, time.Time{}, false
	s.timing = false
	s.rest()
}
