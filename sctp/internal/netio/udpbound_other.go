//go:build !linux

package netio

import "net/netip"

// UDPBound returns how many UDP sockets are bound to exactly addr: it
// reports 0 outside Linux, where SO_REUSEPORT does not share a port.
func UDPBound(addr netip.AddrPort) (int, error) { return 0, nil }
