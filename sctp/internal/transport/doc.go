// Package transport moves whole SCTP packets between the association
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
//     segments), the rest is resent without GSO and GSO stays off.
//     Elsewhere it falls back to one datagram per call.
//   - IPConn (ListenIP): raw IP, protocol 132, for plain SCTP on the
//     wire. It needs CAP_NET_RAW; without it ListenIP fails with an error
//     that matches os.ErrPermission and ErrNeedRaw.
//   - Adapter (NewAdapter, NewConnAdapter): any net.PacketConn or
//     connected net.Conn the user supplies, for example DTLS for WebRTC,
//     one packet per call.
//
// Capture wraps any Conn and records every packet read and written to a
// pcap file (PcapWriter), synthesizing IPv4/IPv6 and UDP headers so that
// Wireshark, tshark and sctpdump decode them.
//
// The batched socket engine calls recvmmsg and sendmmsg through
// golang.org/x/sys/unix rather than golang.org/x/net's ipv4/ipv6
// ReadBatch: those allocate a net.IP and a *net.UDPAddr for every
// datagram received, and cannot carry UDP_SEGMENT per message.
package transport
