// Package sctp is the API of github.com/ishidawataru/sctp over usctp, a
// userspace SCTP stack: a program written against that package switches
// by changing its import path to github.com/usctp/usctp/sctp/compat, and
// then runs where the kernel has no SCTP (containers on hosts without the
// module, gVisor, managed Kubernetes nodes, macOS, Windows).
//
// The names, types, constants and semantics are the original's:
// ResolveSCTPAddr and SCTPAddr (several addresses, "10.0.0.1/10.0.0.2:38412"),
// ListenSCTP, ListenSCTPExt, DialSCTP, DialSCTPExt, SocketConfig with
// InitMsg and NotificationHandler, SCTPListener, SCTPConn (Read, Write,
// SCTPRead and SCTPWrite with SndRcvInfo, SubscribeEvents, default send
// parameters, GetStatus, addresses, Close), NewSCTPSndRcvInfoWrappedConn
// and the SCTP_* constants. Notifications are delivered as the kernel
// delivers them: in the layout of <linux/sctp.h> (struct sctp_assoc_change,
// sctp_shutdown_event, sctp_send_failed, ...; host byte order), to the
// NotificationHandler, or returned by SCTPRead as data with a nil
// SndRcvInfo when there is none; only the kinds subscribed to, and only
// after the subscription.
//
// # One stack per process
//
// As the kernel serves every socket of a host, one usctp stack serves
// every listener and connection of the process: the listeners share one
// UDP socket, told apart by SCTP port, so that many listeners on
// different ports, port 0 (an ephemeral SCTP port), and dialers all work
// side by side. Dialed connections send from a UDP port the system picks;
// the peer answers it (RFC 6951 section 5.4).
//
// # Transport
//
// DefaultTransport selects how packets travel, from the environment
// variable USCTP_TRANSPORT or set by the program before it listens or
// dials:
//   - "udp" (TransportUDP, the default): SCTP in UDP (RFC 6951) on UDPPort
//     (9899, or USCTP_UDP_PORT). It needs no privilege, works on every
//     system, and never competes with a kernel SCTP stack for packets.
//     Peers are usctp, or a Linux kernel with net.sctp.udp_port (to
//     receive) and net.sctp.encap_port or SCTP_REMOTE_UDP_ENCAPS_PORT (to
//     send) set.
//   - "ip" (TransportIP): plain SCTP over raw IP, as kernels and hardware
//     peers speak it on the wire. Linux only, with CAP_NET_RAW; where the
//     kernel has SCTP loaded it answers these packets too.
//   - "auto" (TransportAuto): raw IP when the process may open raw
//     sockets, else UDP; when neither works the error gives both reasons.
//
// # Differences from the original
//
// There is no kernel socket, so what is fd-level by nature has no
// meaning here; these return an error matching ErrUnsupported (and
// errors.ErrUnsupported):
//   - SCTPConn.Getsockopt and Setsockopt (raw socket options), SyscallConn,
//     PeelOff; SCTPListener.SyscallConn; FileListener; SCTPConnect.
//   - SCTPBind (ErrUnsupported for SCTP_BINDX_ADD_ADDR and
//     SCTP_BINDX_REM_ADDR, EINVAL for other flags): give the addresses in
//     ListenSCTP's SCTPAddr.
//   - NewSCTPConn(fd, handler) returns a conn whose calls fail so.
//   - SocketConfig.Control is called, with a syscall.RawConn whose methods
//     return ErrUnsupported.
//   - SetReadBuffer and SetWriteBuffer: an association's buffers are
//     fixed when it is made (1 MiB each way, which GetReadBuffer and
//     GetWriteBuffer report). SetSackTimer: the delayed SACK is 200 ms,
//     every second packet (GetSackTimer).
//
// Other differences:
//   - SetDeadline, SetReadDeadline and SetWriteDeadline work (net.Conn's
//     meaning, os.ErrDeadlineExceeded); the original returns EOPNOTSUPP.
//   - The COMM_UP notification of the handshake is not delivered: the
//     original has no way to subscribe before DialSCTP or Accept returns,
//     so the kernel's is never read either. SCTP_ASSOC_CHANGE reports
//     COMM_LOST, RESTART and SHUTDOWN_COMP; SCTP_SHUTDOWN_EVENT when the
//     peer shuts down; SCTP_PEER_ADDR_CHANGE, SCTP_SEND_FAILED (with the
//     unsent message), SCTP_REMOTE_ERROR, SCTP_PARTIAL_DELIVERY_EVENT and
//     SCTP_SENDER_DRY_EVENT as the kernel's. Authentication and
//     adaptation layer notifications are never generated.
//   - Status.RWND is 0 (the peer's window is not reported) and Penddata
//     counts bytes received and not yet read; the other fields are the
//     kernel's. Association ids are numbered from 1 in the process.
//   - SCTPListener.Addr returns the addresses given to Listen (the
//     wildcard when none were), not every address of the host.
//   - Accepted conns stay open when their listener closes, as accepted
//     kernel sockets do; new associations are then refused.
//   - Several local addresses in ListenSCTP's SCTPAddr make a
//     multi-homed listener (package sctp's ListenAddrs): one socket on the
//     wildcard address of their family, the addresses listed in the INIT
//     ACK, packets to the host's other addresses dropped. That socket
//     cannot share the UDP encapsulation port with a listener of the same
//     process bound to one of those addresses (the second Listen fails
//     with EADDRINUSE). DialSCTP tries raddr's addresses in turn, as
//     sctp_connectx does (package sctp's DialAddrs); several local
//     addresses make the connection's endpoint multi-homed, one binds it
//     to that address. The peer's other addresses, named or from its INIT
//     ACK, are used as alternate paths (package sctp's
//     Config.Multihoming) only when the program named several addresses,
//     local or remote: a peer may list addresses that are not reachable
//     from here (a guest's private address), which would only cost
//     HEARTBEATs (an ICMP refusal for one of them counts against that
//     path, never ends the association).
//   - MaxInitTimeout bounds the INIT retransmission timeout in
//     milliseconds, MaxAttempts the INIT retransmissions (package sctp's
//     Config.InitRTOMax and MaxInitRetransmits).
//   - Close shuts the association down gracefully and waits for it, at
//     most 5 s (the kernel finishes in the background); the
//     SCTPSndRcvInfoWrappedConn and everything else behave as the
//     original's.
package sctp
