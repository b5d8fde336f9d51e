// Package sched implements the SCTP stream schedulers of RFC 8260 section 3:
// first come first served, round robin, round robin per packet, priority,
// fair capacity and weighted fair queueing.
//
// # Model
//
// A Scheduler decides which outgoing stream the next DATA or I-DATA chunk is
// taken from. It names streams by id only and keeps its own per-stream state
// in a page-chunked table (flexarray) keyed by stream id, so it holds no
// pointer into the association's stream tables and nothing it holds can
// outlive a resize, a purge or a scheduler switch. The association tells it
// when messages are queued (Enqueue), asks it for a stream (Next), reports
// every chunk that left a stream (Sent) and every finished packet
// (PacketDone), and tells it when a stream cannot send for a while (Block,
// Unblock), lost its queue (Forget) or when the stream count changed
// (Resize).
//
// A stream is active when it has data and is not blocked; Next returns only
// active streams, so a stream that cannot send never holds up the others.
//
// # Costs
//
// Per chunk, Next and Sent cost O(1) for FCFS, RR, RR per packet and
// Priority (amortised O(1) for FCFS, which discards stale queue entries
// lazily), and O(log n) in the number of active streams for fair capacity
// and WFQ, which are virtual-time fair queueing over a 4-ary heap. Nothing
// on the per-chunk path is linear in the number of streams; building a new
// scheduler is. Resize to a larger count (RFC 6525 streams added, which a
// peer can ask for once per request) is O(1) in every scheduler, whatever
// is queued; shrinking costs one step per removed stream, and for FCFS one
// per run in its queue. In steady state nothing allocates.
//
// # Switching
//
// A scheduler is switched by building a new one with New, calling Enqueue on
// it once for every queued message (including a partly sent one, with what is
// left of it) and Block for every blocked stream. Messages of one stream must
// be enqueued in their queue order; across streams, enqueueing them in their
// original arrival order lets FCFS keep it (usrsctp instead interleaves the
// streams' n-th messages, which is also acceptable). Per-stream values
// (priorities, weights) start from their defaults in the new scheduler, as in
// Linux. The association keeps its message pin across the switch.
//
// # Message integrity
//
// Without I-DATA (Options.Interleaved false) the association pins the stream
// of a partly sent message and does not call Next until its last fragment is
// packed, so fragments of one message are never split by another stream's
// data (RFC 9260 section 6.9). The schedulers rely on that pin: RR and
// Priority rotate only at message ends in that mode. With I-DATA the
// association may call Next after every chunk and every scheduler may switch
// streams between fragments.
package sched
