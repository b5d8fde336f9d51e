package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// Reassembler is the receive side of one data-transfer variant: it takes
// the fragments the TSN map accepted, reassembles messages, orders them per
// stream and queues them for delivery. DataReassembler orders by stream
// sequence number, IDataReassembler (RFC 8260) by message identifier and
// fragment sequence number.
//
// The delivery queue is reachable in the order fragments became deliverable
// across streams (Peek, Pop) and per stream (PeekStream, PopStream). A
// message is a run from a fragment with chunk.FlagBeginning to one with
// chunk.FlagEnd. Under partial delivery (see Partial) a message's first
// fragments are queued before its end arrived, so in cross-stream order its
// parts may alternate with other streams' messages; with DATA nothing else
// of that stream is queued until its end. Every queued fragment names its
// message by SID and FirstTSN (and MID and the U flag with I-DATA).
type Reassembler interface {
	// Add takes f (from the reassembler's Pool, filled from an accepted
	// chunk whose TSN is new) and queues whatever became deliverable.
	// It reports false when f cannot be valid for its stream (for
	// example an ordered fragment whose SSN was already delivered); f is
	// then returned to the pool and the caller counts the fault.
	Add(f *Frag) bool
	// Pop removes and returns the next fragment to deliver in arrival
	// order across streams, or nil.
	Pop() *Frag
	// Peek returns the next fragment to deliver in arrival order across
	// streams without removing it.
	Peek() *Frag
	// PopStream removes and returns the next fragment of stream sid to
	// deliver, or nil.
	PopStream(sid uint16) *Frag
	// PopStreamNext is PopStream that also returns the fragment it leaves
	// at the head of stream sid's delivery queue (what PeekStream would
	// return next), or nil.
	PopStreamNext(sid uint16) (f, next *Frag)
	// PeekStream returns the next fragment of stream sid to deliver
	// without removing it.
	PeekStream(sid uint16) *Frag
	// AppendReadable appends the streams whose delivery queue became
	// non-empty since its last call, each once.
	AppendReadable(dst []uint16) []uint16
	// Held returns the user bytes held: queued for delivery or waiting for
	// reassembly or ordering.
	Held() int
	// Charged returns what the held fragments cost in memory (the sum of
	// their Frag.Cost): a receiver limits it besides the user bytes, so
	// tiny fragments cannot hold many times the window in memory.
	Charged() int
	// Ready returns the user bytes queued for delivery.
	Ready() int
	// Counts returns Held, Charged and Ready as fields kept up to date,
	// for a caller that looks at them for every chunk and read.
	Counts() *Counts
	// Partial starts partial delivery of one message on a stream with
	// nothing queued for delivery: the earliest message that has its
	// first fragments in sequence starts being queued before it is
	// complete. It reports whether it started. The caller uses it when the
	// held bytes reach its partial delivery point, so a message larger
	// than the receive buffer cannot stall the association. O(log n) in
	// the streams.
	Partial() bool
	// Recheck updates what Partial knows of stream sid after the caller
	// changed the stream's In record (a stream reset).
	Recheck(sid uint16)
	// RecheckAll is Recheck for every stream in use, O(streams in use).
	RecheckAll()
	// ResetAll resets the In record of every inbound stream (RFC 6525: an
	// Outgoing SSN Reset Request naming no stream, an SSN/TSN Reset) and
	// updates what Partial knows of them. Amortised O(1): it looks only at
	// the streams used since the last ResetAll.
	ResetAll()
	// PartialNext reports the TSN of the next fragment of the message in
	// partial delivery, if one is in progress (DATA only). Nothing else of
	// its stream is queued before it, so the receiver accepts that fragment
	// even with its window full once the stream's queue is read: it is what
	// frees the window.
	PartialNext() (tsn chunk.TSN, ok bool)
	// InPartial reports whether a message of stream sid is in partial
	// delivery.
	InPartial(sid uint16) bool
	// DropHighest removes the fragment with the highest TSN above after
	// that is still held for reassembly or ordering (not queued for
	// delivery), returning its TSN and size. The receiver uses it when
	// its window is full and a chunk filling a hole arrives (RFC 9260
	// section 6.2: "the receiver SHOULD drop the largest TSN held for
	// reordering and accept the new incoming DATA chunk").
	DropHighest(after chunk.TSN) (tsn chunk.TSN, n int, ok bool)
	// ForwardTSN applies a FORWARD-TSN (RFC 3758 section 3.6) whose
	// entries were validated: incomplete messages with fragments up to
	// newCum are dropped, a partial delivery that will not complete is
	// aborted (a FlagAborted marker is queued), and for each (sid, ssn)
	// pair the stream delivers what it holds up to ssn and skips past it.
	// With I-DATA the peer sends I-FORWARD-TSN instead, applied with
	// IDataReassembler.ForwardMID.
	ForwardTSN(newCum chunk.TSN, skips []Skip)
	// Pool returns the fragment pool the reassembler recycles into.
	Pool() *Pool
}

// Skip is one stream entry of a FORWARD-TSN: stream SID skips past SSN.
type Skip struct {
	SID uint16
	SSN stream.SSN
}

// Counts are a reassembler's byte counts (see Reassembler.Held, Charged
// and Ready), read through Reassembler.Counts. Only the reassembler
// changes them.
type Counts struct {
	// Held is the user bytes held: queued for delivery, or waiting for
	// reassembly or ordering.
	Held int
	// Charged is what the held fragments cost in memory (the sum of their
	// Frag.Cost).
	Charged int
	// Ready is the user bytes queued for delivery.
	Ready int
}
