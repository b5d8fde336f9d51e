// Package transfer is the data-transfer engine of one SCTP association
// (RFC 9260 sections 6 and 7): the sending side with its send buffer, lazy
// fragmentation, retransmission records, loss detection and congestion
// control, and the receiving side with its TSN map, duplicate detection,
// receive window, delayed SACK, reassembly and in-order delivery (through
// package interleave).
//
// The engine is sans-I/O. Every entry point that depends on time takes the
// current time as an argument; the package holds no goroutine, clock, timer
// or socket. The association (package assoc) owns one Engine, feeds it the
// DATA, SACK and FORWARD-TSN chunks it receives, asks it for the chunks to
// put into the packets it builds, and arms its single timer from
// Engine.Deadline. Engine's methods are the association's whole view of
// the engine; transfer.Path, one per peer address, is the one part it
// sees.
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
//		Scheduler: s, // from sched.New; nil means FCFS
//	})
//
// Sending. Engine.Queue copies a user message into the send buffer, with
// its partial reliability, or returns ErrWouldBlock when it is full or
// Config.Buffers.UnsentLimit bytes wait to be sent (the public API blocks and
// retries after the engine made progress), ErrStreamFull when the
// stream's own share is used (TakeStreamRoom says when to retry),
// ErrStreamID or ErrEmptyMessage. Nothing is cut yet: fragmentation, TSN
// and SSN assignment happen when a chunk is put into a packet. To build
// packets the association loops, one packet per iteration, until nothing
// more is appended:
//
//	for {
//		b := hdr // common header already appended
//		if e.SACKDue(now) {
//			b = e.AppendSACK(now, b, mtu-len(b))
//		}
//		if e.ForwardDue() {
//			b = e.AppendForward(now, b, mtu-len(b))
//		}
//		b, _ = e.AppendData(now, b, mtu-len(b))
//		if len(b) == len(hdr) { break }
//		send(b) // to path e.DataDest()
//	}
//
// AppendData appends retransmissions first, then new DATA from the stream
// the scheduler picks (pinned until the message's last fragment without
// I-DATA), within cwnd, the peer's window (zero window probes after one
// RTO) and Max.Burst: a send opportunity (a SACK, a timeout, new data
// after an idle period) raises the flight by at most Max.Burst full
// packets beyond what a SACK newly acknowledged. Engine.Pending tells
// whether it would append anything.
//
// Scheduling. SwitchScheduler changes the stream scheduler at any time,
// with data queued: the new scheduler learns the backlog in arrival order,
// a partly sent message stays pinned and finishes first, blocked streams
// stay blocked, per-stream values start from their defaults (as in
// Linux). SetStreamValue and StreamValue set and read a stream's priority
// or weight. SetStreamState records a stream's state (stream.Open,
// Closed, ResetPending, AddPending): a stream that is not Open keeps its
// messages but is skipped, so it never holds up the others.
//
// Receiving. For each DATA (or I-DATA) chunk of a packet the association
// calls HandleData (HandleIData), then EndPacket once for the packet; the
// packets of one read from the socket may be bracketed by BeginBatch and
// EndBatch, which make the every-second-packet SACK one SACK for the
// batch. The Verdict says what happened; InvalidStream asks the
// association to send an ERROR with an "Invalid Stream Identifier" cause;
// ErrEmptyMessage ("No User Data") and ErrProtocolViolation ask for an
// ABORT. For each SACK chunk it fills a SACK view (SACK.SetFrom) and calls
// HandleSACK, which reports whether new data was acknowledged (reset the
// association's error counter) or ErrProtocolViolation (the peer
// acknowledged a TSN never sent: ABORT). Read hands delivered messages of
// every stream to the user in the order they became deliverable, and
// ReadStream those of one stream, whatever the others hold (each inbound
// stream has its own delivery queue; AppendReadable says which streams got
// data); both return messages in parts when larger than the buffer given
// (RecvInfo.EOR marks the end), and a part read by one is continued by the
// other. Reading frees receive window and may make a window-update SACK
// due. All streams share the one receive window. When a message larger
// than half the receive buffer is delivered in parts (partial delivery),
// only its own stream waits for its end; Read, having returned a part of
// it, returns the rest before anything else, like SCTP_FRAGMENT_INTERLEAVE
// level 0 of RFC 6458. Its next fragment is accepted even over a full
// window once its stream was read, so the messages waiting elsewhere
// cannot keep the window shut.
//
// Timers. Engine.Deadline is the earliest of the T3-rtx, loss-detection,
// zero-window-probe, message-lifetime (PR-SCTP timed reliability) and
// delayed-SACK deadlines (zero when none runs). When it passes, the
// association calls OnTimeout(now), which first gives up the messages
// whose lifetime ended (TakeFailed reports them): true means T3-rtx
// expired and counts as an error for the association (section 8.1),
// FaultedPaths says on which paths. Then it builds packets as above.
//
// Paths. Each peer address has a Path (PathAt, AddPath): the RTO
// estimator (section 6.3.1), the congestion state and the path's
// DPLPMTUD prober (package plpmtud). The association uses Path.RTO for its
// own timers, feeds heartbeat round trips to Path.RTTSample, counts path
// errors with Path.Fault, and tells the engine which path new data goes to
// (SetPrimary) and which are down (SetPathDown). Engine.Info returns a
// snapshot (SRTT, RTO, cwnd, windows, outstanding data) and Engine.Stats
// the counters.
//
// Stream reconfiguration (RFC 6525) goes through AddOutgoing,
// BeginOutgoingReset, DeferIncomingReset, ResetIncoming, BeginTSNReset,
// ResetTSNs and their companions (engine_reconf.go). When the association
// ends, Drain hands back every message not yet acknowledged, for
// send-failed events, and ReleaseBudgets gives the endpoint's budgets back
// what the engine held.
//
// # Structure
//
// The Engine's two halves are made of parts, each a type in a file of its
// own. The sender (sender.go, with SACK handling in sender_sack.go): the
// send queue (send_queue.go), the retransmission ledger (ledger.go), loss
// detection (loss.go, loss_rack.go), the PR-SCTP abandoner (prsctp.go,
// lifetime.go), the reconfiguration tracker (reconf_tracker.go), RTT
// timing (rtt_timing.go) and the paths (paths.go, path.go). The receiver
// (receiver.go): the SACK schedule (receiver_sack.go), the receive window
// (recv_window.go), the TSN map (tsnmap.go) and the reassembler of package
// interleave.
//
// # Memory
//
// Messages, retransmission records (a ring indexed by TSN) and received
// fragments come from free lists that keep their buffers; per-stream state
// lives in the association's stream table (package stream): page-chunked
// records and side objects created on first use, so 65535 negotiated
// streams cost nothing until used. Steady-state transfer allocates nothing
// per message (TestNoAllocsPerMessage).
//
// # Extensions
//
// With Config.Interleaved the engine speaks I-DATA (RFC 8260):
// HandleIData and HandleIForwardTSN take the peer's chunks, the sender
// asks the scheduler for a stream after every chunk, and Read returns
// parts of messages of different streams in partial delivery alternately
// (RecvInfo.MID names the message; RecvInfo.Aborted reports a partial
// delivery ended by an I-FORWARD-TSN). With Config.PartialReliability the
// sender abandons messages under their PR policy (RFC 3758 section 3.5,
// RFC 7496), keeps the Advanced.Peer.Ack.Point and writes FORWARD-TSN or
// I-FORWARD-TSN (ForwardDue, AppendForward); abandoned messages are
// reported through TakeFailed, every one (the association takes them
// after each step, so they are at most what the send buffer held). The
// receiver applies FORWARD-TSN (HandleForwardTSN, RFC 3758 section 3.6)
// and I-FORWARD-TSN.
package transfer
