package sctp

import (
	"errors"
	"fmt"
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
// "[fd00::1],[fd00:1::1]:5000"; an empty HOST is one empty host.
func splitAddrList(s string) ([]string, uint16, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return nil, 0, fmt.Errorf("sctp: address %q: missing port", s)
	}
	p, err := strconv.ParseUint(s[i+1:], 10, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("sctp: address %q: bad port", s)
	}
	hosts := strings.Split(s[:i], ",")
	for j, h := range hosts {
		if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
			hosts[j] = h[1 : len(h)-1]
		} else if strings.ContainsAny(h, ":[]") {
			return nil, 0, fmt.Errorf("sctp: address %q: IPv6 addresses go in brackets", s)
		}
		if hosts[j] == "" && len(hosts) > 1 {
			return nil, 0, fmt.Errorf("sctp: address %q: empty address in the list", s)
		}
	}
	return hosts, uint16(p), nil
}

// parseIPs parses the IP addresses of an address list.
func parseIPs(hosts []string) ([]netip.Addr, error) {
	ips := make([]netip.Addr, len(hosts))
	for i, h := range hosts {
		ip, err := netip.ParseAddr(h)
		if err != nil {
			return nil, err
		}
		ips[i] = ip.Unmap()
	}
	return ips, nil
}

// peerAddrs checks a peer's addresses and port and pairs them.
func peerAddrs(ips []netip.Addr, port uint16) ([]netip.AddrPort, error) {
	if len(ips) == 0 {
		return nil, errors.New("sctp: dial: no peer address")
	}
	if port == 0 {
		return nil, errors.New("sctp: dial: SCTP port 0")
	}
	peers := make([]netip.AddrPort, 0, len(ips))
	for _, ip := range ips {
		ip = ip.Unmap()
		if !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast() {
			return nil, fmt.Errorf("sctp: dial: peer address %v: not a unicast address", ip)
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

// splitHostPort splits "HOST:PORT" into its host and port.
func splitHostPort(s string) (string, uint16, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, fmt.Errorf("sctp: address %q: %w", s, err)
	}
	p, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("sctp: address %q: bad port", s)
	}
	return host, uint16(p), nil
}
