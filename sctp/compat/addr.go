package sctp

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	usctp "github.com/usctp/usctp/sctp"
)

// SCTPAddr is an SCTP endpoint address: one or more IP addresses (a
// multi-homed endpoint) and an SCTP port.
type SCTPAddr struct {
	IPAddrs []net.IPAddr
	Port    int
}

// Network returns "sctp".
func (a *SCTPAddr) Network() string { return "sctp" }

// String returns the addresses separated by "/", IPv6 ones in brackets,
// then ":" and the port: "10.0.0.1/10.0.0.2:38412", the form
// ResolveSCTPAddr reads.
func (a *SCTPAddr) String() string {
	var b strings.Builder
	for i, ip := range a.IPAddrs {
		if i > 0 {
			b.WriteByte('/')
		}
		if ip.IP.To4() == nil && ip.IP.To16() != nil {
			b.WriteByte('[')
			b.WriteString(ip.String())
			b.WriteByte(']')
		} else {
			b.WriteString(ip.String())
		}
	}
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(a.Port))
	return b.String()
}

// ResolveSCTPAddr parses addrs, "HOST:PORT" or several hosts separated by
// "/" before the port ("10.0.0.1/10.0.0.2:38412", "[::1]/[::2]:5000"),
// resolving host names, for network "sctp", "sctp4" or "sctp6" (or ""). An
// empty host gives no IP address (all of them when listening).
func ResolveSCTPAddr(network, addrs string) (*SCTPAddr, error) {
	var tcpnet string
	switch network {
	case "", "sctp":
		tcpnet = "tcp"
	case "sctp4":
		tcpnet = "tcp4"
	case "sctp6":
		tcpnet = "tcp6"
	default:
		return nil, fmt.Errorf("invalid net: %s", network)
	}
	parts := strings.Split(addrs, "/")
	a := &SCTPAddr{}
	for _, h := range parts[:len(parts)-1] {
		ta, err := net.ResolveTCPAddr(tcpnet, h+":")
		if err != nil {
			return nil, err
		}
		a.IPAddrs = append(a.IPAddrs, net.IPAddr{IP: ta.IP, Zone: ta.Zone})
	}
	ta, err := net.ResolveTCPAddr(tcpnet, parts[len(parts)-1])
	if err != nil {
		return nil, err
	}
	if ta.IP == nil {
		a.IPAddrs = nil // ":5000": every address
	} else {
		a.IPAddrs = append(a.IPAddrs, net.IPAddr{IP: ta.IP, Zone: ta.Zone})
	}
	a.Port = ta.Port
	return a, nil
}

// Linux's address family numbers, which ToRawSockAddrBuf writes whatever
// the system.
const (
	afInet  = 2
	afInet6 = 10
)

// ToRawSockAddrBuf returns the addresses as consecutive struct sockaddr_in
// and sockaddr_in6 of Linux (family in host byte order, port in network
// byte order), the packed array that sctp_bindx and sctp_connectx take;
// with no address, the IPv4 wildcard.
func (a *SCTPAddr) ToRawSockAddrBuf() []byte {
	ips := a.IPAddrs
	if len(ips) == 0 {
		ips = []net.IPAddr{{IP: net.IPv4zero}}
	}
	var buf []byte
	for _, ip := range ips {
		buf = appendSockaddr(buf, ip, uint16(a.Port))
	}
	return buf
}

// appendSockaddr appends ip and port as a Linux struct sockaddr_in (16
// bytes) or sockaddr_in6 (28 bytes).
func appendSockaddr(buf []byte, ip net.IPAddr, port uint16) []byte {
	b := ip.IP
	if len(b) == 0 {
		b = net.IPv4zero
	}
	if v4 := b.To4(); v4 != nil {
		buf = binary.NativeEndian.AppendUint16(buf, afInet)
		buf = binary.BigEndian.AppendUint16(buf, port)
		buf = append(buf, v4...)
		return append(buf, make([]byte, 8)...)
	}
	var scope uint32
	if ip.Zone != "" {
		if ifi, err := net.InterfaceByName(ip.Zone); err == nil {
			scope = uint32(ifi.Index)
		}
	}
	buf = binary.NativeEndian.AppendUint16(buf, afInet6)
	buf = binary.BigEndian.AppendUint16(buf, port)
	buf = append(buf, 0, 0, 0, 0) // flow info
	buf = append(buf, b.To16()...)
	return binary.NativeEndian.AppendUint32(buf, scope)
}

// netIPs returns a's addresses as netip.Addrs.
func (a *SCTPAddr) netIPs() ([]netip.Addr, error) {
	var ips []netip.Addr
	for _, ip := range a.IPAddrs {
		x, ok := netip.AddrFromSlice(ip.IP)
		if !ok {
			return nil, fmt.Errorf("sctp: bad IP address %v", ip.IP)
		}
		ips = append(ips, x.Unmap().WithZone(ip.Zone))
	}
	return ips, nil
}

// hostList is the host part of package usctp's address string for ips:
// one address, or several separated by commas (a multi-homed endpoint).
func hostList(ips []netip.Addr) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ",")
}

// usctpAddr returns package usctp's address syntax for host (a list of IP
// addresses separated by commas, as hostList makes it, or empty for the
// wildcard) and port: "IP,IP,...:PORT" with IPv6 addresses in brackets.
func usctpAddr(host string, port int) string {
	var b strings.Builder
	for i, h := range strings.Split(host, ",") {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		b.WriteString(h)
	}
	return b.String() + ":" + strconv.Itoa(port)
}

// fromAddrs converts package usctp's transport addresses (one SCTP port)
// to an SCTPAddr.
func fromAddrs(as []usctp.Addr) *SCTPAddr {
	a := &SCTPAddr{}
	for _, x := range as {
		a.IPAddrs = append(a.IPAddrs, net.IPAddr{IP: net.IP(x.IP.Unmap().AsSlice()), Zone: x.IP.Zone()})
		a.Port = int(x.Port)
	}
	return a
}
