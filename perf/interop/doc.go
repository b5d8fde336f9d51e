// Package interop holds interoperability tests of usctp against other
// SCTP stacks that run in the same process (pion/sctp). It has no code of
// its own: pion may be imported here (the perf layer), never by sctp.
package interop
