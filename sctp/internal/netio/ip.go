package netio

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"
)

// ProtocolSCTP is the IP protocol number of SCTP.
const ProtocolSCTP = 132

// IPConfig configures ListenIP.
type IPConfig struct {
	// Addr is the local address; the zero value means all IPv4
	// addresses. A raw socket is IPv4 or IPv6, never both: an endpoint
	// that wants both opens two.
	Addr netip.Addr
	// DontFragment sends with DF set and no local fragmentation: a packet
	// over the interface MTU fails with ErrPacketTooBig (Linux only;
	// with the batched engine).
	DontFragment bool
	// NoBatch disables recvmmsg/sendmmsg: one packet per system call.
	NoBatch bool
	// Notices is as UDPConfig.Notices: ICMP errors about sent packets
	// (protocol unreachable when the peer host has no SCTP, host and
	// network unreachable, fragmentation needed) come out of ReadBatch.
	Notices bool
	// SocketBuffer is the requested SO_RCVBUF and SO_SNDBUF; zero means
	// 4 MiB.
	SocketBuffer int
	// BusyPoll is as UDPConfig.BusyPoll.
	BusyPoll time.Duration
}

// IPConn is the raw IP transport: SCTP packets directly over IPv4 or
// IPv6 with protocol number 132, as on the wire between kernel stacks.
// The kernel writes the IP header; the SCTP checksum (CRC32c) is the
// caller's. Packet.Addr ports are 0.
//
// While an IPConn is open the kernel does not answer SCTP packets with
// ICMP protocol unreachable, even when it has no SCTP of its own. A
// kernel that has SCTP loaded also gets every packet and answers the ones
// that are out of the blue to it with ABORT: use raw IP in a network
// namespace, or on a host, without the kernel's sctp module.
type IPConn struct {
	c     sockConn
	local netip.AddrPort
	v6    bool
	b     batcher
	ect   bool // EnableECN set ECT(0) on the socket (ecn.go)
}

var _ Conn = (*IPConn)(nil)

// ListenIP opens a raw IP socket for SCTP. Without CAP_NET_RAW it fails
// with an error that matches both os.ErrPermission and ErrNeedRaw.
func ListenIP(cfg IPConfig) (*IPConn, error) {
	addr := cfg.Addr
	if !addr.IsValid() {
		addr = netip.IPv4Unspecified()
	}
	addr = addr.Unmap()
	network := "ip4:132"
	if addr.Is6() {
		network = "ip6:132"
	}
	c, err := net.ListenIP(network, &net.IPAddr{IP: addr.AsSlice(), Zone: addr.Zone()})
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("socket on %v: %w: %w", addr, ErrNeedRaw, err)
		}
		return nil, fmt.Errorf("socket on %v: %w", addr, err)
	}
	buf := cfg.SocketBuffer
	if buf == 0 {
		buf = 4 << 20
	}
	setBuffers(c, buf)
	ic := &IPConn{c: c, local: netip.AddrPortFrom(addr, 0), v6: addr.Is6()}
	if cfg.NoBatch {
		// IPConn.ReadFrom strips the IPv4 header, so the adapter fits.
		ic.b = single{NewAdapter(c, AdapterConfig{})}
	} else if ic.b, ic.c, err = newIPBatcher(c, ic.v6, cfg.DontFragment, cfg.Notices, addr.IsUnspecified(), pollBudget(cfg.BusyPoll)); err != nil {
		c.Close()
		return nil, err
	}
	return ic, nil
}

// ReadBatch implements Conn.
func (c *IPConn) ReadBatch(pkts []Packet) (int, error) { return c.b.readBatch(pkts) }

// WriteBatch implements Conn.
func (c *IPConn) WriteBatch(pkts []Packet) (int, error) { return c.b.writeBatch(pkts) }

// WriteFragmentable is WriteBatch with IP fragmentation allowed (see
// FragmentWriter).
func (c *IPConn) WriteFragmentable(pkts []Packet) (int, error) { return writeFragmentable(c.b, pkts) }

// SetReadDeadline implements Conn.
func (c *IPConn) SetReadDeadline(t time.Time) error {
	err := c.c.SetReadDeadline(t)
	c.b.interruptPoll()
	return err
}

// LocalAddr implements Conn: the bound address with port 0.
func (c *IPConn) LocalAddr() netip.AddrPort { return c.local }

// Overhead implements Conn: the IP header.
func (c *IPConn) Overhead(remote netip.Addr) int { return ipHeaderLen(remote) }

// Close implements Conn.
func (c *IPConn) Close() error {
	c.b.interruptPoll()
	return c.c.Close()
}

// Stats returns the socket's counters.
func (c *IPConn) Stats() Stats { return c.b.stats() }
