// Package interleave implements the two SCTP data-transfer variants chosen
// once per association at INIT time: DATA with FORWARD-TSN (stream sequence
// numbers) and I-DATA with I-FORWARD-TSN (message identifiers and fragment
// sequence numbers, RFC 8260).
package interleave
