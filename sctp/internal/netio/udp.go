package netio

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"syscall"
	"time"
)

// UDPConfig configures ListenUDP.
type UDPConfig struct {
	// Addr is the local address and UDP port. The zero value listens on
	// all IPv4 and IPv6 addresses (dual-stack) on DefaultUDPPort; an
	// unspecified IPv6 address is dual-stack, an IPv4 one IPv4 only. Port
	// 0 of a valid Addr picks an ephemeral port.
	Addr netip.AddrPort
	// RemotePort is the peer's encapsulation port used for a Packet.Addr
	// whose port is 0; zero means DefaultUDPPort. Per RFC 6951 section
	// 5.4 the association then learns each peer address's port from the
	// source port of the packets it accepts and sends with that.
	RemotePort uint16
	// NoGSO disables UDP generic segmentation offload on send.
	NoGSO bool
	// GRO asks the kernel to coalesce received datagrams (UDP_GRO, Linux
	// 5.0+): fewer trips through the stack, at the price of 512 KiB of
	// receive buffers per socket and one copy per packet. Loopback
	// senders using GSO then reach the socket unsplit.
	GRO bool
	// DontFragment sends with DF set and no local fragmentation, ignoring
	// the kernel's cached path MTU (IP_PMTUDISC_PROBE), as the SCTP path
	// MTU discovery wants: a packet over the interface MTU fails with
	// ErrPacketTooBig. Linux only, with the batched engine.
	DontFragment bool
	// NoBatch disables recvmmsg/sendmmsg: one datagram per system call
	// (for comparison and for kernels without them).
	NoBatch bool
	// Notices asks for the errors the network reports about sent
	// datagrams (IP_RECVERR / IPV6_RECVERR): ICMP port unreachable when
	// nothing listens on the peer's port, unreachable hosts and networks,
	// packet too big. ReadBatch then returns them as entries whose
	// Packet.Notice is set. Linux only, with the batched engine;
	// elsewhere the option is ignored.
	Notices bool
	// SocketBuffer is the requested SO_RCVBUF and SO_SNDBUF size; zero
	// means 4 MiB. The kernel caps it at net.core.rmem_max / wmem_max.
	SocketBuffer int
	// BusyPoll is how long a read that finds the socket empty polls it
	// before it sleeps, when the previous wait for data was that short
	// (adaptive busy polling, see busyPoll); zero or negative: never.
	// Linux only, with the batched engine, and only when GOMAXPROCS is
	// at least 2 when the socket opens.
	BusyPoll time.Duration
	// ReusePort sets SO_REUSEPORT (Linux): several sockets bind one
	// address and port, and the kernel hands each datagram to one of
	// them by a hash of its source and destination addresses and ports,
	// so one peer's datagrams always reach the same socket while the set
	// of sockets stays the same (endpoint shards, sctp.ListenShards).
	ReusePort bool
	// Exclusive keeps a socket OpenSharedUDP opens out of the host group
	// of its address and port: the process binds them alone, and other
	// processes cannot bind them while it holds them.
	Exclusive bool
}

// batcher is the batched I/O engine behind a UDPConn or IPConn.
type batcher interface {
	readBatch(pkts []Packet) (int, error)
	writeBatch(pkts []Packet) (int, error)
	gsoEnabled() bool
	groEnabled() bool
	gathers() bool // writeBatch sends Packet.Holes
	stats() Stats
	// interruptPoll ends a busy poll in progress, for a new read
	// deadline or Close.
	interruptPoll()
}

// Stats counts events of a batched socket.
type Stats struct {
	Dropped      uint64 // received datagrams dropped: truncated, source port 0, bad header
	GSOSends     uint64 // messages sent with UDP_SEGMENT
	GSOFailure   uint64 // GSO sends the kernel refused and that were resent without it
	GROCoalesced uint64 // received buffers that held more than one datagram
	Notices      uint64 // network errors delivered as notices (Notices option)
	BusyPolls    uint64 // reads that busy-polled an empty socket
	BusyPollHits uint64 // busy polls that found data before their budget ran out

	// System calls and what they moved: RecvCalls recvmmsg calls that
	// returned data, RecvMessages the datagrams (or GRO buffers) they
	// returned; SendCalls sendmmsg calls, SendMessages the datagrams (or
	// GSO sends) they took, SendPackets the SCTP packets in those.
	RecvCalls, RecvMessages              uint64
	SendCalls, SendMessages, SendPackets uint64
}

// UDPConn is the UDP encapsulation transport (RFC 6951): every SCTP
// packet is the payload of one UDP datagram. The kernel computes the UDP
// checksum for IPv4 and IPv6 (section 5.3: it SHOULD be computed) and
// drops datagrams whose checksum is wrong.
type UDPConn struct {
	c          sockConn
	local      netip.AddrPort
	remotePort uint16 // for a Packet.Addr with port 0
	b          batcher
	ect        bool // EnableECN set ECT(0) on the socket (ecn.go)
}

var _ Conn = (*UDPConn)(nil)

// ListenUDP opens a UDP encapsulation socket.
func ListenUDP(cfg UDPConfig) (*UDPConn, error) {
	addr := cfg.Addr
	if !addr.IsValid() {
		addr = netip.AddrPortFrom(netip.IPv6Unspecified(), DefaultUDPPort)
	}
	network := "udp6"
	switch {
	case addr.Addr().Is4() || addr.Addr().Is4In6():
		network = "udp4"
		addr = netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port())
	case addr.Addr().IsUnspecified():
		network = "udp" // dual-stack [::]
	}
	var (
		c   *net.UDPConn
		err error
	)
	if cfg.ReusePort {
		lc := net.ListenConfig{Control: reusePortControl}
		var pc net.PacketConn
		if pc, err = lc.ListenPacket(context.Background(), network, addr.String()); err == nil {
			c = pc.(*net.UDPConn)
		}
	} else {
		c, err = net.ListenUDP(network, net.UDPAddrFromAddrPort(addr))
	}
	if err != nil {
		return nil, fmt.Errorf("socket on %v: %w", addr, err)
	}
	buf := cfg.SocketBuffer
	if buf == 0 {
		buf = 4 << 20
	}
	setBuffers(c, buf)
	port := cfg.RemotePort
	if port == 0 {
		port = DefaultUDPPort
	}
	u := &UDPConn{c: c, local: netAddrPort(c.LocalAddr()), remotePort: port}
	if cfg.NoBatch {
		u.b = single{NewAdapter(c, AdapterConfig{RemotePort: port})}
	} else if u.b, u.c, err = newUDPBatcher(c, port, !cfg.NoGSO, cfg.GRO, cfg.DontFragment, cfg.Notices,
		addr.Addr().IsUnspecified(), pollBudget(cfg.BusyPoll)); err != nil {
		c.Close()
		return nil, err
	}
	return u, nil
}

// ReadBatch implements Conn.
func (u *UDPConn) ReadBatch(pkts []Packet) (int, error) { return u.b.readBatch(pkts) }

// ReadBatchView is ReadBatch without a copy where the socket has its own
// receive buffers (GRO): the Buf of each packet returned is then replaced
// by a view of those buffers, valid until the next ReadBatch or
// ReadBatchView call, or while a reference to its Lend buffer is held
// (Packet.Lend): a caller that keeps one (interleave.Pool.Lend) keeps the
// bytes, and the socket reads into a fresh buffer instead. Callers keep their own buffers elsewhere and put
// them back into pkts before each call, as a socket without GRO fills
// them as ReadBatch does.
func (u *UDPConn) ReadBatchView(pkts []Packet) (int, error) {
	if v, ok := u.b.(interface{ readBatchView([]Packet) (int, error) }); ok {
		return v.readBatchView(pkts)
	}
	return u.b.readBatch(pkts)
}

// WriteBatch implements Conn. Consecutive packets to one destination
// whose sizes are equal (the last may be shorter) go out as one GSO send
// where the kernel supports UDP_SEGMENT.
func (u *UDPConn) WriteBatch(pkts []Packet) (int, error) { return u.b.writeBatch(pkts) }

// WriteFragmentable is WriteBatch with IP fragmentation allowed (see
// FragmentWriter).
func (u *UDPConn) WriteFragmentable(pkts []Packet) (int, error) { return writeFragmentable(u.b, pkts) }

// writeFragmentable sends pkts through b with IP fragmentation allowed
// where the platform's batcher supports it.
func writeFragmentable(b batcher, pkts []Packet) (int, error) {
	if f, ok := b.(interface {
		writeFragmentable([]Packet) (int, error)
	}); ok {
		return f.writeFragmentable(pkts)
	}
	return b.writeBatch(pkts)
}

// SetReadDeadline implements Conn.
func (u *UDPConn) SetReadDeadline(t time.Time) error {
	err := u.c.SetReadDeadline(t)
	u.b.interruptPoll()
	return err
}

// LocalAddr implements Conn: the local IP address and UDP port.
func (u *UDPConn) LocalAddr() netip.AddrPort { return u.local }

// Overhead implements Conn: IP header plus 8 bytes of UDP header.
func (u *UDPConn) Overhead(remote netip.Addr) int { return ipHeaderLen(remote) + UDPHeaderLen }

// Close implements Conn.
func (u *UDPConn) Close() error {
	u.b.interruptPoll()
	return u.c.Close()
}

// setReusePort sets or clears SO_REUSEPORT on the socket (Linux).
func (u *UDPConn) setReusePort(on bool) error {
	rc, err := u.c.SyscallConn()
	if err != nil {
		return err
	}
	return setReusePort(rc, on)
}

// Gathers implements Gatherer: the batched socket sends packets with
// holes by gather I/O (Linux).
func (u *UDPConn) Gathers() bool { return u.b.gathers() }

// GSO reports whether sends use UDP generic segmentation offload.
func (u *UDPConn) GSO() bool { return u.b.gsoEnabled() }

// GRO reports whether receives use UDP generic receive offload.
func (u *UDPConn) GRO() bool { return u.b.groEnabled() }

// Stats returns the socket's counters.
func (u *UDPConn) Stats() Stats { return u.b.stats() }

// pollBudget is the busy-poll budget of a new socket: none on one P,
// where polling would keep the goroutine that sends the awaited packet
// from running.
func pollBudget(d time.Duration) time.Duration {
	if d <= 0 || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	return d
}

// single is the one-datagram-per-call batcher.
type single struct{ a *Adapter }

func (s single) readBatch(pkts []Packet) (int, error)  { return s.a.ReadBatch(pkts) }
func (s single) writeBatch(pkts []Packet) (int, error) { return s.a.WriteBatch(pkts) }
func (s single) gsoEnabled() bool                      { return false }
func (s single) gathers() bool                         { return false }
func (s single) groEnabled() bool                      { return false }
func (s single) stats() Stats                          { return Stats{} }
func (s single) interruptPoll()                        {}

// sockConn is the socket behind a UDPConn or an IPConn: the package net
// connection, or on Linux with batched I/O a quietSocket.
type sockConn interface {
	SyscallConn() (syscall.RawConn, error)
	SetReadDeadline(time.Time) error
	Close() error
}

// bufferedConn is a socket whose buffers setBuffers sizes.
type bufferedConn interface {
	SetReadBuffer(int) error
	SetWriteBuffer(int) error
	SyscallConn() (syscall.RawConn, error)
}

// setBuffers asks for size bytes of socket buffer each way, beyond the
// sysctl limits where the process may (best effort).
func setBuffers(c bufferedConn, size int) {
	if rc, err := c.SyscallConn(); err == nil && forceBuffers(rc, size) {
		return
	}
	_ = c.SetReadBuffer(size)
	_ = c.SetWriteBuffer(size)
}
