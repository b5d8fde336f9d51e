package transfer

import "github.com/usctp/usctp/sched"

// The send queue: the messages written and not yet fully cut into chunks,
// one queue per outbound stream (in the stream table's side objects), the
// stream scheduler that picks among them, and the send buffer's limits:
// the bytes buffered (queued or unacknowledged) against the send buffer
// and the endpoint's send budget (sendbudget.go), the bytes not yet cut
// against Config.Buffers.UnsentLimit, and each stream's share of them
// (streamLimit). Writers refused by a limit are listed once there is room
// for them (takeStreamRoom). A message leaves its stream's queue when its
// last fragment is cut (sender.cut) or when it is given up (PR-SCTP), and
// the send buffer when its last chunk is acknowledged (release).

// sendQueue is the send queue of one sender.
type sendQueue struct {
	cfg     *Config
	streams *streamTable
	sched   sched.Scheduler // picks the stream of the next message (or chunk, with I-DATA)
	budget  *SendBudget     // the endpoint's send budget (Config.SendBudget; nil: none)
	paths   *pathSet        // the primary's cwnd sizes an autotuned send buffer

	free        *message // free list of messages
	nfree       int
	pinned      *message // message being cut into chunks (pins its stream)
	nextArrival uint32   // arrival number of the next queued message

	buffered int // bytes queued and not yet acknowledged (changed by charge)
	unsent   int // bytes queued and not yet cut into chunks
	active   int // streams with unsent bytes or a refused writer (outSide.unsent > 0 or want > 0)
	// activeWeight is the sum of the active streams' outSide.share.
	activeWeight int
	// writable lists the streams whose writers, refused by the stream's
	// limit, may queue again (takeStreamRoom).
	writable []uint16
	// bufferWaiters lists the streams whose writers the send buffer
	// refused (with ErrStreamFull); bufferWaitMin is the smallest message
	// they wait to queue (0: none waits). release lists them in writable
	// once it fits.
	bufferWaiters []uint16
	bufferWaitMin int
	// queuedStreams counts the streams with messages queued, partlyCut
	// those whose head message is partly cut (stream resets,
	// reconf_tracker.go, read both).
	queuedStreams int
	partlyCut     int
}

func (q *sendQueue) init(cfg *Config, streams *streamTable, paths *pathSet) {
	q.cfg, q.streams, q.paths = cfg, streams, paths
	q.sched = cfg.Scheduler
	q.budget = cfg.SendBudget
}

// add appends a copy of payload to stream sid's queue (st) when the send
// buffer's limits admit it, and returns nil, or the error Queue returns
// (see sender.queueMessage). A writer refused for its stream's sake is
// remembered, so that takeStreamRoom lists the stream once the message
// fits.
func (q *sendQueue) add(st *outSide, sid uint16, ppid uint32, unordered bool, payload []byte, perStream bool) error {
	n := len(payload)
	if perStream && st.unsent > 0 && st.unsent+n > q.streamLimit(st) {
		q.refuse(st, sid, n)
		return ErrStreamFull
	}
	// With the stream limit, the unsent bound is part of it (streamLimit).
	if !perStream && q.unsent > 0 && q.cfg.UnsentLimit > 0 && q.unsent+n > q.cfg.UnsentLimit {
		return ErrWouldBlock
	}
	if q.buffered > 0 && q.buffered+n > q.bufLimit() || perStream && st.unsent == 0 && q.unsentFull(n) {
		if !perStream {
			return ErrWouldBlock
		}
		// The writer waits for its stream, not for the association:
		// it counts among the streams sharing the buffer, so the
		// others' shares shrink, and the stream is listed in writable
		// once its message fits (listBufferWaitersIfRoom), not only
		// once half the buffer is free, which writers refilling their
		// streams as they drain may never leave. The same holds for a
		// stream with nothing queued when the streams' unsent bytes
		// together are at their bound (unsentFull): its first message,
		// which the stream's own limit always admits, would take the
		// queue past it.
		q.refuse(st, sid, n)
		if !st.waitsForBuffer {
			st.waitsForBuffer = true
			q.bufferWaiters = append(q.bufferWaiters, sid)
		}
		if q.bufferWaitMin == 0 || n < q.bufferWaitMin {
			q.bufferWaitMin = n
		}
		return ErrStreamFull
	}
	m := q.newMessage()
	m.buf = append(m.buf[:0], payload...)
	m.ppid, m.sid, m.unordered, m.bits = ppid, sid, unordered, 0
	m.off, m.refs, m.next = 0, 1, nil
	m.seq = q.nextArrival
	q.nextArrival++
	if st.tail == nil {
		st.head = m
		q.queuedStreams++
	} else {
		st.tail.next = m
	}
	st.tail = m
	q.charge(len(payload))
	q.unsent += len(payload)
	if st.unsent == 0 && st.want == 0 {
		q.activate(st, sid)
	}
	st.unsent += len(payload)
	return nil
}

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
	// of its lifetime in milliseconds since abandoner.clockBase (serial),
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

// outSide is the sending state of one outbound stream: the side object of
// the stream table's outbound records, holding the stream's send queue.
type outSide struct {
	head, tail *message
	// resetting: the stream is one of those an outgoing reset naming
	// streams (beginOutgoingReset) found with messages queued; its
	// messages from reconfTracker.from on wait for the reset.
	resetting bool
	// numbered: the stream is listed in reconfTracker.numbered (its
	// numbering may have moved since the last reset of every stream).
	numbered bool
	// share is the weight the stream counts with in
	// sendQueue.activeWeight while it is active (unsent or want > 0), 0
	// while it is not (sendQueue.shareOf).
	share uint16
	// unsent is the stream's bytes queued and not yet cut into chunks;
	// want is the largest message a writer refused by the stream's
	// limit waits to queue (0: none waits). See sendQueue.streamLimit.
	unsent, want   int
	inWritable     bool // listed in sendQueue.writable
	waitsForBuffer bool // listed in sendQueue.bufferWaiters
}

// Bounds: the message free list's length, the largest buffer a free
// message keeps, and the largest message.
const (
	maxFreeMessages = 4096
	maxKeptBuffer   = 64 << 10
	maxMessage      = 1<<31 - 1 // bytes of one message (offsets are int32)
)

// took accounts the cut of size bytes of m, stream st's head message,
// into a chunk and reports whether that was its end: the message is
// pinned until its last fragment (without I-DATA), then leaves the queue
// (only its chunk records hold it from then on). The caller then takes
// the bytes out of the unsent count (takeUnsent) and tells the scheduler
// (sched.Sent).
func (q *sendQueue) took(st *outSide, m *message, size int) (end bool) {
	first := m.off == 0
	m.off += int32(size)
	end = int(m.off) == len(m.buf)
	switch {
	case end:
		if !first {
			q.partlyCut--
		}
		st.head = m.next
		if st.head == nil {
			st.tail = nil
			q.queuedStreams--
		}
		m.next = nil
		q.pinned = nil // the scheduler may pick another stream now
		m.refs--       // fully cut: only the chunk records hold it now
	case first:
		q.partlyCut++
		if !q.cfg.Interleaved {
			q.pinned = m // the stream's until the last fragment
		}
		// RFC 8260 section 2.2.2: "The sender MUST NOT process (move
		// user data into I-DATA chunks and assign a TSN to it) more
		// than one user message in any given stream at any time. At
		// any time, a sender MAY process multiple user messages, each
		// of them on different streams." With I-DATA the scheduler
		// picks a stream after every chunk; a stream's partly cut
		// message stays at its head, so picking it again continues
		// that message.
	}
	return end
}

// remove takes m out of stream st's queue, where it may be partly cut
// (given up under its PR policy), and reports whether it was the head; it
// reports false, changing nothing, when m is not queued.
func (q *sendQueue) remove(st *outSide, m *message) (queued, head bool) {
	var prev *message
	for p := st.head; p != nil && p != m; p = p.next {
		prev = p
	}
	if prev == nil {
		if st.head != m {
			return false, false
		}
		st.head = m.next
	} else {
		prev.next = m.next
	}
	if st.tail == m {
		st.tail = prev
	}
	if prev == nil {
		if m.off > 0 {
			q.partlyCut-- // a partly cut message is its stream's head
		}
		if st.head == nil {
			q.queuedStreams--
		}
	}
	m.next = nil
	if q.pinned == m {
		q.pinned = nil
	}
	q.takeUnsent(st, m.sid, len(m.buf)-int(m.off))
	q.sched.Sent(m.sid, 0, true, st.head == nil)
	return true, prev == nil
}

// drain releases every queued message (Drain reported them) and empties
// every stream's queue; writers waiting for room are listed in writable.
func (q *sendQueue) drain() {
	for sid, st := range q.streams.OutSides() {
		for m := st.head; m != nil; {
			next := m.next
			m.refs = 1
			q.release(m)
			m = next
		}
		st.head, st.tail = nil, nil
		st.unsent = 0
		if st.want > 0 {
			q.listWritable(st, uint16(sid))
		}
		st.share = 0
		q.sched.Forget(sid)
	}
	q.pinned = nil
	if q.buffered != 0 {
		q.charge(-q.buffered) // every message was released above
	}
	q.unsent = 0
	q.active, q.activeWeight = 0, 0
	q.queuedStreams, q.partlyCut = 0, 0
}

// release drops one reference to m and recycles it when none is left.
func (q *sendQueue) release(m *message) {
	m.refs--
	if m.refs > 0 {
		return
	}
	q.charge(-len(m.buf))
	if q.bufferWaitMin > 0 {
		q.listBufferWaitersIfRoom()
	}
	if q.nfree >= maxFreeMessages {
		return
	}
	if cap(m.buf) > maxKeptBuffer {
		m.buf = nil
	}
	m.next = q.free
	q.free = m
	q.nfree++
}

// streamLimit returns the bytes stream st may have queued and not yet cut
// into chunks (outSide.unsent) before Queue refuses its next message with
// ErrStreamFull (one message is always accepted on a stream with none
// waiting): Config.Buffers.StreamUnsentLimit when set, else the part of
// the send buffer the flight leaves shared among the streams with unsent
// data or a refused writer in proportion to their shares (outSide.share,
// from shareOf: evenly but under WFQ and Priority), bounded by
// Config.Buffers.UnsentLimit while there is one such stream. (With
// several, a share of UnsentLimit is too little to keep every stream's
// queue from running dry between a writer's wake-ups: the scheduler then
// cannot apply its weights.) Every stream with data then keeps some
// queued while its writer is held back, so the scheduler, not the order
// in which writers get room, decides each stream's share of the bytes
// sent; with one stream the rule is the send buffer's own. Shares in
// proportion to the weights give every stream the same time to run dry
// at the rate WFQ drains it: with even shares the heaviest streams'
// queues, drained fastest, would run empty before their writers were
// back, and the others' data would go instead.
func (q *sendQueue) streamLimit(st *outSide) int {
	if q.cfg.StreamUnsentLimit > 0 {
		return q.cfg.StreamUnsentLimit
	}
	avail := q.bufLimit() - (q.buffered - q.unsent)
	if q.cfg.UnsentLimit > 0 && q.active <= 1 {
		avail = min(avail, q.cfg.UnsentLimit)
	}
	if q.active > 1 && q.activeWeight > 0 {
		return avail * int(max(st.share, 1)) / q.activeWeight
	}
	return avail // one stream: no division on the bulk path
}

// shareOf returns the weight stream sid's unsent bytes may take of the
// send buffer (outSide.share): its WFQ weight; under Priority 8 times
// less for each level below the best (0: 32768, 1: 4096, ..., 5 and
// above: 1); else 1.
func (q *sendQueue) shareOf(sid uint16) uint16 {
	switch q.sched.Kind() {
	case sched.WFQ:
		if w, err := q.sched.Value(sid); err == nil && w > 0 {
			return w
		}
	case sched.Priority:
		if p, err := q.sched.Value(sid); err == nil {
			return 1 << (3 * (5 - min(p, 5)))
		}
	}
	return 1
}

// activate counts stream st (sid) among the active streams, with its
// share.
func (q *sendQueue) activate(st *outSide, sid uint16) {
	q.active++
	st.share = q.shareOf(sid)
	q.activeWeight += int(st.share)
}

// deactivate takes stream st out of the active streams.
func (q *sendQueue) deactivate(st *outSide) {
	q.active--
	q.activeWeight -= int(st.share)
	st.share = 0
}

// reshare gives active stream sid its current share, after its weight or
// the scheduler changed.
func (q *sendQueue) reshare(sid uint16) {
	st := q.streams.OutSide(sid)
	if st.share == 0 {
		return // not active
	}
	w := q.shareOf(sid)
	q.activeWeight += int(w) - int(st.share)
	st.share = w
}

// With many streams holding data (manyStreams or more) their unsent
// bytes together are bounded by streamsUnsent times
// Config.Buffers.UnsentLimit: a message on a stream with nothing queued,
// which the stream's own limit always admits, then waits while the
// streams hold that much (unsentFull). Without the bound, writers
// spreading messages over many streams (a message on each of thousands)
// would queue the whole send buffer, megabytes that go cold in the CPU
// caches before they are cut into packets. Fewer streams keep the shares
// of the whole buffer streamLimit gives them: a bound on their sum would
// let greedy streams run dry between their writers' wake-ups, and WFQ's
// weights would stop showing.
const (
	streamsUnsent = 4
	manyStreams   = 64
)

// unsentFull reports whether a message of n bytes on a stream with nothing
// queued is to wait for the streams' unsent bytes to fall (streamsUnsent).
func (q *sendQueue) unsentFull(n int) bool {
	return q.active >= manyStreams && q.cfg.UnsentLimit > 0 && q.unsent+n > q.cfg.UnsentLimit*streamsUnsent
}

// takeUnsent accounts size bytes of stream sid's queue (st) cut into
// chunks or given up, and lists the stream in writable when a writer its
// limit refused may queue now.
func (q *sendQueue) takeUnsent(st *outSide, sid uint16, size int) {
	q.unsent -= size
	st.unsent -= size
	if st.unsent == 0 && st.want == 0 {
		q.deactivate(st)
	}
	if st.want > 0 {
		// Listed once the refused message fits and half the stream's
		// share is free (or none is left): a bulk writer is woken once
		// per half share it can fill, not after every chunk (a
		// goroutine wake-up costs more than copying several messages),
		// as the association's writers are (sctp's writable).
		if lim := q.streamLimit(st); st.unsent == 0 || st.unsent+st.want <= lim && st.unsent <= lim/2 {
			q.listWritable(st, sid)
		}
	}
	if q.bufferWaitMin > 0 {
		q.listBufferWaitersIfRoom()
	}
}

// listBufferWaitersIfRoom lists the buffer waiters in writable when the
// send buffer has room for the smallest message they wait to queue.
func (q *sendQueue) listBufferWaitersIfRoom() {
	if q.buffered > 0 && q.buffered+q.bufferWaitMin > q.bufLimit() || q.unsentFull(q.bufferWaitMin) {
		return
	}
	q.listBufferWaiters()
}

// refuse records that a writer of stream st was refused a message of n
// bytes: the stream counts among the active ones (streamLimit) until
// listWritable.
func (q *sendQueue) refuse(st *outSide, sid uint16, n int) {
	if st.unsent == 0 && st.want == 0 {
		q.activate(st, sid)
	}
	st.want = max(st.want, n)
}

// listBufferWaiters lists the buffer waiters in writable: the send buffer
// has room for the smallest message they wait to queue.
func (q *sendQueue) listBufferWaiters() {
	for _, sid := range q.bufferWaiters {
		if st := q.streams.PeekOutSide(sid); st != nil {
			st.waitsForBuffer = false
			if st.want > 0 && st.unsent == 0 {
				q.listWritable(st, sid)
			}
		}
	}
	q.bufferWaiters = q.bufferWaiters[:0]
	q.bufferWaitMin = 0
}

// listWritable lists stream sid in writable (once until takeStreamRoom).
func (q *sendQueue) listWritable(st *outSide, sid uint16) {
	st.want = 0
	if st.unsent == 0 {
		q.deactivate(st)
	}
	if !st.inWritable {
		st.inWritable = true
		q.writable = append(q.writable, sid)
	}
}

// takeStreamRoom returns the streams whose writers, refused with
// ErrStreamFull, may queue again since the last call: each such stream is
// listed once after its unsent bytes fell to where the refused message
// fits (or to none). The slice is valid until the next call into the
// sender.
func (q *sendQueue) takeStreamRoom() []uint16 {
	r := q.writable
	for _, sid := range r {
		if st := q.streams.PeekOutSide(sid); st != nil {
			st.inWritable = false
		}
	}
	q.writable = q.writable[:0]
	return r
}

// hasStreamRoom reports whether takeStreamRoom has streams to return.
func (q *sendQueue) hasStreamRoom() bool { return len(q.writable) > 0 }

// room returns the bytes Queue accepts now: what is left below the send
// buffer and the unsent limit (when one is set). An empty buffer takes a
// message of any size, an empty unsent queue one of any size the send
// buffer takes.
func (q *sendQueue) room() int {
	r := maxMessage
	if q.buffered > 0 {
		r = q.bufLimit() - q.buffered
	}
	if q.unsent > 0 && q.cfg.UnsentLimit > 0 {
		r = min(r, q.cfg.UnsentLimit-q.unsent)
	}
	return max(r, 0)
}

// capacity returns the most bytes Queue accepts from an empty sender
// without exceeding either bound: the send buffer (or what the endpoint's
// send budget lets the sender hold now) or the unsent limit.
func (q *sendQueue) capacity() int {
	if q.cfg.UnsentLimit > 0 {
		return min(q.bufLimit(), q.cfg.UnsentLimit)
	}
	return q.bufLimit()
}
