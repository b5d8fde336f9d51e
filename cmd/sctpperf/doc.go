// Command sctpperf is a netperf for SCTP: it runs netperf's SCTP tests
// against usctp, pion/sctp or the kernel's SCTP, and the kernel's TCP as
// the reference (-stack tcp: messages framed on one connection), and
// prints netperf's result table.
//
// With no -H it runs both sides itself on loopback, each in its own
// process (it starts itself again as the server), so
//
//	go run ./cmd/sctpperf
//
// is a 10 s SCTP_STREAM run of usctp over UDP encapsulation on loopback.
// On two hosts, run "sctpperf -server" on one and "sctpperf -H host" on
// the other.
//
// Tests (-t): SCTP_STREAM (bulk messages of -m bytes on one association),
// SCTP_STREAM_MANY (the same over -streams streams, 65535 by default, and
// -assocs associations), SCTP_RR (request/response of -r req,resp bytes,
// one at a time) and SCTP_RR_MANY (over streams and associations at once).
//
// Modes: -compare usctp,pion runs the test on each stack in turn for
// -rounds rounds and prints medians and the ratio of usctp to each other
// stack; -memory measures the heap per association and the allocations per
// message of the stacks that run in-process; -json prints results for
// machines; -v adds the bytes delivered per stream; -netns MTU runs the
// client and the server in two network namespaces joined by a veth pair
// of that MTU (root), a real link in place of loopback.
package main
