// Package sctp is a userspace implementation of the Stream Control
// Transmission Protocol (RFC 9260) and its extensions.
//
// # Usage
//
// A server listens on an IP address and SCTP port and accepts
// associations; a client dials one:
//
//	l, err := sctp.Listen("0.0.0.0:5000", nil) // UDP encapsulation on port 9899
//	as, err := l.Accept()
//
//	as, err := sctp.Dial(ctx, "192.0.2.1:5000", &sctp.Config{OutStreams: 16})
//	_, err = as.WriteMsg(msg, sctp.SendInfo{Stream: 3, PPID: 51})
//	n, info, err := as.ReadMsg(buf) // info.Stream, info.PPID, info.EOR
//	err = as.Shutdown(ctx)
//
// An Endpoint is one-to-many: one socket serves every association it
// accepted or dialed (Endpoint.Dial), each association an independent
// object. Association.Stream(sid) gives an io.ReadWriteCloser for one
// stream. Messages keep their boundaries: WriteMsg sends one message,
// ReadMsg returns one message, or one part of a message larger than the
// buffer with RecvInfo.EOR false until the last part; data is never
// truncated. Each inbound stream is readable on its own: a Stream's Read
// gets its stream's data whatever the other streams hold, while ReadMsg
// takes every stream's messages in the order they became deliverable, so
// one goroutine per stream and one goroutine for all both work (and mix).
//
// The transport is UDP encapsulation (RFC 6951) by default: local UDP
// port Config.UDPPort (9899), peer port Config.RemoteUDPPort (9899). With
// Config.Transport = IP it is plain SCTP over a raw IP socket (protocol
// 132, needs CAP_NET_RAW). Config.PacketConn or Config.Conn carry the
// packets over a connection the program supplies (for example DTLS).
// Config.Pcap records every packet in a pcap file.
//
// # Partial reliability
//
// SendInfo.PR (or Stream.PR for a stream's writes) makes a message
// partially reliable (PR-SCTP, RFC 3758 with the policies of RFC 7496):
//
//	as.WriteMsg(frame, sctp.SendInfo{Stream: 1, PR: sctp.Lifetime(100 * time.Millisecond)})
//	as.WriteMsg(state, sctp.SendInfo{Stream: 2, Unordered: true, PR: sctp.MaxRetransmits(0)})
//	as.WriteMsg(log, sctp.SendInfo{Stream: 3, PR: sctp.Priority(7)})
//
// Lifetime gives up a message not acknowledged in time, MaxRetransmits one
// whose chunks would be retransmitted more often, Priority lets a more
// important message push less important queued ones out of a full send
// buffer. A message given up is reported whole in an EventSendFailed event
// (Event.PR names the policy; Event.Sent says whether any of it went out)
// and counted in Stats.PRAbandoned and PRAbandonedBytes. Messages still
// queued are dropped without using a TSN; for sent ones the association
// sends FORWARD-TSN (I-FORWARD-TSN with interleaving) so the peer skips
// them and delivers what follows; that needs both endpoints to offer
// PR-SCTP, which usctp does by default, as Linux does
// (Config.DisablePartialReliability turns it off); otherwise sent messages
// stay reliable. On the receiving side a message the peer gave up while
// it was being read in parts ends with an empty read whose
// RecvInfo.Aborted is set, and an EventPartialDeliveryAborted event;
// Stream.Read returns ErrMessageAborted there instead (not a terminal
// error: the next Read goes on with the stream's next message).
//
// # Stream reconfiguration
//
// Stream reconfiguration (RFC 6525) is negotiated by default
// (Config.DisableStreamReconfig turns it off). Association.ResetStreams
// restarts the numbering of some or all streams, ours (DirOutgoing), the
// peer's (DirIncoming) or both; AddStreams adds streams each way:
//
//	err = as.ResetStreams(ctx, sctp.DirOutgoing, 3, 4) // streams 3 and 4 start again at SSN 0
//	err = as.AddStreams(ctx, 10, 0)                    // 10 more outbound streams
//	out, in := as.Streams()                            // the new counts
//
// Both calls wait for the peer's answer (one request is in flight at a
// time; later ones queue behind it); a refusal is an error matching
// ErrReconfigDenied or ErrReconfigFailed. Both ends get an
// EventStreamReset or EventStreamsAdded, for their own requests and for
// the peer's (Event.Direction is seen from the receiving end, Event.Err
// is nil on success). Streams being reset keep their queued messages and
// send them, numbered from 0, once the peer has answered.
//
// Association.ResetAssociation (RFC 6525 SSN/TSN Reset Request) resets the
// whole association: the TSNs of both directions and every stream both
// ways start again, the next message on each stream has SSN 0:
//
//	err = as.ResetAssociation(ctx) // both ends get an EventAssocReset
//
// It sends nothing new from the call on, waits until everything sent is
// acknowledged, then asks; messages written meanwhile go out with the new
// numbering afterwards. At most one request is sent within 30 seconds
// (ErrAssocResetTooSoon). A peer's request is performed once nothing of
// ours is unacknowledged and everything received is in sequence (until
// then it is answered "In progress" and the peer asks again).
//
// # Events
//
// Events (association up and down, restart, peer address changes, send
// failures with the unsent message, partial deliveries aborted, shutdown
// complete, sender dry, stream resets and additions, association resets) arrive
// on Association.Events, a bounded channel: events that find it full are
// dropped and counted, so a program that ignores them loses nothing else.
//
// # Cancellation
//
// Every call that can block can be stopped. Dial, Shutdown and
// Endpoint.AcceptContext take a context. ReadMsg and WriteMsg (and the
// Read and Write of a Stream) obey deadlines set with SetDeadline,
// SetReadDeadline and SetWriteDeadline as net.Conn does: a passed
// deadline returns an error that is os.ErrDeadlineExceeded. WriteMsg
// blocks while the send buffer (Config.SendBuffer) is full or
// Config.UnsentLimit bytes of it wait to be sent; with
// SendInfo.NonBlocking it returns ErrWouldBlock instead. Close and Abort
// unblock every call on the association; Endpoint.Close unblocks every
// call on the endpoint.
//
// Errors work with errors.Is: an association that ended without a
// graceful shutdown returns an *AbortError matching ErrAborted and either
// ErrPeerAborted (the peer sent ABORT; AbortError.Cause has its cause
// code) or ErrLocalAbort (Abort, a timeout — also ErrTimeout — or a
// protocol violation by the peer). After a graceful shutdown ReadMsg
// returns io.EOF once every message was read, and WriteMsg ErrClosed.
//
// # Concurrency and performance
//
// Each endpoint's state is owned by one lock and driven by two
// goroutines: a reader that takes packets from the socket in batches
// (recvmmsg, with GRO on Linux), feeds them all to the sans-I/O core and
// sends what they caused in one batch (sendmmsg, with GSO), and an owner
// that sends what user calls queued and runs one timer armed at the
// core's earliest deadline. User goroutines queue work under the lock
// and wake the owner; any number may call at once. Sending and receiving
// a message allocates nothing in steady state.
//
// The packets of one read from the socket (with GRO: views of the
// socket's buffers, no copy) count as one reception event for RFC 9260's
// "at least every second packet" acknowledgement rule: the receiver sends
// one SACK for the batch, as TCP acknowledges a GRO super-packet once;
// SACKs for gaps and duplicates still go at once for every packet. The
// sender applies Max.Burst as RFC 9260 section 6.1 rule D's temporary
// cwnd, so such a SACK lets it refill what it acknowledged plus Max.Burst
// packets. Endpoint.SocketStats counts the system calls.
//
// A read of the socket that finds it empty busy-polls it for up to
// Config.BusyPoll (50 µs) before it sleeps, when the previous wait for
// data was that short: request/response traffic then sees its answer a
// few microseconds after it arrives instead of after a wake-up, at some
// CPU cost, while idle endpoints and sparse traffic never poll.
//
// # Limitations
//
//   - No multi-homing: one path per association (the peer's other
//     addresses are recorded and reported, not used).
//   - PR-SCTP: the priority policy only gives up messages not yet sent;
//     the timed-reliability lifetime is counted in milliseconds and at
//     most about 24 days. With interleaving, PR-SCTP needs the peer to
//     list I-FORWARD-TSN (RFC 8260 section 2.3.1); Linux (6.1) does not,
//     so toward Linux with I-DATA only messages not yet sent are given up
//     (Linux's own I-FORWARD-TSNs are applied).
//   - A message the peer gives up without telling (Linux does so for a
//     message whose sent fragments were all acknowledged) ends with
//     RecvInfo.Aborted when a later TSN shows that its next fragment will
//     not come (DATA only); otherwise its first parts stay the last thing
//     read before the end of the association.
//   - Stream.Close only releases the handle (it does not reset the
//     stream: call ResetStreams).
//   - Streams are never removed (RFC 6525 only adds them). Every
//     reconfiguration request of a peer that negotiated RE-CONFIG is
//     performed when it can be; only the SSN/TSN Reset Request can be
//     refused ("Denied") by setting (Config.DenyAssocReset), not each
//     kind as with Linux's SCTP_ENABLE_STREAM_RESET.
//   - The scheduler's default is chosen per endpoint (Config.Scheduler);
//     Association.SetScheduler changes it on a live association, also
//     with messages queued (nothing is lost or reordered within a stream;
//     per-stream values go back to their defaults, as in Linux).
//     Per-stream values are set with SetStreamValue or
//     Stream.SetSchedulerValue.
//   - Every inbound stream has its own receive queue, but all of them
//     share the association's receive window (Config.RecvBuffer), as in
//     the kernel: data nobody reads on one stream still counts against the
//     window advertised for all, so a stream nobody reads stalls the
//     others once the window is full. Read every stream that can receive
//     data (with a Stream each, or ReadMsg for all).
//   - With interleaving (I-DATA), an ordered and an unordered message of
//     one stream delivered in parts at once may alternate parts: on a
//     stream that carries both, Stream.Read can return bytes of the two
//     messages mixed. Read such a stream with Stream.ReadMsg.
//   - No path MTU discovery: packets are sized for Config.MTU (1500).
//   - Only one SCTP port is accepted on per endpoint (the one given to
//     Listen); INITs to other ports are dropped.
package sctp
