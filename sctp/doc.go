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
// port Config.UDPPort, peer port Config.RemoteUDPPort (9899). As with
// TCP, UDPPort 0 means the default of the endpoint's role: 9899 (IANA's
// port) for a Listen, where peers send their INITs, and a port the system
// picks for Dial and NewEndpoint, so that a server and any number of
// clients run in one process or host with the defaults (the peer answers
// the port an association's packets come from, RFC 6951 section 5.4).
// Config.EphemeralUDPPort gives a Listen a port the system picks.
// The endpoints of a process bound to one UDP address and port share one
// socket, told apart by SCTP port, as the kernel serves every SCTP socket
// of a host: two Listens on different SCTP ports with the defaults both
// use 9899, and an SCTP port already served on the socket fails with an
// error matching syscall.EADDRINUSE. With Config.Transport = IP it is plain SCTP over
// a raw IP socket (protocol 132, needs CAP_NET_RAW). On an endpoint bound
// to the wildcard address, Association.LocalAddrs and the capture give
// the address the peer's packets arrive on. Config.PacketConn or Config.Conn carry the
// packets over a connection the program supplies (for example DTLS).
// Config.Pcap records every packet in a pcap file.
//
// # Partial reliability and stream reconfiguration
//
// SendInfo.PR (or Stream.SetPR for a stream's writes) makes a message
// partially reliable (PR-SCTP, RFC 3758 and RFC 7496): Lifetime,
// MaxRetransmits and Priority build the policies. A message with a
// Lifetime is given up when its lifetime ends (a deadline among the
// association's timers), also after it was sent when PR-SCTP was
// negotiated (Association.PartialReliability), and the send buffer space
// it held wakes writers blocked in WriteMsg at once. A message given up is
// reported whole in an EventSendFailed event; a reader that was reading
// it in parts gets RecvInfo.Aborted (Stream.Read: ErrMessageAborted, not
// a terminal error).
//
// Association.ResetStreams, AddStreams and ResetAssociation (RFC 6525)
// restart stream numbering, add streams and reset the whole association;
// each waits for the peer's answer and returns nil when it was performed,
// else an error matching ErrReconfigDenied, ErrReconfigFailed,
// ErrReconfigUnsupported or ErrAssocResetTooSoon. Both ends get an event
// (EventStreamReset, EventStreamsAdded, EventAssocReset) for their own
// requests and the peer's.
//
// # Events
//
// Events (association up and down, restart, peer address changes, send
// failures with the unsent message, partial deliveries aborted, shutdown
// complete, sender dry, stream resets and additions, association resets) arrive
// on Association.Events, a channel of Config.EventQueue (64) events. A
// program that keeps reading it receives every event, in order: events
// that find the channel full wait behind it and are handed over at the
// reader's pace. The last event (EventDown or EventShutdown) is never
// dropped, and an abort reports every message still queued in an
// EventSendFailed event before EventDown. Send failures waiting behind a
// full channel hold send buffer space, so a writer whose messages are
// given up (PR-SCTP) faster than the program reads its events waits for
// the reader: a program that calls Events must keep reading it until it
// is closed. Events before the first Events call wait for it (at most
// Config.EventQueue, the rest dropped); once the association ended, an
// event not taken within 2 seconds is dropped with those behind it. Every
// drop is counted in Stats.EventsDropped.
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
// SendInfo.NonBlocking it returns ErrWouldBlock instead. Every release of
// send buffer space (acknowledgement, a message given up, the end of the
// association) wakes it. Close and Abort unblock every call on the
// association, Stream.Close the Reads and Writes of its handle (with
// ErrClosed); Endpoint.Close unblocks every call on the endpoint.
//
// A Dial without a deadline waits as long as the handshake may take: the
// INIT (then the COOKIE ECHO) is sent again Config.MaxInitRetransmits
// times (8), the timeout starting at Config.RTOInitial (1 s) and doubling
// up to Config.InitRTOMax (60 s): 1+2+4+8+16+32+60+60+60 = 243 s (about 4
// minutes) when nothing ever answers. It fails at once when the peer
// refuses: a usctp or kernel endpoint answers an INIT to an SCTP port
// nobody listens on with an ABORT (RFC 9260 section 8.4), and the ICMP
// port or protocol unreachable the network sends back when nothing
// listens on the UDP encapsulation port (or the host has no SCTP) is
// handled like one (RFC 9260 appendix C, RFC 6951 section 5.5, only when
// it quotes the association's own verification tag; on an established
// association it ends the association too, as appendix C asks, unless the
// association is multi-homed and another of its paths is reachable: then
// only the refused path is marked failed, and data goes on elsewhere). Such an
// error matches ErrConnRefused and syscall.ECONNREFUSED. ICMP host or
// network unreachable only counts (Stats.NoticesIn): the handshake goes
// on until its retransmissions run out, and an established association
// is never ended by one.
//
// Errors work with errors.Is: an association that ended without a
// graceful shutdown returns an *AbortError matching ErrAborted and either
// ErrPeerAborted (the peer sent ABORT; AbortError.Cause has its first
// cause code, AbortError.Causes every cause and AbortError.UserReason the
// peer's Upper Layer Abort Reason) or ErrLocalAbort (Abort, a timeout — also
// ErrTimeout — or a protocol violation by the peer); a refused Dial also
// matches ErrConnRefused. After a graceful shutdown ReadMsg
// returns io.EOF once every message was read, and WriteMsg ErrClosed.
//
// # Concurrency
//
// Any number of goroutines may call the methods of an Endpoint, an
// Association and a Stream at once. Each endpoint's state is owned by one
// lock and driven by two goroutines of its own (a socket reader and an
// owner that runs the timers); user calls never wait for them, and
// sending and receiving a message allocates nothing in steady state.
// Config.BusyPoll trades some CPU for request/response latency.
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
//   - Path MTU discovery (RFC 8899, on by default) searches up to
//     Config.MTU, 1500 by default, not the interface's MTU: loopback
//     and jumbo-frame links need a larger Config.MTU (up to 65535).
//   - Only one SCTP port is accepted on per endpoint (the one given to
//     Listen); INITs to other ports are answered with an ABORT, so the
//     dialer fails at once. They are dropped instead on the raw IP
//     transport, where every raw socket sees every SCTP packet of the host
//     (another endpoint may own the port), and when sent to a fixed
//     Config.LocalPort that has no association yet (the peer's half of a
//     simultaneous open, as WebRTC peers both dial port 5000, that came
//     before our own INIT).
package sctp
