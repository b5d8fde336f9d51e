// Package transfer is the data-transfer engine of one SCTP association
// (RFC 9260 sections 6 and 7): the sending side with its send queue, lazy
// fragmentation, retransmission records, T3-rtx timer, fast retransmit and
// congestion control, and the receiving side with its TSN map, duplicate
// detection, receive window, delayed SACK and in-order delivery.
//
// The engine is sans-I/O. Every entry point that depends on time takes the
// current time as an argument; the package holds no goroutine, clock, timer
// or socket. The association (package sctp) embeds one Engine, feeds it the
// DATA and SACK chunks it receives, asks it for DATA and SACK chunks to put
// into the packets it builds, and arms its single timer from Engine.Deadline.
//
// # Usage
//
// The association creates the engine once the handshake has fixed the
// initial TSNs and stream counts:
//
//	e, err := transfer.New(transfer.Config{
//		LocalTSN: myInitialTSN, PeerTSN: peerInitialTSN,
//		PeerRwnd: peerARwnd, RecvBuffer: 1 << 20,
//		OutStreams: os, InStreams: is, MTU: 1452,
//	})
//
// Sending: Sender.Queue copies a user message into the send buffer (or
// returns ErrWouldBlock when the buffer is full). When building a packet the
// association first asks Receiver.AppendSACK (if Receiver.SACKDue), then
// calls Sender.AppendData with the room left in the packet; AppendData
// appends retransmissions first, then new DATA chunks, as far as cwnd, the
// peer's receive window and Max.Burst allow, and reports how many chunks it
// appended. The association loops, one packet per call, until AppendData
// appends nothing.
//
// Receiving: for every DATA chunk of an arriving packet the association
// calls Receiver.HandleData, then Receiver.EndPacket once for the packet.
// For every SACK chunk it calls Sender.HandleSACK; an error from HandleSACK
// (ErrProtocolViolation) means the peer acknowledged a TSN we never sent and
// the association should ABORT with a Protocol Violation cause.
// Receiver.Read hands delivered user messages to the user, in parts when a
// message is larger than the buffer given.
//
// Timers: Engine.Deadline is the earliest of the T3-rtx and delayed-SACK
// deadlines (zero when none is armed). When it passes, the association calls
// Engine.OnTimeout(now) and then builds packets as above.
//
// The Path carries the RTO estimator and the congestion state of the one
// destination (multi-homing is not supported yet); the association uses
// Path.RTO for its own timers (T1, T2, T5, heartbeats), feeds heartbeat RTT
// measurements with Path.RTTSample, and counts path errors with Path.Fault.
//
// # Wire format
//
// Received chunks come in as plain views (Data, SACK) that the association
// fills from its parsed chunks; outgoing DATA and SACK chunks are appended
// in wire format to the caller's packet buffer.
//
// # Limitations
//
// One destination address per association. DATA only: I-DATA (RFC 8260)
// will come as a second interleave variant; Config.Interleaved must be false.
// No PR-SCTP: messages are never abandoned while the association lives;
// Sender.Drain hands the unsent and unacknowledged ones back when it fails.
package transfer
