// Package stream holds per-stream state for an SCTP association: outbound and
// inbound stream records kept in flexarray tables behind the Out and In
// accessors (the Linux kernel's SCTP_SO and SCTP_SI), and lazily created
// per-stream side objects.
//
// # Records
//
// Out (16 bytes) holds an outbound stream's next ordered and unordered
// message numbers and its State (Closed, Open, AddPending, ResetPending);
// In (24 bytes) holds an inbound stream's next expected message number and
// its partial-delivery state. Both are pointer-free, so their pages are
// never scanned by the garbage collector, and both exactly fill a Go size
// class. With DATA the 16-bit SSN lives in the low bits of the MID.
//
// Records exist only for pages of streams that were touched: a Table with
// 65535 streams negotiated each way and none used holds a few hundred bytes,
// and one with streams 0 to 9 in use under 10 KiB (TestStreamMemory prints
// the measurements). Growing a direction (RFC 6525 add-streams) never moves
// a record; shrinking releases what lies past the new end, and records that
// come back later start fresh.
//
// # Side objects
//
// Table[O, I] takes the types of the upper layer's per-stream side objects
// as type parameters: the data-transfer engine keeps its send queue head
// and counters in O, the receive side its per-stream state in I, and this
// package never looks inside them. A side object is created on first use
// (OutSide, InSide) from a per-table free list in page-chunked storage, so it
// never moves while it lives; released objects are reset (see Resetter,
// which lets a type keep its buffers) and reused first. A Handle names a
// side object together with its slot generation: after the object is
// released a lookup by handle yields nil, even if the slot was reused, so a
// cached reference can go stale but never points at another stream's state.
//
// Schedulers keep their own per-stream state keyed by stream identifier;
// they do not live here.
//
// # Stream identifiers
//
// Every identifier from the wire or the user goes through Out, In (nil when
// out of range) or LookupOut, LookupIn (a *RangeError matching
// ErrInvalidStream); out-of-range identifiers never panic.
//
// # Serial numbers
//
// SSN (16 bits), MID and FSN (32 bits) compare in RFC 1982 serial order with
// LT, LEQ, GT and GEQ and wrap with Add and Next.
package stream
