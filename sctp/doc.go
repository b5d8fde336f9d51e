// Package sctp is a userspace implementation of the Stream Control
// Transmission Protocol (RFC 9260) and its extensions: multi-homing,
// partial reliability, stream reconfiguration, stream schedulers and
// I-DATA interleaving, AUTH and ASCONF, path MTU discovery and ECN.
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
// accepted or dialed (Endpoint.Dial). Messages keep their boundaries:
// WriteMsg sends one message, ReadMsg returns one message, or one part of
// a message larger than the buffer with RecvInfo.EOR false until the last
// part; data is never truncated. Association.Stream(sid) is one stream as
// an io.ReadWriteCloser with its own receive queue: a Stream's Read gets
// its stream's data whatever the other streams hold, while ReadMsg takes
// every stream's messages in the order they became deliverable, so one
// goroutine per stream and one goroutine for all both work, and mix.
// Association.Events delivers the association's events (up, down, path
// changes, send failures, stream resets, ...); Paths and SetPrimary
// inspect and steer a multi-homed association.
//
// Packets travel in UDP (RFC 6951) by default: a Listen binds UDP port
// 9899, a Dial a port the system picks, and the peer answers the port an
// association's packets come from, so a server and any number of clients
// run in one process or host with the default Config. The endpoints of a
// process bound to one UDP address and port share its socket, told apart
// by SCTP port; on Linux, processes that may load BPF programs share the
// address and port with each other the same way (Config.ExclusiveUDPPort).
// A dial address "HOST:PORT/udp:N" names the peer's UDP port for that
// association. Config.Transport = IP sends plain SCTP over a raw socket
// (CAP_NET_RAW); Config.PacketConn or Config.Conn carry the packets over a
// connection the program supplies (for example DTLS). Config.Pcap records
// every packet. With Config.AbortOnExit a watchdog process aborts the
// associations when the process ends, however it ends (Linux). The
// repository's docs/ directory has a guide per feature.
//
// # Cancellation
//
// Every call that can block can be stopped. Dial, Shutdown,
// Endpoint.AcceptContext and the reconfiguration and address calls take a
// context. ReadMsg and WriteMsg (and the Read and Write of a Stream) obey
// deadlines set with SetDeadline, SetReadDeadline and SetWriteDeadline as
// net.Conn does: a passed deadline returns an error that is
// os.ErrDeadlineExceeded. WriteMsg blocks while the send buffer or the
// data waiting to be sent is at its bound (Buffers.SendBuffer,
// UnsentLimit, StreamUnsentLimit, Limits.SendBudget); with
// SendInfo.NonBlocking it returns ErrWouldBlock instead. Close and Abort
// unblock every call on the association, Stream.Close the calls of its
// handle (with ErrClosed), Endpoint.Close every call on the endpoint.
//
// A Dial without a deadline waits as long as the handshake may take: the
// INIT is sent again Timers.MaxInitRetransmits times (8), the timeout
// doubling from Timers.RTOInitial (1 s) up to Timers.InitRTOMax (60 s),
// 243 s in all when nothing answers. It fails at once when the peer
// refuses (an ABORT, or an ICMP port or protocol unreachable quoting the
// association's tag), with an error matching ErrConnRefused and
// syscall.ECONNREFUSED. It fails at once too when this host has no route
// to any of the peer's addresses, as a kernel's connect does, and at the
// third INIT the network answers with ICMP host or network unreachable,
// with an error matching the errno (syscall.ENETUNREACH, EHOSTUNREACH,
// EACCES).
//
// Errors work with errors.Is: an association that ended without a
// graceful shutdown returns an *AbortError matching ErrAborted and either
// ErrPeerAborted (AbortError.Causes has the peer's error causes) or
// ErrLocalAbort (Abort, a timeout, which also matches ErrTimeout, or a
// protocol violation by the peer). Reads and writes follow net.Conn's
// rule: after a local Close they fail with ErrClosed (net.ErrClosed),
// also those blocked at the time; after a graceful shutdown that Close
// did not start (the peer's, or Shutdown) ReadMsg returns io.EOF once
// every message was read, and WriteMsg fails with ErrShutdown as soon as
// the shutdown began. Reads end with io.EOF also when the association
// fails after the peer's SHUTDOWN came (say, a lost SHUTDOWN COMPLETE):
// the peer sends it only once all it sent was acknowledged, so nothing
// is missing; Err and EventDown report the failure. The errors of Dial and Listen are *net.OpError
// values, as package net's ("dial sctp 192.0.2.1:5000: association
// aborted locally (init timeout)"), wrapping the cause; a malformed
// address is a *net.AddrError.
//
// # Concurrency
//
// Any number of goroutines may call the methods of an Endpoint, an
// Association and a Stream at once. A call does not hand its work to
// the endpoint's own goroutines and wait for them: a write to an idle
// association is sent by the writing goroutine, and a ReadMsg caller may
// read the socket itself.
// No call waits for the reader of Events: events that find the channel
// full wait behind it within bounds, past which they are dropped and
// counted (see Association.Events). Sending and receiving a
// message allocates nothing in steady state. Config.BusyPoll trades some
// CPU for request/response latency.
//
// # Limitations
//
//   - All streams share the association's receive window
//     (Config.Buffers.RecvBuffer), as in the kernel: data nobody reads on one
//     stream counts against the window advertised for all, so a stream
//     nobody reads stalls the others once the window is full. Read every
//     stream that can receive data.
//   - PR-SCTP: the priority policy only gives up messages not yet sent; a
//     lifetime is counted in milliseconds, at most about 24 days. With
//     interleaving, giving up sent messages needs the peer to list
//     I-FORWARD-TSN (RFC 8260 section 2.3.1); Linux 6.1 does not, so
//     toward it with I-DATA only messages not yet sent are given up.
//   - A message the peer gives up without telling (Linux does so for a
//     message whose sent fragments were all acknowledged) ends with
//     RecvInfo.Aborted when a later TSN shows that its next fragment will
//     not come (DATA only); otherwise its first parts stay the last thing
//     read of its stream.
//   - With interleaving, an ordered and an unordered message of one stream
//     delivered in parts at once may alternate parts: read a stream that
//     carries both with Stream.ReadMsg, not Stream.Read.
//   - Stream.Close only releases the handle; Stream.Reset or ResetStreams
//     resets the stream. Streams are never removed (RFC 6525 only adds
//     them). Every reconfiguration request of a peer that negotiated
//     RE-CONFIG is performed when it can be; only the SSN/TSN Reset
//     Request can be refused (Config.Extensions.DenyAssocReset).
//   - An endpoint accepts associations on one SCTP port, the one given to
//     Listen; INITs to other ports are answered with an ABORT (dropped on
//     the raw IP transport, where every raw socket sees every SCTP packet
//     of the host).
//   - NR-SACK is not negotiated.
//   - usctp is developed and tested on Linux. Elsewhere it builds, and its
//     sockets read and write one packet per system call (no recvmmsg,
//     sendmmsg, GSO or GRO) without busy polling; ListenShards and the
//     multi-homed choice of source addresses need Linux.
package sctp
