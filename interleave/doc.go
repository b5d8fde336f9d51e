// Package interleave implements the two SCTP data-transfer variants chosen
// once per association at INIT time: DATA with FORWARD-TSN (stream sequence
// numbers, RFC 9260 and RFC 3758) and I-DATA with I-FORWARD-TSN (message
// identifiers and fragment sequence numbers, RFC 8260).
//
// A variant has two sides. The Framer is the sending side: it numbers each
// new message on its stream (SSN or MID) and writes fragments as chunks;
// the association's sender decides where to cut a message (lazily, when a
// chunk goes into a packet) and which TSN the fragment gets. The
// Reassembler is the receiving side: it takes the fragments the TSN map
// accepted, reassembles messages, orders them per stream (unordered ones
// leave as soon as they are complete) and queues them for delivery, with
// partial delivery for messages larger than the receive buffer and a
// FORWARD-TSN hook. The delivery queue is reachable per stream
// (PeekStream, PopStream: a reader of one stream never waits for another's)
// and in the order messages became deliverable across streams (Peek, Pop),
// through intrusive links in the fragments, with the per-stream heads in
// the stream table's side objects.
//
// The DATA variant is NewDataFramer and NewDataReassembler, with
// FORWARD-TSN (PR-SCTP, RFC 3758) handled by DataReassembler.ForwardTSN:
// it aborts a partial delivery that the new cumulative TSN or a stream's
// skipped SSN passed, moves the streams past the given SSNs and drops the
// fragments up to the new cumulative TSN that belong to no complete
// message. The I-DATA
// variant (RFC 8260) is NewIDataFramer and NewIDataReassembler behind the
// same two interfaces: messages numbered per stream by MID (ordered and
// unordered counters), fragments by FSN, reassembly per stream keyed by
// MID, partial delivery per stream (several at once, their parts
// interleaved in the delivery queue, aborted ones marked with
// FlagAborted), the FSN of the second fragment read the RFC way, Linux's
// way or detected (FSNConvention), and I-FORWARD-TSN parsing
// (ParseIForwardTSN) and handling (IDataReassembler.ForwardMID). The
// sender's FORWARD-TSN and I-FORWARD-TSN chunks are built by package
// transfer.
//
// Received fragments (Frag) come from a Pool that keeps their buffers;
// per-stream state lives in page-chunked flexarray tables, created on first
// use, so an association with 65535 streams of which a few are used costs a
// few KiB.
package interleave
