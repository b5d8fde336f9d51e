// Package netio moves whole SCTP packets between the association
// shell and the network. It knows nothing about associations.
//
// # The packet connection
//
// A Conn carries SCTP packets (common header first) in batches:
//
//	type Packet struct {
//		Buf  []byte         // caller-owned storage
//		N    int            // valid bytes in Buf
//		Addr netip.AddrPort // remote IP and, for UDP encapsulation, UDP port
//	}
//
//	ReadBatch(pkts []Packet) (int, error)  // blocks until at least one packet
//	WriteBatch(pkts []Packet) (int, error) // sends in order
//	SetReadDeadline(t time.Time) error     // clean shutdown of the reader
//	LocalAddr() netip.AddrPort
//	Overhead(remote netip.Addr) int        // IP (+UDP) header bytes below SCTP
//	Close() error
//
// The caller owns every buffer: the transport fills or sends Buf[:N] and
// keeps nothing after the call, so a reader that reuses one []Packet with
// its buffers allocates nothing per packet, and neither does a writer.
// The association's path MTU logic sizes SCTP packets as the path MTU
// minus Overhead(remote): 28 bytes for UDP over IPv4, 48 over IPv6, 20
// or 40 for raw IP.
//
// # Implementations
//
//   - UDPConn (ListenUDP): UDP encapsulation, RFC 6951, the default, on
//     port 9899 unless configured. On Linux it reads and writes with
//     recvmmsg/sendmmsg (up to 64 datagrams per system call) and, where
//     the kernel accepts UDP_SEGMENT (probed once per socket), sends runs
//     of equal-size packets to one peer as one GSO super-datagram: one
//     system call and one trip through the stack for up to 64 packets.
//     If the kernel refuses a GSO send (EIO: the device cannot checksum
//     segments; EMSGSIZE or EINVAL: a segment exceeds the route MTU), the
//     rest is resent one datagram per message; after EIO GSO stays off.
//     With UDPConfig.GRO the socket also sets UDP_GRO: the kernel hands
//     over runs of datagrams from one sender as one buffer, which the
//     transport splits into the caller's packets (one copy each). GSO
//     sends over loopback then arrive unsplit, which is the fastest path
//     by far. Elsewhere it falls back to one datagram per call.
//   - IPConn (ListenIP): raw IP, protocol 132, for plain SCTP on the
//     wire. It needs CAP_NET_RAW; without it ListenIP fails with an error
//     that matches os.ErrPermission and ErrNeedRaw.
//   - Adapter (NewAdapter, NewConnAdapter): any net.PacketConn or
//     connected net.Conn the user supplies, for example DTLS for WebRTC,
//     one packet per call.
//   - SharedConn (OpenSharedUDP, OpenSharedIP): an endpoint's view of a
//     UDP or raw IP socket that the endpoints of a process share, as the
//     kernel serves all SCTP sockets of a host from one stack; each view
//     reads the packets of the SCTP ports it claims (shared.go).
//   - DualIPConn (OpenDualIP): the shared raw IPv4 and raw IPv6 sockets of
//     a raw IP endpoint with addresses of both families, as one Conn.
//
// SourceChooser chooses the source address of each packet of an endpoint
// with several local addresses on one wildcard-bound socket, and refuses
// packets sent to addresses not the endpoint's (source.go).
//
// Package simconn (sctp/internal/simconn) provides another Conn: in-memory
// endpoints joined by the simnet link model for tests under
// testing/synctest.
//
// Capture wraps any Conn and records every packet read and written to a
// pcap file (PcapWriter), synthesizing IPv4/IPv6 and UDP headers so that
// Wireshark, tshark and sctpdump decode them.
//
// The batched socket engine calls recvmmsg and sendmmsg through
// golang.org/x/sys/unix rather than golang.org/x/net's ipv4/ipv6
// ReadBatch: that allocates a net.IP and a *net.UDPAddr for every
// datagram received (BenchmarkXNetRoundTrip: 64 allocations per batch of
// 32, against none here).
//
// # RFC 6951 rules applied here
//
//   - Section 5.3: the UDP checksum SHOULD be computed for IPv4 and IPv6:
//     the kernel computes it on every send and verifies it on receive.
//   - Section 5.4: the UDP source port of a packet is the port to answer
//     to; Packet.Addr carries it up. A datagram from source port 0 cannot
//     be answered and is dropped and counted (Stats.Dropped).
//   - Section 5.6: the path MTU of an encapsulated path is reduced by the
//     UDP header: Overhead includes it.
//   - Section 5.4 also gives the association's rules (store the peer's
//     port per destination address after the verification tag checks
//     out; stop encapsulating to an address that sent a plain SCTP
//     packet): they belong above this package.
//
// # Limitations
//
// ICMP errors (packet too big, unreachable) are not reported to the
// caller yet; PMTU discovery must probe (RFC 8899). By default datagrams
// go out with the kernel's IP_MTU_DISCOVER default (DF set, local
// fragmentation above the route MTU); with DontFragment (UDPConfig,
// IPConfig) they are never fragmented and a packet over the interface
// MTU fails alone with ErrPacketTooBig, which is what probing wants. Raw
// IP sockets are IPv4 or IPv6, not both.
package netio
