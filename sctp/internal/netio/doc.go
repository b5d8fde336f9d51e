// Package netio moves whole SCTP packets between the association shell and
// the network. It knows nothing about associations.
//
// # The packet connection
//
// A Conn carries SCTP packets (common header first) in batches of Packet.
// The caller owns every buffer: the transport fills or sends Buf[:N] and
// keeps nothing after the call, so a reader or writer that reuses one
// []Packet allocates nothing per packet. The caller sizes SCTP packets as
// the path MTU minus Overhead(remote).
//
// # Implementations
//
//   - UDPConn (ListenUDP): UDP encapsulation, RFC 6951, the default. On
//     Linux it reads and writes with recvmmsg/sendmmsg and sends runs of
//     equal-size packets to one peer as one GSO super-datagram
//     (UDP_SEGMENT, probed per socket, resent without it if the kernel
//     refuses); with UDPConfig.GRO it receives coalesced datagrams and
//     splits them. On Linux its socket is kept out of Go's netpoller, which
//     would wake a thread for every datagram and every send completion
//     whether or not anyone waits: epoll instances of its own watch it,
//     armed only while a goroutine waits (quietSocket). Elsewhere it sends
//     one datagram per call.
//   - IPConn (ListenIP): raw IP, protocol 132, for plain SCTP on the wire.
//     It needs CAP_NET_RAW; without it ListenIP fails with an error that
//     matches os.ErrPermission and ErrNeedRaw. A raw socket is IPv4 or
//     IPv6, not both. On Linux it is kept out of the netpoller as
//     UDPConn's socket is.
//   - Adapter (NewAdapter, NewConnAdapter): any net.PacketConn or connected
//     net.Conn the user supplies (for example DTLS for WebRTC), one packet
//     per call; a net.Conn is read ahead by a goroutine of its own, so a
//     ReadBatch returns every packet that arrived since the last.
//   - SharedConn (OpenSharedUDP, OpenSharedIP): an endpoint's view of a
//     UDP or raw IP socket that the endpoints of a process share, as the
//     kernel serves all SCTP sockets of a host from one stack; each view
//     reads the packets of the SCTP ports it claims. On Linux a process
//     that may load BPF programs shares the UDP socket's address and port
//     with other such processes (a host group, portgroup.go): an
//     SK_REUSEPORT program steers each datagram to the process serving its
//     SCTP port.
//   - DualIPConn (OpenDualIP): the raw IPv4 and raw IPv6 sockets of a raw
//     IP endpoint with addresses of both families, as one Conn.
//
// SourceChooser chooses the source address of each packet of an endpoint
// with several local addresses on one wildcard-bound socket, and refuses
// packets sent to addresses not the endpoint's.
//
// DupSocket and SendOnSocket (Linux) hand the socket behind a Conn to
// another process, which sends from its address and port once this one
// is gone (package sctp's exit watchdog).
//
// Package simconn provides an in-memory Conn for tests under
// testing/synctest. Capture wraps any Conn and records every packet to a
// pcap file with synthesized IP and UDP headers.
//
// The batched engine calls recvmmsg and sendmmsg through golang.org/x/sys
// rather than golang.org/x/net's ReadBatch, which allocates an address per
// datagram received.
//
// With DontFragment (UDPConfig, IPConfig; Linux) packets are never
// fragmented and one over the interface MTU fails alone with
// ErrPacketTooBig, as path MTU probing wants; otherwise IPv4 packets go
// without DF and the kernel fragments them only over the interface MTU,
// whatever path MTU an ICMP error (possibly forged) left in its route
// cache (IP_PMTUDISC_OMIT), and IPv6 keeps the kernel's default (never
// under 1280 bytes). With Notices (Linux) the ICMP errors and local MTU
// refusals the kernel matches to the socket come out of ReadBatch as
// packets whose Notice is set.
//
// # RFC 6951 rules applied here
//
//   - Section 5.3: the kernel computes the UDP checksum on every send and
//     verifies it on receive.
//   - Section 5.4: the UDP source port of a packet is the port to answer
//     to; Packet.Addr carries it up. A datagram from source port 0 cannot
//     be answered and is dropped and counted (Stats.Dropped). The
//     association's rules of that section (the peer's port per destination
//     address) belong above this package.
//   - Section 5.6: Overhead includes the UDP header.
package netio
