// Package stream holds per-stream state for an SCTP association: outbound and
// inbound stream records kept in flexarray tables behind the Out and In
// accessors (the Linux kernel's SCTP_SO and SCTP_SI), and lazily created
// per-stream side objects.
package stream
