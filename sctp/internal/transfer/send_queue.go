package transfer

import "github.com/usctp/usctp/sched"

// The send queue: the messages written and not yet fully cut into chunks,
// one queue per outbound stream, the stream scheduler that picks among
// them, and the send buffer's limits: buffered bytes against the send
// buffer and the endpoint's send budget, unsent bytes against
// UnsentLimit, and each stream's share (streamLimit). Writers refused by a
// limit are listed once there is room (takeStreamRoom). A message leaves
// its stream's queue when its last fragment is cut or it is abandoned, and
// the send buffer when its last chunk is acknowledged (release).

// sendQueue is the send queue of one sender.
type sendQueue struct {
	cfg     *Config
	streams *streamTable
	sched   sched.Scheduler // picks the stream of the next message (or chunk, with I-DATA)
	budget  *SendBudget     // the endpoint's send budget (Config.SendBudget; nil: none)
	paths   *pathSet        // the primary's cwnd sizes an autotuned send buffer

	free  *message // free list of messages
	nfree int
	// holding: packets with holes (Engine.AppendDataHoles) may reference
	// the messages' buffers and be unwritten yet; released messages wait
	// in deferred until releaseHeld, so that no buffer is reused before
	// the packets that reference it are written.
	holding     bool
	deferred    *message
	pinned      *message // message being cut into chunks (pins its stream)
	pinnedSide  *outSide // the side object of pinned's stream, while pinned is set
	nextArrival uint32   // arrival number of the next queued message

	buffered int // bytes queued and not yet acknowledged (changed by charge)
	unsent   int // bytes queued and not yet cut into chunks
	active   int // streams with unsent bytes or a refused writer (outSide.unsent > 0 or want > 0)
	// activeWeight is the sum of the active streams' outSide.share.
	activeWeight int
	// writable lists the streams whose refused writers may queue again.
	writable []uint16
	// bufferWaiters lists the streams whose writers the send buffer
	// refused; bufferWaitMin is the smallest message they wait to queue (0:
	// none).
	bufferWaiters []uint16
	bufferWaitMin int
	// queuedStreams counts the streams with messages queued, partlyCut
	// those whose head message is partly cut (for stream resets).
	queuedStreams int
	partlyCut     int
	// lowStreams lists the streams whose buffered bytes fell to their
	// low-water mark, once per fall (buffered.go).
	lowStreams []uint16
}

func (q *sendQueue) init(cfg *Config, streams *streamTable, paths *pathSet) {
	q.cfg, q.streams, q.paths = cfg, streams, paths
	q.sched = cfg.Scheduler
	q.budget = cfg.SendBudget
}

// add appends a copy of payload to stream sid's queue when the limits
// admit it, else returns Queue's error; a writer refused for its stream
// is remembered for takeStreamRoom.
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
		// The writer waits for its stream, not the association: it counts
		// among the streams sharing the buffer and is listed once its message
		// fits, not once half the buffer is free, which writers refilling
		// their streams may never leave. Likewise for an empty stream when
		// the streams' unsent bytes are at their bound (unsentFull).
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
	m.off, m.refs, m.next, m.prValue = 0, 1, nil, 0
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
	st.buffered += len(payload)
	q.unsent += len(payload)
	if st.unsent == 0 && st.want == 0 {
		q.activate(st, sid)
	}
	st.unsent += len(payload)
	return nil
}

// message is one user message in the send buffer; messages are recycled
// with their buffers.
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
	// prValue: for PRTTL the end of the lifetime in ms since
	// abandoner.clockBase (serial), else the policy's value.
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

// timed reports whether m's policy may give it up once sent.
func (m *message) timed() bool { p := m.policy(); return p == PRTTL || p == PRRtx }

// outSide is the sending state of one outbound stream (the stream table's
// outbound side object).
type outSide struct {
	head, tail *message
	// resetting: an outgoing reset naming streams found this one with
	// messages queued; its messages from reconfTracker.from on wait.
	resetting bool
	// numbered: listed in reconfTracker.numbered.
	numbered bool
	// share is the stream's weight in sendQueue.activeWeight while active,
	// else 0 (sendQueue.shareOf).
	share uint16
	// unsent is the stream's bytes not yet cut; want the largest message a
	// refused writer waits to queue (0: none). See sendQueue.streamLimit.
	unsent, want   int
	inWritable     bool // listed in sendQueue.writable
	waitsForBuffer bool // listed in sendQueue.bufferWaiters
	// watchLow: the stream's low-water mark is set (buffered.go).
	watchLow bool
	// buffered is the stream's bytes written and not yet acknowledged
	// nor given up; low is its low-water mark (buffered.go).
	buffered, low int
}

// Bounds: the message free list's length, the largest buffer a free
// message keeps, and the largest message.
const (
	maxFreeMessages = 4096
	maxKeptBuffer   = 64 << 10
	maxMessage      = 1<<31 - 1 // bytes of one message (offsets are int32)
)

// took accounts the cut of size bytes of st's head message m and reports
// whether that ended it: then it leaves the queue and the pin (without
// I-DATA it pins its stream until then). The caller then calls takeUnsent
// and sched.Sent.
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
		q.pinned, q.pinnedSide = nil, nil // the scheduler may pick another stream now
		m.refs--                          // fully cut: only the chunk records hold it now
	case first:
		q.partlyCut++
		if !q.cfg.Interleaved {
			q.pinned, q.pinnedSide = m, st // the stream's until the last fragment
		}
		// RFC 8260 section 2.2.2: "The sender MUST NOT process ... more than
		// one user message in any given stream at any time." With I-DATA a
		// partly cut message stays at its stream's head, so picking the
		// stream again continues it.
	}
	return end
}

// remove takes m, possibly partly cut, out of st's queue and reports
// whether it was queued and whether it was the head.
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
		q.pinned, q.pinnedSide = nil, nil
	}
	q.takeUnsent(st, m.sid, len(m.buf)-int(m.off))
	q.sched.Sent(m.sid, 0, true, st.head == nil)
	return true, prev == nil
}

// drain releases every queued message and empties the queues; waiting
// writers are listed in writable.
func (q *sendQueue) drain() {
	for sid, st := range q.streams.OutSides() {
		for m := st.head; m != nil; {
			next := m.next
			m.refs = 1
			q.release(m)
			m = next
		}
		st.head, st.tail = nil, nil
		st.unsent, st.buffered = 0, 0
		if st.want > 0 {
			q.listWritable(st, uint16(sid))
		}
		st.share = 0
		q.sched.Forget(sid)
	}
	q.pinned, q.pinnedSide = nil, nil
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
	if q.holding {
		m.next = q.deferred
		q.deferred = m
		return
	}
	q.recycle(m)
}

// recycle puts released message m on the free list, within its bounds.
func (q *sendQueue) recycle(m *message) {
	if q.nfree >= maxFreeMessages {
		m.next = nil
		return
	}
	if cap(m.buf) > maxKeptBuffer {
		m.buf = nil
	}
	m.next = q.free
	q.free = m
	q.nfree++
}

// releaseHeld recycles the messages released while packets with holes
// were unwritten: they are written now.
func (q *sendQueue) releaseHeld() {
	q.holding = false
	for m := q.deferred; m != nil; {
		next := m.next
		q.recycle(m)
		m = next
	}
	q.deferred = nil
}

// streamLimit returns the unsent bytes stream st may hold before Queue
// refuses with ErrStreamFull (one message is always accepted on an empty
// stream): StreamUnsentLimit when set, else the send buffer not taken by
// the flight, divided among the active streams by share (bounded by
// UnsentLimit while only one is active; a share of it would let queues run
// dry between wake-ups). Every stream with data then keeps some queued, so
// the scheduler, not writer wake-up order, decides the bytes sent; shares
// proportional to WFQ weights make every queue last equally long.
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

// shareOf returns stream sid's weight for streamLimit: its WFQ weight;
// under Priority 8 times less per level below 0 (0: 32768, ..., 5 and
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

// activate counts stream st among the active streams.
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

// reshare updates active stream sid's share after a weight or scheduler
// change.
func (q *sendQueue) reshare(sid uint16) {
	st := q.streams.OutSide(sid)
	if st.share == 0 {
		return // not active
	}
	w := q.shareOf(sid)
	q.activeWeight += int(w) - int(st.share)
	st.share = w
}

// With manyStreams or more streams holding data, their unsent bytes
// together are bounded by streamsUnsent times UnsentLimit (unsentFull):
// otherwise writers spreading messages over thousands of streams would
// queue the whole send buffer, going cold in the CPU caches. Fewer streams
// keep streamLimit's shares, so WFQ weights still show.
const (
	streamsUnsent = 4
	manyStreams   = 64
)

// unsentFull reports whether a message of n bytes on an empty stream must
// wait (streamsUnsent).
func (q *sendQueue) unsentFull(n int) bool {
	return q.active >= manyStreams && q.cfg.UnsentLimit > 0 && q.unsent+n > q.cfg.UnsentLimit*streamsUnsent
}

// takeUnsent accounts size bytes of st cut or abandoned, and lists the
// stream in writable when its refused writer may queue now.
func (q *sendQueue) takeUnsent(st *outSide, sid uint16, size int) {
	q.unsent -= size
	st.unsent -= size
	if st.unsent == 0 && st.want == 0 {
		q.deactivate(st)
	}
	if st.want > 0 {
		// Listed once the refused message fits and half the share is free:
		// a bulk writer wakes once per half share, not after every chunk.
		if lim := q.streamLimit(st); st.unsent == 0 || st.unsent+st.want <= lim && st.unsent <= lim/2 {
			q.listWritable(st, sid)
		}
	}
	if q.bufferWaitMin > 0 {
		q.listBufferWaitersIfRoom()
	}
}

// listBufferWaitersIfRoom lists the buffer waiters when the smallest
// fits.
func (q *sendQueue) listBufferWaitersIfRoom() {
	if q.buffered > 0 && q.buffered+q.bufferWaitMin > q.bufLimit() || q.unsentFull(q.bufferWaitMin) {
		return
	}
	q.listBufferWaiters()
}

// refuse records a refused n-byte message: the stream counts as active
// until listWritable.
func (q *sendQueue) refuse(st *outSide, sid uint16, n int) {
	if st.unsent == 0 && st.want == 0 {
		q.activate(st, sid)
	}
	st.want = max(st.want, n)
}

// listBufferWaiters lists the buffer waiters in writable.
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

// takeStreamRoom is Engine.TakeStreamRoom.
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

// room returns the bytes Queue accepts now. An empty buffer takes a
// message of any size, an empty unsent queue any the buffer takes.
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

// capacity returns the most bytes Queue accepts from an empty sender.
func (q *sendQueue) capacity() int {
	if q.cfg.UnsentLimit > 0 {
		return min(q.bufLimit(), q.cfg.UnsentLimit)
	}
	return q.bufLimit()
}
