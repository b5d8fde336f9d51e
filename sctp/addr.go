package sctp

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Addr is an SCTP transport address: an IP address and SCTP port, and the
// UDP encapsulation port when there is one. The same type names a peer
// address in paths (PathInfo) and in events (Event.Addr).
type Addr = api.Addr

// splitAddrList splits "HOST:PORT" or "IP,IP,...:PORT" into its hosts and
// port. IPv6 addresses go in brackets, "[::1]:5000" or
// "[fd00::1],[fd00:1::1]:5000"; an empty HOST is one empty host. Its
// errors are *net.AddrError, as package net's for the same faults.
func splitAddrList(s string) ([]string, uint16, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || strings.HasSuffix(s, "]") {
		return nil, 0, &net.AddrError{Err: "missing port in address", Addr: s}
	}
	p, err := strconv.ParseUint(s[i+1:], 10, 16)
	if err != nil {
		return nil, 0, &net.AddrError{Err: "invalid port", Addr: s}
	}
	hosts := strings.Split(s[:i], ",")
	for j, h := range hosts {
		if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
			hosts[j] = h[1 : len(h)-1]
		} else if strings.ContainsAny(h, ":[]") {
			return nil, 0, &net.AddrError{Err: "IPv6 addresses go in brackets", Addr: s}
		}
		if hosts[j] == "" && len(hosts) > 1 {
			return nil, 0, &net.AddrError{Err: "empty address in the list", Addr: s}
		}
	}
	return hosts, uint16(p), nil
}

// parseIPs parses the IP addresses of an address list (names are not
// resolved in a list).
func parseIPs(hosts []string) ([]netip.Addr, error) {
	ips := make([]netip.Addr, len(hosts))
	for i, h := range hosts {
		ip, err := netip.ParseAddr(h)
		if err != nil {
			return nil, &net.AddrError{Err: "not an IP address (a list of addresses takes IP addresses only)", Addr: h}
		}
		ips[i] = ip.Unmap()
	}
	return ips, nil
}

// resolveHost returns the IP address host names: host itself when it is
// one, else the first address the resolver gives for the name.
func resolveHost(ctx context.Context, host string) (netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap(), nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err // a *net.DNSError naming the host
	}
	if len(ips) == 0 {
		return netip.Addr{}, &net.AddrError{Err: "no suitable address found", Addr: host}
	}
	return ips[0].Unmap(), nil
}

// addrSpec is an address as Dial and Listen take it, parsed and resolved.
type addrSpec struct {
	ips     []netip.Addr // none: every address (Listen)
	port    uint16       // the SCTP port
	udpPort uint16       // the UDP encapsulation port the address names; 0: none
}

// cutUDPPort cuts the UDP encapsulation port off an address that names
// one, "HOST:PORT/udp:N" as Addr prints it, and returns the rest and N (0
// when there is none). Its errors are *net.AddrError.
func cutUDPPort(s string) (string, uint16, error) {
	rest, n, found := strings.Cut(s, "/udp:")
	if !found {
		return s, 0, nil
	}
	p, err := strconv.ParseUint(n, 10, 16)
	if err != nil || p == 0 {
		return "", 0, &net.AddrError{Err: "invalid UDP port", Addr: s}
	}
	return rest, uint16(p), nil
}

// parseAddr parses and resolves an address as Dial and Listen take it,
// "HOST:PORT" or "IP,IP,...:PORT", each with an optional "/udp:N" (the
// UDP encapsulation port): a host name is resolved once, here, to the
// first address the resolver gives; an empty host (Listen's every
// address) is no address. Its errors are *net.AddrError, or the
// resolver's *net.DNSError.
func parseAddr(ctx context.Context, s string) (addrSpec, error) {
	rest, udpPort, err := cutUDPPort(s)
	if err != nil {
		return addrSpec{}, err
	}
	hosts, port, err := splitAddrList(rest)
	if err != nil {
		return addrSpec{}, err
	}
	if port == 0 {
		return addrSpec{}, &net.AddrError{Err: "SCTP port 0", Addr: s}
	}
	a := addrSpec{port: port, udpPort: udpPort}
	if len(hosts) > 1 {
		a.ips, err = parseIPs(hosts)
		return a, err
	}
	if hosts[0] == "" {
		return a, nil
	}
	ip, err := resolveHost(ctx, hosts[0])
	if err != nil {
		return addrSpec{}, err
	}
	a.ips = []netip.Addr{ip}
	return a, nil
}

// peerAddrs checks a peer's addresses and port and pairs them.
func peerAddrs(ips []netip.Addr, port uint16) ([]netip.AddrPort, error) {
	if len(ips) == 0 {
		return nil, &net.AddrError{Err: "no peer address", Addr: opAddr(nil, port).String()}
	}
	if port == 0 {
		return nil, &net.AddrError{Err: "SCTP port 0", Addr: opAddr(ips, port).String()}
	}
	peers := make([]netip.AddrPort, 0, len(ips))
	for _, ip := range ips {
		ip = ip.Unmap()
		if !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast() {
			return nil, &net.AddrError{Err: "not a unicast address", Addr: ip.String()}
		}
		if ap := netip.AddrPortFrom(ip, port); !slices.Contains(peers, ap) {
			peers = append(peers, ap)
		}
	}
	return peers, nil
}

// familyWildcard returns the unspecified address that covers ips: IPv4's
// when all are IPv4, else IPv6's (dual-stack for UDP).
func familyWildcard(ips []netip.Addr) netip.Addr {
	for _, ip := range ips {
		if ip = ip.Unmap(); ip.Is6() {
			return netip.IPv6Unspecified()
		}
	}
	return netip.IPv4Unspecified()
}

// opAddr returns the address of a Dial or Listen error (net.OpError.Addr):
// an Addr for one IP address, else an addrList.
func opAddr(ips []netip.Addr, port uint16) net.Addr {
	if len(ips) == 1 && ips[0].IsValid() {
		return Addr{IP: ips[0], Port: port}
	}
	return addrList{ips: ips, port: port}
}

// addrList is the address of an operation on several IP addresses, or on
// none (a listener on every address), written as Dial and Listen take it:
// "IP,IP,...:PORT", ":PORT".
type addrList struct {
	ips  []netip.Addr
	port uint16
}

// Network returns "sctp".
func (a addrList) Network() string { return "sctp" }

// String returns "IP,IP,...:PORT", IPv6 addresses in brackets.
func (a addrList) String() string {
	var b strings.Builder
	for i, ip := range a.ips {
		if i > 0 {
			b.WriteByte(',')
		}
		if ip.Is6() {
			b.WriteString("[" + ip.String() + "]")
		} else {
			b.WriteString(ip.String())
		}
	}
	return b.String() + ":" + strconv.Itoa(int(a.port))
}
