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
// FORWARD-TSN hook.
//
// The DATA variant is NewDataFramer and NewData. The I-DATA variant (issue
// 8) will be NewIDataFramer and NewIData, behind the same two interfaces,
// so the engine does not change. FORWARD-TSN handling is minimal until
// PR-SCTP lands: it drops fragments up to the new cumulative TSN and skips
// streams past the given SSNs.
//
// Received fragments (Frag) come from a Pool that keeps their buffers;
// per-stream state lives in page-chunked flexarray tables, created on first
// use, so an association with 65535 streams of which a few are used costs a
// few KiB.
package interleave
