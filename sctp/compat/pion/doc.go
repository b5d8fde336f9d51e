// Package sctp is github.com/pion/sctp's API over usctp, a userspace SCTP
// stack: a module that one replace directive in a program's go.mod puts in
// the original's place, so that pion/webrtc's data channels (and any other
// user of pion/sctp) run on usctp unchanged.
//
//	replace github.com/pion/sctp => /path/to/usctp/sctp/compat/pion
//	replace github.com/usctp/usctp => /path/to/usctp
//
// The second line names usctp itself while it is not published.
//
// An Association is a usctp association (package
// github.com/usctp/usctp/sctp) over the connection WithNetConn gives (the
// DTLS connection of a WebRTC peer), between SCTP ports 5000 at both ends:
// Client dials (both WebRTC peers do; their INITs cross), Server waits for
// the peer's INIT. One goroutine reads every message and queues it on its
// Stream (creating the Stream of a stream the peer opened, for
// AcceptStream); the queues count against WithMaxReceiveBufferSize, past
// which usctp's receive window closes. Writes go straight to usctp: a
// Stream's message goes with the stream's ordering and partial reliability
// (SetReliabilityParams: usctp's MaxRetransmits and Lifetime policies),
// DCEP messages always ordered and reliable. Stream.Close resets the
// stream's outgoing direction (RFC 6525; usctp sends the messages written
// before it first); the peer's reset ends the stream's reads with io.EOF
// after every message sent before it. BufferedAmount counts the bytes
// written and not yet acknowledged, chunk by chunk, and OnBufferedAmountLow
// fires each time it falls from above the threshold to it or below, as in
// the original (usctp's Stream.Buffered and EventBufferedLow).
//
// What the options set: WithMTU the size of every packet (no path MTU
// discovery); WithMaxReceiveBufferSize the receive window;
// WithEnableZeroChecksum RFC 9653's zero checksum with the DTLS method
// (usctp's Extensions.ZeroChecksumDTLS); WithEnableInterleaving I-DATA
// (offered by default, as the original does), with usctp's WFQ or
// round-robin scheduler (WithInterleavingOptions); WithRTOMax the largest
// retransmission timeout; WithBlockWrite makes writes wait for room in a
// send buffer of 1 MiB that grows with the congestion window, where by
// default they never wait. Data is retransmitted for as long as the
// connection lasts, as in the original.
//
// SNAP (draft-hancke-tsvwg-snap, pion/webrtc's EnableSctpSnap): the token
// GenerateOutOfBandToken makes is an INIT chunk (usctp's OutOfBandInit),
// and ClientContext with WithSNAP sets the association up from the two
// ends' tokens (usctp's DialOutOfBand): established at once, with no
// handshake packet, then as any other. I-DATA and zero checksum follow
// what the local token offered the peer.
//
// With the environment variable USCTP_PCAP_DIR set to a directory, each
// association records its SCTP packets (inside DTLS, so in clear) to a
// pcap file there, association-PID-N.pcap.
//
// # Differences in behaviour
//
//   - Close aborts the association (the peer gets an ABORT) before it
//     closes the connection; the original closes the connection only.
//   - A message given up (partial reliability) leaves BufferedAmount when
//     it is given up; in the original, when the SACK that follows the
//     FORWARD-TSN acknowledges it. Otherwise the amount and the
//     OnBufferedAmountLow callbacks follow the original's rule step for
//     step (a test replays it).
//   - WithSNAP checks that both tokens are INIT chunks: a bad token fails
//     the option, where the original fails ClientContext.
//   - Options for the original's own mechanisms are accepted and have no
//     effect: WithMinCwnd, WithFastRtxWnd, WithCwndCAStep (usctp's
//     congestion control follows RFC 9260), WithRACKOptions (usctp's RACK
//     keeps its settings), WithMaxReassemblyQueueEntries (usctp bounds
//     reassembly by its receive buffer and memory budget). A custom
//     scheduler (WithInterleavingStreamSchedulerFactory) makes Client and
//     Server fail.
//   - ActiveHeartbeat does nothing: usctp measures the RTT from its data
//     and its periodic HEARTBEATs.
//   - The error values of the original's wire codec exist so that programs
//     naming them build; this package returns those its functions
//     document.
//
// # Differences from the original's API
//
// The package exports what the original (the version usctp's go.mod
// pins) exports, with the same types and signatures: sctp/compat's
// TestReplaceModuleAPI compares the two with go/types and fails on any
// difference not listed here. There is none.
package sctp
