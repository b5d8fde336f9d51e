// Package flexarray provides a page-chunked generic array: elements live in
// lazily created pages of at most 4096 bytes, so no allocation made for
// element storage is larger than one page, and element addresses are stable
// across growth.
//
// It is the Go counterpart of the Linux kernel's flex_array and generic radix
// tree as used for SCTP stream tables (SCTP_SO / SCTP_SI): an association may
// negotiate 65535 streams each way but use a handful, and a dense slice of
// records would be one large allocation that is copied on every grow.
//
// # Layout
//
// An Array[T] of n elements is split into pages of PerPage elements each,
// where PerPage is the largest count whose bytes fit in PageSize (4096) bytes
// (at least one element). Elements never straddle pages, so the bytes left
// over at the end of a page are fewer than one element. Pages are reached
// through a directory of page pointers whose nodes are themselves at most
// PageSize bytes, the runtime's malloc header included: one level for up to
// 511 pages (130816 elements of 16 bytes, 86870 of 24 bytes), more levels
// beyond that, up to four for MaxLen one-page elements. The directory grows
// only as far as the highest page ever materialised, so an array of 65535
// elements in which nothing was touched holds no memory at all.
//
// Element i is on page i / PerPage; the division is a multiply and a shift
// (as the kernel's flex_array used a reciprocal), so Get with a one-level
// directory is a bounds check, a multiply, one load and an add.
//
// NewPaged makes arrays with smaller pages for data that is usually sparse;
// NewFor picks the smallest page that keeps a one-level directory for its
// length (a stream table of 10 streams gets one 256-byte page, one of 65535
// the full pages).
// Bytes reports the memory held, counted in the allocator's size-class
// slots; AllocSize exposes that rounding for checking struct sizes.
//
// # Garbage collector
//
// Each page is allocated as a Go slice of T (make([]T, PerPage)), so the
// runtime knows the element type: when T contains no pointers, the page is
// placed in a no-scan span and the garbage collector never reads it, however
// many pages there are. Only the directory (at most one pointer per page) is
// scanned. When T does contain pointers, the pages are scanned like any other
// []T and keep their referents alive. TestPagesNoScan checks both with the
// runtime's /gc/scan/heap:bytes metric.
//
// # Concurrency
//
// An Array is not safe for concurrent use; like every per-association
// structure in usctp it has a single owner.
package flexarray
