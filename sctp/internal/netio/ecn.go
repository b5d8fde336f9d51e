package netio

import "syscall"

// ECN codepoints of the IP header's ECN field (RFC 3168 section 5).
const (
	NotECT = 0 // not ECN-capable transport
	ECT1   = 1 // ECN-capable transport, ECT(1)
	ECT0   = 2 // ECN-capable transport, ECT(0)
	CE     = 3 // congestion experienced
)

// EnableECN makes the UDP or raw IP socket under c send every packet with
// ECT(0) in the IP header (IP_TOS, and IPV6_TCLASS on an IPv6 socket), as
// Linux's SCTP socket does (sctp_v4_ecn_capable, INET_ECN_xmit): the
// field is the socket's, not the packet's, so the batch sends and their
// GSO runs stay as they are. It also makes the batched reads report each
// packet's ECN field in Packet.ECN (IP_RECVTOS / IPV6_RECVTCLASS control
// messages; raw IPv4 reads take it from the IP header); call it before
// the first read. On a SharedConn it sets the shared socket when c's
// endpoint opened it (ECN marking is per socket, like Don't Fragment), and
// does nothing otherwise; OpenDualIP sets its sockets itself. Other conns
// are left alone (the simulated network carries Packet.ECN per packet);
// outside Linux it does nothing.
func EnableECN(c Conn) error {
	var (
		sc syscall.Conn
		b  batcher
	)
	switch c := c.(type) {
	case *UDPConn:
		sc, b = c.c, c.b
	case *IPConn:
		sc, b = c.c, c.b
	case *SharedConn:
		if !c.opener {
			return nil
		}
		return EnableECN(c.s.conn)
	default:
		return nil // DualIPConn: set as it opened, before its readers started
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	if err := setECT0(rc); err != nil {
		return err
	}
	switch c := c.(type) {
	case *UDPConn:
		c.ect = true
	case *IPConn:
		c.ect = true
	}
	return recvECN(b)
}

// ectAll reports whether EnableECN set ECT(0) on c's socket (both of a
// DualIPConn's), for the captures (captureConn records the field as the
// wire has it).
func ectAll(c Conn) bool {
	switch c := c.(type) {
	case *UDPConn:
		return c.ect
	case *IPConn:
		return c.ect
	case *SharedConn:
		return ectAll(c.s.conn)
	case *DualIPConn:
		return ectAll(c.c4) && ectAll(c.c6)
	}
	return false
}
