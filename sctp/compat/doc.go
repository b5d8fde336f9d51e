// Package sctp is the API of github.com/ishidawataru/sctp over usctp, a
// userspace SCTP stack: a program written against that package switches by
// changing its import path to github.com/usctp/usctp/sctp/compat, and then
// runs where the kernel has no SCTP (containers, gVisor, managed
// Kubernetes nodes, macOS, Windows). The module in the directory
// ishidawataru is this package under the original's module path: a
// replace directive naming it runs the program unchanged.
//
// The names, types, constants and semantics are the original's: addresses
// (SCTPAddr, several per endpoint), listeners and conns, SocketConfig with
// InitMsg and NotificationHandler, SCTPRead and SCTPWrite with SndRcvInfo,
// SubscribeEvents, GetStatus, NewSCTPSndRcvInfoWrappedConn and the SCTP_*
// constants. Notifications come in the layout of <linux/sctp.h> (host byte
// order), to the NotificationHandler or from SCTPRead with a nil
// SndRcvInfo, only for the kinds subscribed to.
//
// # One stack per process
//
// As the kernel serves every socket of a host, one usctp stack serves every
// listener and connection of the process: listeners share one UDP socket,
// told apart by SCTP port. Dialed connections send from a UDP port the
// system picks; the peer answers it (RFC 6951 section 5.4).
//
// # When the program ends
//
// As the kernel closes a dead process's sockets, a program's associations
// are aborted when it ends, however it ends (os.Exit from its signal
// handler, SIGKILL, a crash): each peer gets an ABORT ("process exited")
// within milliseconds, not after its heartbeats go unanswered. A watchdog
// process, the program's binary started again, sends them (Linux only;
// Config.AbortOnExit of github.com/usctp/usctp/sctp, which this package
// sets).
//
// # Transport
//
// DefaultTransport selects how packets travel, from the environment
// variable USCTP_TRANSPORT or set by the program before it listens or
// dials:
//   - "udp" (TransportUDP, the default): SCTP in UDP (RFC 6951) on UDPPort
//     (9899, or USCTP_UDP_PORT). It needs no privilege and never competes
//     with a kernel SCTP stack. Peers are usctp, or Linux with
//     net.sctp.udp_port and net.sctp.encap_port (or
//     SCTP_REMOTE_UDP_ENCAPS_PORT) set.
//   - "ip" (TransportIP): plain SCTP over raw IP. Linux only, with
//     CAP_NET_RAW; a kernel with SCTP loaded answers these packets too.
//   - "auto" (TransportAuto): raw IP when the process may open raw
//     sockets, else UDP; when neither works the error gives both reasons.
//
// # Beyond the original
//
// What the original leaves to raw socket options has methods here, with
// the kernel's semantics and errno values: SCTPSetPrimaryPeerAddr and
// SCTPGetPrimaryPeerAddr (SCTP_PRIMARY_ADDR; unlike the kernel, an
// unconfirmed address is refused with EADDRNOTAVAIL), GetPeerAddrInfo
// (SCTP_GET_PEER_ADDR_INFO), Get/SetPeerAddrParams (SCTP_PEER_ADDR_PARAMS:
// heartbeat interval and switch, Path.Max.Retrans; the other fields fail
// with errors.ErrUnsupported) and Get/SetPeerAddrThlds
// (SCTP_PEER_ADDR_THLDS, RFC 7829).
//
// # Differences from the original
//
// There is no kernel socket, so fd-level calls return an error matching
// ErrUnsupported (and errors.ErrUnsupported): Getsockopt, Setsockopt,
// SyscallConn, PeelOff, FileListener, SCTPConnect, SCTPBind with
// SCTP_BINDX_ADD_ADDR or SCTP_BINDX_REM_ADDR (EINVAL for other flags; give
// the addresses to ListenSCTP instead), and every call on a conn from
// NewSCTPConn.
// SocketConfig.Control gets a syscall.RawConn whose methods fail so.
// Buffers are fixed per association (1 MiB each way; SetReadBuffer and
// SetWriteBuffer fail) and the delayed SACK is 200 ms or every second
// packet (SetSackTimer fails).
//
// Other differences:
//   - Deadlines work (net.Conn's meaning, os.ErrDeadlineExceeded).
//   - The handshake's COMM_UP notification is not delivered (the original
//     cannot subscribe before DialSCTP or Accept returns either);
//     authentication and adaptation layer notifications are never
//     generated. The others are the kernel's.
//   - Status.RWND is 0 and Penddata counts bytes received and not yet
//     read. Association ids are numbered from 1 in the process.
//   - SCTPListener.Addr returns the addresses given to Listen (the
//     wildcard when none were).
//   - Accepted conns stay open when their listener closes, as accepted
//     kernel sockets do; new associations are then refused.
//   - Several local addresses make a multi-homed endpoint on the wildcard
//     address of their family; it shares the UDP port with the listeners
//     of the same process bound to one of them, as the kernel's most
//     specific match does. DialSCTP tries raddr's addresses in turn, as sctp_connectx does. The
//     peer's other addresses are used as alternate paths only when the
//     program named several addresses: a peer may list unreachable ones.
//   - MaxInitTimeout bounds the INIT retransmission timeout in
//     milliseconds, MaxAttempts the INIT retransmissions.
//   - Close shuts the association down gracefully and waits for it, at
//     most 5 s (the kernel finishes in the background, after the process
//     exited; a userspace stack cannot outlive its process).
package sctp
