// Package transfer is the data-transfer engine of one SCTP association
// (RFC 9260 sections 6 and 7): the sending side with its send buffer, lazy
// fragmentation, retransmission records, loss detection and congestion
// control, and the receiving side with its TSN map, duplicate detection,
// receive window, delayed SACK, reassembly and in-order delivery (through
// package interleave).
//
// The engine is sans-I/O: every entry point that depends on time takes the
// current time; the package holds no goroutine, clock, timer or socket. The
// association (package assoc) owns one Engine, feeds it the DATA, SACK and
// FORWARD-TSN chunks it receives, asks it for the chunks of the packets it
// builds, and arms its single timer from Engine.Deadline. Besides Engine it
// sees only Path, one per peer address.
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
// Sending. Engine.Queue copies a user message into the send buffer or
// returns ErrWouldBlock (buffer full or Config.Buffers.UnsentLimit reached),
// ErrStreamFull (the stream's share is used; TakeStreamRoom says when to
// retry), ErrStreamID or ErrEmptyMessage. Fragmentation and TSN and SSN
// assignment happen when a chunk is put into a packet. The association
// builds packets until nothing more is appended:
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
// the scheduler picks, within cwnd, the peer's window (zero window probes
// after one RTO) and Max.Burst. Engine.Pending tells whether it would
// append anything.
//
// Scheduling. SwitchScheduler changes the stream scheduler at any time; a
// partly sent message finishes first. SetStreamValue and StreamValue set
// and read a stream's priority or weight. SetStreamState records a
// stream's state; a stream that is not stream.Open keeps its messages but
// is skipped.
//
// Receiving. For each DATA (or I-DATA) chunk of a packet the association
// calls HandleData (HandleIData), then EndPacket once for the packet;
// BeginBatch and EndBatch bracket the packets of one socket read so they
// get one SACK. The Verdict says what happened: InvalidStream asks for an
// ERROR, ErrEmptyMessage and ErrProtocolViolation for an ABORT. For each
// SACK chunk it fills a SACK view (SACK.SetFrom) and calls HandleSACK.
// Read hands delivered messages of every stream to the user in the order
// they became deliverable, ReadStream those of one stream; both return
// messages in parts when larger than the buffer (RecvInfo.EOR marks the
// end). All streams share one receive window; during partial delivery only
// the message's own stream waits for its end (SCTP_FRAGMENT_INTERLEAVE
// level 0 of RFC 6458).
//
// Timers. Engine.Deadline is the earliest of the T3-rtx, loss-detection,
// zero-window-probe, message-lifetime and delayed-SACK deadlines (zero when
// none runs). When it passes, the association calls OnTimeout(now); true
// means T3-rtx expired and counts as an error (section 8.1), FaultedPaths
// says on which paths.
//
// Paths. Each peer address has a Path (PathAt, AddPath): the RTO estimator
// (section 6.3.1), the congestion state and the DPLPMTUD prober (package
// plpmtud). The association tells the engine which path new data goes to
// (SetPrimary) and which are down (SetPathDown). Engine.Info returns a
// snapshot and Engine.Stats the counters.
//
// Stream reconfiguration (RFC 6525) is in engine_reconf.go. When the
// association ends, Drain hands back every message not yet acknowledged
// and ReleaseBudgets returns what the engine held of the endpoint's
// budgets.
//
// # Structure
//
// The sender (sender.go, sender_sack.go) is made of the send queue
// (send_queue.go), the retransmission ledger (ledger.go), loss detection
// (loss.go, loss_rack.go), the PR-SCTP abandoner (prsctp.go, lifetime.go),
// the reconfiguration tracker (reconf_tracker.go), RTT timing
// (rtt_timing.go) and the paths (paths.go, path.go). The receiver
// (receiver.go) is made of the SACK schedule (receiver_sack.go), the
// receive window (recv_window.go), the TSN map (tsnmap.go) and the
// reassembler of package interleave.
//
// # Memory
//
// Messages, retransmission records and received fragments come from free
// lists that keep their buffers; per-stream state lives in the
// association's stream table (package stream) and is created on first use.
// Steady-state transfer allocates nothing per message.
//
// # Extensions
//
// With Config.Interleaved the engine speaks I-DATA (RFC 8260). With
// Config.PartialReliability the sender abandons messages under their PR
// policy (RFC 3758 section 3.5, RFC 7496), keeps the
// Advanced.Peer.Ack.Point and writes FORWARD-TSN or I-FORWARD-TSN
// (ForwardDue, AppendForward); abandoned messages are reported through
// TakeFailed. The receiver applies FORWARD-TSN (HandleForwardTSN, RFC 3758
// section 3.6) and I-FORWARD-TSN.
package transfer
