// Package interleave implements the two SCTP data-transfer variants chosen
// once per association at INIT time: DATA with FORWARD-TSN (stream sequence
// numbers, RFC 9260 and RFC 3758) and I-DATA with I-FORWARD-TSN (message
// identifiers and fragment sequence numbers, RFC 8260).
//
// Each variant has two sides. A Framer numbers each new message on its
// stream and writes fragments as chunks; the caller decides where to cut
// and which TSN a fragment gets. A Reassembler takes the fragments the TSN
// map accepted, reassembles and orders them per stream, and queues them for
// delivery, with partial delivery for messages larger than the receive
// buffer and the forward-TSN handling of PR-SCTP. The delivery queue is
// reachable per stream (PeekStream, PopStream), so a reader of one stream
// never waits for another's, and across streams in the order messages
// became deliverable (Peek, Pop).
//
// The DATA variant is NewDataFramer and NewDataReassembler; the I-DATA
// variant is NewIDataFramer and NewIDataReassembler, with per-stream,
// per-ordering partial delivery and the FSN of a message's second fragment
// read the RFC's way, Linux's way or detected (FSNConvention). The sender's
// FORWARD-TSN and I-FORWARD-TSN chunks are built by package transfer.
//
// Received fragments (Frag) come from a Pool that keeps their buffers;
// per-stream state lives in page-chunked tables created on first use, so an
// association with 65535 streams of which a few are used stays small.
package interleave
