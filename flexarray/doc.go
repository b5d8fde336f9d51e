// Package flexarray provides a page-chunked generic array: elements live in
// lazily created pages of at most 4096 bytes, so no allocation made for
// element storage is larger than one page, and element addresses are stable
// across growth.
package flexarray
