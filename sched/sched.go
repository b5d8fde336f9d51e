package sched

import (
	"errors"
	"fmt"
)

// MaxStreams is the largest number of outgoing streams an association can
// have (RFC 9260 section 3.3.2: the stream count is a 16-bit number), so
// stream ids run from 0 to MaxStreams-1 and the id 0xFFFF is never a stream.
const MaxStreams = 65535

// none is the stream id that is never a stream; links use it as nil.
const none = 0xFFFF

// Errors returned by the package; the errors returned wrap them and say
// which stream or value was wrong.
var (
	// ErrKind means the scheduler name or number is unknown.
	ErrKind = errors.New("unknown stream scheduler")
	// ErrStream means the stream id is not below the outgoing stream count.
	ErrStream = errors.New("stream id out of range")
	// ErrValue means the per-stream value is not valid for the scheduler
	// (a WFQ weight of 0).
	ErrValue = errors.New("invalid scheduler value")
	// ErrStreams means the stream count is outside [0, MaxStreams].
	ErrStreams = errors.New("stream count out of range")
)

// Options configure a new Scheduler.
type Options struct {
	// Interleaved is true when the association negotiated I-DATA (RFC 8260
	// section 2): the scheduler may then switch streams after every chunk,
	// and RoundRobin rotates per chunk instead of per message.
	Interleaved bool
	// Streams is the number of outgoing streams, at most MaxStreams.
	Streams int
}

// Defaults for the per-stream value, the same as Linux's init_sid.
const (
	// DefaultPriority is the priority of a stream that was never given
	// one: 0, the highest.
	DefaultPriority = 0
	// DefaultWeight is the WFQ weight of a stream that was never given one.
	DefaultWeight = 1
)

// A Scheduler picks the outgoing stream each chunk is taken from. It is
// driven by one association and, like the association, is not safe for
// concurrent use. Stream ids at or above the stream count are ignored by
// the methods that return no error.
//
// The association keeps each stream's queue; the scheduler only learns of
// it through Enqueue (a message arrived) and Sent (a chunk left, and whether
// the queue is now empty). A stream has data from its first Enqueue until a
// Sent reports it empty or Forget drops it; it is active when it has data
// and is not blocked.
type Scheduler interface {
	// Kind returns which scheduler this is.
	Kind() Kind

	// Enqueue records that a message of size bytes was queued on sid.
	// Messages of one stream are sent in the order they were enqueued.
	Enqueue(sid uint16, size int)

	// Next returns the stream to take the next chunk from, or ok false
	// when no stream is active. Next has no effect on the order until Sent
	// is called, so calling it again returns the same stream. Without
	// I-DATA the association calls it only between messages.
	Next() (sid uint16, ok bool)

	// Sent records that a chunk of n bytes was taken from sid and packed.
	// msgEnd is true when the chunk ended its message (the last fragment);
	// empty is true when sid has nothing queued now, and false when it
	// still has data, which Sent then treats as queued even if no Enqueue
	// announced it. To drop a queued or partly sent message without
	// sending (the rest of) it, as PR-SCTP abandonment does, call Sent
	// with n 0 and msgEnd true; the association also unpins it.
	Sent(sid uint16, n int, msgEnd, empty bool)

	// PacketDone records that the packet being filled is complete.
	// RoundRobinPacket moves to the next stream here; the others ignore it.
	PacketDone()

	// Block marks sid as unable to send for now (an outgoing reset or
	// add-streams request is pending): Next skips it but it keeps its data
	// and its place. Unblock lets it send again. Blocking does not nest.
	Block(sid uint16)
	// Unblock undoes Block.
	Unblock(sid uint16)

	// Forget drops what the scheduler knows about sid's queue because the
	// queue was purged (stream reset, abandonment of everything queued):
	// sid has no data afterwards. Its value and its blocked mark stay.
	Forget(sid uint16)

	// SetValue sets sid's scheduler parameter: the priority for Priority
	// (lower is served first), the weight for WFQ (1 to 65535). The other
	// schedulers accept and ignore it, as Linux does.
	SetValue(sid uint16, v uint16) error
	// Value returns sid's scheduler parameter; 0 for the schedulers that
	// have none.
	Value(sid uint16) (uint16, error)

	// Resize sets the number of outgoing streams (RFC 6525 add or reset of
	// streams). Streams at or above the new count are forgotten entirely;
	// new streams start empty with default values. A count outside
	// [0, MaxStreams] is clamped.
	Resize(streams int)
}

// New returns a scheduler of kind k for opt.Streams outgoing streams, all
// empty, with default values.
func New(k Kind, opt Options) (Scheduler, error) {
	if opt.Streams < 0 || opt.Streams > MaxStreams {
		return nil, fmt.Errorf("sched: %d streams: %w", opt.Streams, ErrStreams)
	}
	switch k {
	case FCFS:
		return newFCFS(opt), nil
	case RoundRobin:
		return newRR(opt, false), nil
	case RoundRobinPacket:
		return newRR(opt, true), nil
	case Priority:
		return newPrio(opt), nil
	case FairCapacity:
		return newFQ(opt, false), nil
	case WFQ:
		return newFQ(opt, true), nil
	}
	return nil, fmt.Errorf("sched: scheduler %d: %w", k, ErrKind)
}

// clampStreams limits a stream count to [0, MaxStreams].
func clampStreams(n int) int { return max(0, min(n, MaxStreams)) }

// errStream returns the error for a stream id not below the count n.
func errStream(sid uint16, n int) error {
	return fmt.Errorf("sched: stream %d not below stream count %d: %w", sid, n, ErrStream)
}

// Per-stream flags shared by the schedulers.
const (
	fData    uint8 = 1 << iota // the stream has queued data
	fBlocked                   // Block was called and Unblock not yet
	fLinked                    // the stream is in the active structure (fData && !fBlocked)
)

var errWeight = fmt.Errorf("sched: WFQ weight 0 (want 1 to 65535): %w", ErrValue)
