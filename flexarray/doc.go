// Package flexarray provides a page-chunked generic array: elements live in
// lazily created pages of at most PageSize bytes, so no allocation for
// element storage exceeds one page and element addresses are stable across
// growth.
//
// It plays the role of the Linux kernel's flex_array and generic radix tree
// in SCTP stream tables: an association may negotiate 65535 streams each way
// but use a handful, and a dense slice would be one large allocation copied
// on every grow.
//
// # Layout
//
// Pages hold PerPage elements each (as many as fit in a page, at least one);
// elements never straddle pages. Pages are reached through a directory whose
// nodes are themselves at most PageSize bytes, malloc header included: one
// level for up to 511 pages, more beyond. The directory grows only as far as
// the highest page ever materialised, so an untouched array holds no memory.
// Get with a one-level directory is a bounds check, a multiply-and-shift
// (the division by PerPage), one load and an add.
//
// NewPaged makes arrays with smaller pages for usually sparse data; NewFor
// picks the smallest page that keeps a one-level directory for its length.
// Bytes reports the memory held in the allocator's size-class slots;
// AllocSize exposes that rounding.
//
// # Garbage collector
//
// Each page is a Go []T, so the runtime knows its element type: pages of a
// pointer-free T sit in no-scan spans and the collector never reads them;
// only the directory is scanned. Pages of a T with pointers are scanned and
// keep their referents alive.
//
// # Concurrency
//
// An Array is not safe for concurrent use.
package flexarray
