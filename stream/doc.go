// Package stream holds per-stream state for an SCTP association: outbound
// and inbound stream records in flexarray tables behind the Out and In
// accessors (the Linux kernel's SCTP_SO and SCTP_SI), and lazily created
// per-stream side objects.
//
// # Records
//
// Out holds an outbound stream's next ordered and unordered message numbers
// and its State; In holds an inbound stream's next expected message number
// and its partial-delivery state. Both are pointer-free (their pages are
// never scanned by the garbage collector) and fill a Go size class. Records
// exist only for pages of streams that were touched, so an association that
// negotiates 65535 streams and uses a few stays small. Growing a direction
// (RFC 6525 add-streams) never moves a record; shrinking releases what lies
// past the new end, and records that come back later start fresh.
//
// # Side objects
//
// Table[O, I] takes the types of the upper layer's per-stream side objects
// as type parameters and never looks inside them. A side object is created
// on first use (OutSide, InSide) from a per-table free list in page-chunked
// storage, so it never moves while it lives; released objects are reset
// (see Resetter) and reused first. A Handle names a side object with its
// slot generation: after release a lookup by handle yields nil even if the
// slot was reused, so a cached reference can go stale but never points at
// another stream's state.
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
